package loadgen

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWindowMeter drives the hooks through a scripted sequence of requests on two brokers with a
// fake clock and checks the time each spent at the window.
func TestWindowMeter(t *testing.T) {
	var now int64
	b1, b2 := kgo.BrokerMetadata{NodeID: 1}, kgo.BrokerMetadata{NodeID: 2}
	write := func(m *windowMeter, b kgo.BrokerMetadata, key int16, err error) {
		m.OnBrokerWrite(b, key, 100, 0, 0, err)
	}
	done := func(m *windowMeter, b kgo.BrokerMetadata, key int16, err error) {
		m.OnBrokerE2E(b, key, kgo.BrokerE2E{WriteErr: err})
	}
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	for _, c := range []struct {
		name   string
		limit  int
		script func(m *windowMeter)
		want   map[int32]int64 // ns at the window when read at 1 s
	}{
		{"idempotent: one request in flight is the window", 1, func(m *windowMeter) {
			write(m, b1, produceKey, nil) // 0 ms
			now = ms(300)
			done(m, b1, produceKey, nil)
			now = ms(400)
			write(m, b1, produceKey, nil) // open at the read
			write(m, b2, 1, nil)          // a fetch: not metered
		}, map[int32]int64{1: ms(300) + ms(600)}},
		{"five allowed: below it never counts", 5, func(m *windowMeter) {
			for range 4 {
				write(m, b1, produceKey, nil)
			}
			now = ms(500)
			write(m, b1, produceKey, nil) // the fifth: full from 500 ms
			now = ms(700)
			done(m, b1, produceKey, nil)
		}, map[int32]int64{1: ms(200)}},
		{"failed writes are never in flight; a dead connection's requests end", 1, func(m *windowMeter) {
			write(m, b1, produceKey, errors.New("broken pipe"))
			done(m, b1, produceKey, errors.New("broken pipe"))
			write(m, b2, produceKey, nil)
			now = ms(250)
			done(m, b2, produceKey, nil) // errChosenBrokerDead arrives as E2E without a write error
			done(m, b2, produceKey, nil) // a second end never goes below zero
		}, map[int32]int64{1: 0, 2: ms(250)}},
		{"acks=0: not metered", 0, func(m *windowMeter) {
			write(m, b1, produceKey, nil)
		}, map[int32]int64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			now = 0
			m := newWindowMeter(c.limit, 16384, 1000, func() int64 { return now })
			c.script(m)
			now = ms(1000)
			got := m.read(now).atLimit
			for id, w := range c.want {
				if got[id] != w {
					t.Errorf("broker %d at the window %v, want %v", id, time.Duration(got[id]), time.Duration(w))
				}
			}
			if len(c.want) == 0 && len(got) != 0 {
				t.Errorf("metered %v, want nothing", got)
			}
		})
	}
}

func TestWindowSignals(t *testing.T) {
	m := newWindowMeter(1, 16384, 1100, func() int64 { return 0 })
	for _, n := range []int{15000, 15400, 2000, 16384} { // room for 1,100 B more: yes, no, yes, no
		m.OnProduceBatchWritten(kgo.BrokerMetadata{}, "t", 0, kgo.ProduceBatchMetrics{UncompressedBytes: n})
	}
	a := counters{t: 0, win: []windowReading{{atLimit: map[int32]int64{1: 0, 2: 0}}}}
	b := counters{t: int64(time.Second), win: []windowReading{{atLimit: map[int32]int64{1: int64(400 * time.Millisecond), 2: int64(900 * time.Millisecond)}}}}
	b.win[0].batches, b.win[0].full = m.batches.Load(), m.full.Load()
	share, full, n := windowSignals(a, b)
	if share != 0.9 || full != 0.5 {
		t.Errorf("window share %v, full batches %v; want 0.9 (broker 2) and 0.5", share, full)
	}
	if n != 4 {
		t.Errorf("batches %d, want 4", n)
	}
	if w := windowBetween(a, b); w != (ProduceWindow{Share: 0.9, Batches: 4, FullBatches: 2}) {
		t.Errorf("window %+v, want share 0.9, 2 of 4 batches full (the counts a worker's report carries)", w)
	}
}
