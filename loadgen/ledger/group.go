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
	OutOfOrder  int64 // first sightings below the highest sequence seen from that producer on that partition
}

// Group is one consumer group's view of every message: which (producer, sequence)
// pairs it has seen, the highest sequence per producer per partition (for ordering) and the
// highest offset per partition (to tell a replay from a second copy in the log). Memory is
// partitions x producers x 8 bytes plus the sequence sets. Not safe for concurrent use.
type Group struct {
	Counts  [2]Counts // by phase (Excluded, Measured)
	Foreign int64     // records with no valid stamp, or an unknown producer or partition

	producers int
	seen      []SeqSet // by producer
	high      []uint64 // [part*producers+producer]: highest sequence seen + 1; 0 = none
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
	if int(producer) >= g.producers || part < 0 || part >= len(g.offs) {
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
	h := &g.high[part*g.producers+int(producer)]
	if seq+1 < *h {
		c.OutOfOrder++
		return
	}
	*h = seq + 1
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
