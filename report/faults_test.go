package report

import (
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
)

func TestRunFaults(t *testing.T) {
	rec := 6.25
	tr := &results.Trial{Faults: []fault.Window{
		{Spec: "kill 2 at 8s for 8s", Began: time.Unix(1, 0), BeganT: 13.02, EndedT: 21.03, RecoverySeconds: &rec,
			During:  fault.Figures{Seconds: 9, ProduceFailed: 0, Errors: 14, ProducedMsgsPerSec: 287.4, Publish: hdr.Percentiles{P99: 1523.4, Max: 2710}},
			Outside: fault.Figures{Seconds: 16, ProduceFailed: 1, Errors: 0, ProducedMsgsPerSec: 300.2, Publish: hdr.Percentiles{P99: 12.31, Max: 40.5}}},
		{Spec: "stop 3 at 20s for 8s", BeganT: 0, Error: "not begun: the run ended first"},
		{Spec: "cut 1 at 1s for 2s", Began: time.Unix(1, 0), BeganT: 6, EndedT: 8, WatchedSeconds: 60},
	}}
	var b strings.Builder
	runFaults(&b, tr)
	want := `
faults (t: seconds since the producers started, as in timeline.csv; during: from a fault's start until the ISR was full again):
  kill 2 at 8s for 8s: began t=13 s, ended t=21 s, ISR full again 6.25 s after it ended
    during   9 seconds: produced 287 msgs/s, 0 produces failed, 14 client errors, publish p99 1,520 ms, max 2,710 ms
    outside  16 seconds: produced 300 msgs/s, 1 produce failed, 0 client errors, publish p99 12.3 ms, max 40.5 ms
  stop 3 at 20s for 8s: not executed: not begun: the run ended first
  cut 1 at 1s for 2s: began t=6 s, ended t=8 s, ISR not full again within the 60 s watched
    during   0 seconds: produced 0 msgs/s, 0 produces failed, 0 client errors, publish p99 0 ms, max 0 ms
    outside  0 seconds: produced 0 msgs/s, 0 produces failed, 0 client errors, publish p99 0 ms, max 0 ms
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
