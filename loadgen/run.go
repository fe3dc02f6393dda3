package loadgen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrInterrupted is returned (with the partial Result) when ctx ends during a run.
var ErrInterrupted = errors.New("run interrupted")

// Errors for Kafka client properties that cannot be honoured (kafkaprops' kinds): Run
// validates the spec first, so they arrive wrapped in workload.FieldErrors.
var (
	// ErrUnknownProperty: not a Kafka property plimsoll knows, or one its client cannot honour.
	ErrUnknownProperty = kafkaprops.ErrUnknownProperty
	// ErrBadProperty: the value is invalid, conflicts with another the user set, or is beyond
	// franz-go.
	ErrBadProperty = kafkaprops.ErrBadProperty
)

// Defaults for Options.
const (
	DefaultDrainTimeout = 30 * time.Second
	DefaultSetupTimeout = 60 * time.Second
)

// Options control a run; the zero value is usable.
type Options struct {
	// RunID names the run; default 8 random hex digits.
	RunID string
	// TopicPrefix starts every topic and group name of the run; default "plimsoll-<RunID>-".
	// It must pass topics.CheckPrefix (else ErrBadPrefix). Topics already starting with it make
	// Run fail before producing (ErrTopicsExist).
	TopicPrefix string
	// KeepTopics leaves the run's topics and groups in place; by default they are deleted.
	KeepTopics bool
	// LeanProducer sends through plimsoll's own produce path (package produce: its own record
	// batches, up to 5 requests in flight per broker with idempotence) instead of franz-go's
	// producer. Experimental: no acks=0 (plimsoll run sets it only without workers).
	LeanProducer bool
	// DrainTimeout bounds the wait after the window for every acknowledged message to be
	// consumed (and for producers to flush); default 30s.
	DrainTimeout time.Duration
	// SetupTimeout bounds topic creation and consumer group assignment; default 60s.
	SetupTimeout time.Duration
	// PacingTick is the least a producer sleeps between sends; 0 (the default) sleeps until
	// the next intended time. Whatever fell due while it slept is sent in one go, each message
	// counting its wait in the schedule delay and latency, so a tick trades delay for fewer
	// wake-ups, never accuracy. Go's timers already wake about every millisecond at most on
	// Linux, and measured here a 1 ms tick cost more CPU than none (2.5 vs 1.6 s per million
	// messages at 100k msg/s), so the default is none. On the lean path too: 2.2 (1 ms) and 2.5
	// (250 µs) vs 1.5-1.6 s per million, schedule delay p50 0.69 vs 0.40 ms
	// (docs/lean-producer.md).
	PacingTick time.Duration
	// Progress, when set, is called once a second with that second's figures.
	Progress func(Second)
	// Live, when set, is called once a second after Progress with the run as it stands: that
	// second, the counts and the measured window's histograms so far (Live). It runs on the
	// run's own goroutine, so it must return quickly and copy what it keeps.
	Live func(*Live)
	// Started, when set, is called once the producers' schedule is fixed, just before they
	// start: the wall-clock times of their start (the timeline's t = 0) and of the measured
	// window's start (in backlog mode, when the warm-up ends: the window then starts later).
	// It must not block.
	Started func(producers, window time.Time)
	// BeforeCleanup, when set, is called after a run that ended without error (its drain
	// over), before its topics are deleted; a trial with planned faults waits there for the
	// ISR of the run's topics to be full again.
	BeforeCleanup func()
	// Clock is the run's time base; default pace.NewClock(). Tests may pass their own.
	Clock pace.Clock
	// Seed makes payloads and keys reproducible; default derived from RunID.
	Seed uint64
	// SpillDir, when set, is where the run's interval histograms and timeline rows beyond its
	// latest ten minutes are spilled (hdr.IntervalLog.SpillDir, Timeline.SpillTo) so that a long
	// run's memory stays flat; the Result's Intervals and Timeline read them back until closed.
	// Empty: every interval and row held in memory.
	SpillDir string
	// Share, when set, makes the run one worker's share of a run spread over several
	// processes (Share): its producers, partitions and consumers only, from an absolute start,
	// into topics another process created and deletes. RunID (or TopicPrefix) must name that
	// run's topics.
	Share *Share
	// ConsumerFetch is the consumers' fetch path: FetchFranzGo (franz-go fetches, the consumer
	// polls) or FetchPlimsoll (plimsoll's own Fetch requests parsed in place, package fetch;
	// franz-go keeps metadata, the group and commits). Empty:
	// $PLIMSOLL_CONSUMER_FETCH, else FetchPlimsoll.
	ConsumerFetch string
	// Feed, when set, hands the run's reports out as a worker publishes them (Feed): each
	// second's counters and encoded interval histograms, and the final report after the drain.
	Feed Feed
}

func (o Options) withDefaults() Options {
	if o.RunID == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.RunID = hex.EncodeToString(b[:])
	}
	if o.TopicPrefix == "" {
		o.TopicPrefix = "plimsoll-" + o.RunID + "-"
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.SetupTimeout <= 0 {
		o.SetupTimeout = DefaultSetupTimeout
	}
	if o.PacingTick < 0 {
		o.PacingTick = 0
	}
	if o.Clock == nil {
		o.Clock = pace.NewClock()
	}
	if o.Seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(o.RunID))
		o.Seed = h.Sum64()
	}
	return o
}

// Run creates the spec's topics on tgt, runs its producers and consumers through warm-up (and
// backlog building), the measured window and the drain, deletes the topics (unless
// KeepTopics) and returns what it measured. When ctx ends mid-run it stops, cleans up and
// returns the partial Result with an error wrapping ErrInterrupted.
func Run(ctx context.Context, spec workload.Spec, tgt target.Target, opts Options) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if err := topics.CheckPrefix(opts.TopicPrefix); err != nil {
		return nil, err
	}
	base, err := tgt.ClientOpts()
	if err != nil {
		return nil, err
	}
	r := &runner{spec: spec, tgt: tgt, opts: opts, base: base}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	adminCl, err := kgo.NewClient(base...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	defer adminCl.Close()
	r.cl, r.adm = adminCl, kadm.NewClient(adminCl)
	var res *Result
	defer func() {
		if opts.KeepTopics || opts.Share != nil || len(r.topics) == 0 {
			return
		}
		if err := r.cleanup(context.WithoutCancel(ctx)); err != nil && res != nil {
			res.Notes = append(res.Notes, "cleanup: "+err.Error())
		}
	}()
	if err := r.setupTopics(ctx); err != nil {
		if denied(err) {
			return nil, &DeniedError{Op: "Create", Err: err}
		}
		return nil, err
	}
	res, err = r.execute(ctx)
	if err == nil && opts.BeforeCleanup != nil {
		opts.BeforeCleanup()
	}
	return res, err
}

// cleanup deletes the run's topics and groups, even when the run failed or was interrupted, and
// never a name outside the prefix. The admin client's metadata may be as old as the run and name
// a broker that no longer answers (paused, then fenced) as the one to send deletions to: when the
// first attempt fails, a new client, with fresh metadata, tries again, within 30 s in all,
// sending the topics' deletion to each broker in turn (a KRaft broker names a random live one as
// the controller, which may be the paused one every time).
func (r *runner) cleanup(ctx context.Context) error {
	first, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := topics.DeleteOwned(first, r.adm, r.opts.TopicPrefix, r.topics, r.groupNames)
	cancel()
	if err == nil {
		return nil
	}
	cl, cerr := kgo.NewClient(r.base...)
	if cerr != nil {
		return err
	}
	defer cl.Close()
	again, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	terr := topics.DeleteTopicsAnyBroker(again, cl, r.opts.TopicPrefix, r.topics, 4*time.Second)
	return errors.Join(terr, topics.DeleteOwned(again, kadm.NewClient(cl), r.opts.TopicPrefix, nil, r.groupNames))
}

// runner holds one run's state between its steps.
type runner struct {
	spec   workload.Spec
	tgt    target.Target
	opts   Options
	base   []kgo.Opt
	cl     *kgo.Client // the admin client's connections (silentBrokers)
	silent []int32     // brokers that answered nothing when the topics did not settle
	adm    *kadm.Client

	clients  *kafkaprops.Clients // the producers' and consumers' configuration
	payloads *payloadPool
	keys     *keySet

	brokers, partitions, rf int
	topics, groupNames      []string
	// share is what this process runs: the whole workload, or Options.Share.
	share        Share
	topicConfigs map[string]string
}

// prepare checks and builds everything that needs no cluster, so bad input fails first.
func (r *runner) prepare() error {
	var err error
	if r.keys, err = newKeySet(r.spec.Keys, r.spec.KeyCount, r.opts.Seed); err != nil {
		return err
	}
	if r.payloads, err = newPayloadPool(r.spec.Payload, r.spec.MessageSize, r.opts.Seed); err != nil {
		return err
	}
	r.clients, err = r.spec.Clients()
	return err
}

// setupTopics sizes the topics for the cluster and creates them; a share run finds them
// instead (findTopics).
func (r *runner) setupTopics(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, r.opts.SetupTimeout)
	defer cancel()
	md, err := r.adm.BrokerMetadata(sctx)
	if err != nil {
		return fmt.Errorf("%w: reading cluster metadata from %v: %w", ErrSetup, r.tgt.Bootstrap, err)
	}
	r.brokers = max(len(md.Brokers), 1)
	if err := r.spec.CheckCluster(r.brokers); err != nil {
		return err
	}
	r.partitions = r.spec.PartitionsFor(r.brokers)
	r.rf = r.spec.ReplicationFor(r.brokers)
	r.topicConfigs = TopicConfigs(r.spec)
	cfg := TopicConfigPtrs(r.topicConfigs)
	names := topics.TopicNames(r.opts.TopicPrefix, r.spec.Topics)
	if r.opts.Share != nil {
		return r.findTopics(sctx, names)
	}
	if err := topics.EnsureNone(sctx, r.adm, r.opts.TopicPrefix); err != nil {
		return err
	}
	r.share = whole(r.spec, r.partitions)
	r.topics = names // from here on cleanup deletes them, even if creation fails half-way
	r.groupNames = topics.GroupNames(r.opts.TopicPrefix, r.spec.ConsumerGroups)
	return topics.Create(sctx, r.adm, names, int32(r.partitions), int16(r.rf), cfg)
}

// findTopics is a share run's set-up: the topics exist already (the coordinator created them
// with the plan's partitions), so it checks the share against them and waits for their
// leaders. It neither refuses the prefix (the run's control and results topics live under it)
// nor creates anything.
func (r *runner) findTopics(ctx context.Context, names []string) error {
	if err := r.opts.Share.check(r.spec, r.partitions); err != nil {
		return err
	}
	r.share = *r.opts.Share
	if err := topics.Await(ctx, r.adm, names, int32(r.partitions), int16(r.rf)); err != nil {
		return fmt.Errorf("%w; a share run produces into the topics its run's coordinator created", err)
	}
	r.topics, r.groupNames = names, topics.GroupNames(r.opts.TopicPrefix, r.spec.ConsumerGroups)
	return nil
}

// TopicConfigs are the configs a run creates its topics with: the spec's topic configs and
// its min.insync.replicas.
func TopicConfigs(spec workload.Spec) map[string]string {
	c := spec.TopicConfig.Map()
	if spec.MinInsyncReplicas > 0 {
		c["min.insync.replicas"] = fmt.Sprint(spec.MinInsyncReplicas)
	}
	return c
}

// TopicConfigPtrs are configs as topics.Create takes them.
func TopicConfigPtrs(c map[string]string) map[string]*string {
	out := make(map[string]*string, len(c))
	for k, v := range c {
		out[k] = kadm.StringPtr(v)
	}
	return out
}
