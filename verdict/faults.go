package verdict

import (
	"fmt"

	"github.com/plimsoll/plimsoll/units"
)

// faultJudged is a fault run's note on the criteria it does not apply: a planned fault makes
// them fail by design, so the run is judged on loss, duplicates and recovery instead.
const faultJudged = "shortfall, lag, replication, latency SLO, handler idle, ISR and produce-error criteria: not judged in a run with planned faults, which is judged on loss, duplicates and recovery (each fault window's produce errors and publish latency are in the faults)"

// faultReasons judges a run with planned faults: any acknowledged message lost and any message
// the producers wrote twice (duplicates beyond the consumers' re-reads) with idempotence on are
// loss; a fault after which the ISR was not full again within MaxRecoverySeconds (or while it
// was watched) is slow recovery; a fault that could not be executed makes the run invalid.
func faultReasons(in Input, c Criteria) (loss, recovery, invalid []Reason) {
	r := in.Run
	if r.Counts.Lost > 0 {
		loss = append(loss, Reason{Criterion: CritFaultLoss, Text: fmt.Sprintf(
			"%s acknowledged and never read back across the faults", units.Plural(int(r.Counts.Lost), "message"))})
	}
	if written := r.Counts.Duplicated - r.Counts.Redelivered; written > 0 && r.Config.ClientProps.Producer.Props["enable.idempotence"] == "true" {
		loss = append(loss, Reason{Criterion: CritFaultLoss, Text: fmt.Sprintf(
			"%s written twice by idempotent producers across the faults", units.Plural(int(written), "message"))})
	}
	for _, w := range in.Faults {
		switch {
		case w.Error != "":
			invalid = append(invalid, Reason{Criterion: CritFaultRecovery, Broker: w.Broker, Text: fmt.Sprintf("%s: %s", w.Spec, w.Error)})
		case w.RecoverySeconds == nil:
			recovery = append(recovery, Reason{Criterion: CritFaultRecovery, Broker: w.Broker, Text: fmt.Sprintf(
				"%s: the run's partitions did not have their full ISR again within the %.0f s plimsoll watched after the fault ended", w.Spec, w.WatchedSeconds)})
		case c.MaxRecoverySeconds > 0 && *w.RecoverySeconds > c.MaxRecoverySeconds:
			recovery = append(recovery, Reason{Criterion: CritFaultRecovery, Broker: w.Broker, Text: fmt.Sprintf(
				"%s: the ISR was full again %.1f s after the fault ended (> %.0f s)", w.Spec, *w.RecoverySeconds, c.MaxRecoverySeconds)})
		}
	}
	return loss, recovery, invalid
}

// judgeFaults is the verdict of a run with planned faults. Loss is overloaded whatever else
// happened: a busy host or a slow generator explains latency, never a lost record. Otherwise
// a host busy with other processes, a client-bound generator or a fault not executed make the
// run invalid (a slow recovery on a noisy host says nothing of the cluster); then a slow
// recovery is overloaded.
func judgeFaults(in Input, c Criteria, v *Verdict) {
	v.Skipped = append(v.Skipped, faultJudged)
	loss, recovery, invalid := faultReasons(in, c)
	if noise := hostNoise(in, c); noise != nil {
		invalid = append([]Reason{*noise}, invalid...)
	}
	client, _ := clientBound(in, c, v)
	invalid = append(client, invalid...)
	v.Reasons = append(append(append(v.Reasons, loss...), invalid...), recovery...)
	switch {
	case len(loss) > 0:
		v.State = Overloaded
	case len(invalid) > 0:
		v.State = Invalid
		v.Bottleneck = ""
		if len(client) > 0 {
			v.Bottleneck = "plimsoll (the load generator): " + client[0].Text
		}
	case len(recovery) > 0:
		v.State = Overloaded
	default:
		v.State = OK
	}
	v.Ceiling = v.State
}
