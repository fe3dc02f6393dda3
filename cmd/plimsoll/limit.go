package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() { subcommands = append(subcommands, newLimitCmd) }

func newLimitCmd() *cobra.Command {
	var (
		sizes, out            string
		tolerance, minR, maxR float64
		growth                float64
		trialDur, drain       time.Duration
		brokersDown           int
		resume, noReport      bool
	)
	cmd := &cobra.Command{
		Use:   "limit",
		Short: "Find the highest load the cluster sustains for each message size, and a safe load to plan for",
		Long: `limit searches the traffic space (messages/s x bytes/message) for the boundary where the
cluster overloads, the way Dropbox's platform did: for each message size it brackets the limit
from the model's prediction (or the previous size's answer), then bisects until the highest ok
rate and the lowest overloaded rate are within --tolerance. Each trial is a full run with the
probe and the verdict (see plimsoll run); client-bound trials are never taken as the cluster's
limit. Every trial is appended to DIR/results.jsonl as it finishes; --resume continues an
interrupted search. At the end it writes DIR/index.html (plimsoll report).`,
		Example: `  plimsoll limit                                   # local cluster, 100/1000/10000-byte messages
  plimsoll limit --message-sizes 1000 --tolerance 0.1 --trial-duration 15s --out lim1
  plimsoll limit --bootstrap b1:9092 --consumer-groups 5 --brokers-down 1 --out prod-limit
  plimsoll limit --out lim1 --resume                 # after an interruption`,
		Args: cobra.NoArgs,
	}
	wf := addWorkloadFlags(cmd.Flags(), "rate", "message-size", "duration")
	tf := addTargetFlags(cmd.Flags())
	crit := addCriteriaFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&sizes, "message-sizes", "100,1000,10000", "message sizes to search, bytes, comma-separated")
	f.Float64Var(&tolerance, "tolerance", 0.05, "stop when the highest ok and lowest overloaded rates are within this share")
	f.DurationVar(&trialDur, "trial-duration", 20*time.Second, "measured window of each trial (after --warmup)")
	f.DurationVar(&drain, "drain-timeout", loadgen.DefaultDrainTimeout, "how long consumers may take to catch up after each trial's window")
	f.IntVar(&brokersDown, "brokers-down", 0, "brokers the recommendation keeps headroom for")
	f.StringVar(&out, "out", "plimsoll-limit", "directory for results.jsonl, each trial's files, and the report")
	f.BoolVar(&resume, "resume", false, "continue the search in --out, reusing its finished trials")
	f.Float64Var(&growth, "growth", 2, "factor between bracketing steps; smaller when the start (the model's prediction) is close")
	f.Float64Var(&minR, "min-rate", 1, "lowest rate to try, msgs/s")
	f.Float64Var(&maxR, "max-rate", 2e6, "highest rate to try, msgs/s (what the generator can drive)")
	f.BoolVar(&noReport, "no-report", false, "do not write index.html at the end")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		sz, err := parseSizes(sizes)
		if err != nil {
			return err
		}
		if err := checkCriteria(crit); err != nil {
			return err
		}
		if trialDur <= 0 {
			return usageErrf("--trial-duration %v: give a positive duration, e.g. 20s", trialDur)
		}
		if brokersDown < 0 {
			return usageErrf("--brokers-down %d: give 0 or more", brokersDown)
		}
		spec, err := wf.spec()
		if err != nil {
			return err
		}
		spec.Duration = trialDur
		spec.Rate = 1 // set per trial; Validate wants a positive size and rate
		if err := spec.Validate(); err != nil {
			return usageErr(err)
		}
		store := filepath.Join(out, "results.jsonl")
		if _, err := os.Stat(store); err == nil && !resume {
			return usageErrf("%s already holds a search: continue it with --resume, or pick another --out", store)
		}
		if resume {
			if _, err := os.Stat(store); err != nil {
				return usageErrf("--resume: %s does not exist; start the search without --resume", store)
			}
		}
		stderr := cmd.ErrOrStderr()
		ctx, cancel := interruptible()
		defer cancel()
		tgt, err := tf.resolve(ctx, stderr)
		if err != nil {
			return err
		}
		defer tgt.release(stderr)
		brokers, err := countBrokers(ctx, tgt)
		if err != nil {
			return err
		}
		if brokersDown >= brokers {
			return usageErrf("--brokers-down %d: the cluster has %d brokers; keep at least one up", brokersDown, brokers)
		}
		if err := spec.CheckCluster(brokers); err != nil {
			return usageErr(err)
		}
		version := tgt.kafkaVersion()
		cfg := limit.SearchConfig{
			Command: commandLine(), Spec: spec, Criteria: *crit, KafkaVersion: version,
			Brokers: brokers, ReplicationFactor: spec.ReplicationFor(brokers), Partitions: spec.PartitionsFor(brokers),
			Local: tgt.target.Local, NICBytesPerSec: tgt.nic, BrokersDown: brokersDown, HostCores: runtime.NumCPU(),
		}
		rawCfg, _ := json.Marshal(cfg)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		searchKey := dirKey(out)
		cleanupTopics(ctx, tgt, "plimsoll-"+searchKey+"-", stderr) // left by an interrupted trial
		runner := &limit.Runner{
			Base: trial.Config{Spec: spec, Target: tgt.target, Criteria: *crit, KafkaVersion: version,
				Probe: tgt.probeConfig()},
			TrialsDir: filepath.Join(out, "trials"),
			SearchID:  fmt.Sprintf("%s-%s", searchKey, time.Now().UTC().Format("150405")),
		}
		runner.Base.Load.DrainTimeout = drain
		tty := isTTY(stderr)
		var cur limit.Progress
		if tty {
			total := (spec.Warmup + spec.Duration).Seconds()
			runner.Base.Load.Progress = func(s loadgen.Second) {
				fmt.Fprintf(stderr, "\r\033[Ktrial %d of ~%d, %d B at %s msgs/s: %s", cur.Trial, cur.About, cur.Size, limit.FormatRate(cur.Rate), trial.ProgressLine(s, total))
			}
		}
		opts := limit.Options{
			Sizes: sz, Tolerance: tolerance, Growth: growth, MinRate: minR, MaxRate: maxR, Store: store, Resume: resume, Config: rawCfg,
			Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "warning: "+format+"\n", args...) },
			Progress: func(p limit.Progress) {
				cur = p
				if tty {
					fmt.Fprint(stderr, "\r\033[K")
				}
				if p.Done {
					fmt.Fprintln(stderr, progressText(p))
				}
			},
		}
		if cfg.NICBytesPerSec > 0 {
			opts.Start = func(size int) float64 {
				r, _ := limit.Prediction(cfg, size)
				if r <= 0 {
					return limit.DefaultStartBPS / float64(size)
				}
				return r
			}
		}
		// The report is read back from the results file, which holds every size's boundary.
		_, err = limit.Search(ctx, runner, opts)
		if tty {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			if ctx.Err() != nil {
				return withHint(fmt.Errorf("search interrupted; finished trials are in %s", store), "continue it with: plimsoll limit --out "+out+" --resume (and the same settings)")
			}
			if errors.Is(err, limit.ErrOptions) || errors.Is(err, limit.ErrResumeMismatch) || errors.Is(err, limit.ErrStoreInUse) {
				return usageErr(err)
			}
			return err
		}
		data, err := reportFromStore(store)
		if err != nil {
			return err
		}
		if err := report.Text(cmd.OutOrStdout(), data); err != nil {
			return err
		}
		if !noReport {
			if err := report.WriteDir(out, data); err != nil {
				return fmt.Errorf("writing the report: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\nreport: %s\n", filepath.Join(out, "index.html"))
		}
		return nil
	}
	return cmd
}

// commandLine is how this search was started, without --resume, so a resumed search records
// (and compares) the same command.
func commandLine() string {
	var args []string
	for _, a := range os.Args[1:] {
		if a != "--resume" && a != "--resume=true" {
			args = append(args, a)
		}
	}
	return "plimsoll " + strings.Join(args, " ")
}

func progressText(p limit.Progress) string {
	o := p.Outcome
	state := string(o.State)
	if o.ClientBound {
		state = "invalid (client-bound)"
	}
	reused := ""
	if p.Reused {
		reused = " (from the earlier run)"
	}
	why := ""
	if len(o.Reasons) > 0 {
		why = ": " + o.Reasons[0]
	}
	return fmt.Sprintf("trial %d of ~%d  %6d B  %10s msgs/s  achieved %10s  %s%s%s   [ok %d, overloaded %d, invalid %d]",
		p.Trial, p.About, p.Size, limit.FormatRate(p.Rate), limit.FormatRate(o.Achieved), state, reused, why, p.OK, p.Overloaded, p.Invalid)
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 24 {
			return nil, usageErrf("--message-sizes %q: give sizes in bytes, at least 24 each (the stamp), e.g. 100,1000,10000", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// dirKey names a search by its output directory, so a resumed search finds the topics an
// interrupted trial left behind (they start with plimsoll-<key>-).
func dirKey(dir string) string {
	abs, _ := filepath.Abs(dir)
	h := fnv.New32a()
	h.Write([]byte(abs))
	return fmt.Sprintf("l%06x", h.Sum32()&0xffffff)
}

// countBrokers asks the cluster how many brokers it has.
func countBrokers(ctx context.Context, r *resolved) (int, error) {
	opts, err := r.target.ClientOpts()
	if err != nil {
		return 0, usageErr(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(mctx)
	if err != nil {
		return 0, fmt.Errorf("reading the cluster's brokers: %w", err)
	}
	return len(md.Brokers), nil
}

// cleanupTopics deletes topics under prefix (plimsoll's own, from an interrupted trial).
func cleanupTopics(ctx context.Context, r *resolved, prefix string, log io.Writer) {
	opts, err := r.target.ClientOpts()
	if err != nil {
		return
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	td, err := adm.ListTopics(tctx)
	if err != nil {
		return
	}
	var old []string
	for _, n := range td.Names() {
		if strings.HasPrefix(n, prefix) {
			old = append(old, n)
		}
	}
	if len(old) > 0 {
		fmt.Fprintf(log, "deleting %d topics left by an interrupted trial of this search (%s*)\n", len(old), prefix)
		adm.DeleteTopics(tctx, old...)
	}
}

// reportFromStore reads a search's results file into the report's data.
func reportFromStore(store string) (report.Data, error) {
	recs, warns, err := results.Load(store)
	if err != nil {
		return report.Data{}, err
	}
	for _, w := range warns {
		fmt.Fprintf(os.Stderr, "warning: %v\n", w)
	}
	return limit.ReportData(recs)
}
