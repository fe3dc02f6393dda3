package fault

import (
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// TestMeasure: a fault from t=4.5 to 5.7 s whose ISR was full again 0.5 s later, in a run
// with 2 s of warm-up and a 6 s window, overlaps the seconds ending at 5, 6 (the fault) and 7
// (its recovery); the window's other seconds (ending at 3, 4 and 8) are outside. Each second's publish latency is its t in seconds x 100 ms, so the merged
// histograms say which seconds were taken.
func TestMeasure(t *testing.T) {
	r := &loadgen.Result{Window: loadgen.Window{WarmupSeconds: 2, MeasuredSeconds: 6}}
	for sec := 1; sec <= 10; sec++ {
		r.Timeline = append(r.Timeline, loadgen.Second{T: float64(sec), ProducedMsgsPerSec: float64(100 * sec), Failed: int64(sec), Errors: 1})
		h := hdr.New()
		h.Record(int64(sec) * int64(100*time.Millisecond))
		if err := r.Intervals.Add("publish", int64(sec-1)*1000, int64(sec)*1000, h); err != nil {
			t.Fatal(err)
		}
	}
	rec := 0.5
	ws := []Window{{Spec: "kill 2 at 2.5s for 1.2s", Began: time.Unix(1, 0), BeganT: 4.5, EndedT: 5.7, RecoverySeconds: &rec}}
	Measure(ws, r)
	d, o := ws[0].During, ws[0].Outside
	if d.Seconds != 3 || d.ProduceFailed != 5+6+7 || d.Errors != 3 || d.ProducedMsgsPerSec != 600 {
		t.Errorf("during %+v; want the seconds ending at 5, 6, 7", d)
	}
	if o.Seconds != 3 || o.ProduceFailed != 3+4+8 || o.ProducedMsgsPerSec != 500 {
		t.Errorf("outside %+v; want the seconds ending at 3, 4, 8", o)
	}
	if d.Publish.Count != 3 || d.Publish.Max < 699 || d.Publish.Max > 701 || o.Publish.Max < 799 || o.Publish.Max > 801 || o.Publish.Count != 3 {
		t.Errorf("publish during %+v, outside %+v; want maxima 700 and 800 ms of 3 each", d.Publish, o.Publish)
	}
	for _, s := range r.Timeline {
		want := map[float64]string{5: ws[0].Spec, 6: ws[0].Spec, 7: ws[0].Spec + " (recovering)"}[s.T]
		if s.Fault != want {
			t.Errorf("second t=%v marked %q, want %q", s.T, s.Fault, want)
		}
	}
}
