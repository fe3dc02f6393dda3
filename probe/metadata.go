package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// MetaSample is Kafka's own view of the run's topics (those named with Config.TopicPrefix) at
// one moment, read with a Metadata request: it needs no metrics endpoint.
type MetaSample struct {
	Err        string  `json:"err,omitempty"`
	Brokers    []int32 `json:"brokers"` // registered brokers
	Controller int32   `json:"controller"`
	Topics     int     `json:"topics"`
	Partitions int     `json:"partitions"`
	// ISRSizes counts partitions by the size of their in-sync replica set.
	ISRSizes        map[int]int `json:"isr_sizes,omitempty"`
	UnderReplicated int         `json:"under_replicated"` // ISR smaller than the replica list
	Offline         int         `json:"offline"`          // no leader
	// Leaders counts partitions led by each broker; UnderReplicatedBy counts the under-replicated
	// ones among them.
	Leaders           map[int32]int `json:"leaders,omitempty"`
	UnderReplicatedBy map[int32]int `json:"under_replicated_by_leader,omitempty"`
	// OutOfISR counts, per broker, partitions it is a replica of but not in the ISR of: the
	// follower that fell behind (a paused or slow broker) shows up here.
	OutOfISR map[int32]int `json:"out_of_isr,omitempty"`
	// ISRChanges and LeaderChanges count partitions whose ISR set or leader differ from the
	// previous reading (0 on the first).
	ISRChanges    int `json:"isr_changes"`
	LeaderChanges int `json:"leader_changes"`
	// PartitionErrors counts partitions the response marked with an error (e.g.
	// LEADER_NOT_AVAILABLE while a topic is being created).
	PartitionErrors int `json:"partition_errors,omitempty"`
}

type partKey struct {
	topic string
	part  int32
}

type partState struct {
	leader int32
	isr    []int32
	known  bool // false: the zero value of a partition not seen before
}

// metaReader issues the Metadata requests. Listing every topic each second would be costly on
// a big cluster, so it lists all topics every refreshEvery readings (or while none matched
// yet) and asks for the known names in between. It sends the request itself: kadm.Metadata
// answers from the client's cache for up to 5 s (MetadataMinAge), which would hide ISR changes.
type metaReader struct {
	cl      *kgo.Client
	prefix  string
	known   []string
	n       int
	prev    map[partKey]partState
	brokers []int32 // from the last response
}

const refreshEvery = 10

func (m *metaReader) read(ctx context.Context) *MetaSample {
	req := kmsg.NewPtrMetadataRequest()
	switch {
	case m.prefix == "":
		req.Topics = []kmsg.MetadataRequestTopic{} // brokers only
	case len(m.known) == 0 || m.n%refreshEvery == 0:
		req.Topics = nil // all topics
	default:
		for _, t := range m.known {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
	}
	m.n++
	resp, err := m.request(ctx, req)
	if err != nil {
		return &MetaSample{Err: err.Error(), Controller: -1}
	}
	s, cur := summarise(resp, m.prefix, m.prev)
	m.prev = cur
	m.brokers = s.Brokers
	m.known = m.known[:0]
	for _, t := range resp.Topics {
		if t.Topic != nil && m.prefix != "" && strings.HasPrefix(*t.Topic, m.prefix) && t.ErrorCode != kerr.UnknownTopicOrPartition.Code {
			m.known = append(m.known, *t.Topic)
		}
	}
	slices.Sort(m.known)
	return s
}

// request asks two brokers at once, taking turns, and keeps the first answer: a broker that
// hangs (a paused JVM accepts connections but never answers) would otherwise stall every
// reading sent to it until the timeout, exactly when its ISR state matters. Each request is
// retried on a connection error within ctx: answering first cancels the other request, and a
// request cancelled in flight closes its connection, so the next reading sent to that broker
// may meet the dying connection ("the broker connection has died"); with the other broker of
// the pair hung, that reading was lost (TestMetaReaderHungBroker, once, on a loaded host).
func (m *metaReader) request(ctx context.Context, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, error) {
	if len(m.brokers) < 2 {
		return req.RequestWith(ctx, m.cl)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		resp *kmsg.MetadataResponse
		err  error
	}
	ch := make(chan answer, 2)
	for k := range 2 {
		id := m.brokers[(m.n+k)%len(m.brokers)]
		r := *req // the client sets the version on the request it sends
		go func() {
			r, err := m.cl.Broker(int(id)).RetriableRequest(ctx, &r)
			if err != nil {
				ch <- answer{nil, fmt.Errorf("broker %d: %w", id, err)}
				return
			}
			ch <- answer{r.(*kmsg.MetadataResponse), nil}
		}()
	}
	var errs []error
	for range 2 {
		a := <-ch
		if a.err == nil {
			return a.resp, nil
		}
		errs = append(errs, a.err)
	}
	return nil, errors.Join(errs...)
}

// summarise reduces a metadata response to the sample, comparing each partition with prev.
// Topics without the prefix are ignored; an empty prefix ignores every topic.
func summarise(resp *kmsg.MetadataResponse, prefix string, prev map[partKey]partState) (*MetaSample, map[partKey]partState) {
	s := &MetaSample{Controller: resp.ControllerID}
	for _, b := range resp.Brokers {
		s.Brokers = append(s.Brokers, b.NodeID)
	}
	slices.Sort(s.Brokers)
	cur := make(map[partKey]partState, len(prev))
	if prefix == "" {
		return s, cur
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || !strings.HasPrefix(*t.Topic, prefix) {
			continue
		}
		name := *t.Topic
		if t.ErrorCode != 0 {
			if t.ErrorCode != kerr.UnknownTopicOrPartition.Code {
				s.PartitionErrors++ // the whole topic failed to load
			}
			continue
		}
		s.Topics++
		for _, p := range t.Partitions {
			k := partKey{name, p.Partition}
			cur[k] = s.count(p, prev[k])
		}
	}
	return s, cur
}

// count adds one partition to the sample, comparing it with its previous state (old.known is
// false for a partition not seen before), and returns its state now.
func (s *MetaSample) count(p kmsg.MetadataResponseTopicPartition, old partState) partState {
	s.Partitions++
	// REPLICA_NOT_AVAILABLE only says a replica is offline; the rest is still valid.
	if p.ErrorCode != 0 && p.ErrorCode != kerr.ReplicaNotAvailable.Code {
		s.PartitionErrors++
	}
	isr := slices.Sorted(slices.Values(p.ISR))
	incr(&s.ISRSizes, len(isr))
	if p.Leader < 0 {
		s.Offline++
	} else {
		incr(&s.Leaders, p.Leader)
	}
	if len(isr) < len(p.Replicas) {
		s.UnderReplicated++
		if p.Leader >= 0 {
			incr(&s.UnderReplicatedBy, p.Leader)
		}
	}
	for _, r := range p.Replicas {
		if !slices.Contains(isr, r) {
			incr(&s.OutOfISR, r)
		}
	}
	if old.known {
		if !slices.Equal(old.isr, isr) {
			s.ISRChanges++
		}
		if old.leader != p.Leader {
			s.LeaderChanges++
		}
	}
	return partState{leader: p.Leader, isr: isr, known: true}
}

func incr[K comparable](m *map[K]int, k K) {
	if *m == nil {
		*m = map[K]int{}
	}
	(*m)[k]++
}
