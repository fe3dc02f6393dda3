// Package fleet spreads one run over N generator worker processes coordinated through the
// Kafka cluster under test, and merges what they measured exactly (docs/workers.md).
//
// The coordinator writes a Plan (the run id, its plimsoll version, N, the absolute start of the
// schedule and the whole workload) to the run's control topic; worker i of N reads it and
// takes its Share: a contiguous range of the producers, of every topic's partitions and of each
// group's consumers, the ranges of all workers covering each whole exactly. Each second a
// worker publishes a Report (counters, the second's histograms in their exact encoding) and,
// after its drain, a final one (the window's counts and histograms, each group's ledger state)
// to the run's results topic. Merge unites them as one process recording every sample would
// have: histograms merged bucket for bucket, counters summed, ledgers of disjoint producer
// ranges united.
//
// The transport: Open (the coordinator) refuses a run whose prefix is in use, creates the two
// topics under the run's prefix, writes the plan and a heartbeat each second; AwaitJoins waits
// for the N joins (ErrMissing, ErrRefused, ErrDuplicate name the workers); Collect hands on
// each second once every worker reported it, merged, and ends with the merged finals, or with
// ErrSilent naming a worker that stopped reporting; Close writes the end and deletes both
// topics, never a name outside the prefix. Join (a worker) finds the control topic (ErrNoRun),
// reads and checks the plan, refusing it on the results topic when it cannot run it, and
// publishes its join; Worker.Err reports a coordinator that ended the run or went silent.
// Every deadline and silence is judged on an injectable Clock. Balancer is the consumer group
// balancer that gives each partition to a member of the worker owning it.
//
// A worker's load is a loadgen run of its share: RunOptions gives its options (loadgen.Share:
// its ranges, Balancer, the plan's start), and SecondOf and FinalOf turn what the run feeds
// (loadgen.Feed) into the Second and Final that Worker.Second and Worker.Final publish.
//
// The plan and the reports are JSON decoded strictly: an unknown field, a missing one or
// another format is an error naming it, since it means a worker of another plimsoll.
package fleet
