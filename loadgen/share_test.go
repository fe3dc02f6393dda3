package loadgen

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

// shareSpec is a workload of 2 topics of 6 partitions, 5 producers at 1000 msgs/s and one
// group of 4 consumers.
func shareSpec() workload.Spec {
	s := workload.Default()
	s.Topics, s.PartitionsPerTopic, s.Producers, s.Rate = 2, 6, 5, 1000
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 4
	return s
}

func TestShareCheck(t *testing.T) {
	start := time.Unix(100, 0)
	ok := Share{Producers: Range{Lo: 3, Hi: 5}, Partitions: Range{Lo: 4, Hi: 6}, Consumers: Range{Lo: 2, Hi: 4}, Balancer: kgo.RoundRobinBalancer(), Start: start}
	backlog := shareSpec()
	backlog.BacklogBytes = 1 << 20
	noGroups := shareSpec()
	noGroups.ConsumerGroups = 0
	for _, tc := range []struct {
		name string
		spec workload.Spec
		edit func(*Share)
		want string // "" = runs
	}{
		{"a share", shareSpec(), func(*Share) {}, ""},
		{"no producer", shareSpec(), func(s *Share) { s.Producers = Range{Lo: 2, Hi: 2} }, "producers [2, 2) of 5"},
		{"producers beyond the whole", shareSpec(), func(s *Share) { s.Producers = Range{Lo: 3, Hi: 6} }, "producers [3, 6) of 5"},
		{"partitions beyond the topic", shareSpec(), func(s *Share) { s.Partitions = Range{Lo: 4, Hi: 7} }, "partitions [4, 7) of 6"},
		{"no consumer", shareSpec(), func(s *Share) { s.Consumers = Range{} }, "consumers [0, 0) of 4"},
		{"no balancer", shareSpec(), func(s *Share) { s.Balancer = nil }, "no group balancer"},
		{"no groups, no consumers, no balancer", noGroups, func(s *Share) { s.Consumers, s.Balancer = Range{}, nil }, ""},
		{"backlog mode", backlog, func(*Share) {}, "backlog mode"},
		{"no start", shareSpec(), func(s *Share) { s.Start = time.Time{} }, "no start time"},
	} {
		s := ok
		tc.edit(&s)
		err := s.check(tc.spec, tc.spec.PartitionsPerTopic)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrShare) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want ErrShare saying %q", tc.name, err, tc.want)
		}
	}
}

// TestShareRate: a share's target is the whole's times its share of the producers, the whole
// run's is the spec's.
func TestShareRate(t *testing.T) {
	spec := shareSpec()
	for _, tc := range []struct {
		share Share
		want  float64
	}{
		{whole(spec, 6), 1000},
		{Share{Producers: Range{Lo: 0, Hi: 2}}, 400},
		{Share{Producers: Range{Lo: 2, Hi: 5}}, 600},
	} {
		if got := tc.share.rate(spec); got != tc.want {
			t.Errorf("producers %+v: rate %v, want %v", tc.share.Producers, got, tc.want)
		}
	}
}

// TestStartAt: the absolute start maps to the run clock through the clock's wall time at
// zero, and a start the set-up ran past is an error saying by how much.
func TestStartAt(t *testing.T) {
	const wallBase = int64(1_700_000_000e9)
	for _, tc := range []struct {
		name       string
		start, now int64 // start: Unix ns; now: run clock
		want       int64
		late       string
	}{
		{"ahead", wallBase + 5e9, 1e9, 5e9, ""},
		{"just ahead", wallBase + 5e9, 5e9 - 1, 5e9, ""},
		{"now", wallBase + 5e9, 5e9, 0, "passed 0s"},
		{"passed", wallBase + 5e9, 7_250_000_000, 0, "passed 2.25s"},
	} {
		got, err := startAt(time.Unix(0, tc.start), wallBase, tc.now)
		switch {
		case tc.late == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %d, %v; want %d", tc.name, got, err, tc.want)
		case tc.late != "" && (!errors.Is(err, ErrShare) || !strings.Contains(err.Error(), tc.late)):
			t.Errorf("%s: %v, want ErrShare saying %q", tc.name, err, tc.late)
		}
	}
}

// TestShareProducers: a share runs the producers of its global indices, each with the rate,
// schedule offset and id it has in the whole run.
func TestShareProducers(t *testing.T) {
	spec := shareSpec()
	for _, tc := range []struct {
		producers Range
		ids       []uint32
	}{
		{Range{Lo: 0, Hi: 5}, []uint32{0, 1, 2, 3, 4}},
		{Range{Lo: 0, Hi: 2}, []uint32{0, 1}},
		{Range{Lo: 2, Hi: 5}, []uint32{2, 3, 4}},
		{Range{Lo: 4, Hi: 5}, []uint32{4}},
	} {
		share := Share{Producers: tc.producers, Partitions: Range{Lo: 0, Hi: 6}, Start: time.Unix(1, 0)}
		r := &runner{spec: spec, opts: Options{RunID: "share", Share: &share}.withDefaults(), share: share, topics: []string{"a", "b"}}
		if err := r.prepare(); err != nil {
			t.Fatal(err)
		}
		c := &clients{}
		const t0 = int64(7e9)
		if err := r.newProducers(newRunState(&fakeClock{}, 0, 1, spec.Producers), c, t0); err != nil {
			t.Fatal(err)
		}
		for i, p := range c.prods {
			// 5 producers at 1000 msgs/s: 200 msgs/s each, producer k starting k ms after t0.
			if p.id != tc.ids[i] || p.pacer.Rate != 200 || p.pacer.Start != t0+int64(p.id)*1e6 {
				t.Errorf("producers %+v: #%d is id %d at %v msgs/s from %d, want id %d at 200 from %d",
					tc.producers, i, p.id, p.pacer.Rate, p.pacer.Start, tc.ids[i], t0+int64(tc.ids[i])*1e6)
			}
		}
		if len(c.prods) != len(tc.ids) {
			t.Errorf("producers %+v: %d producers, want %d", tc.producers, len(c.prods), len(tc.ids))
		}
		c.closeProducers()
	}
}

// TestCountParts: an assignment's partitions inside the share and outside it.
func TestCountParts(t *testing.T) {
	m := map[string][]int32{"a": {0, 2, 3}, "b": {3, 4, 5}}
	for _, tc := range []struct {
		own     Range
		in, out int64
	}{
		{Range{Lo: 0, Hi: 6}, 6, 0},
		{Range{Lo: 3, Hi: 5}, 3, 3},
		{Range{Lo: 1, Hi: 2}, 0, 6},
	} {
		if in, out := countParts(m, tc.own); in != tc.in || out != tc.out {
			t.Errorf("own %+v: %d in, %d out; want %d, %d", tc.own, in, out, tc.in, tc.out)
		}
	}
}

// backupIter is franz-go's iterator over every partition's buffered records, from the last.
type backupIter struct{ buffered []int64 }

func (b *backupIter) Next() (int, int64) {
	last := len(b.buffered) - 1
	n := b.buffered[last]
	b.buffered = b.buffered[:last]
	return last, n
}

func (b *backupIter) Rem() int { return len(b.buffered) }

// partition runs tp on r as franz-go does over n partitions indexed by number (a share's
// partitioner always asks for consistency), telling a sticky one of a new batch first.
func partition(tp kgo.TopicPartitioner, r *kgo.Record, n int, buffered []int64) int {
	if !tp.RequiresConsistency(r) {
		return -2
	}
	if nb, ok := tp.(kgo.TopicPartitionerOnNewBatch); ok {
		nb.OnNewBatch()
	}
	if bp, ok := tp.(kgo.TopicBackupPartitioner); ok {
		return bp.PartitionByBackup(r, n, &backupIter{buffered: append([]int64(nil), buffered...)})
	}
	return tp.Partition(r, n)
}

// TestOwnPartitions: every partitioner plimsoll maps picks only the share's partitions, keys
// hash over them (murmur2 over the share's count, offset by its first), and the adaptive one
// weighs only their buffered records.
func TestOwnPartitions(t *testing.T) {
	own := Range{Lo: 2, Hi: 5}
	const n = 8
	buffered := []int64{0, 0, 900, 0, 900, 0, 0, 0} // partition 3 is the least loaded of its own
	murmur := kgo.UniformBytesPartitioner(1, false, true, nil).ForTopic("t").(kgo.TopicBackupPartitioner)
	for _, tc := range []struct {
		name  string
		inner kgo.Partitioner
		keyed bool
	}{
		{"built-in, keys", kgo.UniformBytesPartitioner(16384, false, true, nil), true},
		{"built-in, no keys", kgo.UniformBytesPartitioner(1, false, true, nil), false}, // a new partition every record
		{"built-in, adaptive", kgo.UniformBytesPartitioner(1, true, false, nil), false},
		{"round robin", kgo.RoundRobinPartitioner(), false},
		{"sticky", kgo.StickyPartitioner(), false},
		{"sticky key, keys", kgo.StickyKeyPartitioner(nil), true},
		{"sticky key, no keys", kgo.StickyKeyPartitioner(nil), false},
	} {
		tp := ownPartitions(tc.inner, own).ForTopic("t")
		seen := map[int]int{}
		for i := range 300 {
			r := &kgo.Record{Topic: "t", Value: make([]byte, 100)}
			if tc.keyed {
				r.Key = []byte{byte(i), byte(i >> 8), 'k'}
			}
			p := partition(tp, r, n, buffered)
			if !own.Contains(p) {
				t.Fatalf("%s: partition %d, outside %+v", tc.name, p, own)
			}
			seen[p]++
			if tc.keyed {
				if want := own.Lo + murmur.PartitionByBackup(r, own.Len(), nil); p != want {
					t.Errorf("%s: key %q to partition %d, want %d (hashed over the share's %d)", tc.name, r.Key, p, want, own.Len())
				}
			}
		}
		if tc.name != "built-in, adaptive" && len(seen) != own.Len() {
			t.Errorf("%s: partitions used %v, want all of %+v", tc.name, seen, own)
		}
		if tc.name == "built-in, adaptive" && (seen[3] <= seen[2] || seen[3] <= seen[4]) {
			t.Errorf("%s: partitions used %v: 3, the least buffered, should be used most", tc.name, seen)
		}
	}
	if p := partition(ownPartitions(kgo.RoundRobinPartitioner(), own).ForTopic("t"), &kgo.Record{}, 4, nil); p != -1 {
		t.Errorf("a topic of 4 partitions for a share of %+v: partition %d, want -1 (the record fails)", own, p)
	}
}

// TestShareTopics: a share run produces into topics another process created under a prefix
// already in use (the run's control topic), creates and deletes nothing; without the topics it
// fails creating none, and a start its set-up ran past is an error.
func TestShareTopics(t *testing.T) {
	tgt, adm := fakeCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	spec := smallSpec()
	share := func(start time.Time) *Share {
		return &Share{Producers: Range{Lo: 0, Hi: spec.Producers}, Partitions: Range{Lo: 0, Hi: spec.PartitionsPerTopic},
			Consumers: Range{Lo: 0, Hi: spec.ConsumersPerGroup}, Balancer: kgo.RoundRobinBalancer(), Start: start}
	}
	prefixed := func(runID string) []string {
		names, err := topics.Prefixed(ctx, adm, "plimsoll-"+runID+"-")
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		return names
	}

	const run = "sharetopics"
	names := append(topics.TopicNames("plimsoll-"+run+"-", spec.Topics), "plimsoll-"+run+"-control")
	if err := topics.Create(ctx, adm, names, int32(spec.PartitionsPerTopic), 1, nil); err != nil {
		t.Fatal(err)
	}
	before := prefixed(run)
	res, err := Run(ctx, spec, tgt, Options{RunID: run, DrainTimeout: 10 * time.Second, Share: share(time.Now().Add(3 * time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Sent == 0 || res.Counts.Lost != 0 || res.Counts.Consumed != 2*res.Counts.Acked {
		t.Errorf("counts %+v", res.Counts)
	}
	if after := prefixed(run); !slices.Equal(after, before) {
		t.Errorf("topics under the prefix: %v before the share run, %v after; it must neither create nor delete", before, after)
	}

	_, err = Run(ctx, spec, tgt, Options{RunID: run, Share: share(time.Now().Add(-time.Second))})
	if !errors.Is(err, ErrShare) || !strings.Contains(err.Error(), "passed") {
		t.Errorf("a start already passed: %v, want ErrShare", err)
	}
	if after := prefixed(run); !slices.Equal(after, before) {
		t.Errorf("after a late share run: %v, want %v", after, before)
	}

	_, err = Run(ctx, spec, tgt, Options{RunID: "notopics", SetupTimeout: 2 * time.Second, Share: share(time.Now().Add(time.Minute))})
	if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "topic plimsoll-notopics-t0") || !strings.Contains(err.Error(), "coordinator created") {
		t.Errorf("without its topics: %v, want ErrSetup naming the topic", err)
	}
	if left := prefixed("notopics"); len(left) != 0 {
		t.Errorf("a share run without its topics created %v", left)
	}
}
