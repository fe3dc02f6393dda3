// Package fault is faults under load: a planned fault's spec ("kill 2 at 8s for 8s"), the
// check of a plan against the cluster and the run before anything starts, the schedule that
// executes it on the local cluster during a run, and the record of each fault's window.
//
// # Spec
//
//	ACTION BROKER at DURATION for DURATION
//
// kill sends SIGKILL and restarts the broker when the fault ends; stop sends SIGSTOP and SIGCONT
// when it ends; cut takes the broker's emulated data link down and up again (clusters with
// emulated NICs only). Times count from the start of the measured window, so a fault always
// falls inside what the ledger judges (lost, duplicated) and the warm-up stays clean.
//
// # Record
//
// Each fault leaves a Window: when it began and ended (wall clock and seconds since the
// producers started, the timeline's t), the produce errors and publish latency of the window's
// seconds during it and outside every fault, and the time from its end until every partition
// of the run's topics had its full ISR again, polled every 200 ms with a Metadata request to a
// broker other than the faulted one
// (RecoverySeconds; nil when that did not happen before the run ended).
//
// Spec parsing and checking are pure; Run takes the cluster as an interface (localkafka's
// State satisfies it) and a Clock, so its schedule is tested without sleeping.
package fault
