package results

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
)

// oldFiles holds what plimsoll at 1774dcd (its timeline a []Second, encoded whole) wrote of a
// real recorded run (omb/testdata/run/result.json, 49 seconds) with three seconds marked by a
// fault whose spec holds characters JSON escapes as HTML (markFault): result.json and
// timeline.csv (WriteTrialDir) and the record's line in results.jsonl (Writer.Append at
// 2026-11-27T01:00:00Z). Since then the verdict's criteria gained host_squeeze_share, which
// the recorded run's verdict decodes as 0: the files hold that field and are otherwise as
// 1774dcd wrote them.
var oldFiles = filepath.Join("testdata", "timeline-1774dcd")

// markFault marks the seconds at indices 10-12 of rows as fault.Measure would.
func markFault(rows []loadgen.Second) func(*loadgen.Second) {
	specs := map[float64]string{rows[10].T: "kill 2 at 8s for 3s <&>", rows[11].T: "kill 2 at 8s for 3s <&>",
		rows[12].T: "kill 2 at 8s for 3s <&> (recovering)"}
	return func(s *loadgen.Second) { s.Fault = specs[s.T] }
}

// TestTimelineWrittenAsBefore: a trial's timeline held in memory, or spilled but for its
// latest 5 seconds and marked after spilling, writes result.json, timeline.csv and its
// results.jsonl line byte for byte as plimsoll wrote them when the timeline was a slice
// (oldFiles), and the result.json written loads back with every second.
func TestTimelineWrittenAsBefore(t *testing.T) {
	rec, err := LoadTrialDir(filepath.Join("..", "omb", "testdata", "run"))
	if err != nil {
		t.Fatal(err)
	}
	rows := slices.Collect(rec.Timeline.All())
	mark := markFault(rows)
	for _, tc := range []struct {
		name    string
		keep    int
		spilled int
	}{{"in memory", 0, 0}, {"spilled", 5, len(rows) - 5}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := *rec
			tr.Timeline = loadgen.TimelineOf()
			if tc.keep > 0 {
				tr.Timeline.SpillTo(t.TempDir(), tc.keep)
			}
			for _, s := range rows {
				if err := tr.Timeline.Add(s); err != nil {
					t.Fatal(err)
				}
			}
			if tr.Timeline.Spilled() != tc.spilled {
				t.Fatalf("%d seconds spilled, want %d", tr.Timeline.Spilled(), tc.spilled)
			}
			tr.Timeline.Edit(mark)
			defer tr.Close()
			dir := t.TempDir()
			if err := WriteTrialDir(dir, &tr); err != nil {
				t.Fatal(err)
			}
			w, err := Open(filepath.Join(dir, "results.jsonl"), WithClock(func() time.Time { return time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC) }))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Append("trial", "t1", &tr); err != nil {
				t.Fatal(err)
			}
			w.Close()
			for _, name := range []string{ResultFile, TimelineFile, "results.jsonl"} {
				got, _ := os.ReadFile(filepath.Join(dir, name))
				want, err := os.ReadFile(filepath.Join(oldFiles, name))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes unlike the %d written before (%v)", name, len(got), len(want), err)
				}
			}
			back, err := LoadTrialDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			marked := slices.Clone(rows)
			for i := range marked {
				mark(&marked[i])
			}
			if got := slices.Collect(back.Timeline.All()); !reflect.DeepEqual(got, marked) {
				t.Errorf("result.json loads %d seconds back, not the %d written", len(got), len(marked))
			}
		})
	}
}
