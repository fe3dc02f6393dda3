package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// TestCollectorAndHDRLog drives the collector over two seconds and reads its HDR log back.
func TestCollectorAndHDRLog(t *testing.T) {
	p := testProducer(t, 16)
	p.run.measureStart.Store(0)
	g := &group{name: "g", ledger: ledger.NewGroup(2, 1)}
	cn := newConsumer(p.run, g, map[string]int{"a": 0}, 0)
	col := newCollector(p.run, []*producer{p}, []*consumer{cn}, []*group{g}, 100, 1000, 0)

	for i := range 10 {
		p.pub[phaseMeasured].Record(int64(i+1) * int64(time.Millisecond))
		p.sched[phaseMeasured].Record(int64(i) * int64(time.Microsecond))
		cn.e2e[phaseMeasured].Record(int64(i+2) * int64(time.Millisecond))
	}
	p.ackedAll.Add(10)
	p.sentAll.Add(10)
	s1 := col.tick(int64(time.Second), PhaseMeasure)
	p.pub[phaseExcluded].Record(int64(50 * time.Millisecond)) // not part of the totals
	s2 := col.tick(int64(2*time.Second), PhaseMeasure)

	if s1.ProducedMsgsPerSec != 10 || s1.Publish.Count != 10 || s1.Publish.Max != 10 || s1.EndToEnd.P50 < 5.9 || s1.EndToEnd.P50 > 6.1 {
		t.Errorf("second 1: %+v", s1)
	}
	if s2.Publish.Count != 1 || s2.ProducedMsgsPerSec != 0 {
		t.Errorf("second 2: %+v", s2)
	}
	if col.pub.Count() != 10 || col.e2e.Count() != 10 || col.sched.Count() != 10 {
		t.Errorf("totals: publish %d e2e %d sched %d, want 10 each (excluded values left out)", col.pub.Count(), col.e2e.Count(), col.sched.Count())
	}
	if p.pub[phaseMeasured].Count() != 0 {
		t.Error("the collector did not reset the worker's histogram")
	}

	start := time.Unix(1_700_000_000, 0)
	col.log.Start = start
	res := &Result{RunID: "r1", Intervals: col.log, Timeline: col.timeline}
	var buf bytes.Buffer
	if err := res.WriteHDRLog(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "#[plimsoll run r1: ") {
		t.Errorf("log:\n%s", buf.String())
	}
	counts, spans := readHDRLog(t, &buf, start)
	if counts["publish"] != 11 || counts["end_to_end"] != 10 || counts["schedule_delay"] != 10 {
		t.Errorf("read back %v", counts)
	}
	// Second 2 held one excluded publish value and nothing else: empty histograms are left out.
	want := "publish 0-1000,end_to_end 0-1000,schedule_delay 0-1000,publish 1000-2000"
	if got := strings.Join(spans, ","); got != want {
		t.Errorf("intervals %s, want %s", got, want)
	}
}

// readHDRLog reads an interval log with hdrhistogram-go's reader: the values counted per tag,
// and each interval as "tag start-end" in ms from start.
func readHDRLog(t *testing.T, r io.Reader, start time.Time) (map[string]int64, []string) {
	t.Helper()
	rd := hdrhistogram.NewHistogramLogReader(r)
	counts := map[string]int64{}
	var spans []string
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			return counts, spans
		}
		counts[h.Tag()] += h.TotalCount()
		spans = append(spans, fmt.Sprintf("%s %d-%d", h.Tag(), h.StartTimeMs()-start.UnixMilli(), h.EndTimeMs()-start.UnixMilli()))
	}
}

func TestTimelineCSVGolden(t *testing.T) {
	res := &Result{Timeline: TimelineOf(
		Second{T: 1, Phase: PhaseWarmup, TargetMsgsPerSec: 1000, SentMsgsPerSec: 1000, ProducedMsgsPerSec: 990, ProducedBytesPerSec: 99000,
			ConsumedMsgsPerSec: 985, Publish: SecondLatency{P50: 1.5, P99: 4, Max: 7.25}, EndToEnd: SecondLatency{P50: 2, P99: 5, Max: 8},
			ScheduleDelay: SecondLatency{P50: 0.1, P99: 0.9, Max: 1.2}, InFlight: 12, CPUShare: 0.25},
		Second{T: 2, Phase: PhaseMeasure, TargetMsgsPerSec: 1000, SentMsgsPerSec: 1000, ProducedMsgsPerSec: 1000, Failed: 2, Errors: 3,
			BufferFullMs: 12.5, BacklogMsgs: 40},
	)}
	var buf bytes.Buffer
	if err := res.WriteTimelineCSV(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "timeline.golden.csv", buf.Bytes())
}

// TestResultJSONWithoutHistograms: a Result with no histograms (built by hand, or read from a
// file written before they were recorded) leaves the histograms out rather than writing nulls.
func TestResultJSONWithoutHistograms(t *testing.T) {
	b, err := json.Marshal(&Result{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"histograms"`) {
		t.Errorf("result JSON without histograms: %s", b)
	}
}
