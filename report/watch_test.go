package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/watch"
)

// watchSeries is the probe series recorded on a real 3-broker cluster under a balanced load
// (replication factor 3, one consumer group).
func watchSeries(t *testing.T) *probe.Series {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "probe", "testdata", "series-traffic.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s probe.Series
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// watchIntervals cuts the recorded series as watch would with a 6 s interval and --for 13s,
// then adds a constructed skewed interval (every produce, consume and replication-out byte moved to broker 1, its replication in to the others, as when it
// leads every partition) and an interval in which no sample arrived.
func watchIntervals(t *testing.T) []watch.Interval {
	s := watchSeries(t)
	c := watch.Ceilings{HandlerBusy: 80, CPU: 90}
	cut := func(from, to int) *probe.Series {
		w := *s
		w.Samples = s.Samples[from:to]
		return &w
	}
	a, b := watch.Summarise(cut(0, 6), c), watch.Summarise(cut(6, 13), c)
	a.Seq, b.Seq, b.Final = 1, 2, true
	skewed := cut(0, 6)
	skewed.Samples = nil
	for _, x := range s.Samples[:6] {
		y := x
		y.Brokers = map[int32]*probe.BrokerSample{}
		for id, bs := range x.Brokers {
			cp := *bs
			y.Brokers[id] = &cp
		}
		for _, f := range []func(*probe.BrokerSample) *probe.Num{
			func(b *probe.BrokerSample) *probe.Num { return &b.BytesIn },
			func(b *probe.BrokerSample) *probe.Num { return &b.BytesOut },
			func(b *probe.BrokerSample) *probe.Num { return &b.ReplicationBytesOut },
		} {
			*f(y.Brokers[1]) += *f(y.Brokers[2]) + *f(y.Brokers[3])
			*f(y.Brokers[2]), *f(y.Brokers[3]) = 0, 0
		}
		// Followers only now: broker 1's share of replication in goes to the other two.
		r := y.Brokers[1].ReplicationBytesIn / 2
		y.Brokers[1].ReplicationBytesIn = 0
		y.Brokers[2].ReplicationBytesIn += r
		y.Brokers[3].ReplicationBytesIn += r
		skewed.Samples = append(skewed.Samples, y)
	}
	sk := watch.Summarise(skewed, c)
	sk.Seq = 1
	return []watch.Interval{a, b, sk, {Seq: 4}}
}

func TestWatchGolden(t *testing.T) {
	var text, js bytes.Buffer
	for _, iv := range watchIntervals(t) {
		if err := WatchText(&text, iv); err != nil {
			t.Fatal(err)
		}
		if err := WatchJSON(&js, iv); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "watch.txt", text.Bytes())
	golden(t, "watch.jsonl", js.Bytes())
	// One JSON object per line, each an interval.
	for i, line := range bytes.Split(bytes.TrimSpace(js.Bytes()), []byte("\n")) {
		var iv watch.Interval
		if err := json.Unmarshal(line, &iv); err != nil || iv.Seq == 0 {
			t.Errorf("line %d: %v (seq %d)", i+1, err, iv.Seq)
		}
	}
}
