package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/prometheus/model/labels"
)

// ErrMetrics is wrapped by errors about a broker's metrics endpoint: unreachable, not
// Prometheus text, or without the metrics plimsoll's exporter rules define (docs/metrics.md).
var ErrMetrics = errors.New("broker metrics endpoint")

// BrokerSample is one broker's metrics over one interval, from its Prometheus endpoint. Rates
// are per second over Interval (the time between this scrape and the previous good one);
// gauges are the value at this scrape. Every value is missing when Err is set.
type BrokerSample struct {
	Err           string  `json:"err,omitempty"`
	Interval      float64 `json:"interval_s"`
	ScrapeSeconds float64 `json:"scrape_s"`
	// At is when this scrape read the counters (the middle of its request): the rates cover
	// (At - Interval, At], which may lag the sample's tick by the scrape's own time. Zero in
	// samples written before it was recorded, and when Err is set.
	At time.Time `json:"at,omitzero"`

	// Record bytes per second from Kafka's BrokerTopicMetrics. BytesIn/Out are clients'
	// produce and consume traffic; replication is counted separately.
	BytesIn             Num `json:"bytes_in"`
	BytesOut            Num `json:"bytes_out"`
	ReplicationBytesIn  Num `json:"replication_bytes_in"`
	ReplicationBytesOut Num `json:"replication_bytes_out"`
	MessagesIn          Num `json:"messages_in"`
	// Wire bytes per second read from and written to sockets, all listeners (protocol
	// overhead, controller and replication traffic included): what a NIC carries.
	WireIn  Num `json:"wire_in"`
	WireOut Num `json:"wire_out"`

	ProduceRequests       Num `json:"produce_requests"`
	FetchRequests         Num `json:"fetch_requests"`
	FailedProduceRequests Num `json:"failed_produce_requests"`
	FailedFetchRequests   Num `json:"failed_fetch_requests"`
	BytesRejected         Num `json:"bytes_rejected"`

	// HandlerIdle is the request-handler threads' idle share over the interval, 0..1: the
	// RequestHandlerAvgIdlePercent meter's count difference (idle ns per thread) / 1e9 /
	// interval / handler pools, clamped to [0,1].
	HandlerIdle Num `json:"handler_idle"`
	// NetworkIdle is the network-processor threads' idle share, 0..1 (a gauge; it reads low
	// for the first 30-40 s after a broker starts).
	NetworkIdle   Num `json:"network_idle"`
	RequestQueue  Num `json:"request_queue"`
	ResponseQueue Num `json:"response_queue"`

	ISRShrinks       Num `json:"isr_shrinks"` // per second
	ISRExpands       Num `json:"isr_expands"` // per second
	FailedISRUpdates Num `json:"failed_isr_updates"`
	UnderReplicated  Num `json:"under_replicated"` // partitions led here lacking in-sync replicas
	UnderMinISR      Num `json:"under_min_isr"`
	OfflineReplicas  Num `json:"offline_replicas"`
	Partitions       Num `json:"partitions"`
	Leaders          Num `json:"leaders"`
	ActiveController Num `json:"active_controller"`

	// Request total time in ms from Kafka's own histograms (recent requests, not only this
	// interval's).
	ProduceMs       Quantiles `json:"produce_ms"`
	FetchConsumerMs Quantiles `json:"fetch_consumer_ms"`
	FetchFollowerMs Quantiles `json:"fetch_follower_ms"`

	JVMCPU Num `json:"jvm_cpu_cores"` // CPU seconds per second of the broker's JVM
	GC     Num `json:"gc"`            // seconds spent in GC per second
	// JIT is the seconds the JVM's JIT compilers spent compiling, per second
	// (jvm_compilation_time_seconds_total). A freshly started broker compiles its hot code for
	// minutes under load, taking CPU from the work it measures (docs/warmup.md).
	JIT       Num `json:"jit_cores"`
	HeapUsed  Num `json:"heap_used"`
	HeapMax   Num `json:"heap_max"`
	CPULoad   Num `json:"cpu_load"`    // JVM's share of its machine's CPU (ProcessCpuLoad)
	SystemCPU Num `json:"system_load"` // its machine's busy share (SystemCpuLoad)
}

// Quantiles are request time percentiles in ms.
type Quantiles struct {
	P50  Num `json:"p50"`
	P99  Num `json:"p99"`
	P999 Num `json:"p999"`
}

// metric indexes one value read from a scrape.
type metric int

const (
	mBytesIn metric = iota
	mBytesOut
	mReplIn
	mReplOut
	mMsgsIn
	mWireIn
	mWireOut
	mProduceReqs
	mFetchReqs
	mFailedProduce
	mFailedFetch
	mBytesRejected
	mIdleCount
	mNetIdle
	mReqQueue
	mRespQueue
	mShrinks
	mExpands
	mFailedISR
	mURP
	mUnderMinISR
	mOfflineReplicas
	mPartitions
	mLeaders
	mActiveController
	mCPUTime
	mGC
	mJIT
	mHeapUsed
	mHeapMax
	mCPULoad
	mSystemLoad
	mTimeBase // 3 request kinds × 3 quantiles follow
	nMetric   = mTimeBase + 9
)

// brokerMetrics maps a broker-wide series (no labels) to its slot.
var brokerMetrics = map[string]metric{
	"kafka_server_brokertopicmetrics_bytesinpersec_total":                     mBytesIn,
	"kafka_server_brokertopicmetrics_bytesoutpersec_total":                    mBytesOut,
	"kafka_server_brokertopicmetrics_replicationbytesinpersec_total":          mReplIn,
	"kafka_server_brokertopicmetrics_replicationbytesoutpersec_total":         mReplOut,
	"kafka_server_brokertopicmetrics_messagesinpersec_total":                  mMsgsIn,
	"kafka_server_brokertopicmetrics_totalproducerequestspersec_total":        mProduceReqs,
	"kafka_server_brokertopicmetrics_totalfetchrequestspersec_total":          mFetchReqs,
	"kafka_server_brokertopicmetrics_failedproducerequestspersec_total":       mFailedProduce,
	"kafka_server_brokertopicmetrics_failedfetchrequestspersec_total":         mFailedFetch,
	"kafka_server_brokertopicmetrics_bytesrejectedpersec_total":               mBytesRejected,
	"kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count": mIdleCount,
	"kafka_network_socketserver_networkprocessoravgidlepercent":               mNetIdle,
	"kafka_network_requestchannel_requestqueuesize":                           mReqQueue,
	"kafka_network_requestchannel_responsequeuesize":                          mRespQueue,
	"kafka_server_replicamanager_isrshrinkspersec_total":                      mShrinks,
	"kafka_server_replicamanager_isrexpandspersec_total":                      mExpands,
	"kafka_server_replicamanager_failedisrupdatespersec_total":                mFailedISR,
	"kafka_server_replicamanager_underreplicatedpartitions":                   mURP,
	"kafka_server_replicamanager_underminisrpartitioncount":                   mUnderMinISR,
	"kafka_server_replicamanager_offlinereplicacount":                         mOfflineReplicas,
	"kafka_server_replicamanager_partitioncount":                              mPartitions,
	"kafka_server_replicamanager_leadercount":                                 mLeaders,
	"kafka_controller_kafkacontroller_activecontrollercount":                  mActiveController,
	"jvm_os_processcputime":                                                   mCPUTime,
	"jvm_compilation_time_seconds_total":                                      mJIT,
	"jvm_heap_used_bytes":                                                     mHeapUsed,
	"jvm_heap_max_bytes":                                                      mHeapMax,
	"jvm_os_processcpuload":                                                   mCPULoad,
	"jvm_os_systemcpuload":                                                    mSystemLoad,
}

// Series summed over all their labels.
const (
	wireInName  = "kafka_server_socketservermetrics_incoming_byte_total"
	wireOutName = "kafka_server_socketservermetrics_outgoing_byte_total"
	gcName      = "jvm_gc_collection_seconds_sum"
	timeName    = "kafka_network_requestmetrics_totaltimems"
)

// brokerReading is one scrape's values; counters are cumulative.
type brokerReading struct {
	at     time.Time
	scrape time.Duration
	v      [nMetric]Num
}

// newBrokerReading is a reading with every value missing.
func newBrokerReading() *brokerReading {
	r := &brokerReading{}
	for i := range r.v {
		r.v[i] = Missing
	}
	return r
}

// add counts v into metric m, which sums every series that feeds it.
func (r *brokerReading) add(m metric, v float64) {
	if r.v[m].OK() {
		r.v[m] += Num(v)
	} else {
		r.v[m] = Num(v)
	}
}

// readBroker extracts the probe's values from a scrape.
func readBroker(text []byte) (*brokerReading, error) {
	r := newBrokerReading()
	err := parseProm(text, func(name, series []byte, v float64, labels func() labels.Labels) {
		if m, ok := brokerMetrics[string(name)]; ok {
			if unlabelled(name, series) {
				r.v[m] = Num(v)
			}
			return
		}
		switch string(name) {
		case wireInName:
			r.add(mWireIn, v)
		case wireOutName:
			r.add(mWireOut, v)
		case gcName:
			r.add(mGC, v)
		case timeName:
			ls := labels()
			if k := requestTimeSlot(ls.Get("request"), ls.Get("quantile")); k >= 0 {
				r.v[mTimeBase+metric(k)] = Num(v)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if !r.v[mBytesIn].OK() {
		return nil, fmt.Errorf("%w: no kafka_server_brokertopicmetrics_bytesinpersec_total: is this the JMX exporter with plimsoll's rules (docs/metrics.md)?", ErrMetrics)
	}
	return r, nil
}

// requestTimeSlot is the index, among the 9 request time values, of a request kind's quantile;
// -1 for those the probe does not keep.
func requestTimeSlot(request, quantile string) int {
	k, qi := -1, -1
	switch request {
	case "Produce":
		k = 0
	case "FetchConsumer":
		k = 1
	case "FetchFollower":
		k = 2
	}
	switch quantile {
	case "0.50", "0.5":
		qi = 0
	case "0.99":
		qi = 1
	case "0.999":
		qi = 2
	}
	if k < 0 || qi < 0 {
		return -1
	}
	return 3*k + qi
}

// diffBroker turns two scrapes into the interval's sample; pools is the number of request
// handler pools that mark the idle meter (2 on combined broker+controller nodes).
func diffBroker(prev, cur *brokerReading, pools int) *BrokerSample {
	dt := cur.at.Sub(prev.at).Seconds()
	rt := func(m metric) Num { return rate(prev.v[m], cur.v[m], dt) }
	g := func(m metric) Num { return cur.v[m] }
	q := func(k int) Quantiles {
		b := mTimeBase + metric(3*k)
		return Quantiles{g(b), g(b + 1), g(b + 2)}
	}
	return &BrokerSample{
		Interval:              dt,
		ScrapeSeconds:         cur.scrape.Seconds(),
		At:                    cur.at,
		BytesIn:               rt(mBytesIn),
		BytesOut:              rt(mBytesOut),
		ReplicationBytesIn:    rt(mReplIn),
		ReplicationBytesOut:   rt(mReplOut),
		MessagesIn:            rt(mMsgsIn),
		WireIn:                rt(mWireIn),
		WireOut:               rt(mWireOut),
		ProduceRequests:       rt(mProduceReqs),
		FetchRequests:         rt(mFetchReqs),
		FailedProduceRequests: rt(mFailedProduce),
		FailedFetchRequests:   rt(mFailedFetch),
		BytesRejected:         rt(mBytesRejected),
		HandlerIdle:           handlerIdle(prev.v[mIdleCount], cur.v[mIdleCount], dt, pools),
		NetworkIdle:           clamp01(g(mNetIdle)),
		RequestQueue:          g(mReqQueue),
		ResponseQueue:         g(mRespQueue),
		ISRShrinks:            rt(mShrinks),
		ISRExpands:            rt(mExpands),
		FailedISRUpdates:      rt(mFailedISR),
		UnderReplicated:       g(mURP),
		UnderMinISR:           g(mUnderMinISR),
		OfflineReplicas:       g(mOfflineReplicas),
		Partitions:            g(mPartitions),
		Leaders:               g(mLeaders),
		ActiveController:      g(mActiveController),
		ProduceMs:             q(0),
		FetchConsumerMs:       q(1),
		FetchFollowerMs:       q(2),
		JVMCPU:                rt(mCPUTime) / 1e9,
		GC:                    rt(mGC),
		JIT:                   rt(mJIT),
		HeapUsed:              g(mHeapUsed),
		HeapMax:               g(mHeapMax),
		CPULoad:               g(mCPULoad),
		SystemCPU:             g(mSystemLoad),
	}
}

// handlerIdle converts the RequestHandlerAvgIdlePercent meter's count into an idle share.
// Each handler thread marks idle nanoseconds divided by the pool's thread count, so the count
// grows by 1e9 per second when the whole pool is idle; on combined broker+controller nodes both
// pools mark the same meter and it grows by 2e9. Timing jitter between the scrape and the
// meter can push a fully idle pool slightly above 1, hence the clamp.
func handlerIdle(prev, cur Num, dt float64, pools int) Num {
	return clamp01(rate(prev, cur, dt) / 1e9 / Num(max(pools, 1)))
}

// scraper reads one broker's endpoint.
type scraper struct {
	id     int32
	url    string
	pools  int
	client *http.Client
	buf    bytes.Buffer
	// pending is the scrape under way, if any.
	pending pending[scrapeResult]
}

// maxScrape bounds a scrape body; the exporter serves about 40 KB.
const maxScrape = 16 << 20

func (s *scraper) scrape(ctx context.Context) (*brokerReading, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrMetrics, s.url, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrMetrics, s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w %s: HTTP %s", ErrMetrics, s.url, resp.Status)
	}
	s.buf.Reset()
	if _, err := s.buf.ReadFrom(io.LimitReader(resp.Body, maxScrape)); err != nil {
		return nil, fmt.Errorf("%w %s: reading: %v", ErrMetrics, s.url, err)
	}
	end := time.Now()
	r, err := readBroker(s.buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("broker %d %s: %w", s.id, s.url, err)
	}
	// The exporter reads the MBeans somewhere during the request; the midpoint is the best
	// estimate of when the values were taken.
	r.at = start.Add(end.Sub(start) / 2)
	r.scrape = end.Sub(start)
	return r, nil
}
