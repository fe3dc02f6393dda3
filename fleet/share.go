package fleet

import (
	"fmt"

	"github.com/plimsoll/plimsoll/workload"
)

// Range is the half-open range [Lo, Hi) of indices of a whole: producers, partitions of each
// topic, or consumers of each group.
type Range struct {
	Lo int `json:"lo"`
	Hi int `json:"hi"`
}

// Len is the number of indices in r.
func (r Range) Len() int { return r.Hi - r.Lo }

// Contains reports whether index i is in r.
func (r Range) Contains(i int) bool { return r.Lo <= i && i < r.Hi }

// Split returns range i of n cut from total indices: [total*i/n, total*(i+1)/n). The n ranges
// are disjoint, contiguous, cover [0, total) and differ in length by at most one.
func Split(total, n, i int) Range {
	return Range{Lo: total * i / n, Hi: total * (i + 1) / n}
}

// Share is worker i's part of a plan's workload.
type Share struct {
	Worker int // i, 0-based
	// Producers are the global indices of the single-process run's producers this worker
	// runs, each with its own rate, schedule offset and producer id, as in one process.
	Producers Range
	// Partitions are the partitions of every topic this worker's producers write to and its
	// consumers read: each worker consumes what it produced.
	Partitions Range
	// Consumers are this worker's consumers of each group; empty without consumer groups.
	Consumers Range
	// MsgsPerSec is the worker's target rate, the whole's times its share of the producers
	// (0 when the workload sends as fast as it can).
	MsgsPerSec float64
}

// ShareOf returns worker i's share of spec split over n workers; CheckWorkers(spec, n) must
// hold, and 0 <= i < n.
func ShareOf(spec workload.Spec, n, i int) (Share, error) {
	if err := CheckWorkers(spec, n); err != nil {
		return Share{}, err
	}
	if i < 0 || i >= n {
		return Share{}, fmt.Errorf("%w: worker index %d is outside 0..%d (a plan of %d workers)", ErrPlan, i, n-1, n)
	}
	s := Share{
		Worker:     i,
		Producers:  Split(spec.Producers, n, i),
		Partitions: Split(spec.PartitionsPerTopic, n, i),
	}
	if spec.ConsumerGroups > 0 {
		s.Consumers = Split(spec.ConsumersPerGroup, n, i)
	}
	s.MsgsPerSec = spec.Rate * float64(s.Producers.Len()) / float64(spec.Producers)
	return s, nil
}

// Share is worker i's share of the plan.
func (p Plan) Share(i int) (Share, error) { return ShareOf(p.Spec, p.Workers, i) }

// CheckWorkers says whether spec can be split over n workers: each needs at least one producer
// and one partition of every topic, and with consumer groups one consumer of each, so that no
// partition is written by one worker and read by another. The error names the bound and both
// ways out. Backlog mode is refused: the window starts when a backlog is built, which each
// worker would judge by its own.
func CheckWorkers(spec workload.Spec, n int) error {
	if n < 1 {
		return fmt.Errorf("%w: %d workers; use 1 or more", ErrPlan, n)
	}
	type bound struct {
		what, flag string
		n          int
	}
	bounds := []bound{{"producers", "producers", spec.Producers}, {"partitions per topic", "partitions", spec.PartitionsPerTopic}}
	if spec.ConsumerGroups > 0 {
		bounds = append(bounds, bound{"consumers per group", "consumers-per-group", spec.ConsumersPerGroup})
	}
	if spec.BacklogBytes > 0 && spec.ConsumerGroups > 0 {
		return fmt.Errorf("%w: backlog mode with workers: each worker would start its window when its own backlog is built, so the windows would differ; run it in one process", ErrPlan)
	}
	for _, b := range bounds {
		if n > b.n {
			return fmt.Errorf("%w: %d workers with %d %s: every worker needs at least one (each consumes what it produced); use at most %d workers, or %s %d or more",
				ErrPlan, n, b.n, b.what, b.n, b.flag, n)
		}
	}
	return nil
}
