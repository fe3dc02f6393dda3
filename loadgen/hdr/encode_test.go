package hdr

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// sample records a spread of latencies, a slow tail and two values beyond the hour.
func sample(seed int64) *Hist {
	h := New()
	for i := range int64(5000) {
		h.Record((i*7919 + seed) % 250_000 * int64(time.Microsecond))
	}
	h.Record(int64(90 * time.Minute))
	h.Record(int64(2*time.Hour) + seed)
	return h
}

func TestEncodedRoundTripIsExact(t *testing.T) {
	for name, h := range map[string]*Hist{"sample": sample(1), "empty": New()} {
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got Hist
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		if got.Percentiles() != h.Percentiles() || got.MaxNs() != h.MaxNs() || got.Overflow() != h.Overflow() {
			t.Errorf("%s: decoded %+v (max %d ns)\n want %+v (max %d ns)", name, got.Percentiles(), got.MaxNs(), h.Percentiles(), h.MaxNs())
		}
		if !got.HDR().Equals(h.HDR()) {
			t.Errorf("%s: the decoded HDR histogram differs from the encoded one", name)
		}
	}
}

// TestEncodedMergeIsExact: histograms stored apart and merged after decoding give what merging
// the originals gives, bucket for bucket.
func TestEncodedMergeIsExact(t *testing.T) {
	a, b := sample(1), sample(2)
	want := New()
	want.Merge(a)
	want.Merge(b)
	got := New()
	for _, h := range []*Hist{a, b} {
		e, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		got.Merge(d)
	}
	if got.Percentiles() != want.Percentiles() || !got.HDR().Equals(want.HDR()) || got.Overflow() != 4 {
		t.Errorf("merged after decoding %+v\n want %+v", got.Percentiles(), want.Percentiles())
	}
}

func TestDecodeRefuses(t *testing.T) {
	other := hdrhistogram.New(1, 1000, 2)
	other.RecordValue(5)
	otherEnc, _ := other.EncodeV2()
	good, _ := sample(1).Encode()
	for _, tc := range []struct {
		name string
		e    Encoded
	}{
		{"another geometry", Encoded{HDR: string(otherEnc)}},
		{"not base64", Encoded{HDR: "not a histogram"}},
		{"empty", Encoded{}},
		{"negative overflow", Encoded{HDR: good.HDR, Overflow: -1, MaxNs: good.MaxNs}},
		{"overflow below the hour", Encoded{HDR: good.HDR, Overflow: 2, MaxNs: int64(time.Second)}},
	} {
		if _, err := Decode(tc.e); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err = %v, want ErrEncoding", tc.name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := sample(3).Encode()
	f.Add(good.HDR, good.Overflow, good.MaxNs)
	f.Add("", int64(0), int64(0))
	f.Add("HISTFAAAAB94nJNpmSzMwMDAzAABMJoRTAIAGVgBCQ==", int64(1), int64(-1))
	f.Fuzz(func(t *testing.T, s string, overflow, maxNs int64) {
		h, err := Decode(Encoded{HDR: s, Overflow: overflow, MaxNs: maxNs})
		if err != nil {
			return
		}
		// Whatever decodes encodes again to a histogram with the same contents.
		e, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(e)
		if err != nil || !again.HDR().Equals(h.HDR()) || again.Overflow() != h.Overflow() || again.MaxNs() != h.MaxNs() {
			t.Fatalf("re-encoding changed the histogram: %v", err)
		}
	})
}
