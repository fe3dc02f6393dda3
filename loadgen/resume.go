package loadgen

import "github.com/twmb/franz-go/pkg/kgo"

// positions is where one group member's own reading stands: for each partition (the dense
// index of partBase) the offset after the last record it consumed, and that record's leader
// epoch. A member that loses its group session (franz-go's classic member does when a
// heartbeat to its coordinator fails: a killed coordinator whose partitions have not moved yet
// answers every retry with a refused connection) rejoins and would restart from the group's
// last commit, reading again what it had consumed itself since. The Java consumer keeps its
// assignment and its positions while its coordinator fails over, so these re-reads say nothing
// about Kafka; resume skips them. Re-reads of what another member consumed still count as
// redelivered. Callers hold the consumer's mu.
type positions struct {
	next  []int64 // 0: the member has read nothing of the partition
	epoch []int32
}

func newPositions(partitions int) positions {
	return positions{next: make([]int64, partitions), epoch: make([]int32, partitions)}
}

// advance records the last of recs, a batch the member consumed from partition part.
func (p *positions) advance(part int, recs []*kgo.Record) {
	if len(recs) == 0 || part < 0 || part >= len(p.next) {
		return
	}
	last := recs[len(recs)-1]
	p.next[part], p.epoch[part] = last.Offset+1, last.LeaderEpoch
}

// resume returns the offsets franz-go fetched for a new assignment, each partition the member
// had already read past its committed offset moved to the member's own position. Partitions of
// topics outside partBase, or that it never read, keep the fetched offset.
func (p *positions) resume(partBase map[string]int, fetched map[string]map[int32]kgo.Offset) map[string]map[int32]kgo.Offset {
	for topic, parts := range fetched {
		base, ok := partBase[topic]
		if !ok {
			continue
		}
		for part, off := range parts {
			i := base + int(part)
			if i < 0 || i >= len(p.next) || p.next[i] == 0 {
				continue
			}
			// A committed offset below 0 is none (the reset policy's start or end).
			if at := off.EpochOffset().Offset; at < 0 || at < p.next[i] {
				parts[part] = kgo.NewOffset().At(p.next[i]).WithEpoch(p.epoch[i])
			}
		}
	}
	return fetched
}
