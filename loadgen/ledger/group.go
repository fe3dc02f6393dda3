package ledger

// Phases of a message, by its intended time (the caller decides): warm-up and backlog building
// are excluded from every figure; only the measured phase is reported as the result. A Group
// keeps its Counts by phase, indexed by these.
const (
	Excluded = 0
	Measured = 1
)

// Counts are what one consumer group saw of one phase.
type Counts struct {
	Consumed    int64 // records received, repeats included
	Duplicated  int64 // records whose (producer, sequence) the group had already seen
	Redelivered int64 // of Duplicated: re-reads of an offset the group had consumed (rebalance replay)
	OutOfOrder  int64 // first sightings below the highest sequence seen from that producer (and lane) on that partition
}

// Lanes is how many independent ordered streams one producer may write to a partition: a
// producer that sends a partition's batches over several idempotent sessions (the lean
// producer's, loadgen/produce) keeps their order within each session only, so order is
// checked per lane. Lane 0 is a producer with one stream.
const Lanes = 16

// Group is one consumer group's view of every message: which (producer, sequence)
// pairs it has seen, the highest sequence per producer per partition (for ordering) and the
// highest offset per partition (to tell a replay from a second copy in the log). Memory is
// partitions x producers x 8 bytes plus the sequence sets. Not safe for concurrent use.
type Group struct {
	Counts  [2]Counts // by phase (Excluded, Measured)
	Foreign int64     // records with no valid stamp, or an unknown producer or partition

	producers int
	seen      []SeqSet // by producer
	high      []uint64 // [part*producers+producer]: highest sequence seen + 1 on lane 0; 0 = none
	laneHigh  []uint64 // the same for lanes 1 to Lanes-1, [(part*producers+producer)*(Lanes-1)+lane-1], made on first use
	offs      []int64  // by partition: highest offset consumed; -1 = none
}

// NewGroup returns an empty ledger for a group reading the given number of partitions
// (numbered densely over the run's topics) written by the given number of producers.
func NewGroup(partitions, producers int) *Group {
	g := &Group{
		producers: producers,
		seen:      make([]SeqSet, producers),
		high:      make([]uint64, partitions*producers),
		offs:      make([]int64, partitions),
	}
	for i := range g.offs {
		g.offs[i] = -1
	}
	return g
}

// Observe accounts for one consumed record: partition index part (dense over the run's
// topics), its offset, the producer and sequence of its stamp, and its phase. It does not
// allocate.
func (g *Group) Observe(part int, offset int64, producer uint32, seq uint64, phase int) {
	g.ObserveLane(part, offset, producer, 0, seq, phase)
}

// ObserveLane is Observe for a record its producer wrote on the given lane (below Lanes): its
// order is checked against the producer's earlier records on that lane of the partition only.
// It allocates once, on the first record of a lane above 0.
func (g *Group) ObserveLane(part int, offset int64, producer uint32, lane uint8, seq uint64, phase int) {
	if int(producer) >= g.producers || part < 0 || part >= len(g.offs) || lane >= Lanes {
		g.Foreign++
		return
	}
	c := &g.Counts[phase]
	c.Consumed++
	replay := offset <= g.offs[part]
	if !replay {
		g.offs[part] = offset
	}
	if !g.seen[producer].Add(seq) {
		c.Duplicated++
		if replay {
			c.Redelivered++
		}
		return
	}
	if replay {
		return // first sighting on a re-read: the order of the log was checked on the first read
	}
	h := g.highOf(part*g.producers+int(producer), lane)
	if seq+1 < *h {
		c.OutOfOrder++
		return
	}
	*h = seq + 1
}

// highOf is the highest sequence + 1 seen on a lane of a (partition, producer) pair, i.
func (g *Group) highOf(i int, lane uint8) *uint64 {
	if lane == 0 {
		return &g.high[i]
	}
	if g.laneHigh == nil {
		g.laneHigh = make([]uint64, len(g.high)*(Lanes-1))
	}
	return &g.laneHigh[i*(Lanes-1)+int(lane)-1]
}

// Skip accounts for a record read on partition part that carries no stamp of the run (a
// settling record, or a foreign one): it counts nowhere, but the partition has been read up to
// its offset. A partition that holds only such records is then known to be read to the end.
func (g *Group) Skip(part int, offset int64) {
	if part >= 0 && part < len(g.offs) && offset > g.offs[part] {
		g.offs[part] = offset
	}
}

// Missing counts producer p's sequences in [lo, hi) that were not failed and not seen.
func (g *Group) Missing(p int, failed *SeqSet, lo, hi uint64) uint64 {
	return CountAbsent(&g.seen[p], failed, lo, hi)
}

// Seen is the number of distinct messages the group has seen, over every producer.
func (g *Group) Seen() uint64 {
	var n uint64
	for i := range g.seen {
		n += g.seen[i].Len()
	}
	return n
}

// Partitions is the number of partitions the group reads.
func (g *Group) Partitions() int { return len(g.offs) }

// ReadTo is the highest offset the group has read on partition part; -1 when none.
func (g *Group) ReadTo(part int) int64 { return g.offs[part] }
