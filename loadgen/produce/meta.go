package produce

import (
	"context"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicMeta is what the producer needs of a topic: its id (produce v13 names topics by id)
// and each partition's leader.
type topicMeta struct {
	id         [16]byte
	partitions []int32 // leader by partition, -1 if none
}

// metaResult is a metadata answer for Config.Topics, in their order.
type metaResult struct {
	topics []topicMeta
	err    error
}

// fetchMetadata asks for the topics' metadata through cl, which also learns the brokers from
// it (franz-go keeps the broker list of every metadata response it is given).
func fetchMetadata(ctx context.Context, cl *kgo.Client, topics []string) (metaResult, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return metaResult{}, err
	}
	m := metaResult{topics: make([]topicMeta, len(topics))}
	for i, name := range topics {
		j := slices.IndexFunc(resp.Topics, func(t kmsg.MetadataResponseTopic) bool { return t.Topic != nil && *t.Topic == name })
		if j < 0 {
			return metaResult{}, fmt.Errorf("produce: topic %s not in the metadata", name)
		}
		t := &resp.Topics[j]
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return metaResult{}, fmt.Errorf("produce: topic %s: %w", name, err)
		}
		tm := topicMeta{id: t.TopicID, partitions: make([]int32, len(t.Partitions))}
		for k := range tm.partitions {
			tm.partitions[k] = -1
		}
		for _, p := range t.Partitions {
			if int(p.Partition) < len(tm.partitions) && p.ErrorCode == 0 {
				tm.partitions[p.Partition] = p.Leader
			}
		}
		m.topics[i] = tm
	}
	return m, nil
}

// applyMetadata sets every partition's leader and, in every session, each broker's partitions.
// Partitions a topic gained since New are not produced to. Called with the mutex held (or
// before the sender runs).
func (s *sender) applyMetadata(m metaResult) {
	s.metaAt = s.p.cfg.Now()
	if s.topics == nil {
		s.topics = m.topics
	} else {
		for i := range s.topics {
			s.topics[i] = m.topics[i]
		}
	}
	for _, ss := range s.p.sessions {
		s.layOut(ss, m)
	}
}

// layOut puts each of ss's partitions under its leader's brokerState.
func (s *sender) layOut(ss *session, m metaResult) {
	for _, br := range ss.brokers {
		br.parts = br.parts[:0]
	}
	for _, pt := range ss.parts {
		ls := m.topics[pt.topic].partitions
		pt.leader = -1
		if int(pt.partition) < len(ls) {
			pt.leader = ls[pt.partition]
		}
		if pt.leader < 0 {
			s.metaWant = true // ask again until every partition has a leader
			continue
		}
		br := ss.brokers[pt.leader]
		if br == nil {
			br = &brokerState{id: pt.leader, s: ss}
			ss.brokers[pt.leader] = br
			ss.order = append(ss.order, br)
			slices.SortFunc(ss.order, func(a, b *brokerState) int { return int(a.id - b.id) })
		}
		br.parts = append(br.parts, pt)
	}
}

// initProducerID asks for a new producer id (idempotence without a transactional id).
func initProducerID(ctx context.Context, cl *kgo.Client) (producerID, error) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionTimeoutMillis = -1
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return noID, fmt.Errorf("produce: InitProducerID: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return noID, fmt.Errorf("produce: InitProducerID: %w", err)
	}
	return producerID{resp.ProducerID, resp.ProducerEpoch}, nil
}
