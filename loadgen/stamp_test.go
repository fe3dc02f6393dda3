package loadgen

import (
	"errors"
	"math"
	"testing"
)

func TestStampRoundTrip(t *testing.T) {
	for _, st := range []Stamp{
		{},
		{Producer: 1, Seq: 2, Intended: 3},
		{Producer: math.MaxUint32, Seq: math.MaxUint64, Intended: math.MaxInt64},
		{Producer: 7, Seq: 1 << 40, Intended: -5}, // a negative time survives the trip
	} {
		buf := make([]byte, 100)
		for i := range buf {
			buf[i] = 0xAA
		}
		st.Encode(buf)
		got, err := DecodeStamp(buf)
		if err != nil || got != st {
			t.Errorf("DecodeStamp(Encode(%+v)) = %+v, %v", st, got, err)
		}
		if buf[StampSize] != 0xAA {
			t.Errorf("Encode wrote past the stamp")
		}
	}
}

func TestDecodeStampRejects(t *testing.T) {
	good := make([]byte, StampSize)
	Stamp{Producer: 1, Seq: 1, Intended: 1}.Encode(good)
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrStampShort},
		{"short", good[:StampSize-1], ErrStampShort},
		{"magic", append([]byte{'X'}, good[1:]...), ErrStampMagic},
		{"magic2", append([]byte{'P', 'X'}, good[2:]...), ErrStampMagic},
		{"version", append([]byte{'P', 'L', 9}, good[3:]...), ErrStampVersion},
	} {
		if _, err := DecodeStamp(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzDecodeStamp(f *testing.F) {
	good := make([]byte, StampSize+8)
	Stamp{Producer: 3, Seq: 99, Intended: 12345}.Encode(good)
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte("PL\x01\x00short"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := DecodeStamp(b)
		if err != nil {
			if st != (Stamp{}) {
				t.Fatalf("error %v with a non-zero stamp %+v", err, st)
			}
			return
		}
		// Whatever decodes must encode back to the same first bytes (flags byte aside).
		out := make([]byte, StampSize)
		st.Encode(out)
		for i := range StampSize {
			if i != 3 && out[i] != b[i] {
				t.Fatalf("byte %d: re-encoded %x, input %x", i, out[i], b[i])
			}
		}
	})
}

func BenchmarkStampEncode(b *testing.B) {
	buf := make([]byte, 100)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Stamp{Producer: 1, Seq: uint64(i), Intended: int64(i)}.Encode(buf)
	}
}

func BenchmarkStampDecode(b *testing.B) {
	buf := make([]byte, 100)
	Stamp{Producer: 1, Seq: 2, Intended: 3}.Encode(buf)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeStamp(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStampLane: the lean producer's session goes into the stamp's flags (markLane) and comes
// back as its Lane, the rest of the stamp untouched; a value without a stamp is left alone.
func TestStampLane(t *testing.T) {
	v := make([]byte, 40)
	want := Stamp{Producer: 3, Seq: 1 << 40, Intended: 12345}
	want.Encode(v)
	for _, lane := range []int{5, 15, 0} {
		markLane(v, lane)
		got, err := DecodeStamp(v)
		want.Lane = uint8(lane)
		if err != nil || got != want {
			t.Errorf("lane %d: decoded %+v, %v; want %+v", lane, got, err, want)
		}
	}
	plain := []byte("not a stamped value, long enough anyway")
	before := string(plain)
	markLane(plain, 6)
	if string(plain) != before {
		t.Errorf("markLane changed a value without a stamp: %q", plain)
	}
}
