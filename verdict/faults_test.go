package verdict

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen"
)

// TestJudgeFaults: a run with planned faults is judged on loss, duplicates and recovery; its
// latency, shortfall and produce errors (which a fault causes by design) are not judged.
func TestJudgeFaults(t *testing.T) {
	rec := func(s float64) *float64 { return &s }
	run := func(lost, dup, redelivered int64, idem string) *loadgen.Result {
		r := &loadgen.Result{TargetMsgsPerSec: 300, ProducedMsgsPerSec: 200, Counts: loadgen.Counts{
			Acked: 6000, Failed: 3, Lost: lost, Duplicated: dup, Redelivered: redelivered}}
		r.Latency.Publish.P99 = 9000 // far above the SLO: not judged
		r.Config.NumCPU, r.Config.GOMAXPROCS = 2, 2
		r.Config.ClientProps = kafkaprops.EffectiveProps{Producer: kafkaprops.ClientProps{Props: map[string]string{"enable.idempotence": idem}}}
		return r
	}
	busy := func(r *loadgen.Result) *loadgen.Result { r.Client.CPUShare = 1; return r } // plimsoll used every core
	kill := fault.Window{Spec: "kill 2 at 8s for 8s", Broker: 2, RecoverySeconds: rec(7.5)}
	for _, tc := range []struct {
		name   string
		run    *loadgen.Result
		faults []fault.Window
		state  State
		reason string
	}{
		{"recovered", run(0, 0, 0, "true"), []fault.Window{kill}, OK, ""},
		{"re-read by consumers", run(0, 40, 40, "true"), []fault.Window{kill}, OK, ""},
		{"lost", run(2, 0, 0, "true"), []fault.Window{kill}, Overloaded, "fault-loss: 2 messages acknowledged"},
		{"written twice", run(0, 5, 1, "true"), []fault.Window{kill}, Overloaded, "fault-loss: 4 messages written twice"},
		{"written twice without idempotence", run(0, 5, 1, "false"), []fault.Window{kill}, OK, ""},
		{"slow recovery", run(0, 0, 0, "true"), []fault.Window{{Spec: "stop 3 at 8s for 8s", Broker: 3, RecoverySeconds: rec(75)}}, Overloaded, "fault-recovery: stop 3 at 8s for 8s: the ISR was full again 75.0 s"},
		{"never recovered", run(0, 0, 0, "true"), []fault.Window{{Spec: "cut 1 at 8s for 8s", Broker: 1, WatchedSeconds: 60}}, Overloaded, "within the 60 s plimsoll watched"},
		{"lost while client-bound", busy(run(1, 0, 0, "true")), []fault.Window{kill}, Overloaded, "fault-loss: 1 message acknowledged"},
		{"slow recovery while client-bound", busy(run(0, 0, 0, "true")), []fault.Window{{Spec: "stop 3 at 8s for 8s", Broker: 3, RecoverySeconds: rec(75)}}, Invalid, "client-bound"},
		{"not executed", run(0, 0, 0, "true"), []fault.Window{{Spec: "cut 1 at 8s for 8s", Broker: 1, Error: "beginning the fault: boom"}}, Invalid, "fault-recovery: cut 1 at 8s for 8s: beginning the fault: boom"},
	} {
		v := Judge(Input{Run: tc.run, Faults: tc.faults}, DefaultCriteria())
		var rs []string
		for _, r := range v.Reasons {
			rs = append(rs, r.Criterion+": "+r.Text)
		}
		got := strings.Join(rs, "\n")
		if v.State != tc.state || v.Ceiling != tc.state || tc.reason == "" && got != "" || !strings.Contains(got, tc.reason) {
			t.Errorf("%s: %s (ceiling %s)\n%s\nwant %s with %q", tc.name, v.State, v.Ceiling, got, tc.state, tc.reason)
		}
		if !strings.Contains(strings.Join(v.Skipped, "\n"), "not judged in a run with planned faults") {
			t.Errorf("%s: skipped %q does not say what a fault run is not judged on", tc.name, v.Skipped)
		}
	}
}
