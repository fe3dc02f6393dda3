package promexport

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/watch"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// sampleWatch is a Watch holding one interval of two brokers, broker 2 the busiest.
func sampleWatch() *Watch {
	w := NewWatch()
	w.Set(watch.Interval{Seconds: 10, Brokers: []watch.Broker{
		{ID: 1, BytesIn: 1000, ReplicationBytesIn: 2000, ReplicationBytesOut: 3000, BytesOut: 4000,
			Headroom: []watch.Headroom{{Resource: "cpu", Utilisation: 40, Ceiling: 90}}},
		{ID: 2, BytesIn: 5000, Headroom: []watch.Headroom{{Resource: "network in", Utilisation: 75, Ceiling: 100}}},
	}, Busiest: &watch.Busiest{Broker: 2}, Model: &watch.ModelView{Comparison: model.Comparison{MaxError: 0.25}}})
	return w
}

func TestWatchMetrics(t *testing.T) {
	if n := testutil.CollectAndCount(NewWatch()); n != 1 {
		t.Errorf("a Watch with no interval serves %d metrics, want the interval count alone", n)
	}
	want := `
# HELP plimsoll_watch_broker_bytes_in_per_second Clients' produce bytes into the broker over the last interval (Kafka's BytesInPerSec).
# TYPE plimsoll_watch_broker_bytes_in_per_second gauge
plimsoll_watch_broker_bytes_in_per_second{broker="1"} 1000
plimsoll_watch_broker_bytes_in_per_second{broker="2"} 5000
# HELP plimsoll_watch_broker_replication_bytes_out_per_second Bytes followers fetched from the broker over the last interval.
# TYPE plimsoll_watch_broker_replication_bytes_out_per_second gauge
plimsoll_watch_broker_replication_bytes_out_per_second{broker="1"} 3000
plimsoll_watch_broker_replication_bytes_out_per_second{broker="2"} 0
# HELP plimsoll_watch_busiest_broker 1 for the broker nearest a ceiling (or carrying the most bytes) in the last interval, 0 for the others.
# TYPE plimsoll_watch_busiest_broker gauge
plimsoll_watch_busiest_broker{broker="1"} 0
plimsoll_watch_busiest_broker{broker="2"} 1
# HELP plimsoll_watch_intervals_total Intervals watch has summarised.
# TYPE plimsoll_watch_intervals_total counter
plimsoll_watch_intervals_total 1
# HELP plimsoll_watch_model_max_error_ratio Largest relative difference between a broker's measured network in or out and the model's balanced share, last interval.
# TYPE plimsoll_watch_model_max_error_ratio gauge
plimsoll_watch_model_max_error_ratio 0.25
# HELP plimsoll_watch_utilisation_ratio A broker resource's mean utilisation over the last interval (0 to 1), where watch knows its ceiling.
# TYPE plimsoll_watch_utilisation_ratio gauge
plimsoll_watch_utilisation_ratio{broker="1",resource="cpu"} 0.4
plimsoll_watch_utilisation_ratio{broker="2",resource="network in"} 0.75
`
	names := []string{"plimsoll_watch_broker_bytes_in_per_second", "plimsoll_watch_broker_replication_bytes_out_per_second",
		"plimsoll_watch_busiest_broker", "plimsoll_watch_intervals_total", "plimsoll_watch_model_max_error_ratio",
		"plimsoll_watch_utilisation_ratio"}
	if err := testutil.CollectAndCompare(sampleWatch(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}
