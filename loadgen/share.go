package loadgen

import (
	"errors"
	"fmt"
	"time"

	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrShare: a share (Options.Share) the run cannot execute, or a schedule start it reached too
// late.
var ErrShare = errors.New("cannot run this share")

// Range is the half-open range [Lo, Hi) of indices of a whole: producers, partitions of each
// topic, or consumers of each group (package fleet cuts a workload into them).
type Range struct {
	Lo int `json:"lo"`
	Hi int `json:"hi"`
}

// Len is the number of indices in r.
func (r Range) Len() int { return r.Hi - r.Lo }

// Contains reports whether index i is in r.
func (r Range) Contains(i int) bool { return r.Lo <= i && i < r.Hi }

// Share makes a run one worker's part of a run spread over several processes (package fleet,
// docs/workers.md): the producers, partitions and consumers in its ranges of the whole
// workload's, starting at an absolute time. Another process (the coordinator) creates the
// workload's topics before and deletes them and the groups after: a share run neither creates
// nor refuses nor deletes them.
type Share struct {
	// Producers are the global indices of the producers to run. Each runs as in a single
	// process of the whole workload: rate Rate/Producers, schedule offset index/Rate, its
	// global index as producer id in every stamp.
	Producers Range
	// Partitions are the partitions of every topic the producers write to (keys hash over
	// them) and the consumers read.
	Partitions Range
	// Consumers are the global indices of each group's consumers to run; empty without groups.
	Consumers Range
	// Balancer is the group balancer every consumer joins with (fleet.Balancer), so that each
	// partition goes to a member of the process that owns it; required with consumer groups.
	Balancer kgo.GroupBalancer
	// Start is the absolute start of the producers' schedule (the timeline's t = 0); the run
	// fails with ErrShare if its set-up ends after it.
	Start time.Time
}

// whole is the share of a single-process run: everything.
func whole(spec workload.Spec, partitions int) Share {
	s := Share{Producers: Range{0, spec.Producers}, Partitions: Range{0, partitions}}
	if spec.ConsumerGroups > 0 {
		s.Consumers = Range{0, spec.ConsumersPerGroup}
	}
	return s
}

// check says whether s can run against spec, whose topics have the given partitions.
func (s Share) check(spec workload.Spec, partitions int) error {
	in := func(what string, r Range, total int) error {
		if r.Lo < 0 || r.Hi > total || r.Len() < 1 {
			return fmt.Errorf("%w: %s [%d, %d) of %d: a share needs at least one, within the whole", ErrShare, what, r.Lo, r.Hi, total)
		}
		return nil
	}
	errs := []error{in("producers", s.Producers, spec.Producers), in("partitions", s.Partitions, partitions)}
	if spec.ConsumerGroups > 0 {
		errs = append(errs, in("consumers", s.Consumers, spec.ConsumersPerGroup))
		if s.Balancer == nil {
			errs = append(errs, fmt.Errorf("%w: no group balancer: the consumers of a share must join with one that keeps each partition with its owner (fleet.Balancer)", ErrShare))
		}
		if spec.BacklogBytes > 0 {
			errs = append(errs, fmt.Errorf("%w: backlog mode: each share would start its window when its own backlog is built, so the shares' windows would differ", ErrShare))
		}
	}
	if s.Start.IsZero() {
		errs = append(errs, fmt.Errorf("%w: no start time: the shares of a run follow one schedule from one absolute start", ErrShare))
	}
	return errors.Join(errs...)
}

// rate is the share's target rate: the whole's times its share of the producers.
func (s Share) rate(spec workload.Spec) float64 {
	return spec.Rate * float64(s.Producers.Len()) / float64(spec.Producers)
}

// startAt is the run clock's time of the absolute start, the clock's zero being wallBase (Unix
// ns); an error wrapping ErrShare when it is not after now (the set-up ran past it: the
// producers would start late, skewing the run).
func startAt(start time.Time, wallBase, now int64) (int64, error) {
	t0 := start.UnixNano() - wallBase
	if t0 <= now {
		return 0, fmt.Errorf("%w: the schedule's start %s passed %s before the set-up ended (group join, settling); give the run a later start",
			ErrShare, start.UTC().Format(time.RFC3339Nano), time.Duration(now-t0).Round(time.Millisecond))
	}
	return t0, nil
}

// ownPartitions makes inner choose among the partitions of own only: a keyed record hashes
// over them, an unkeyed one sticks, round-robins or balances among them. Partitions are then
// indexed by their number (franz-go gives a partitioner every partition, by number, when it
// asks for consistency, otherwise only the writable ones), so it always asks for consistency:
// a record does not move to another partition while one of its own has no leader, it waits,
// as a keyed record does.
func ownPartitions(inner kgo.Partitioner, own Range) kgo.Partitioner {
	return &ownPartitioner{inner: inner, own: own}
}

type ownPartitioner struct {
	inner kgo.Partitioner
	own   Range
}

// ForTopic wraps inner's partitioner of the topic, with its optional interfaces.
func (p *ownPartitioner) ForTopic(t string) kgo.TopicPartitioner {
	tp := &ownTopic{inner: p.inner.ForTopic(t), own: p.own}
	backup, isBackup := tp.inner.(kgo.TopicBackupPartitioner)
	_, onBatch := tp.inner.(kgo.TopicPartitionerOnNewBatch)
	switch {
	case isBackup && onBatch:
		return &ownBackupBatch{ownBackup{tp, backup, ownIter{own: p.own}}}
	case isBackup:
		return &ownBackup{tp, backup, ownIter{own: p.own}}
	case onBatch:
		return &ownBatch{tp}
	}
	return tp
}

// ownTopic is one topic's partitioner restricted to own.
type ownTopic struct {
	inner kgo.TopicPartitioner
	own   Range
}

// RequiresConsistency is always true: franz-go then indexes partitions by number.
func (*ownTopic) RequiresConsistency(*kgo.Record) bool { return true }

// Partition is inner's choice among own's partitions; n is the topic's partition count.
func (t *ownTopic) Partition(r *kgo.Record, n int) int {
	if n < t.own.Hi {
		return -1 // metadata shows fewer partitions than the share's: franz-go fails the record
	}
	return t.own.Lo + t.inner.Partition(r, t.own.Len())
}

// ownBatch passes OnNewBatch on to a sticky partitioner.
type ownBatch struct{ *ownTopic }

func (b *ownBatch) OnNewBatch() { b.inner.(kgo.TopicPartitionerOnNewBatch).OnNewBatch() }

// ownBackup restricts a partitioner that chooses by the records buffered per partition.
type ownBackup struct {
	*ownTopic
	backup kgo.TopicBackupPartitioner
	iter   ownIter // reused: franz-go partitions one record of a topic at a time
}

// PartitionByBackup is inner's choice among own's partitions, seeing their buffered records only.
func (b *ownBackup) PartitionByBackup(r *kgo.Record, n int, it kgo.TopicBackupIter) int {
	if n < b.own.Hi {
		return -1
	}
	b.iter.inner, b.iter.left = it, b.own.Len()
	return b.own.Lo + b.backup.PartitionByBackup(r, b.own.Len(), &b.iter)
}

// ownBackupBatch is ownBackup with OnNewBatch.
type ownBackupBatch struct{ ownBackup }

func (b *ownBackupBatch) OnNewBatch() { b.inner.(kgo.TopicPartitionerOnNewBatch).OnNewBatch() }

// ownIter yields the entries of own's partitions from franz-go's iterator over every partition
// (by number, in order), renumbered from 0.
type ownIter struct {
	inner kgo.TopicBackupIter
	own   Range
	left  int
}

func (i *ownIter) Next() (int, int64) {
	for {
		p, n := i.inner.Next()
		if i.own.Contains(p) {
			i.left--
			return p - i.own.Lo, n
		}
	}
}

func (i *ownIter) Rem() int { return i.left }
