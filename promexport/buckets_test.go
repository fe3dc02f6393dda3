package promexport

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// TestBounds: 0.1 ms to 60 s, increasing, each printed as written (the le label).
func TestBounds(t *testing.T) {
	if len(Bounds) != 35 || Bounds[0] != 0.0001 || Bounds[len(Bounds)-1] != 60 || !sort.Float64sAreSorted(Bounds) {
		t.Fatalf("bounds %v", Bounds)
	}
	for _, b := range Bounds {
		s := strconv.FormatFloat(b, 'f', -1, 64)
		if digits := strings.TrimLeft(strings.Replace(s, ".", "", 1), "0"); len(digits) > 2 {
			t.Errorf("bound %s is not a short decimal", s)
		}
	}
	for i := 1; i < len(Bounds); i++ {
		if r := Bounds[i] / Bounds[i-1]; r > 5.0/3+1e-9 && Bounds[i] < 60 {
			t.Errorf("bounds %v and %v differ by %.2fx", Bounds[i-1], Bounds[i], r)
		}
	}
}

// TestBucketsFromHDR: values further from every bound than an HDR bucket's width (0.1%) and the
// microsecond the histograms truncate to land in the buckets direct counting gives; an overflow
// lands above the last bound.
func TestBucketsFromHDR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := hdr.New()
	want := make([]uint64, len(Bounds)+1)
	for n := 0; n < 20000; {
		v := time.Duration(rng.ExpFloat64() * float64(20*time.Millisecond))
		if v > 70*time.Second {
			continue
		}
		i := sort.SearchFloat64s(Bounds, v.Seconds())
		near := func(b float64) bool { return math.Abs(v.Seconds()-b) < max(b*0.002, 2e-6) }
		if (i < len(Bounds) && near(Bounds[i])) || (i > 0 && near(Bounds[i-1])) {
			continue
		}
		h.Record(int64(v))
		want[i]++
		n++
	}
	h.Record(int64(2 * time.Hour))
	want[len(Bounds)]++
	b := newBuckets()
	b.addHDR(h)
	for i, n := range b.counts {
		if n != want[i] {
			t.Errorf("bucket le=%v holds %d, want %d", Bounds[i], n, want[i])
		}
	}
	if b.above != want[len(Bounds)] || b.count != 20001 {
		t.Errorf("above %d, count %d; want %d and 20001", b.above, b.count, want[len(Bounds)])
	}
}

// TestBucketEdges: below 2.048 ms an HDR bucket is one microsecond wide, so a bound's own value
// counts at or below it; above, a bucket straddling a bound counts above it, as the highest
// value HDR's percentiles report of it does.
func TestBucketEdges(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want float64 // the bucket's le
	}{{1, 0.001}, {1.002, 0.0015}, {0.7, 0.0007}, {5, 0.007}, {4.99, 0.005}, {100, 0.15}, {99.9, 0.1}} {
		b := newBuckets()
		b.addHDR(hist(c.ms))
		i := sort.SearchFloat64s(Bounds, c.want)
		if b.counts[i] != 1 {
			t.Errorf("%v ms: buckets %v, want it in le=%v", c.ms, b.counts, c.want)
		}
	}
}
