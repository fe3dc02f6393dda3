package trial

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/target"
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
}

// Result is a trial's outcome: everything the load generator measured (inlined, so
// result.json has target_msgs_per_sec, counts, latency_ms, timeline, ... at its top level),
// the USE table of the measured window and the verdict.
type Result struct {
	*loadgen.Result
	KafkaVersion string          `json:"kafka_version"`
	Cluster      ClusterInfo     `json:"cluster"`
	USE          *probe.Table    `json:"use,omitempty"`
	Verdict      verdict.Verdict `json:"verdict"`
	// Series is every probe sample of the trial (warm-up included), written as probe.json.
	Series *probe.Series `json:"-"`
}

// ClusterInfo is what the trial knew of the cluster.
type ClusterInfo struct {
	Bootstrap      []string `json:"bootstrap"`
	Local          bool     `json:"local"`
	NICBytesPerSec float64  `json:"nic_bytes_per_sec,omitempty"`
	MetricsURLs    int      `json:"metrics_endpoints"`
}

// Run executes one trial. The probe runs for the whole trial; the USE table and the verdict use
// the measured window only (warm-up and drain excluded).
func Run(ctx context.Context, cfg Config) (*Result, error) {
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
	var p *probe.Probe
	if !cfg.NoProbe {
		pc := cfg.Probe
		pc.Target, pc.TopicPrefix = cfg.Target, opts.TopicPrefix
		var err error
		if p, err = probe.Start(ctx, pc); err != nil {
			return nil, fmt.Errorf("starting the probe: %w", err)
		}
	}
	lr, err := loadgen.Run(ctx, cfg.Spec, cfg.Target, opts)
	var series *probe.Series
	if p != nil {
		series = p.Stop()
	}
	if err != nil {
		return nil, err
	}
	nic := cfg.Probe.NICBytesPerSec
	for _, v := range cfg.Probe.NICByBroker {
		nic = max(nic, v)
	}
	res := &Result{Result: lr, KafkaVersion: version, Series: series, Cluster: ClusterInfo{
		Bootstrap: cfg.Target.Bootstrap, Local: cfg.Target.Local, NICBytesPerSec: nic, MetricsURLs: len(cfg.Target.MetricsURLs),
	}}
	window := res.MeasuredWindow()
	if window != nil && len(window.Samples) > 0 {
		t := window.USE()
		res.USE = &t
	}
	res.Verdict = verdict.Judge(verdict.Input{Run: lr, Series: window}, cfg.Criteria)
	return res, nil
}

// MeasuredWindow is the probe's samples over the load generator's measured window (warm-up and
// drain left out): what the verdict, the USE table and every per-broker figure are drawn from.
// Nil when nothing was probed.
func (r *Result) MeasuredWindow() *probe.Series {
	if r.Series == nil || r.Result == nil {
		return nil
	}
	from := r.Window.Start
	return r.Series.Window(from, from.Add(time.Duration(r.Window.MeasuredSeconds*float64(time.Second))))
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

// WriteDir writes the trial into dir: result.json (everything), timeline.csv (one row a
// second), histograms.hlog (HDR histogram log of publish, end-to-end and schedule delay) and
// probe.json (every probe sample).
func (r *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	write := func(name string, f func(*os.File) error) error {
		fh, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		return errors.Join(f(fh), fh.Close())
	}
	if err := write("timeline.csv", func(f *os.File) error { return r.WriteTimelineCSV(f) }); err != nil {
		return err
	}
	if err := write("histograms.hlog", func(f *os.File) error { return r.WriteHDRLog(f) }); err != nil {
		return err
	}
	if r.Series != nil {
		return write("probe.json", func(f *os.File) error {
			enc := json.NewEncoder(f)
			enc.SetIndent("", " ")
			return enc.Encode(r.Series)
		})
	}
	return nil
}

// LoadDir reads a trial written by WriteDir (result.json and, if present, probe.json).
func LoadDir(dir string) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, fmt.Errorf("%w (give a directory written by `plimsoll run --out`)", err)
	}
	r := &Result{Result: &loadgen.Result{}}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "result.json"), err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "probe.json")); err == nil {
		var s probe.Series
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "probe.json"), err)
		}
		r.Series = &s
	}
	return r, nil
}
