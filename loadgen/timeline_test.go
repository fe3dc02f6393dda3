package loadgen

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/internal/memtest"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// recordedRows are the 49 seconds of a real run's timeline (omb/testdata/run/result.json), three
// of them marked with a fault whose spec holds characters JSON escapes as HTML.
func recordedRows(t testing.TB) []Second {
	data, err := os.ReadFile(filepath.Join("..", "omb", "testdata", "run", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Timeline []Second `json:"timeline"`
	}
	if err := json.Unmarshal(data, &r); err != nil || len(r.Timeline) != 49 {
		t.Fatalf("%d seconds read (%v), want 49", len(r.Timeline), err)
	}
	for i := 10; i <= 12; i++ {
		r.Timeline[i].Fault = "kill 2 at 8s for 3s <&>"
	}
	return r.Timeline
}

// spilledTimeline is a timeline of rows spilling all but its latest keep to a file in dir.
func spilledTimeline(t testing.TB, dir string, keep int, rows []Second) *Timeline {
	tl := &Timeline{}
	tl.SpillTo(dir, keep)
	for _, s := range rows {
		if err := tl.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { tl.Close() })
	return tl
}

// TestTimelineJSON: a timeline in a record encodes as the slice of its rows did, in memory or
// spilled, with and without indentation, with and without HTML escaping (result.json's
// MarshalIndent, results.jsonl's encoder), nil and empty alike; and it decodes back.
func TestTimelineJSON(t *testing.T) {
	type oldRecord struct {
		A        string   `json:"a"`
		Timeline []Second `json:"timeline"`
		B        int      `json:"b"`
	}
	type newRecord struct {
		A        string   `json:"a"`
		Timeline Timeline `json:"timeline"`
		B        int      `json:"b"`
	}
	rows := recordedRows(t)
	encoders := map[string]func(v any) ([]byte, error){
		"marshal": json.Marshal,
		"indent":  func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") },
		"no html escaping": func(v any) ([]byte, error) {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			err := enc.Encode(v)
			return b.Bytes(), err
		},
	}
	for _, tc := range []struct {
		name string
		rows []Second
		tl   Timeline
	}{
		{"nil", nil, Timeline{}},
		{"empty", []Second{}, TimelineOf([]Second{}...)},
		{"in memory", rows, TimelineOf(rows...)},
		{"spilled", rows, *spilledTimeline(t, t.TempDir(), 5, rows)},
	} {
		for name, enc := range encoders {
			want, err := enc(oldRecord{A: "<a>", Timeline: tc.rows, B: 1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc(newRecord{A: "<a>", Timeline: tc.tl, B: 1})
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %s: %d bytes (%v) unlike the slice's %d", tc.name, name, len(got), err, len(want))
			}
			var back newRecord
			if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(slices.Collect(back.Timeline.All()), slices.Collect(tc.tl.All())) {
				t.Errorf("%s, %s: decoded %d rows (%v), want %d", tc.name, name, back.Timeline.Len(), err, tc.tl.Len())
			}
		}
	}
}

// TestTimelineSpill: a spilled timeline yields its rows in order, writes timeline.csv as the
// same rows held in memory do, applies an edit to its spilled rows as they are read back and
// leaves nothing in its directory.
func TestTimelineSpill(t *testing.T) {
	rows := recordedRows(t)
	dir := t.TempDir()
	sp := spilledTimeline(t, dir, 5, rows)
	mem := TimelineOf(slices.Clone(rows)...)
	if sp.Spilled() != len(rows)-5 || sp.Len() != len(rows) || !reflect.DeepEqual(slices.Collect(sp.All()), rows) {
		t.Fatalf("%d of %d rows spilled, %d yielded: want %d of %d, the same rows", sp.Spilled(), sp.Len(), len(slices.Collect(sp.All())), len(rows)-5, len(rows))
	}
	double := func(s *Second) { s.BacklogMsgs = 2*s.BacklogMsgs + 1 }
	sp.Edit(double)
	mem.Edit(double)
	var got, want bytes.Buffer
	if err := (&Result{Timeline: *sp}).WriteTimelineCSV(&got); err != nil {
		t.Fatal(err)
	}
	if err := (&Result{Timeline: mem}).WriteTimelineCSV(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) || !strings.Contains(want.String(), "kill 2 at 8s for 3s <&>") {
		t.Errorf("spilled timeline.csv, %d bytes, unlike the %d of the rows in memory", got.Len(), want.Len())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spill shows in its directory: %v", left)
	}
}

// TestTimelineSpillFails: a collector whose timeline and interval log cannot spill (no file
// can be made in /proc) holds every row and interval and notes each failure once in the result.
func TestTimelineSpillFails(t *testing.T) {
	p := testProducer(t, 16)
	g := &group{name: "g", ledger: ledger.NewGroup(2, 1)}
	col := newCollector(p.run, []*producer{p}, nil, []*group{g}, 100, 1000, 0)
	col.timeline.SpillTo("/proc", 2)
	col.log.SpillDir, col.log.SpillKeep = "/proc", 2
	for sec := int64(1); sec <= 6; sec++ {
		p.pub[phaseMeasured].Record(int64(time.Millisecond))
		col.tick(sec*int64(time.Second), PhaseMeasure)
	}
	res := &Result{}
	fillLatency(res, col)
	if res.Timeline.Len() != 6 || res.Timeline.Spilled() != 0 || res.Intervals.Len() != 6 || len(res.Notes) != 2 ||
		!strings.HasPrefix(res.Notes[0], "timeline: ") || !strings.HasPrefix(res.Notes[1], "interval log: ") ||
		!strings.Contains(res.Notes[0], "held in memory") || !strings.Contains(res.Notes[1], "held in memory") {
		t.Errorf("%d rows, %d spilled, %d intervals, notes %q: want 6 rows and 6 intervals held and a note of each spill",
			res.Timeline.Len(), res.Timeline.Spilled(), res.Intervals.Len(), res.Notes)
	}
}

// TestTimelineSoak: six simulated hours of one second a second closed by the collector (tick,
// the run's per-second path) with the timeline spilling as a run with Options.SpillDir does:
// it holds its latest DefaultSpillKeep rows and the live heap after a collection is flat from
// the first hour to the sixth, where the same first hour held in memory grows it by about
// 1 MB (checked, so that the flat figure is not an accident of the rows' size). Measured on
// the shared 2-core machine, six runs of `go test -run TimelineSoak -count 1 -v ./loadgen`:
// an hour in memory 1,073,152 B (3,600 rows of 240 B in a slice grown to 4,471); spilled, from
// the first hour to the sixth, between -1,176 and +5,760 B.
func TestTimelineSoak(t *testing.T) {
	const hours = 6
	p := testProducer(t, 16)
	g := &group{name: "g", ledger: ledger.NewGroup(2, 1)}
	sec := int64(0)
	hour := func(col *collector) {
		for range 3600 {
			sec++
			p.ackedAll.Add(1000)
			p.sentAll.Add(1000)
			col.tick(sec*int64(time.Second), PhaseMeasure)
		}
	}
	mem := newCollector(p.run, []*producer{p}, nil, []*group{g}, 100, 1000, 0)
	before := memtest.LiveHeap()
	hour(mem)
	grownMem := memtest.LiveHeap() - before
	if grownMem < 700<<10 {
		t.Fatalf("an hour held in memory grew the heap by %d bytes only", grownMem)
	}
	runtime.KeepAlive(mem)
	mem = nil
	col := newCollector(p.run, []*producer{p}, nil, []*group{g}, 100, 1000, 0)
	col.timeline.SpillTo(t.TempDir(), 0)
	defer col.timeline.Close()
	var first int64
	for h := range hours {
		hour(col)
		if h == 0 {
			first = memtest.LiveHeap()
		}
	}
	grown := memtest.LiveHeap() - first
	t.Logf("an hour in memory: %d B of live heap; spilled, from the first hour to the sixth: %d B", grownMem, grown)
	if col.timeline.Len() != hours*3600 || len(col.timeline.rows.Held) != DefaultSpillKeep || col.timelineErr != nil || grown > 256<<10 {
		t.Errorf("%d rows, %d held (want %d), spill error %v, the live heap grew %d bytes from the first hour to the sixth",
			col.timeline.Len(), len(col.timeline.rows.Held), DefaultSpillKeep, col.timelineErr, grown)
	}
}

// BenchmarkTimeline: append is the per-second path's cost of a row once the timeline spills
// (encoding the oldest row held, one write); write-csv and write-json write an hour of spilled
// rows (3,600, all but DefaultSpillKeep read back from the file) as timeline.csv and as
// result.json's timeline, per row.
func BenchmarkTimeline(b *testing.B) {
	rows := recordedRows(b)
	b.Run("append", func(b *testing.B) {
		tl := spilledTimeline(b, b.TempDir(), DefaultSpillKeep, nil)
		for i := range DefaultSpillKeep {
			if err := tl.Add(rows[i%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if err := tl.Add(rows[i%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		var line int
		for _, s := range rows {
			data, _ := json.Marshal(s)
			line += len(data) + 1
		}
		b.ReportMetric(float64(line)/float64(len(rows)), "file-B/row")
	})
	hour := make([]Second, 3600)
	for i := range hour {
		hour[i] = rows[i%len(rows)]
		hour[i].T = float64(i + 1)
	}
	tl := spilledTimeline(b, b.TempDir(), DefaultSpillKeep, hour)
	for name, write := range map[string]func() error{
		"write-csv":  func() error { return (&Result{Timeline: *tl}).WriteTimelineCSV(io.Discard) },
		"write-json": func() error { return tl.WriteJSON(io.Discard, "  ", "  ") },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := write(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(hour)), "ns/row")
		})
	}
}
