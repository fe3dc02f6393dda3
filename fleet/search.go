package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/loadgen/topics"
)

// A limit search with workers runs trial after trial, each a run of its own whose run id is the
// search's id and the trial's number (SEARCH-tK). Workers started once for the whole search
// follow it through the search's topic: the coordinator announces there each trial's run id as
// it opens the run, writes a heartbeat every Limits.Beat, and writes the search's end when it is
// over. A worker joins each announced run as it would a run given by its id.

// ErrSearchOver: the search's coordinator wrote the search's end; a follower has nothing more to
// join.
var ErrSearchOver = errors.New("the search is over")

// SearchTopic is the search's topic: announced runs, heartbeats and the end. It lies under the
// search's prefix, beside (not under) its trials' run prefixes.
func SearchTopic(searchID string) string { return Prefix(searchID) + "search" }

// Keys of the search topic's records besides the heartbeat and the end: an announced run (its
// value the run id) and a follower's arrival (its value a followRecord).
const (
	keyRun    = "run"
	keyDone   = "done" // the announced run has ended; its value is the run id
	keyFollow = "follow"
)

// followRecord is a follower's arrival on the search's topic: who it is and its version.
type followRecord struct {
	Worker  int    `json:"worker"`
	Version string `json:"version"`
	Host    string `json:"host"`
}

// Search is the coordinating side of a search's topic.
type Search struct {
	id    string
	base  []kgo.Opt
	cl    *kgo.Client
	adm   *kadm.Client
	stop  context.CancelFunc
	beats chan struct{}
}

// OpenSearch creates the search's topic (one partition, replication min(3, brokers)), refusing
// one that exists, and starts writing a heartbeat every Limits.Beat until Close.
func OpenSearch(ctx context.Context, base []kgo.Opt, searchID string, limits Limits) (*Search, error) {
	if err := CheckRunID(searchID); err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(busClient(base)...)
	if err != nil {
		return nil, err
	}
	s := &Search{id: searchID, base: base, cl: cl, adm: kadm.NewClient(cl), stop: func() {}}
	if err := s.create(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	bctx, stop := context.WithCancel(context.Background())
	s.stop, s.beats = stop, make(chan struct{})
	go heartbeats(bctx, cl, SearchTopic(searchID), limits.Beat, s.beats)
	return s, nil
}

// create makes the search's topic, refusing one left by another search of this id.
func (s *Search) create(ctx context.Context) error {
	name := SearchTopic(s.id)
	td, err := s.adm.ListTopics(ctx, name)
	if err != nil {
		return fmt.Errorf("%w: %w", topics.ErrSetup, err)
	}
	if td.Has(name) {
		return fmt.Errorf("%w: the topic %s exists: another search of id %s is running, or left it (delete it once that search is over)", ErrPlan, name, s.id)
	}
	bm, err := s.adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", topics.ErrSetup, err)
	}
	return topics.Create(ctx, s.adm, []string{name}, 1, int16(min(3, len(bm.Brokers))), nil)
}

// AwaitFollowers waits until n followers, indices 0 to n-1, have arrived on the search's topic,
// within wait: ErrMissing naming those that did not, ErrRefused (and ErrVersion) for one of
// another version, ErrPlan for an index out of range.
func (s *Search) AwaitFollowers(ctx context.Context, n int, version string, clock Clock, limits Limits, wait time.Duration) error {
	cl, err := kgo.NewClient(fromStart(s.base, SearchTopic(s.id))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	seen := map[int]bool{}
	deadline := clock.Now().Add(wait)
	for len(seen) < n {
		recs, err := poll(ctx, cl, limits.Poll)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := arrived(r, n, version, seen); err != nil {
				return err
			}
		}
		if len(seen) < n && !clock.Now().Before(deadline) {
			return fmt.Errorf("%w: %s of %d never followed search %s in %s; start each with this search id and its index",
				ErrMissing, absent(seen, n), n, s.id, wait)
		}
	}
	return nil
}

// arrived takes a follower's arrival record into seen; other records are not arrivals.
func arrived(r *kgo.Record, n int, version string, seen map[int]bool) error {
	if string(r.Key) != keyFollow {
		return nil
	}
	var f followRecord
	if err := json.Unmarshal(r.Value, &f); err != nil {
		return fmt.Errorf("%w: a follower's arrival on the search's topic: %w", ErrPlan, err)
	}
	switch {
	case f.Version != version:
		return fmt.Errorf("%w (%w): worker %d (host %s) runs plimsoll %s, the coordinator %s", ErrRefused, ErrVersion, f.Worker, f.Host, f.Version, version)
	case f.Worker < 0 || f.Worker >= n:
		return fmt.Errorf("%w: worker %d (host %s) follows a search of %d workers: give indices 0 to %d", ErrPlan, f.Worker, f.Host, n, n-1)
	}
	seen[f.Worker] = true
	return nil
}

// absent names the indices below n not in seen.
func absent(seen map[int]bool, n int) string {
	var ws []int
	for i := range n {
		if !seen[i] {
			ws = append(ws, i)
		}
	}
	return named(ws)
}

// ID is the search's id.
func (s *Search) ID() string { return s.id }

// Announce tells the search's followers that the run runID, a trial of the search, is open.
func (s *Search) Announce(ctx context.Context, runID string) error {
	rec := &kgo.Record{Topic: SearchTopic(s.id), Key: []byte(keyRun), Value: []byte(runID)}
	if err := s.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("announcing run %s on %s: %w", runID, SearchTopic(s.id), err)
	}
	return nil
}

// Done tells the search's followers that the run runID has ended: a follower arriving later
// (restarted after it died) does not try to join it, and waits for the next.
func (s *Search) Done(ctx context.Context, runID string) error {
	rec := &kgo.Record{Topic: SearchTopic(s.id), Key: []byte(keyDone), Value: []byte(runID)}
	if err := s.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("marking run %s done on %s: %w", runID, SearchTopic(s.id), err)
	}
	return nil
}

// Close stops the heartbeats, writes the search's end (reason, for the followers' logs) and
// deletes the search's topic, never a name outside the search's prefix.
func (s *Search) Close(ctx context.Context, reason string) error {
	defer s.cl.Close()
	s.stop()
	if s.beats != nil {
		<-s.beats
	}
	end := &kgo.Record{Topic: SearchTopic(s.id), Key: []byte(keyEnd), Value: []byte(reason)}
	ectx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_ = s.cl.ProduceSync(ectx, end).FirstErr() // best effort: the followers' silence limit ends them too
	cancel()
	return topics.DeleteOwned(ctx, s.adm, Prefix(s.id), []string{SearchTopic(s.id)}, nil)
}

// heartbeats writes a heartbeat to topic every beat until ctx ends, then closes done.
func heartbeats(ctx context.Context, cl *kgo.Client, topic string, beat time.Duration, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(beat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			rec := &kgo.Record{Topic: topic, Key: []byte(keyHeartbeat), Value: []byte(now.UTC().Format(time.RFC3339Nano))}
			_ = cl.ProduceSync(ctx, rec).FirstErr() // a missed heartbeat is what the silence limit allows for
		}
	}
}

// Follower is a worker's side of a search's topic: it hands out the runs the coordinator
// announces, one at a time.
type Follower struct {
	id     string
	cl     *kgo.Client
	clock  Clock
	limits Limits
	heard  time.Time       // the coordinator's last record
	latest string          // the latest run announced and not yet handed out
	given  map[string]bool // handed out, or ended (Search.Done) before it was
	end    string          // the end's reason, once read
	ended  bool
}

// Follow waits (up to Limits.Find) for the search's topic, writes the follower's arrival there
// (j's index, version and host; its run id is not used) and reads the topic from its start.
func Follow(ctx context.Context, base []kgo.Opt, searchID string, j Joining, clock Clock, limits Limits) (*Follower, error) {
	if err := CheckRunID(searchID); err != nil {
		return nil, err
	}
	// The topic is consumed once found: a client consuming a topic that does not exist yet
	// learns of it only at a later metadata refresh, seconds after its creation.
	cl, err := kgo.NewClient(busClient(base, kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		return nil, err
	}
	f := &Follower{id: searchID, cl: cl, clock: clock, limits: limits, given: map[string]bool{}}
	if err := findTopic(ctx, kadm.NewClient(cl), clock, limits, SearchTopic(searchID), "the search id"); err != nil {
		cl.Close()
		return nil, err
	}
	cl.AddConsumeTopics(SearchTopic(searchID))
	if err := f.arrive(ctx, j); err != nil {
		cl.Close()
		return nil, err
	}
	f.heard = clock.Now()
	return f, nil
}

// arrive writes the follower's arrival on the search's topic.
func (f *Follower) arrive(ctx context.Context, j Joining) error {
	v, err := json.Marshal(followRecord{Worker: j.Index, Version: j.Version, Host: j.Host})
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: SearchTopic(f.id), Key: []byte(keyFollow), Value: v}
	if err := f.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("writing worker %d's arrival on %s: %w", j.Index, SearchTopic(f.id), err)
	}
	return nil
}

// Close closes the follower's client.
func (f *Follower) Close() { f.cl.Close() }

// Next waits for a run to join: the latest the coordinator announced that Next has not handed
// out (a follower that fell behind skips the trials it missed). ErrSearchOver once the
// coordinator wrote the search's end; ErrCoordinatorGone after Limits.Silence with no record
// from it.
func (f *Follower) Next(ctx context.Context) (string, error) {
	for {
		recs, err := poll(ctx, f.cl, f.limits.Poll)
		if err != nil {
			return "", f.gone(ctx, err)
		}
		for _, r := range recs {
			f.read(r)
		}
		if len(recs) > 0 {
			continue // read on until caught up: a later announcement supersedes this one
		}
		if run, done, err := f.decide(); done {
			return run, f.gone(ctx, err)
		}
	}
}

// gone is err, unless err says the coordinator is silent or the topic unreadable and the
// search's topic is gone: its coordinator deleted it at the search's end, before this follower
// (busy with the last trial) read the end record, so the search is over.
func (f *Follower) gone(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, ErrSearchOver) || ctx.Err() != nil {
		return err
	}
	td, lerr := kadm.NewClient(f.cl).ListTopics(ctx, SearchTopic(f.id))
	if lerr != nil || td.Has(SearchTopic(f.id)) {
		return err
	}
	return fmt.Errorf("%w: search %s: its topic %s was deleted, as its coordinator does at the search's end", ErrSearchOver, f.id, SearchTopic(f.id))
}

// read takes one record of the search's topic in.
func (f *Follower) read(r *kgo.Record) {
	f.heard = f.clock.Now()
	switch string(r.Key) {
	case keyRun:
		f.latest = string(r.Value)
	case keyDone:
		f.given[string(r.Value)] = true
	case keyEnd:
		f.ended, f.end = true, string(r.Value)
	}
}

// decide is what Next returns once caught up with the topic, if it returns.
func (f *Follower) decide() (string, bool, error) {
	switch {
	case f.ended:
		return "", true, fmt.Errorf("%w: search %s: %s", ErrSearchOver, f.id, f.end)
	case f.latest != "" && !f.given[f.latest]:
		f.given[f.latest] = true
		return f.latest, true, nil
	case f.clock.Now().Sub(f.heard) >= f.limits.Silence:
		return "", true, fmt.Errorf("%w: nothing on %s for %s", ErrCoordinatorGone, SearchTopic(f.id), f.limits.Silence)
	}
	return "", false, nil
}

// findTopic waits up to Limits.Find for topic to exist; what names the value the user gave.
// kadm answers from metadata up to kgo's MetadataMinAge old (busMetadataAge), so a topic created after
// the first look is seen within that.
func findTopic(ctx context.Context, adm *kadm.Client, clock Clock, limits Limits, topic, what string) error {
	deadline := clock.Now().Add(limits.Find)
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err != nil {
			return fmt.Errorf("looking for %s: %w", topic, err)
		}
		if td.Has(topic) {
			return nil
		}
		if !clock.Now().Before(deadline) {
			return fmt.Errorf("%w: no topic %s on the cluster after %s: give %s the coordinator printed, and start the coordinator first",
				ErrNoRun, topic, limits.Find, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(limits.Poll):
		}
	}
}
