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
// The plan and the reports are JSON decoded strictly: an unknown field, a missing one or
// another format is an error naming it, since it means a worker of another plimsoll.
package fleet
