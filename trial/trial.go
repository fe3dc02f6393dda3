package trial

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Config is one trial: what load, where, how it is watched and judged.
type Config struct {
	Spec   workload.Spec
	Target target.Target
	Load   loadgen.Options
	// Probe configures the observer; its Target and TopicPrefix are filled in by Run.
	Probe    probe.Config
	Criteria verdict.Criteria
	// KafkaVersion is the cluster's release when known (the local cluster); otherwise Run asks
	// the cluster for its API versions and records the release they match.
	KafkaVersion string
	// NoProbe skips the probe (no broker or host observations; the verdict says what it skipped).
	NoProbe bool
	// Faults are planned faults, executed on FaultTarget (the local cluster) at their times
	// after the start of the measured window; checked by the caller (fault.Check).
	Faults      []fault.Spec
	FaultTarget fault.Target
}

// Run executes one trial. The probe runs for the whole trial; the USE table, the per-process
// CPU, the brokers' traffic and the verdict are drawn from the measured window only (warm-up and
// drain excluded). The probe spills its samples beyond the latest ten minutes (probe.Spill), and
// the load generator its interval histograms and timeline rows (loadgen.Options.SpillDir), into
// cfg.Probe.Spill.Dir, or the system's temporary directory when that is empty, so a long trial's
// memory stays flat; the trial reads them back until it is closed (results.Trial.Close). When ctx ends while the load runs, Run returns the partial trial (its record
// marked interrupted, its verdict invalid) with an error wrapping loadgen.ErrInterrupted; when it
// ends before the load started, no trial.
func Run(ctx context.Context, cfg Config) (*results.Trial, error) {
	opts := cfg.Load
	if opts.RunID == "" {
		opts.RunID = NewRunID()
	}
	if opts.TopicPrefix == "" {
		opts.TopicPrefix = "plimsoll-" + opts.RunID + "-"
	}
	version := cfg.KafkaVersion
	if version == "" {
		version = guessVersion(ctx, cfg.Target)
	}
	spillDir := cfg.Probe.Spill.Dir
	if spillDir == "" {
		spillDir = os.TempDir()
	}
	if opts.SpillDir == "" {
		opts.SpillDir = spillDir
	}
	var p *probe.Probe
	if !cfg.NoProbe {
		pc := cfg.Probe
		pc.Target, pc.TopicPrefix, pc.Spill.Dir = cfg.Target, opts.TopicPrefix, spillDir
		var err error
		if p, err = probe.Start(ctx, pc); err != nil {
			return nil, fmt.Errorf("starting the probe: %w", err)
		}
	}
	faults := startFaults(ctx, cfg, &opts)
	lr, err := loadgen.Run(ctx, cfg.Spec, cfg.Target, opts)
	windows := faults()
	var series *probe.Series
	if p != nil {
		series = p.Stop()
	}
	if err != nil {
		if lr != nil && errors.Is(err, loadgen.ErrInterrupted) {
			// What it measured before the interruption, marked interrupted and judged invalid.
			return judge(lr, series, cfg, version, windows), err
		}
		series.Close()
		if lr != nil {
			lr.Intervals.Close()
			lr.Timeline.Close()
		}
		return nil, err
	}
	t := judge(lr, series, cfg, version, windows)
	if err := errors.Join(series.Err(), lr.Intervals.Err(), lr.Timeline.Err()); err != nil { // figures drawn from part of the window
		t.Close()
		return nil, err
	}
	return t, nil
}

// judge turns the load generator's result and the probe's samples into the trial record.
func judge(lr *loadgen.Result, series *probe.Series, cfg Config, version string, faults []fault.Window) *results.Trial {
	nic := cfg.Probe.NICBytesPerSec
	for _, v := range cfg.Probe.NICByBroker {
		nic = max(nic, v)
	}
	t := &results.Trial{Result: *lr, KafkaVersion: version, Series: series, Cluster: results.Cluster{
		Bootstrap: cfg.Target.Bootstrap, Local: cfg.Target.Local, NICBytesPerSec: nic, MetricsURLs: len(cfg.Target.MetricsURLs),
	}}
	window := t.MeasuredWindow()
	if window != nil && window.Len() > 0 {
		u := use.Summarise(window)
		t.USE = &u
	}
	if len(faults) > 0 {
		fault.Measure(faults, &t.Result)
		t.Faults = faults
	}
	t.Verdict = verdict.Judge(verdict.Input{Run: &t.Result, Series: window, USE: t.USE, Faults: faults}, cfg.Criteria)
	processCPU(t, window)
	t.Traffic = t.BrokerTraffic()
	if o, ok := use.LinkOverhead(window); ok {
		t.LinkOverhead = &o
	}
	return t
}

// NewRunID returns a fresh run id: the UTC time to the second and 4 random hex digits, so ids
// sort by time and topic names say when they were made.
func NewRunID() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%02x%02x", time.Now().UTC().Format("20060102t150405"), b[0], b[1])
}

// guessVersion asks the cluster which API versions it supports and names the Kafka release
// that matches them ("at least 4.0" style when newer than franz-go knows).
func guessVersion(ctx context.Context, t target.Target) string {
	opts, err := t.ClientOpts()
	if err != nil {
		return "unknown"
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return "unknown"
	}
	defer cl.Close()
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	vs, err := kadm.NewClient(cl).ApiVersions(vctx)
	if err != nil {
		return "unknown"
	}
	for _, v := range vs {
		if v.Err == nil {
			return kversion.FromApiVersionsResponse(v.Raw()).VersionGuess()
		}
	}
	return "unknown"
}
