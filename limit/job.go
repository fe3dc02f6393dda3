package limit

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/workload"
)

// StoreName is the results file of a search's output directory.
const StoreName = "results.jsonl"

// Errors about a job's input, for errors.Is.
var (
	// ErrNothingToResume: Resume was asked for a directory that holds no search.
	ErrNothingToResume = errors.New("no search to resume")
	// ErrBrokersDown: BrokersDown leaves no broker up.
	ErrBrokersDown = errors.New("brokers down must leave at least one broker up")
)

// Job is a whole limit search: its options, every trial's base configuration, the cluster it
// runs on and the directory it writes (results.jsonl, trials/, and later the report).
type Job struct {
	Out    string // the output directory
	Resume bool   // continue the search in Out
	// Search holds the search's own options (Sizes, Tolerance, Growth, MinRate, MaxRate,
	// Progress, Logf); Store, Resume, Config, Start and Predict are set by Run.
	Search Options
	// Base is every trial's configuration; its Spec's rate and message size are set per trial.
	Base        trial.Config
	Where       *trial.Where
	BrokersDown int // brokers the recommendation keeps headroom for
	// BrokersDownShare, when above 0, gives BrokersDown as a share of the cluster's brokers
	// (0.2 for 20%), rounded up once they are known (model.BrokersDownOf).
	BrokersDownShare float64
	Command          string // the command line, recorded in the search's configuration
	// Hold is the measured window of a confirmation: each size's safe rate is held this long
	// before it is reported; 0: twice the trial's window. NoHold skips confirmations.
	Hold   time.Duration
	NoHold bool
	// StartRate, when above 0, is the first rate of the first size, msgs/s, instead of the
	// model's prediction (or the default): a rate known to lie near the limit, such as an earlier
	// search's boundary. Later sizes start from the model's prediction where it has one, else at
	// StartRate's bytes/s; the first bracket step is then 1 + Tolerance.
	StartRate float64
	// RunTrial runs each trial; nil: trial.Run (one process). `limit --local-workers` spreads
	// each trial over workers with it (trial.RunWorkers).
	RunTrial func(context.Context, trial.Config) (*results.Trial, error)
	// Opened, when set, is called once with the search's id, before its first trial: each
	// trial's run id is that id and the trial's number (SEARCH-tN). `limit --workers` opens the
	// search's topic with it, for the workers that follow the search (fleet.OpenSearch).
	Opened func(searchID string) error
}

// Store is the results file of the job.
func (j Job) Store() string { return filepath.Join(j.Out, StoreName) }

// Run runs the search to the end (or resumes it), appends the recommendation and returns the
// search as stored. On an error the trials finished so far are in Store.
func Run(ctx context.Context, j Job) (*results.SearchFile, error) {
	if err := j.checkStore(); err != nil {
		return nil, err
	}
	cfg, err := j.config(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(j.Out, 0o755); err != nil {
		return nil, err
	}
	key := dirKey(j.Out)
	j.cleanup(ctx, "plimsoll-"+key+"-") // left by an interrupted trial of this search
	runner := &Runner{Base: j.Base, TrialsDir: filepath.Join(j.Out, "trials"), Hold: j.Hold, Run: j.RunTrial,
		SearchID: fmt.Sprintf("%s-%s", key, time.Now().UTC().Format("150405"))}
	if err := runner.ContinueNumbering(); err != nil {
		return nil, err
	}
	if j.Opened != nil {
		if err := j.Opened(runner.SearchID); err != nil {
			return nil, err
		}
	}
	runner.Base.Target, runner.Base.Probe = j.Where.Target, j.Where.ProbeConfig()
	runner.Base.KafkaVersion = cfg.KafkaVersion
	o := j.Search
	o.Store, o.Resume, o.Config = j.Store(), j.Resume, &cfg
	if len(o.Sizes) == 0 {
		o.Sizes = slices.Clone(DefaultSizes)
	}
	o.SLO, o.Confirm = cfg.Criteria.PublishP99SLOMs > 0, !j.NoHold
	slo := &sloPredictor{store: j.Store(), cfg: cfg, sizes: o.Sizes, made: map[int]float64{}}
	if o.SLO {
		o.StartSLO = slo.predict
	}
	o.Predict = func(size int, linkOverhead float64) *results.Prediction {
		p := Predict(cfg, size)
		if p != nil && o.SLO {
			p.SLOMsgsPerSec = slo.predict(size)
		}
		if p != nil && linkOverhead > 0 {
			p.FramedMsgsPerSec = framedRate(cfg, size, linkOverhead)
		}
		return p
	}
	if cfg.NICBytesPerSec > 0 {
		o.Start = func(size int) float64 {
			if p := Predict(cfg, size); p != nil {
				return p.MsgsPerSec
			}
			return DefaultStartBPS / float64(size)
		}
		// From the second size on, the start counts the link overhead measured at the size
		// before: the unframed model overstates every size's ceiling by that much or so.
		o.Reframe = func(size int, linkOverhead float64) float64 { return framedRate(cfg, size, linkOverhead) }
		if o.FirstStep == 0 { // a prediction to start from: step by the tolerance first
			o.FirstStep = 1 + tolerance(o)
		}
	}
	j.startAt(&o, cfg)
	if _, err := Search(ctx, runner, o); err != nil {
		return nil, err
	}
	return finish(j.Store(), cfg)
}

// startAt makes the search start at j.StartRate, when set: the first size there, the others
// where Start had them or, without it, at the same bytes/s.
func (j Job) startAt(o *Options, cfg results.Config) {
	if j.StartRate <= 0 {
		return
	}
	model, first := o.Start, o.Sizes[0]
	o.Start = func(size int) float64 {
		switch {
		case size == first:
			return j.StartRate
		case model != nil:
			return model(size)
		}
		return j.StartRate * float64(first) / float64(size)
	}
	if o.FirstStep == 0 {
		o.FirstStep = 1 + tolerance(*o)
	}
}

// CheckSizes validates the workload at every message size of the search, so that a size the
// workload's properties cannot run (a batch.size or max.request.size too small for it) stops the
// search before its first trial.
func CheckSizes(spec workload.Spec, sizes []int) error {
	for _, size := range sizes {
		s := spec.Clone()
		s.MessageSize = size
		if err := s.Validate(); err != nil {
			if len(sizes) > 1 {
				return fmt.Errorf("with %d-byte messages: %w", size, err)
			}
			return err
		}
	}
	return nil
}

// tolerance is the search's tolerance, its default when unset.
func tolerance(o Options) float64 {
	if o.Tolerance == 0 {
		return DefaultTolerance
	}
	return o.Tolerance
}

// Check refuses a job's bad options before anything starts: the search's options (as
// *OptionError), including the first step Run takes from a prediction (1 + Tolerance, which
// must fit in Growth), and negative BrokersDown or Hold. Whether BrokersDown leaves a broker up
// needs the cluster, and Run checks it.
func (j Job) Check() error {
	if err := j.Search.Check(); err != nil {
		return err
	}
	growth := j.Search.Growth
	if growth == 0 {
		growth = DefaultGrowth
	}
	if tol := tolerance(j.Search); j.Search.FirstStep == 0 && 1+tol > growth {
		return optErr("Growth", "%v must be at least 1 + the tolerance (%v): a search that starts from the model's prediction first steps by the tolerance", growth, 1+tol)
	}
	if j.BrokersDown < 0 || !(j.BrokersDownShare >= 0 && j.BrokersDownShare < 1) {
		return fmt.Errorf("%w: %d (share %v) is negative or all of them", ErrBrokersDown, j.BrokersDown, j.BrokersDownShare)
	}
	if j.Hold < 0 {
		return optErr("Hold", "%v must not be negative (0: twice the trial's window)", j.Hold)
	}
	return j.checkStartRate()
}

// checkStartRate wants StartRate 0 (none) or a rate within the search's rates.
func (j Job) checkStartRate() error {
	lo, hi := j.Search.MinRate, j.Search.MaxRate
	if lo == 0 {
		lo = DefaultMinRate
	}
	if hi == 0 {
		hi = DefaultMaxRate
	}
	if j.StartRate != 0 && !(j.StartRate >= lo && j.StartRate <= hi) {
		return optErr("StartRate", "%v must be a rate in messages/s between MinRate (%v) and MaxRate (%v); without it the search starts from the model's prediction", j.StartRate, lo, hi)
	}
	return nil
}

// CheckStore refuses, before anything starts, to overwrite a search in Out (without Resume)
// or to resume none (with it).
func (j Job) CheckStore() error { return j.checkStore() }

// checkStore refuses to overwrite a search, or to resume none.
func (j Job) checkStore() error {
	_, err := os.Stat(j.Store())
	switch {
	case err == nil && !j.Resume:
		return fmt.Errorf("%s: %w", j.Store(), ErrStoreInUse)
	case err != nil && j.Resume:
		return fmt.Errorf("%s: %w", j.Store(), ErrNothingToResume)
	}
	return nil
}

// config resolves what the boundary depends on: the cluster's brokers, the spec's replication
// factor and partitions on them, the NIC rate and the host.
func (j Job) config(ctx context.Context) (results.Config, error) {
	brokers, err := j.Where.Target.Brokers(ctx)
	if err != nil {
		return results.Config{}, err
	}
	if j.BrokersDownShare > 0 {
		j.BrokersDown = model.BrokersDownOf(j.BrokersDownShare, brokers)
	}
	if j.BrokersDown < 0 || j.BrokersDown >= brokers {
		return results.Config{}, fmt.Errorf("%w: %d of %d brokers", ErrBrokersDown, j.BrokersDown, brokers)
	}
	spec := j.Base.Spec
	if err := spec.CheckCluster(brokers); err != nil {
		return results.Config{}, err
	}
	version := j.Base.KafkaVersion
	if version == "" {
		version = j.Where.KafkaVersion()
	}
	cfg := results.Config{
		Command: j.Command, Spec: spec, Criteria: j.Base.Criteria, KafkaVersion: version,
		Brokers: brokers, ReplicationFactor: spec.ReplicationFor(brokers), Partitions: spec.PartitionsFor(brokers),
		Local: j.Where.Target.Local, NICBytesPerSec: j.Where.NIC, BrokersDown: j.BrokersDown, HostCores: runtime.NumCPU(),
	}
	if j.Base.Load.LeanProducer {
		cfg.Producer = results.ProducerLean
	}
	return cfg, nil
}

// cleanup deletes the topics and groups an interrupted trial of this search left behind.
func (j Job) cleanup(ctx context.Context, prefix string) {
	logf := j.Search.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	topics, groups, err := loadgen.DeletePrefixed(ctx, j.Where.Target, prefix)
	if err != nil {
		logf("could not delete what an interrupted trial of this search left (%s*): %v", prefix, err)
	} else if topics+groups > 0 {
		logf("deleted %d topics and %d groups left by an interrupted trial of this search (%s*)", topics, groups, prefix)
	}
}

// finish appends the recommendation to a finished search (once) and reads the search back.
func finish(store string, cfg results.Config) (*results.SearchFile, error) {
	sf, err := results.LoadSearch(store)
	if err != nil {
		return nil, err
	}
	if sf.Recommendation != nil {
		return sf, nil
	}
	if rec := Recommend(cfg, sf.Points); rec != nil {
		if err := results.Append(store, results.KindRecommendation, "", rec); err != nil {
			return nil, err
		}
		sf.Recommendation = rec
	}
	return sf, nil
}

// dirKey names a search by its output directory, so a resumed search finds the topics an
// interrupted trial left behind (they start with plimsoll-<key>-).
func dirKey(dir string) string {
	abs, _ := filepath.Abs(dir)
	h := fnv.New32a()
	h.Write([]byte(abs))
	return fmt.Sprintf("l%06x", h.Sum32()&0xffffff)
}
