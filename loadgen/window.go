package loadgen

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceKey is the Kafka protocol's API key of Produce requests.
const produceKey = 0

// windowMeter watches one producer client's protocol window: how long each broker connection
// had as many produce requests in flight as the client allows (1 for an idempotent producer,
// max.in.flight.requests.per.connection otherwise), and how many of its batches were full (no
// room for another record). Always at the window with full batches, a producer cannot send
// faster whatever the cluster could take. Its hooks run once per request or batch, never per
// record.
type windowMeter struct {
	limit    int   // produce requests allowed in flight per broker; 0 = not metered (acks=0)
	batchMax int32 // batch.size
	record   int32 // bytes one more record would add to a batch
	now      func() int64

	mu      sync.Mutex
	brokers map[int32]*brokerWindow

	batches, full atomic.Int64
}

// brokerWindow is one broker connection's requests in flight and its time at the window.
type brokerWindow struct {
	inFlight int
	since    int64 // clock time the window filled; valid while inFlight >= limit
	atLimit  int64 // ns at the window before since
}

// newWindowMeter meters a producer allowing limit requests in flight per broker (0 turns the
// meter off), with batches of batchMax bytes of records of about recordBytes each.
func newWindowMeter(limit int, batchMax, recordBytes int32, now func() int64) *windowMeter {
	return &windowMeter{limit: limit, batchMax: batchMax, record: recordBytes, now: now, brokers: map[int32]*brokerWindow{}}
}

var (
	_ kgo.HookBrokerWrite         = (*windowMeter)(nil)
	_ kgo.HookBrokerE2E           = (*windowMeter)(nil)
	_ kgo.HookProduceBatchWritten = (*windowMeter)(nil)
)

// OnBrokerWrite counts a produce request written to a broker.
func (m *windowMeter) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key != produceKey || err != nil || m.limit <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.broker(meta.NodeID)
	b.inFlight++
	if b.inFlight == m.limit {
		b.since = m.now()
	}
}

// OnBrokerE2E ends a produce request that was written: its response read, or its connection
// dead (franz-go calls it once for every request, whatever became of it).
func (m *windowMeter) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if key != produceKey || e2e.WriteErr != nil || m.limit <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.release(m.broker(meta.NodeID))
}

// OnProduceBatchWritten counts a batch the broker accepted, and whether it was full.
func (m *windowMeter) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, bm kgo.ProduceBatchMetrics) {
	m.batches.Add(1)
	if int64(bm.UncompressedBytes)+int64(m.record) > int64(m.batchMax) {
		m.full.Add(1)
	}
}

// release ends a request in flight on b, closing a stretch at the window.
func (m *windowMeter) release(b *brokerWindow) {
	if b.inFlight <= 0 {
		return
	}
	if b.inFlight == m.limit {
		b.atLimit += m.now() - b.since
	}
	b.inFlight--
}

func (m *windowMeter) broker(id int32) *brokerWindow {
	b := m.brokers[id]
	if b == nil {
		b = &brokerWindow{}
		m.brokers[id] = b
	}
	return b
}

// windowReading is a meter's cumulative counts at an instant.
type windowReading struct {
	atLimit       map[int32]int64 // ns each broker connection spent at the window
	batches, full int64
}

// read takes the meter's cumulative counts at now, counting an open stretch at the window.
func (m *windowMeter) read(now int64) windowReading {
	r := windowReading{batches: m.batches.Load(), full: m.full.Load()}
	m.mu.Lock()
	defer m.mu.Unlock()
	r.atLimit = make(map[int32]int64, len(m.brokers))
	for id, b := range m.brokers {
		r.atLimit[id] = b.atLimit
		if m.limit > 0 && b.inFlight >= m.limit {
			r.atLimit[id] += now - b.since
		}
	}
	return r
}

// windowShare is the largest share of the interval between a and b that one broker connection
// spent at the window.
func windowShare(a, b windowReading, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	top := int64(0)
	for id, v := range b.atLimit {
		top = max(top, v-a.atLimit[id])
	}
	return min(1, float64(top)/float64(ns))
}
