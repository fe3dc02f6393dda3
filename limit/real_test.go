package limit

import (
	"testing"

	"github.com/plimsoll/plimsoll/workload"
)

// TestTrialBatchSizeIsRunsRule: the batch.size limit's model assumes for a size is the one the
// trial's producers run with, which is the one `plimsoll run` uses for that size: both come
// from kafkaprops.BatchSize, through the spec's resolution.
func TestTrialBatchSizeIsRunsRule(t *testing.T) {
	for _, set := range []string{"", "32768"} {
		spec := workload.Default()
		if set != "" {
			_ = spec.ProducerProps.Set("batch.size", set)
		}
		for _, size := range []int{100, 1000, 10000, 1000000} {
			trial := spec.Clone()
			trial.MessageSize = size
			c, err := trial.Clients()
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			if got, want := modelMessage(spec, size).BatchSize, c.Producer.BatchSize; got != want {
				t.Errorf("batch.size %q, size %d: the model assumes %d, the trial runs with %d", set, size, got, want)
			}
			if rec := c.Effective().Producer.Props["batch.size"]; rec == "" {
				t.Errorf("size %d: the trial's record lacks batch.size", size)
			}
		}
	}
}
