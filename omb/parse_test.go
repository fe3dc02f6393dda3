package omb

import (
	"cmp"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseRoundTrip reads the exported golden file back into the same Result.
func TestParseRoundTrip(t *testing.T) {
	f, b := exported(t)
	if !Looks(b) {
		t.Fatal("Looks: the export is not taken for an OMB file")
	}
	r, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, f.Result) {
		t.Errorf("read back %+v\nwant %+v", r, f.Result)
	}
}

func TestParseRefuses(t *testing.T) {
	plimsoll, err := os.ReadFile("testdata/run/result.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, in, want string }{
		{"plimsoll's result.json", string(plimsoll), `no "workload" field`},
		{"not JSON", "workload: x", "invalid character"},
		{"an array", "[1]", "cannot unmarshal array"},
		{"a field missing", `{"workload":"w","driver":"d","publishRate":[],"consumeRate":[],"publishLatency99pct":[],"aggregatedPublishLatency99pct":1}`, `no "endToEndLatency99pct" field`},
		{"a null series", ombJSON(`"publishRate":null`), `no "publishRate" field`},
		{"a string rate", ombJSON(`"publishRate":["1"]`), `field "publishRate" holds a JSON string`},
		{"a fractional backlog", ombJSON(`"backlog":[1.5]`), `field "backlog" holds a JSON number`},
		{"series of different lengths", ombJSON(`"consumeRate":[1,2,3]`), "consumeRate has 3 windows, publishRate 2"},
		{"a negative latency", ombJSON(`"publishLatency99pct":[1,-2]`), "publishLatency99pct[1] is -2"},
		{"a quantile key not a number", ombJSON(`"aggregatedPublishLatencyQuantiles":{"p50":1}`), `quantile key "p50" is not a number`},
		{"a percentile above 100", ombJSON(`"aggregatedEndToEndLatencyQuantiles":{"101.0":1}`), "at percentile 101"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in))
			if !errors.Is(err, ErrNotOMB) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse: %v, want ErrNotOMB containing %q", err, c.want)
			}
		})
	}
}

// ombJSON is a small valid OMB file of two windows with the field given replaced or added.
func ombJSON(field string) string {
	base := map[string]string{
		`"workload"`: `"w"`, `"driver"`: `"Kafka"`, `"publishRate"`: `[1000,1001]`, `"consumeRate"`: `[1000,1000]`,
		`"publishLatency99pct"`: `[2.5,3]`, `"aggregatedPublishLatency99pct"`: `2.8`, `"endToEndLatency99pct"`: `[4,5]`,
	}
	k, v, _ := strings.Cut(field, ":")
	base[k] = v
	var parts []string
	for k, v := range base {
		parts = append(parts, k+":"+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func FuzzParse(f *testing.F) {
	f.Add(trimmedGolden(f, 8))
	f.Add([]byte(ombJSON(`"backlog":[0,5]`)))
	f.Add([]byte(ombJSON(`"aggregatedPublishLatencyQuantiles":{"50.0":1.5,"99.0":3}`)))
	f.Add([]byte(`{"workload":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrNotOMB) {
				t.Fatalf("an error not wrapping ErrNotOMB: %v", err)
			}
			return
		}
		if !Looks(data) {
			t.Fatal("Parse accepted what Looks refuses")
		}
		// What Parse accepts, a reader can use: series as long as publishRate, and it
		// writes back to a file Parse accepts again.
		if n := len(r.PublishRate); len(r.ConsumeRate) != n && len(r.ConsumeRate) != 0 {
			t.Fatalf("consumeRate %d windows, publishRate %d", len(r.ConsumeRate), n)
		}
		b, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(b); err != nil {
			t.Fatalf("written back, refused: %v", err)
		}
	})
}

// trimmedGolden is the exported golden file with each quantile map cut to its first n
// percentiles: a seed of a real export's shape. Whole, its 1,300-1,600 percentiles a map
// (115 KB) made FuzzParse's 1,000 inputs take 39 s in make test, against 0.1-5.5 s for the other
// fuzz tests; what Parse checks in a map is the same for 8 entries as for 1,600.
func trimmedGolden(tb testing.TB, n int) []byte {
	tb.Helper()
	golden, err := os.ReadFile("testdata/run.omb.golden.json")
	if err != nil {
		tb.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(golden, &fields); err != nil {
		tb.Fatal(err)
	}
	for name, v := range fields {
		m, ok := v.(map[string]any)
		if !ok || len(m) <= n {
			continue
		}
		keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Compare(percentile(tb, a), percentile(tb, b)) })
		kept := make(map[string]any, n)
		for _, k := range keys[:n] {
			kept[k] = m[k]
		}
		fields[name] = kept
	}
	b, err := json.Marshal(fields)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func percentile(tb testing.TB, key string) float64 {
	tb.Helper()
	p, err := strconv.ParseFloat(key, 64)
	if err != nil {
		tb.Fatalf("quantile key %q: %v", key, err)
	}
	return p
}

// TestTrimmedGolden: the fuzz seed cut from the golden file is still a file Parse accepts.
func TestTrimmedGolden(t *testing.T) {
	b := trimmedGolden(t, 8)
	r, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 20000 || len(r.PublishRate) != 3 {
		t.Errorf("seed of %d bytes with %d windows: want a few KB and the golden's 3 windows", len(b), len(r.PublishRate))
	}
}
