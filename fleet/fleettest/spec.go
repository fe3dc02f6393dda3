package fleettest

import (
	"time"

	"github.com/plimsoll/plimsoll/workload"
)

// Spec is a small workload two workers can share: 1 topic of 2 partitions, 2 producers at
// 400 msgs/s in all, one group of 2 consumers, 100-byte messages, a 400 ms warm-up and a 1.2 s
// window. Members heartbeat every 100 ms: they learn of a rebalance at their next heartbeat, so
// the group settles quickly.
func Spec() workload.Spec {
	s := workload.Default()
	s.Topics, s.PartitionsPerTopic, s.ReplicationFactor = 1, 2, 1
	s.Producers, s.Rate, s.MessageSize = 2, 400, 100
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 2
	s.Warmup, s.Duration = 400*time.Millisecond, 1200*time.Millisecond
	s.ConsumerProps.Set("heartbeat.interval.ms", "100")
	return s
}
