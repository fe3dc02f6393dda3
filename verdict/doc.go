// Package verdict decides whether the cluster kept up with a run: ok, overloaded, or invalid
// (the measurement cannot say, for example because plimsoll itself was the bottleneck).
//
// It applies documented criteria (Criteria, DefaultCriteria) to what the load generator measured
// (loadgen.Result) and what the probe observed (probe.Series), and names the bottleneck with its
// evidence from the USE table. The default criteria follow the field reports plimsoll was built
// from: Dropbox's overload indicators (request-handler idle below 20%; ISR changes in more than
// half of the window), a produce shortfall, growing consumer lag, a latency SLO, and any produce
// error. A client-bound trial is never reported as a cluster limit. A run with planned faults
// (package fault) is judged on loss, duplicates and recovery instead (fault-loss,
// fault-recovery): a fault breaks throughput, latency and the ISR by design.
//
// Judge is pure: the same inputs give the same verdict, so recorded runs make golden tests.
package verdict
