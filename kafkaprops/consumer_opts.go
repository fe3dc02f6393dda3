package kafkaprops

import "github.com/twmb/franz-go/pkg/kgo"

// Opts maps the consumer's configuration to franz-go options, group options included (the
// group, its topics, the seed brokers, TLS and SASL are added by the caller).
func (c *Consumer) Opts() []kgo.Opt {
	o := []kgo.Opt{
		kgo.FetchMinBytes(c.FetchMinBytes),
		kgo.FetchMaxWait(c.FetchMaxWait),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		kgo.SessionTimeout(c.SessionTimeout),
		kgo.HeartbeatInterval(c.HeartbeatInterval),
		kgo.RebalanceTimeout(c.RebalanceTimeout),
		kgo.RequestTimeoutOverhead(c.RequestTimeoutOverhead),
		kgo.RetryTimeout(c.RetryTimeout),
		kgo.RetryBackoffFn(javaBackoff(c.RetryBackoff, c.RetryBackoffMax)),
		kgo.ConsumeResetOffset(resetOffset(c.ResetOffset)),
		kgo.Balancers(c.balancers()...),
	}
	o = append(o, ageOpts(c.MetadataMaxAge, c.ConnIdle)...)
	if c.FetchMaxBytes > defaultMaxReadBytes {
		o = append(o, kgo.BrokerMaxReadBytes(c.FetchMaxBytes))
	}
	if c.ReadCommitted {
		o = append(o, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if c.AutoCommit {
		o = append(o, kgo.AutoCommitInterval(c.AutoCommitInterval))
	} else {
		o = append(o, kgo.DisableAutoCommit())
	}
	if !c.CheckCRCs {
		o = append(o, kgo.DisableFetchCRCValidation())
	}
	if c.ServerAssignment {
		o = append(o, kgo.ServerSideBalancer())
	}
	if c.ClientID != "" {
		o = append(o, kgo.ClientID(c.ClientID))
	}
	if c.Rack != "" {
		o = append(o, kgo.Rack(c.Rack))
	}
	return o
}

// defaultMaxReadBytes is franz-go's default BrokerMaxReadBytes (100 MiB); it must be at least
// fetch.max.bytes.
const defaultMaxReadBytes = 100 << 20

func resetOffset(s string) kgo.Offset {
	switch s {
	case "latest":
		return kgo.NewOffset().AtEnd()
	case "none":
		return kgo.NoResetOffset()
	}
	return kgo.NewOffset().AtStart()
}

// balancers maps the Java assignors to franz-go's.
func (c *Consumer) balancers() []kgo.GroupBalancer {
	var bs []kgo.GroupBalancer
	for _, a := range c.Assignors {
		switch a {
		case "org.apache.kafka.clients.consumer.RangeAssignor":
			bs = append(bs, kgo.RangeBalancer())
		case "org.apache.kafka.clients.consumer.RoundRobinAssignor":
			bs = append(bs, kgo.RoundRobinBalancer())
		case "org.apache.kafka.clients.consumer.StickyAssignor":
			bs = append(bs, kgo.StickyBalancer())
		case "org.apache.kafka.clients.consumer.CooperativeStickyAssignor":
			bs = append(bs, kgo.CooperativeStickyBalancer())
		}
	}
	return bs
}
