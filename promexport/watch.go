package promexport

import (
	"strconv"
	"sync"

	"github.com/plimsoll/plimsoll/watch"
	"github.com/prometheus/client_golang/prometheus"
)

// The metrics of `plimsoll watch`: the last interval's view of the watched cluster.
// docs/prometheus.md lists them with their units.
var (
	dWatchIntervals = desc("plimsoll_watch_intervals_total", "Intervals watch has summarised.")
	dWatchSeconds   = desc("plimsoll_watch_interval_seconds", "Length of the last interval summarised.")
	dWatchTraffic   = [...]*prometheus.Desc{
		desc("plimsoll_watch_broker_bytes_in_per_second", "Clients' produce bytes into the broker over the last interval (Kafka's BytesInPerSec).", "broker"),
		desc("plimsoll_watch_broker_replication_bytes_in_per_second", "Bytes the broker fetched as a follower over the last interval.", "broker"),
		desc("plimsoll_watch_broker_replication_bytes_out_per_second", "Bytes followers fetched from the broker over the last interval.", "broker"),
		desc("plimsoll_watch_broker_bytes_out_per_second", "Bytes consumers fetched from the broker over the last interval (Kafka's BytesOutPerSec).", "broker"),
	}
	dWatchUtil    = desc("plimsoll_watch_utilisation_ratio", "A broker resource's mean utilisation over the last interval (0 to 1), where watch knows its ceiling.", "broker", "resource")
	dWatchCeiling = desc("plimsoll_watch_ceiling_ratio", "The utilisation watch counts as the resource's ceiling (0 to 1).", "broker", "resource")
	dWatchBusiest = desc("plimsoll_watch_busiest_broker", "1 for the broker nearest a ceiling (or carrying the most bytes) in the last interval, 0 for the others.", "broker")
	dWatchModel   = desc("plimsoll_watch_model_max_error_ratio", "Largest relative difference between a broker's measured network in or out and the model's balanced share, last interval.")
)

// Watch serves the last interval of `plimsoll watch` as metrics; register it on an Exporter
// (Exporter.Register) and hand it every interval (Set).
type Watch struct {
	mu sync.Mutex
	n  uint64
	iv *watch.Interval
}

// NewWatch returns a Watch with no interval yet: it serves the interval count (0) only.
func NewWatch() *Watch { return &Watch{} }

// Set makes iv the interval served; it keeps a reference, so iv must not change afterwards.
func (w *Watch) Set(iv watch.Interval) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	w.iv = &iv
}

// Describe sends every metric's description.
func (w *Watch) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dWatchIntervals, dWatchSeconds, dWatchUtil, dWatchCeiling, dWatchBusiest, dWatchModel} {
		ch <- d
	}
	for _, d := range dWatchTraffic {
		ch <- d
	}
}

// Collect sends the last interval's figures.
func (w *Watch) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	defer w.mu.Unlock()
	counter(ch, dWatchIntervals, float64(w.n))
	if w.iv == nil {
		return
	}
	iv := w.iv
	gauge(ch, dWatchSeconds, iv.Seconds)
	for _, b := range iv.Brokers {
		id := strconv.Itoa(int(b.ID))
		for i, v := range []float64{b.BytesIn, b.ReplicationBytesIn, b.ReplicationBytesOut, b.BytesOut} {
			gauge(ch, dWatchTraffic[i], v, id)
		}
		for _, h := range b.Headroom {
			gauge(ch, dWatchUtil, h.Utilisation/100, id, h.Resource)
			gauge(ch, dWatchCeiling, h.Ceiling/100, id, h.Resource)
		}
		gauge(ch, dWatchBusiest, flag(iv.Busiest != nil && iv.Busiest.Broker == b.ID), id)
	}
	if iv.Model != nil {
		gauge(ch, dWatchModel, iv.Model.MaxError)
	}
}
