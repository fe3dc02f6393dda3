package fleet

import (
	"fmt"

	"github.com/plimsoll/plimsoll/loadgen/topics"
)

// Prefix is the prefix of every name a run creates: its workload's topics and groups and the
// fleet's two topics, so that deleting a run's prefix removes all of them.
func Prefix(runID string) string { return "plimsoll-" + runID + "-" }

// ControlTopic is the run's control topic: the plan, then the coordinator's heartbeats and end.
func ControlTopic(runID string) string { return Prefix(runID) + "control" }

// ResultsTopic is the run's results topic: the workers' joins, reports and final reports.
func ResultsTopic(runID string) string { return Prefix(runID) + "results" }

// CheckRunID refuses a run id whose prefix breaks the prefix rule (topics.CheckPrefix) or whose
// topic names would pass Kafka's 249-character limit.
func CheckRunID(runID string) error {
	if runID == "" {
		return fmt.Errorf("%w: the run id is empty; give the id the coordinator printed", ErrPlan)
	}
	if err := topics.CheckPrefix(Prefix(runID)); err != nil {
		return fmt.Errorf("%w: run id %q: %w", ErrPlan, runID, err)
	}
	return nil
}
