package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/target"
)

// recordedSeries is a recorded series of probe/testdata, decoded.
func recordedSeries(t testing.TB, name string) *Series {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Series
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// spilledCopy is s recorded again sample by sample through Add with sp: its header, its samples
// beyond sp.Keep in a spill file.
func spilledCopy(t testing.TB, s *Series, sp Spill) *Series {
	t.Helper()
	out := *s
	out.Samples = nil
	for _, x := range s.Samples {
		if err := out.Add(x, sp); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { out.Close() })
	return &out
}

// jsonOf is the JSON of every sample All yields.
func jsonOf(t testing.TB, s *Series) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for x := range s.All() {
		if err := enc.Encode(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSpillReadsBack: a series recorded through Add with a spill holds only Keep samples in
// memory, leaves no file in its directory, and yields the same samples, count, span, brokers
// and windows (nested too) as the series in memory.
func TestSpillReadsBack(t *testing.T) {
	for _, name := range []string{"series-traffic", "series-pause"} {
		t.Run(name, func(t *testing.T) {
			mem := recordedSeries(t, name)
			dir := t.TempDir()
			sp := spilledCopy(t, mem, Spill{Dir: dir, Keep: 4})
			if !sp.Spilled() || len(sp.Samples) != 4 || sp.Len() != len(mem.Samples) {
				t.Fatalf("spilled %v, %d in memory, %d in all; want 4 of %d in memory", sp.Spilled(), len(sp.Samples), sp.Len(), len(mem.Samples))
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("the spill left %v in its directory", left)
			}
			sameSeries(t, "whole", sp, mem)
			from, to := mem.Span()
			inner := mem.Window(from.Add(3*time.Second), to.Add(-2*time.Second))
			if inner.Len() >= mem.Len()-3 || inner.Len() == 0 {
				t.Fatalf("window of %d of %d samples: the test needs one that cuts both ends", inner.Len(), mem.Len())
			}
			sw := sp.Window(from.Add(3*time.Second), to.Add(-2*time.Second))
			sameSeries(t, "window", sw, inner)
			if sw.start == 0 || sw.size > sp.size {
				t.Errorf("the window reads bytes [%d, %d) of the spill's [0, %d): want its own lines only", sw.start, sw.size, sp.size)
			}
			sameSeries(t, "window of a window", sp.Window(from.Add(time.Second), time.Time{}).Window(time.Time{}, to.Add(-4*time.Second)),
				mem.Window(from.Add(time.Second), to.Add(-4*time.Second)))
			sameSeries(t, "an empty window", sp.Window(to.Add(time.Hour), time.Time{}), mem.Window(to.Add(time.Hour), time.Time{}))
		})
	}
}

func sameSeries(t *testing.T, what string, got, want *Series) {
	t.Helper()
	if jsonOf(t, got) != jsonOf(t, want) || got.Len() != want.Len() {
		t.Errorf("%s: the spilled series yields %d samples unlike the %d in memory", what, got.Len(), want.Len())
	}
	gf, gt := got.Span()
	wf, wt := want.Span()
	if !gf.Equal(wf) || !gt.Equal(wt) || !slices.Equal(got.BrokerIDs(), want.BrokerIDs()) {
		t.Errorf("%s: span %v-%v brokers %v, want %v-%v %v", what, gf, gt, got.BrokerIDs(), wf, wt, want.BrokerIDs())
	}
}

// TestWriteJSON: probe.json written a sample at a time is byte for byte what encoding the whole
// series writes, from memory and from a spill, and for a series without samples.
func TestWriteJSON(t *testing.T) {
	mem := recordedSeries(t, "series-traffic")
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", " ")
	if err := enc.Encode(mem); err != nil {
		t.Fatal(err)
	}
	empty := *mem
	empty.Samples = []Sample{}
	var wantEmpty bytes.Buffer
	enc = json.NewEncoder(&wantEmpty)
	enc.SetIndent("", " ")
	if err := enc.Encode(&empty); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Series
		want []byte
	}{
		{"in memory", mem, want.Bytes()},
		{"spilled", spilledCopy(t, mem, Spill{Dir: t.TempDir(), Keep: 3}), want.Bytes()},
		{"no samples", &empty, wantEmpty.Bytes()},
	} {
		var got bytes.Buffer
		if err := c.s.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), c.want) {
			t.Errorf("%s: WriteJSON wrote %d bytes unlike the encoder's %d", c.name, got.Len(), len(c.want))
		}
	}
}

// TestSpillFails: a spill directory where no file can be made keeps the samples in memory, and
// the probe notes it once.
func TestSpillFails(t *testing.T) {
	rec := recordedSamples(t)
	p := &Probe{cfg: Config{Spill: Spill{Dir: "/proc", Keep: 2}}}
	for _, x := range rec[:5] {
		p.record(x)
	}
	s := p.Snapshot()
	if s.Spilled() || len(s.Samples) != 5 || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "held in memory") {
		t.Errorf("spilled %v, %d samples in memory, notes %q: want all 5 held and one note", s.Spilled(), len(s.Samples), s.Notes)
	}
}

// TestTakeHandsOverSpill: Take hands the spill file over with the samples it returns; the probe
// spills what comes next into a file of its own.
func TestTakeHandsOverSpill(t *testing.T) {
	rec := recordedSamples(t)
	p := &Probe{cfg: Config{Spill: Spill{Dir: t.TempDir(), Keep: 2}}}
	for _, x := range rec[:6] {
		p.record(x)
	}
	first := p.Take()
	defer first.Close()
	for _, x := range rec[6:9] {
		p.record(x)
	}
	second := p.Snapshot()
	defer second.Close()
	if first.Len() != 6 || !first.Spilled() || second.Len() != 3 || !second.Spilled() || first.spilled.file == second.spilled.file {
		t.Fatalf("took %d (spilled %v), then %d (spilled %v): want 6 and 3, in files of their own", first.Len(), first.Spilled(), second.Len(), second.Spilled())
	}
	if got, want := jsonOf(t, second), jsonOf(t, &Series{Samples: rec[6:9]}); got != want {
		t.Errorf("the second take's samples differ from those recorded after the first")
	}
}

// BenchmarkSpill is what spilling costs a sample (a real 3-broker run's, testdata/series-traffic.json):
// appending it to the spill file as it leaves memory, and reading it back on one pass.
// go test -run XXX -bench Spill/append -benchtime 2000x ./probe; go test -run XXX -bench Spill/read -benchtime 5x ./probe
func BenchmarkSpill(b *testing.B) {
	rec := recordedSeries(b, "series-traffic").Samples
	b.Run("append", func(b *testing.B) {
		s := &Series{}
		defer s.Close()
		sp := Spill{Dir: b.TempDir(), Keep: 1}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := s.Add(rec[i%len(rec)], sp); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(s.size)/float64(s.n), "file-B/sample")
	})
	b.Run("read", func(b *testing.B) {
		s := &Series{}
		defer s.Close()
		sp := Spill{Dir: b.TempDir(), Keep: 1}
		for i := range 1000 {
			if err := s.Add(rec[i%len(rec)], sp); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			for range s.All() {
				n++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/sample")
	})
}

// TestSpillWindowOutOfOrder: samples out of time order (not as a probe records them, but as a
// series could be built) are windowed by their times all the same: the window's samples are
// not one run of lines, and the whole spill is read and filtered.
func TestSpillWindowOutOfOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	mem := &Series{}
	for _, sec := range []int{0, 10, 2, 12, 4, 14, 6} {
		start := t0.Add(time.Duration(sec) * time.Second)
		mem.Samples = append(mem.Samples, Sample{Start: start, Time: start.Add(time.Second)})
	}
	sp := spilledCopy(t, mem, Spill{Dir: t.TempDir(), Keep: 1})
	from, to := t0, t0.Add(5*time.Second)
	if w := sp.Window(from, to); w.Len() != 3 {
		t.Errorf("window of %d samples, want the 3 within it", w.Len())
	}
	sameSeries(t, "window", sp.Window(from, to), mem.Window(from, to))
}

// TestNumUnmarshal: Num reads what encoding/json reads into a float64, null as missing, and
// refuses what it refuses.
func TestNumUnmarshal(t *testing.T) {
	for _, in := range []string{"0", "-0", "1", "-1.5e-7", "123456789012345678901234567890", "4.9e-324", "1.7976931348623157e308", "2.5E+3", "1e400", `"1"`, "true", "{}", "[1]"} {
		var f float64
		ferr := json.Unmarshal([]byte(in), &f)
		var n Num
		nerr := json.Unmarshal([]byte(in), &n)
		if (ferr == nil) != (nerr == nil) || ferr == nil && float64(n) != f {
			t.Errorf("%s: Num %v (err %v), float64 %v (err %v)", in, n, nerr, f, ferr)
		}
	}
	var n Num
	if err := json.Unmarshal([]byte(" null "), &n); err != nil || n.OK() {
		t.Errorf("null: %v, %v; want missing", n, err)
	}
}

// TestProbeSpills: a running probe with a spill holds its latest Keep samples, spills the rest
// as they arrive, and its series yields every sample in time order, as probe.json too.
func TestProbeSpills(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(context.Background(), Config{Target: target.Target{Bootstrap: fakeCluster(t)},
		Interval: 100 * time.Millisecond, TopicPrefix: "run-", Spill: Spill{Dir: dir, Keep: 2}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "8 samples", func() bool { return p.Snapshot().Len() >= 8 })
	s := p.Stop()
	defer s.Close()
	if !s.Spilled() || len(s.Samples) != 2 || s.Len() < 8 {
		t.Fatalf("spilled %v, %d in memory, %d in all: want 2 of at least 8 in memory", s.Spilled(), len(s.Samples), s.Len())
	}
	var prev time.Time
	n := 0
	for x := range s.All() {
		if !x.Start.Equal(prev) && n > 0 || x.Meta == nil {
			t.Errorf("sample %d: %v..%v after one ending %v, metadata %v", n, x.Start, x.Time, prev, x.Meta)
		}
		prev = x.Time
		n++
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Series
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || n != s.Len() || jsonOf(t, &back) != jsonOf(t, s) {
		t.Errorf("yielded %d of %d samples; probe.json read back (err %v) holds %d, or others", n, s.Len(), err, len(back.Samples))
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spill left %v in its directory", left)
	}
}
