// Package limit finds where a Kafka cluster stops keeping up: for each message size it searches
// the messages/s axis for the highest rate whose trial the verdict called ok (the safe point) and
// the lowest it called overloaded (the unsafe point), to within a relative tolerance, in as few
// trials as it can. The points over all sizes are the boundary of the traffic space
// (messages/s x bytes/message) that `plimsoll limit` draws.
//
// The search never runs a trial itself: it asks a Trialer, which the CLI backs with the load
// generator, the probe and the verdict, and which tests back with a simulated cluster. It
// assumes that overload is monotonic in the rate (if a rate overloads the cluster, so does any
// higher rate, at the same message size), runs trials one after another (there is one cluster),
// and treats a client-bound trial as "unknown at this rate", never as the cluster's limit.
//
// Every finished trial is appended to a results file (package results) as it finishes, and the
// search is deterministic given its options and the trials' outcomes, so an interrupted search
// can be resumed: it replays its own steps and takes each outcome from the file instead of
// running the trial again. A trial interrupted in its window keeps its partial figures in a
// directory of its own (Runner, InterruptedError), never in the results file, so a resumed
// search runs it again. See docs/limit.md for the algorithm, its trial bound and its output.
package limit
