package fault

import (
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// TestMeasure: a fault from t=4.5 to 5.7 s whose ISR was full again 0.5 s later, in a run
// with 2 s of warm-up and a 6 s window, overlaps the seconds ending at 5, 6 (the fault) and 7
// (its recovery); the window's other seconds (ending at 3, 4 and 8) are outside. Each second's
// publish latency is its t in seconds x 100 ms, so the merged histograms say which seconds were
// taken. The same holds of a timeline spilled but for its latest 3 seconds, whose spilled
// seconds are marked as they are read back, every time.
func TestMeasure(t *testing.T) {
	for _, keep := range []int{0, 3} {
		r := &loadgen.Result{Window: loadgen.Window{WarmupSeconds: 2, MeasuredSeconds: 6}}
		if keep > 0 {
			r.Timeline.SpillTo(t.TempDir(), keep)
			defer r.Timeline.Close()
		}
		for sec := 1; sec <= 10; sec++ {
			if err := r.Timeline.Add(loadgen.Second{T: float64(sec), ProducedMsgsPerSec: float64(100 * sec), Failed: int64(sec), Errors: 1}); err != nil {
				t.Fatal(err)
			}
			h := hdr.New()
			h.Record(int64(sec) * int64(100*time.Millisecond))
			if err := r.Intervals.Add("publish", int64(sec-1)*1000, int64(sec)*1000, h); err != nil {
				t.Fatal(err)
			}
		}
		if keep > 0 && r.Timeline.Spilled() != 10-keep {
			t.Fatalf("%d seconds spilled, want %d", r.Timeline.Spilled(), 10-keep)
		}
		rec := 0.5
		ws := []Window{{Spec: "kill 2 at 2.5s for 1.2s", Began: time.Unix(1, 0), BeganT: 4.5, EndedT: 5.7, RecoverySeconds: &rec}}
		Measure(ws, r)
		d, o := ws[0].During, ws[0].Outside
		if d.Seconds != 3 || d.ProduceFailed != 5+6+7 || d.Errors != 3 || d.ProducedMsgsPerSec != 600 {
			t.Errorf("keep %d: during %+v; want the seconds ending at 5, 6, 7", keep, d)
		}
		if o.Seconds != 3 || o.ProduceFailed != 3+4+8 || o.ProducedMsgsPerSec != 500 {
			t.Errorf("keep %d: outside %+v; want the seconds ending at 3, 4, 8", keep, o)
		}
		if d.Publish.Count != 3 || d.Publish.Max < 699 || d.Publish.Max > 701 || o.Publish.Max < 799 || o.Publish.Max > 801 || o.Publish.Count != 3 {
			t.Errorf("keep %d: publish during %+v, outside %+v; want maxima 700 and 800 ms of 3 each", keep, d.Publish, o.Publish)
		}
		for range 2 { // read twice: a spilled second is marked on each read
			for s := range r.Timeline.All() {
				want := map[float64]string{5: ws[0].Spec, 6: ws[0].Spec, 7: ws[0].Spec + " (recovering)"}[s.T]
				if s.Fault != want {
					t.Errorf("keep %d: second t=%v marked %q, want %q", keep, s.T, s.Fault, want)
				}
			}
		}
	}
}
