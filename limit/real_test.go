package limit

import (
	"testing"

	"github.com/plimsoll/plimsoll/workload"
)

func TestBatchFor(t *testing.T) {
	cases := []struct {
		size  int
		set   string
		want  string
		isSet bool
	}{
		{size: 100, isSet: false},                               // Kafka's default holds 16 already
		{size: 1000, want: "17024", isSet: true},                // 16 x 1064
		{size: 10000, want: "161024", isSet: true},              // 16 x 10064
		{size: 1000000, want: "1000000", isSet: true},           // capped at message.max.bytes
		{size: 10000, set: "32768", want: "32768", isSet: true}, // the workload's own wins
	}
	for _, c := range cases {
		spec := workload.Default()
		if c.set != "" {
			spec.ProducerProps.Set("batch.size", c.set)
		}
		if err := batchFor(&spec, c.size); err != nil {
			t.Fatal(err)
		}
		got, ok := spec.EffectiveProducerProps().Get("batch.size")
		if ok != c.isSet || got != c.want {
			t.Errorf("size %d (set %q): batch.size = %q, %v; want %q, %v", c.size, c.set, got, ok, c.want, c.isSet)
		}
	}
}
