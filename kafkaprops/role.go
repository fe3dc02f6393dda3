package kafkaprops

// Role says which client a set of properties configures, for checking names and values.
type Role uint8

const (
	RoleProducer Role = iota + 1 // producer-props, --producer-prop, --producer.config
	RoleConsumer                 // consumer-props, --consumer-prop, --consumer.config
	RoleCommon                   // common-props (OMB commonConfig): applied to producers and consumers
	RoleTopic                    // topic-config: topic-level configs used when creating topics
)

func (r Role) String() string {
	switch r {
	case RoleProducer:
		return "producer"
	case RoleConsumer:
		return "consumer"
	case RoleCommon:
		return "client"
	case RoleTopic:
		return "topic"
	}
	return "unknown"
}

// Section is the key of plimsoll's workload YAML that holds properties of this role.
func (r Role) Section() string {
	switch r {
	case RoleProducer:
		return "producer-props"
	case RoleConsumer:
		return "consumer-props"
	case RoleCommon:
		return "common-props"
	}
	return "topic-config"
}

// Flag is the plimsoll flag (without dashes) that sets properties of this role.
func (r Role) Flag() string {
	switch r {
	case RoleProducer:
		return "producer-prop"
	case RoleConsumer:
		return "consumer-prop"
	case RoleCommon:
		return "common-prop"
	}
	return "topic-config"
}

// Example names a few properties of this role, for messages.
func (r Role) Example() string {
	switch r {
	case RoleConsumer:
		return "fetch.min.bytes, max.poll.records"
	case RoleTopic:
		return "retention.ms, min.insync.replicas"
	}
	return "acks, linger.ms, batch.size"
}

// scope is the set of configs a role's properties are looked up in.
func (r Role) scope() Scope {
	switch r {
	case RoleProducer:
		return ScopeProducer
	case RoleConsumer:
		return ScopeConsumer
	case RoleCommon:
		return ScopeProducer | ScopeConsumer
	}
	return ScopeTopic
}

// wants reports whether a client of this role uses d.
func (r Role) wants(d Def) bool { return d.Scope&r.scope() != 0 }
