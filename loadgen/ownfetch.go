package loadgen

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/fetch"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
)

// The consumers' fetch paths (Options.ConsumerFetch).
const (
	// FetchFranzGo: franz-go fetches and decodes; the consumer polls (consumer.poll).
	FetchFranzGo = "franz-go"
	// FetchPlimsoll: plimsoll's own Fetch requests and in-place parsing (package fetch), franz-go
	// keeping metadata, group membership and offset commits.
	FetchPlimsoll = "plimsoll"
)

// envConsumerFetch names the fetch path when Options.ConsumerFetch is empty.
const envConsumerFetch = "PLIMSOLL_CONSUMER_FETCH"

// consumerFetch is the fetch path a run's consumers use: opt, else $PLIMSOLL_CONSUMER_FETCH,
// else plimsoll's own.
func consumerFetch(opt string) string {
	if opt == "" {
		opt = os.Getenv(envConsumerFetch)
	}
	if opt == FetchFranzGo {
		return FetchFranzGo
	}
	return FetchPlimsoll
}

// fetchSink is the consumer as a fetch.Sink: the group's and the consumer's locks around each
// response, every record accounted (consumer.account) and its position kept.
type fetchSink struct {
	c   *consumer
	now int64
	n   int64
}

func (s *fetchSink) Lock() {
	s.now = s.c.run.clock.Now()
	s.c.g.mu.Lock()
	s.c.mu.Lock()
	s.n = 0
}

func (s *fetchSink) Record(part int, offset int64, epoch int32, value []byte) {
	c := s.c
	s.n += c.account(part, offset, value, s.now)
	c.pos.next[part], c.pos.epoch[part] = offset+1, epoch
}

func (s *fetchSink) Unlock() {
	s.c.flushLatency()
	s.c.mu.Unlock()
	s.c.g.mu.Unlock()
	s.c.consumedAll.Add(s.n)
}

func (s *fetchSink) Error(err error) {
	s.c.mu.Lock()
	s.c.fetchErrs.add(err)
	s.c.mu.Unlock()
}

// fetchTopics lays the run's topics out in the dense partition space of partBase (each topic's
// partitions from its base to the next topic's, the last to total).
func fetchTopics(partBase map[string]int, total int) []fetch.Topic {
	ts := make([]fetch.Topic, 0, len(partBase))
	for name, base := range partBase {
		ts = append(ts, fetch.Topic{Name: name, Base: base})
	}
	slices.SortFunc(ts, func(a, b fetch.Topic) int { return a.Base - b.Base })
	for i := range ts {
		end := total
		if i+1 < len(ts) {
			end = ts[i+1].Base
		}
		ts[i].Partitions = end - ts[i].Base
	}
	return ts
}

// newOwnFetch gives the consumer plimsoll's own fetch path: a Fetcher reading through
// connections of its own, bound to the consumer's client by bindOwnFetch once it exists.
func (c *consumer) newOwnFetch(cfg *kafkaprops.Consumer, total int) {
	c.fetcher = fetch.New(fetch.Config{
		Topics: fetchTopics(c.partBase, total), MinBytes: cfg.FetchMinBytes, MaxBytes: cfg.FetchMaxBytes,
		PartitionMaxBytes: cfg.MaxPartitionFetchBytes, MaxWait: cfg.FetchMaxWait, ReadCommitted: cfg.ReadCommitted,
		Rack: cfg.Rack, Reset: cfg.ResetOffset, Backoff: cfg.RetryBackoff, Timeout: 30 * time.Second,
	}, &fetchSink{c: c})
}

// bindOwnFetch pauses franz-go's own fetching of every topic (it keeps the group, its
// callbacks and commits; what it might fetch before the pause is never polled) and binds the
// fetcher to the client: its metadata, its dialer (TLS), its SASL mechanism, its client id.
func (c *consumer) bindOwnFetch(cl *kgo.Client, topics []string) {
	cl.PauseFetchTopics(topics...)
	id, _ := cl.OptValue(kgo.ClientID).(string)
	var mech sasl.Mechanism
	if ms, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism); len(ms) > 0 {
		mech = ms[0]
	}
	c.fetcher.Bind(cl, dialOf(cl), mech, id)
}

// dialOf is how the client cl dials: its Dialer, else TLS with its configuration, else TCP.
func dialOf(cl *kgo.Client) fetch.DialFunc {
	if d, ok := cl.OptValue(kgo.Dialer).(func(context.Context, string, string) (net.Conn, error)); ok && d != nil {
		return d
	}
	if cfg, ok := cl.OptValue(kgo.DialTLSConfig).(*tls.Config); ok && cfg != nil {
		d := &tls.Dialer{Config: cfg}
		return func(ctx context.Context, network, addr string) (net.Conn, error) {
			c := d.Config.Clone()
			if c.ServerName == "" {
				c.ServerName, _, _ = net.SplitHostPort(addr)
			}
			return (&tls.Dialer{Config: c}).DialContext(ctx, network, addr)
		}
	}
	var d net.Dialer
	return d.DialContext
}

// ownAssigned starts the fetcher on a new assignment's partitions at the offsets franz-go
// fetched for them (after resume): a committed offset, the member's own position, or none (the
// reset policy's).
func (c *consumer) ownAssigned(offsets map[string]map[int32]kgo.Offset) {
	for topic, parts := range offsets {
		base, ok := c.partBase[topic]
		if !ok {
			continue
		}
		for p, o := range parts {
			c.fetcher.Assign(base+int(p), o.EpochOffset().Offset)
		}
	}
}

// ownRevoked stops the fetcher on revoked or lost partitions and returns, for a commit, where
// each one's reading stands.
func (c *consumer) ownRevoked(m map[string][]int32) map[string]map[int32]kgo.EpochOffset {
	out := map[string]map[int32]kgo.EpochOffset{}
	for topic, parts := range m {
		base, ok := c.partBase[topic]
		if !ok {
			continue
		}
		for _, p := range parts {
			if next, ok := c.fetcher.Revoke(base + int(p)); ok {
				if out[topic] == nil {
					out[topic] = map[int32]kgo.EpochOffset{}
				}
				out[topic][p] = kgo.EpochOffset{Epoch: -1, Offset: next}
			}
		}
	}
	return out
}

// ownPositions is where the fetcher's reading of every assigned partition stands, for a commit.
func (c *consumer) ownPositions() map[string]map[int32]kgo.EpochOffset {
	out := map[string]map[int32]kgo.EpochOffset{}
	ts := c.fetcher.Topics()
	c.fetcher.Positions(func(part int, next int64) {
		for _, t := range ts {
			if part >= t.Base && part < t.Base+t.Partitions {
				if out[t.Name] == nil {
					out[t.Name] = map[int32]kgo.EpochOffset{}
				}
				out[t.Name][int32(part-t.Base)] = kgo.EpochOffset{Epoch: -1, Offset: next}
			}
		}
	})
	return out
}

// autoCommit commits the fetcher's positions every interval until ctx is done, as
// enable.auto.commit does (franz-go's own autocommit has nothing to commit: it commits what
// its polls returned).
func (c *consumer) autoCommit(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if pos := c.ownPositions(); len(pos) > 0 {
				c.cl.CommitOffsets(ctx, pos, nil)
			}
		}
	}
}

// pauseFetch stops (true) or resumes (false) the consumer's fetching of topics.
func (c *consumer) pauseFetch(paused bool, topics []string) {
	switch {
	case c.fetcher != nil:
		c.fetcher.Pause(paused)
	case paused:
		c.cl.PauseFetchTopics(topics...)
	default:
		c.cl.ResumeFetchTopics(topics...)
	}
}
