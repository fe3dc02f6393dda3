// Package scenario holds plimsoll's named experiments (`plimsoll scenario list|run`): the ones
// the field reports ran by hand and every Kafka team re-runs on its own hardware (throughput
// against partitions, partition creation and reassignment time, the partition ceiling, consumer
// fan-out, the cost of TLS, the sensitivity to a few bytes per message).
//
// A Scenario is a name, the articles it repeats, its parameters with a value for each mode
// (Short, the small counts the tests run; Full, what a user runs), a check of its preconditions
// that creates nothing, and a Run that measures and returns a results.Scenario: the one shape
// (charts as data, findings, failures as data, the commands it ran) that package report renders
// for every scenario. Scenarios build on plimsoll's own commands (run, limit, compare, cluster),
// which they call through Env.Plimsoll, so every step is a command a user could type and its
// output lands in the scenario's directory; experiments no command covers (creating and moving
// partitions) talk to the cluster with franz-go's kadm, under plimsoll's topic prefix only.
//
// Each scenario registers itself in an init function of its own file.
package scenario
