package model

import (
	"fmt"
	"math"
	"strconv"

	"github.com/plimsoll/plimsoll/units"
)

// Result is the model's answer. Its JSON field names are a stable schema (docs/model.md):
// every key is always present, and a figure the inputs do not determine is null.
type Result struct {
	// BusiestBroker is the load on the busiest broker with all brokers up; null without a
	// byte rate.
	BusiestBroker *BrokerLoad `json:"busiest_broker"`
	// Cluster sums the brokers' loads and prices a message.
	Cluster ClusterLoad `json:"cluster"`
	// Utilization is the busiest broker's load over each capacity (1 = full), all brokers up.
	Utilization PerResource `json:"utilization"`
	// MaxProduceByResource is the produce rate at which each resource of the busiest
	// survivor reaches MaxUtilization, with BrokersDown brokers gone.
	MaxProduceByResource PerResource `json:"max_produce_by_resource"`
	// Bottleneck is the resource with the lowest ceiling; null without a capacity.
	Bottleneck *Resource `json:"bottleneck"`
	// MaxProduceBytesPerSec is the cluster's produce ceiling (the bottleneck's).
	MaxProduceBytesPerSec *float64 `json:"max_produce_bytes_per_sec"`
	// MaxMessagesPerSec is the ceiling in messages of the given size.
	MaxMessagesPerSec *float64 `json:"max_messages_per_sec"`
	// Partitions holds the partition-count rules.
	Partitions Partitions `json:"partitions"`
	// Headroom is present with a measured BrokerLimit.
	Headroom *Headroom `json:"headroom"`
	// Notes are caveats and warnings about these inputs, in plain words.
	Notes []string `json:"notes"`
	// Explain holds the formula behind each figure, with the numbers put in, keyed by the
	// figure's JSON path (e.g. "busiest_broker.network_in_bytes_per_sec").
	Explain map[string]string `json:"-"`
}

// BrokerLoad is the JSON form of a broker's Load, with its partition counts.
type BrokerLoad struct {
	Leaders                   *int    `json:"leaders"`
	Followers                 *int    `json:"followers"`
	ProduceInBytesPerSec      float64 `json:"produce_in_bytes_per_sec"`
	ReplicationInBytesPerSec  float64 `json:"replication_in_bytes_per_sec"`
	ReplicationOutBytesPerSec float64 `json:"replication_out_bytes_per_sec"`
	ConsumeOutBytesPerSec     float64 `json:"consume_out_bytes_per_sec"`
	NetworkInBytesPerSec      float64 `json:"network_in_bytes_per_sec"`
	NetworkOutBytesPerSec     float64 `json:"network_out_bytes_per_sec"`
	DiskWriteBytesPerSec      float64 `json:"disk_write_bytes_per_sec"`
	DiskReadBytesPerSec       float64 `json:"disk_read_bytes_per_sec"`
}

// ClusterLoad is the whole cluster's traffic and the wire cost of a message.
type ClusterLoad struct {
	ProduceBytesPerSec      *float64 `json:"produce_bytes_per_sec"`
	MessagesPerSec          *float64 `json:"messages_per_sec"`
	NetworkInBytesPerSec    *float64 `json:"network_in_bytes_per_sec"`
	NetworkOutBytesPerSec   *float64 `json:"network_out_bytes_per_sec"`
	DiskWriteBytesPerSec    *float64 `json:"disk_write_bytes_per_sec"`
	DiskReadBytesPerSec     *float64 `json:"disk_read_bytes_per_sec"`
	WireBytesPerMessage     *float64 `json:"wire_bytes_per_message"`
	OverheadBytesPerMessage *float64 `json:"overhead_bytes_per_message"`
	RecordsPerBatch         *int     `json:"records_per_batch"`
}

// PerResource holds one figure per resource; null where a capacity or the traffic is unknown.
type PerResource struct {
	NetworkIn  *float64 `json:"network_in"`
	NetworkOut *float64 `json:"network_out"`
	DiskWrite  *float64 `json:"disk_write"`
	DiskRead   *float64 `json:"disk_read"`
}

func (p *PerResource) set(r Resource, v float64) {
	switch r {
	case NetworkIn:
		p.NetworkIn = num(v)
	case NetworkOut:
		p.NetworkOut = num(v)
	case DiskWrite:
		p.DiskWrite = num(v)
	case DiskRead:
		p.DiskRead = num(v)
	}
}

// Partitions holds the partition-count rules.
type Partitions struct {
	// LittlesLawMin is ceil(messages/s x consumer latency).
	LittlesLawMin *int `json:"littles_law_min"`
	// ThroughputMin is ceil(max(t/p, t/c)) with per-partition produce rate p and consume rate c.
	ThroughputMin *int `json:"throughput_min"`
	// MaxByMapCount is how many partition replicas one broker can host: vm.max_map_count / 2.
	MaxByMapCount int `json:"max_by_map_count"`
	// ReplicasPerBroker is the busiest broker's leaders plus followers, when P is known.
	ReplicasPerBroker *int `json:"replicas_per_broker"`
}

// Headroom turns a measured per-broker limit into safe rates that survive BrokersDown.
type Headroom struct {
	SafePerBrokerBytesPerSec float64 `json:"safe_per_broker_bytes_per_sec"`
	SafeClusterBytesPerSec   float64 `json:"safe_cluster_bytes_per_sec"`
	// SpareBytesPerSec is the safe cluster rate minus the produce rate (negative: over).
	SpareBytesPerSec *float64 `json:"spare_bytes_per_sec"`
}

// Evaluate runs the model. Zero fields mean unknown (or their documented default); figures that
// need an unknown input are null. Brokers and ReplicationFactor are required once there is a
// byte rate or a capacity. Errors are *InputError naming the input at fault.
func Evaluate(c Cluster, t Traffic, s Sizing) (Result, error) {
	c = c.withDefaults()
	if s.MaxMapCount == 0 {
		s.MaxMapCount = DefaultMaxMapCount
	}
	if err := t.validate(); err != nil {
		return Result{}, err
	}
	if err := s.validate(); err != nil {
		return Result{}, err
	}
	var wire *Wire
	if t.Message != nil {
		w, err := WireBytes(*t.Message)
		if err != nil {
			return Result{}, err
		}
		wire = &w
	}
	bytes, msgs := t.ProduceBytesPerSec, t.MessagesPerSec
	if bytes == 0 && msgs > 0 && wire != nil {
		bytes = msgs * wire.BytesPerMessage
	}
	if msgs == 0 && bytes > 0 && wire != nil {
		msgs = bytes / wire.BytesPerMessage
	}
	if err := c.validate(bytes > 0 || c.hasCapacity()); err != nil {
		return Result{}, err
	}
	if s.BrokerLimit > 0 && c.Brokers == 0 {
		return Result{}, inputErrorf("brokers", "the number of brokers is required for the headroom of --broker-limit")
	}
	e := &evaluation{c: c, s: s, t: bytes, msgs: msgs, wire: wire, msg: t.Message,
		msgsDerived: t.MessagesPerSec == 0 && msgs > 0,
		res:         Result{Notes: []string{}, Explain: map[string]string{}}}
	e.traffic()
	if c.hasCapacity() {
		if err := e.ceiling(); err != nil {
			return Result{}, err
		}
	}
	e.partitions()
	e.headroom()
	return e.res, nil
}

// evaluation carries the resolved inputs while Evaluate fills in the Result.
type evaluation struct {
	c    Cluster
	s    Sizing
	t    float64 // produced bytes/s, 0 = unknown
	msgs float64 // produced messages/s, 0 = unknown
	wire *Wire
	msg  *Message // the Message behind wire
	// msgsDerived is true when msgs was computed from the byte rate (else bytes from msgs).
	msgsDerived bool
	res         Result
}

func (e *evaluation) explain(key, format string, args ...any) {
	e.res.Explain[key] = fmt.Sprintf(format, args...)
}

func (e *evaluation) note(format string, args ...any) {
	e.res.Notes = append(e.res.Notes, fmt.Sprintf(format, args...))
}

// shareText gives a share's leading and following fractions as symbols and as numbers.
func shareText(c Cluster, sh Share) (leadSym, leadNum, followSym, followNum string) {
	if c.Partitions > 0 {
		return "leaders/P", fmt.Sprintf("%d/%d", sh.Leaders, c.Partitions), "followers/P", fmt.Sprintf("%d/%d", sh.Followers, c.Partitions)
	}
	return "1/N", fmt.Sprintf("1/%d", c.Brokers), "(r-1)/N", fmt.Sprintf("%d/%d", c.ReplicationFactor-1, c.Brokers)
}

func (e *evaluation) traffic() {
	e.wireCost()
	if e.msgs > 0 {
		e.res.Cluster.MessagesPerSec = num(e.msgs)
		if e.msgsDerived {
			e.explain("cluster.messages_per_sec", "t / wire bytes = %s / %.6g", units.FormatRate(e.t), e.wire.BytesPerMessage)
		}
	}
	if e.t <= 0 {
		return
	}
	e.clusterLoad()
	e.utilization(e.busiestBroker())
}

// wireCost is what a message costs on the wire, when the message is known.
func (e *evaluation) wireCost() {
	w, r := e.wire, &e.res
	if w == nil {
		return
	}
	r.Cluster.WireBytesPerMessage = num(w.BytesPerMessage)
	r.Cluster.OverheadBytesPerMessage = num(w.OverheadBytesPerMessage)
	r.Cluster.RecordsPerBatch = &w.RecordsPerBatch
	m := e.msg.withDefaults()
	e.explain("cluster.wire_bytes_per_message", "%s", wireText(w.BytesPerMessage, *w, m))
	e.explain("cluster.overhead_bytes_per_message", "wire bytes - (key + value)/compression ratio = %.6g - %d/%g",
		w.BytesPerMessage, m.KeyBytes+m.PayloadBytes, m.CompressionRatio)
	if w.BatchHeaderBytes == 0 { // legacy, uncompressed: nothing is shared
		e.explain("cluster.records_per_batch", "floor(batch.size / message) = floor(%d / %.6g), sharing no header", m.BatchSize, w.RecordBytes)
	} else {
		e.explain("cluster.records_per_batch", "records that fit in batch.size %d after the %d-byte batch header", m.BatchSize, w.BatchHeaderBytes)
	}
}

// clusterLoad is the whole cluster's traffic for a produce rate t.
func (e *evaluation) clusterLoad() {
	c, t, r := e.c, e.t, &e.res
	r.Cluster.ProduceBytesPerSec = num(t)
	if e.msgs > 0 && e.wire != nil && !e.msgsDerived {
		e.explain("cluster.produce_bytes_per_sec", "messages/s x wire bytes = %s x %.6g", countText(e.msgs), e.wire.BytesPerMessage)
	}
	rf, g, l := float64(c.ReplicationFactor), float64(c.ConsumerGroups), float64(c.LaggingConsumerGroups)
	r.Cluster.NetworkInBytesPerSec = num(rf * t)
	r.Cluster.NetworkOutBytesPerSec = num((rf - 1 + g + l) * t)
	r.Cluster.DiskWriteBytesPerSec = num(rf * t)
	r.Cluster.DiskReadBytesPerSec = num(l * t)
	ft := units.FormatRate(t)
	e.explain("cluster.network_in_bytes_per_sec", "r x t = %d x %s", c.ReplicationFactor, ft)
	e.explain("cluster.network_out_bytes_per_sec", "(r-1 + G + L) x t = (%d + %d + %d) x %s", c.ReplicationFactor-1, c.ConsumerGroups, c.LaggingConsumerGroups, ft)
	e.explain("cluster.disk_write_bytes_per_sec", "r x t = %d x %s", c.ReplicationFactor, ft)
	e.explain("cluster.disk_read_bytes_per_sec", "L x t = %d x %s", c.LaggingConsumerGroups, ft)
}

// busiestBroker is the load of the broker with the largest share of leaders and followers.
func (e *evaluation) busiestBroker() Load {
	c, t := e.c, e.t
	sh := BusiestShare(c.Brokers, c.Partitions, c.ReplicationFactor)
	ld := LoadFor(c, t, sh)
	bl := brokerLoad(ld)
	b := &bl
	if c.Partitions > 0 {
		b.Leaders, b.Followers = &sh.Leaders, &sh.Followers
		e.explain("busiest_broker.leaders", "ceil(P/N) = ceil(%d/%d)", c.Partitions, c.Brokers)
		e.explain("busiest_broker.followers", "ceil(P x (r-1)/N) = ceil(%d x %d/%d)", c.Partitions, c.ReplicationFactor-1, c.Brokers)
	}
	e.res.BusiestBroker = b
	e.explainBusiest(sh)
	if c.Partitions > 0 && c.Partitions < c.Brokers {
		e.note("only %d of the %d brokers lead a partition: the others take no produce traffic", c.Partitions, c.Brokers)
	}
	return ld
}

func (e *evaluation) explainBusiest(sh Share) {
	c, ft := e.c, units.FormatRate(e.t)
	ls, ln, fs, fn := shareText(c, sh)
	e.explain("busiest_broker.produce_in_bytes_per_sec", "t x %s = %s x %s", ls, ft, ln)
	e.explain("busiest_broker.replication_in_bytes_per_sec", "t x %s = %s x %s", fs, ft, fn)
	e.explain("busiest_broker.replication_out_bytes_per_sec", "t x %s x (r-1) = %s x %s x %d", ls, ft, ln, c.ReplicationFactor-1)
	e.explain("busiest_broker.consume_out_bytes_per_sec", "t x %s x (G + L) = %s x %s x (%d + %d)", ls, ft, ln, c.ConsumerGroups, c.LaggingConsumerGroups)
	e.explain("busiest_broker.network_in_bytes_per_sec", "produce in + replication in")
	e.explain("busiest_broker.network_out_bytes_per_sec", "replication out + consume out")
	e.explain("busiest_broker.disk_write_bytes_per_sec", "network in: it appends what it leads and what it follows")
	e.explain("busiest_broker.disk_read_bytes_per_sec", "t x %s x L = %s x %s x %d (lagging groups read from disk)", ls, ft, ln, c.LaggingConsumerGroups)
}

// utilization is the busiest broker's load over each capacity given.
func (e *evaluation) utilization(ld Load) {
	c, r := e.c, &e.res
	for _, res := range Resources {
		capacity := c.Capacity(res)
		if capacity <= 0 {
			continue
		}
		u := ld.Of(res) / capacity
		r.Utilization.set(res, u)
		e.explain("utilization."+string(res), "busiest broker's %s / capacity = %s / %s%s", label(res), units.FormatRate(ld.Of(res)), units.FormatRate(capacity), overheadText(c, res))
		if u > c.MaxUtilization {
			e.note("the busiest broker's %s is at %.0f%% of its capacity, above the %.0f%% planned (--max-utilization)", label(res), 100*u, 100*c.MaxUtilization)
		}
	}
}

// overheadText says how a NIC's capacity was lowered by the link's overhead, if it was.
func overheadText(c Cluster, r Resource) string {
	if c.LinkOverhead == 0 || (r != NetworkIn && r != NetworkOut) {
		return ""
	}
	return fmt.Sprintf(" (capacity: NIC %s / (1 + link overhead %.3g))", units.FormatRate(c.NIC), c.LinkOverhead)
}

func (e *evaluation) ceiling() error {
	ceil, err := MaxProduce(e.c)
	if err != nil {
		return err
	}
	c, r := e.c, &e.res
	down := ""
	if c.BrokersDown > 0 {
		down = fmt.Sprintf(", with %d of %d brokers down", c.BrokersDown, c.Brokers)
		if ceil.ReplicationFactor < c.ReplicationFactor {
			e.note("with %d of %d brokers down only %d replicas of each partition can be placed: the ceiling assumes replication factor %d while they are down",
				c.BrokersDown, c.Brokers, ceil.ReplicationFactor, ceil.ReplicationFactor)
		}
	}
	perByte := LoadFor(Cluster{ReplicationFactor: ceil.ReplicationFactor, ConsumerGroups: c.ConsumerGroups,
		LaggingConsumerGroups: c.LaggingConsumerGroups}, 1, ceil.Share)
	for _, res := range Resources {
		limit, ok := ceil.ByResource[res]
		if !ok {
			continue
		}
		r.MaxProduceByResource.set(res, limit)
		e.explain("max_produce_by_resource."+string(res), "capacity x max utilization / (%s per produced byte on the busiest of %d brokers) = %s x %g / %.4g%s",
			label(res), ceil.Brokers, units.FormatRate(c.Capacity(res)), c.MaxUtilization, perByte.Of(res), overheadText(c, res))
	}
	bn := ceil.Bottleneck
	r.Bottleneck = &bn
	r.MaxProduceBytesPerSec = num(ceil.BytesPerSec)
	e.explain("bottleneck", "the resource with the lowest ceiling%s", down)
	e.explain("max_produce_bytes_per_sec", "min over resources of their ceilings%s", down)
	if e.wire != nil {
		r.MaxMessagesPerSec = num(ceil.BytesPerSec / e.wire.BytesPerMessage)
		e.explain("max_messages_per_sec", "max produce / wire bytes = %s / %.6g", units.FormatRate(ceil.BytesPerSec), e.wire.BytesPerMessage)
	}
	return nil
}

func (e *evaluation) partitions() {
	c, s, p := e.c, e.s, &e.res.Partitions
	p.MaxByMapCount = s.MaxMapCount / MapsPerPartition
	e.explain("partitions.max_by_map_count", "floor(vm.max_map_count / %d maps per partition) = floor(%d / %d)", MapsPerPartition, s.MaxMapCount, MapsPerPartition)
	if s.ConsumerLatency > 0 && e.msgs > 0 {
		n := ceilInt(e.msgs * s.ConsumerLatency.Seconds())
		p.LittlesLawMin = &n
		e.explain("partitions.littles_law_min", "ceil(messages/s x consumer latency) = ceil(%s x %s)", countText(e.msgs), s.ConsumerLatency)
	}
	if e.t > 0 && (s.PartitionThroughput > 0 || s.ConsumerPartitionThroughput > 0) {
		need, parts := 0.0, ""
		for _, q := range []struct {
			name string
			rate float64
		}{{"t/p", s.PartitionThroughput}, {"t/c", s.ConsumerPartitionThroughput}} {
			if q.rate > 0 {
				need = max(need, e.t/q.rate)
				parts += fmt.Sprintf(", %s = %s / %s", q.name, units.FormatRate(e.t), units.FormatRate(q.rate))
			}
		}
		n := ceilInt(need)
		p.ThroughputMin = &n
		e.explain("partitions.throughput_min", "ceil(max(t/p, t/c))%s", parts)
	}
	if c.Partitions > 0 && c.Brokers > 0 && c.ReplicationFactor > 0 {
		sh := BusiestShare(c.Brokers, c.Partitions, c.ReplicationFactor)
		n := sh.Leaders + sh.Followers
		p.ReplicasPerBroker = &n
		e.explain("partitions.replicas_per_broker", "busiest broker's leaders + followers = %d + %d", sh.Leaders, sh.Followers)
		if n > p.MaxByMapCount {
			e.note("the busiest broker hosts %d partition replicas, more than the %d vm.max_map_count %d allows: raise vm.max_map_count or add brokers", n, p.MaxByMapCount, s.MaxMapCount)
		}
	}
	for _, rule := range []struct {
		name string
		min  *int
	}{{"Little's law", p.LittlesLawMin}, {"the per-partition throughput", p.ThroughputMin}} {
		if rule.min != nil && c.Partitions > 0 && c.Partitions < *rule.min {
			e.note("%d partitions are fewer than the %d %s needs", c.Partitions, *rule.min, rule.name)
		}
	}
}

func (e *evaluation) headroom() {
	c, limit := e.c, e.s.BrokerLimit
	if limit <= 0 {
		return
	}
	up := c.Brokers - c.BrokersDown
	h := &Headroom{
		SafePerBrokerBytesPerSec: round(limit * float64(up) / float64(c.Brokers)),
		SafeClusterBytesPerSec:   round(limit * float64(up)),
	}
	e.explain("headroom.safe_per_broker_bytes_per_sec", "broker limit x (N - brokers down)/N = %s x %d/%d", units.FormatRate(limit), up, c.Brokers)
	e.explain("headroom.safe_cluster_bytes_per_sec", "safe per broker x N = %s x %d", units.FormatRate(h.SafePerBrokerBytesPerSec), c.Brokers)
	if e.t > 0 {
		h.SpareBytesPerSec = num(limit*float64(up) - e.t)
		e.explain("headroom.spare_bytes_per_sec", "safe cluster - t = %s - %s", units.FormatRate(h.SafeClusterBytesPerSec), units.FormatRate(e.t))
		if *h.SpareBytesPerSec < 0 {
			e.note("the produce rate is above the safe rate: with %d brokers down the others would pass the measured limit", c.BrokersDown)
		}
	}
	e.res.Headroom = h
}

// label names a resource in prose.
func label(r Resource) string {
	switch r {
	case NetworkIn:
		return "network in"
	case NetworkOut:
		return "network out"
	case DiskWrite:
		return "disk write"
	case DiskRead:
		return "disk read"
	}
	return string(r)
}

// wireText explains a message's wire size.
func wireText(total float64, w Wire, mm Message) string {
	comp := ""
	if mm.CompressionRatio != 1 {
		comp = fmt.Sprintf(" / compression %g", mm.CompressionRatio)
	}
	if mm.Format == FormatV2 {
		return fmt.Sprintf("record %.4g B (value %d + key %d + framing)%s + %d-byte batch header / %d records = %.6g",
			w.RecordBytes, mm.PayloadBytes, mm.KeyBytes, comp, BatchHeaderV2, w.RecordsPerBatch, total)
	}
	hdr := MessageHeaderV0
	if mm.Format == FormatV1 {
		hdr = MessageHeaderV1
	}
	s := fmt.Sprintf("(%d log overhead + %d %s header + key %d + value %d)%s", LogOverhead, hdr, mm.Format, mm.KeyBytes, mm.PayloadBytes, comp)
	if w.BatchHeaderBytes > 0 {
		s += fmt.Sprintf(" + %d-byte wrapper / %d records", w.BatchHeaderBytes, w.RecordsPerBatch)
	}
	return fmt.Sprintf("%s = %.6g", s, total)
}

// countText prints a count in full when it is whole ("1000000"), else to 6 digits.
func countText(v float64) string {
	if v == math.Trunc(v) && v < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// num rounds v for a Result and returns a pointer to it.
func num(v float64) *float64 {
	r := round(v)
	return &r
}

// round keeps 12 significant digits, so figures print the same on every platform.
func round(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// ceilInt rounds up, forgiving the last bits of floating-point error (1e6 x 10ms is 10000).
func ceilInt(x float64) int {
	return int(math.Ceil(x - 1e-9*math.Max(1, math.Abs(x))))
}
