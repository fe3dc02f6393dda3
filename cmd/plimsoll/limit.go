package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/live"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/model/input"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() { subcommands = append(subcommands, newLimitCmd) }

// limitFlags are the flags of `plimsoll limit` beyond the workload, target and criteria.
type limitFlags struct {
	sizes, out            string
	tolerance, minR, maxR float64
	startR                float64
	growth                float64
	trialDur, drain, hold time.Duration
	brokersDown           string
	resume, noReport      bool
	noHold                bool
	output                *outputMode
	ui                    string // --ui: the live page's address
	localWorkers          int    // --local-workers: each trial's load over this many children
	workers               int    // --workers: each trial's load over this many workers you start
	lean                  bool   // --lean-producer: trials produce through plimsoll's own path
}

func newLimitCmd() *cobra.Command { return newLimitCmdFor(nil) }

// limitLong is limit's help.
const limitLong = `limit searches the traffic space (messages/s x bytes/message) for the boundary where the
cluster overloads, the way Dropbox's platform did: for each message size it brackets the limit
from the model's prediction (or the previous size's answer), then bisects until the highest ok
rate and the lowest overloaded rate are within --tolerance. Each trial is a full run with the
probe and the verdict (see plimsoll run); client-bound trials are never taken as the cluster's
limit. Every trial is appended to DIR/results.jsonl as it finishes; --resume continues an
interrupted search. At the end it writes DIR/index.html (plimsoll report).`

// newLimitCmdFor is `plimsoll limit`, steered by the A/B driver when ab is not nil.
func newLimitCmdFor(ab *abHook) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "limit",
		Short: "Find the highest load the cluster sustains for each message size, and a safe load to plan for",
		Long:  limitLong,
		Example: `  plimsoll limit                                   # local cluster, 100/1000/10000-byte messages
  plimsoll limit --message-sizes 1000 --tolerance 0.1 --trial-duration 15s --out lim1
  plimsoll limit --bootstrap b1:9092 --consumer-groups 5 --brokers-down 1 --out prod-limit
  plimsoll limit --out lim1 --resume                 # after an interruption`,
		Args: cobra.NoArgs,
	}
	wf := addWorkloadFlags(cmd.Flags(), "rate", "message-size", "duration")
	tf := addTargetFlags(cmd.Flags())
	tf.ab = ab
	crit := addCriteriaFlags(cmd.Flags())
	mf := addMetricsFlags(cmd.Flags())
	lf := &limitFlags{}
	lf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return lf.run(cmd, wf, tf, crit, mf) }
	return cmd
}

// register adds limit's own flags to cmd.
func (lf *limitFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&lf.sizes, "message-sizes", "100,1000,10000", "message `SIZES` to search, comma-separated bytes as --message-size takes them, e.g. 100,1KiB,10000")
	f.Float64Var(&lf.tolerance, "tolerance", 0.05, "stop when the highest ok and lowest overloaded rates are within this share")
	f.DurationVar(&lf.trialDur, "trial-duration", 20*time.Second, "measured window of each trial (after --warmup)")
	f.DurationVar(&lf.drain, "drain-timeout", loadgen.DefaultDrainTimeout, "how long consumers may take to catch up after each trial's window")
	f.StringVar(&lf.brokersDown, "brokers-down", "0", "brokers the recommendation keeps headroom for, a count or a share of the cluster's, e.g. 1 or 20% (as in plimsoll model)")
	f.StringVar(&lf.out, "out", "plimsoll-limit", "directory for results.jsonl, each trial's files, and the report")
	f.BoolVar(&lf.resume, "resume", false, "continue the search in --out, reusing its finished trials")
	f.Float64Var(&lf.growth, "growth", 2, "factor between bracketing steps; smaller when the start (the model's prediction) is close")
	f.Float64Var(&lf.minR, "min-rate", 1, "lowest rate to try, msgs/s")
	f.Float64Var(&lf.maxR, "max-rate", 2e6, "highest rate to try, msgs/s (what the generator can drive)")
	f.Float64Var(&lf.startR, "start-rate", 0, "first rate to try for the first size, msgs/s, e.g. an earlier search's boundary (default: the model's prediction on a cluster with a known NIC rate, else 1 MB/s); the first step is then --tolerance")
	f.BoolVar(&lf.noReport, "no-report", false, "do not write index.html at the end")
	f.DurationVar(&lf.hold, "hold", 0, "measured window of the confirmation of each size's safe rate (default twice --trial-duration)")
	f.BoolVar(&lf.noHold, "no-hold", false, "report safe rates without holding them again for a confirmation")
	lf.output = addOutputFlags(cmd, "schema "+report.SearchSchema+": the settings, each size's boundary and the recommendation (README)")
	f.IntVar(&lf.localWorkers, "local-workers", 0, "spread each trial's load over N `plimsoll worker` child processes of this binary (their output in OUT/workers/RUN_ID; docs/workers.md)")
	f.IntVar(&lf.workers, "workers", 0, "spread each trial's load over N `plimsoll worker --search` processes you start once for the whole search (the search id and their command lines are printed on stderr; docs/workers.md)")
	f.BoolVar(&lf.lean, "lean-producer", false, "experimental: every trial produces through plimsoll's own produce path (docs/lean-producer.md) instead of franz-go's producer; no acks=0, not with workers; recorded in the search, so --resume keeps it")
	f.StringVar(&lf.ui, "ui", "", "serve a live page of the search at `ADDR` (PORT, :PORT or HOST:PORT; without a host, loopback), e.g. 8080; it becomes the report when the search ends")
}

// run is limit's command: every flag checked before any side effect, then the search.
func (lf *limitFlags) run(cmd *cobra.Command, wf *workloadFlags, tf *targetFlags, crit *verdict.Criteria, mf *metricsFlags) error {
	job, err := lf.job(cmd.Flags(), wf)
	if err != nil {
		return err
	}
	job.Base.Criteria = *crit
	if err := checkCriteria(crit); err != nil {
		return err
	}
	if err := checkOut(lf.out); err != nil {
		return err
	}
	if err := lf.checkWorkers(job.Base.Spec); err != nil {
		return err
	}
	if tf.checkOnly() {
		return nil
	}
	if err := job.CheckStore(); err != nil { // before a cluster is started or --out made
		return lf.searchErr(context.Background(), err, tf)
	}
	stderr := cmd.ErrOrStderr()
	exp, stopMetrics, err := mf.open(stderr, tf.ab)
	if err != nil {
		return err
	}
	defer stopMetrics()
	lf.progress(&job, stderr, exp)
	ui, err := lf.serve(&job, stderr) // before a cluster is started: a bad address is bad input
	if err != nil {
		return err
	}
	if ui != nil {
		defer ui.Close()
	}
	ctx, cancel := interruptible()
	defer cancel()
	if job.Where, err = tf.resolve(ctx, stderr); err != nil {
		return err
	}
	defer release(job.Where, stderr)
	sw := &searchWorkers{lf: lf, passwordEnv: tf.saslPassEnv, log: stderr}
	sw.wire(ctx, &job)
	sf, err := limit.Run(ctx, job)
	sw.close(err)
	if err != nil {
		return lf.fullErr(lf.searchErr(ctx, err, tf))
	}
	if ui != nil {
		if err := ui.Finish(sf); err != nil {
			fmt.Fprintf(stderr, "warning: the live page could not become the report: %v\n", err)
		}
	}
	return lf.fullErr(lf.report(cmd.OutOrStdout(), stderr, sf))
}

// fullErr says, when --out filled up, that the trials already stored are kept and how to go on.
func (lf *limitFlags) fullErr(err error) error {
	store := filepath.Join(lf.out, limit.StoreName)
	return fullErr(lf.out, err, "the trials that finished are in "+store+" (whole records only: a record the disk cut short is taken out); the running trial's topics were deleted",
		"continue the search with: plimsoll limit --out "+lf.out+" --resume (and the same settings)")
}

// job turns the flags into a limit job (without the cluster, resolved later) and checks every
// one of them, so that bad input stops the command before it starts a cluster or makes --out.
func (lf *limitFlags) job(fs *pflag.FlagSet, wf *workloadFlags) (limit.Job, error) {
	sz, err := parseSizes(lf.sizes)
	if err != nil {
		return limit.Job{}, err
	}
	if err := zeroFlags(fs, "tolerance", "growth", "min-rate", "max-rate", "start-rate"); err != nil {
		return limit.Job{}, err
	}
	if lf.trialDur <= 0 {
		return limit.Job{}, usageErrf("--trial-duration %v: give a positive duration, e.g. 20s", lf.trialDur)
	}
	if lf.drain < 0 {
		return limit.Job{}, usageErrf("--drain-timeout %v: give 0 or a positive duration, e.g. 30s", lf.drain)
	}
	down, downShare, err := input.ParseBrokersDown(lf.brokersDown)
	if err != nil {
		return limit.Job{}, usageErrf("--brokers-down: %v", err)
	}
	spec, err := wf.spec()
	if err != nil {
		return limit.Job{}, err
	}
	spec.Duration = lf.trialDur
	spec.Rate = 1 // set per trial; Validate wants a positive size and rate
	if err := limit.CheckSizes(spec, sz); err != nil {
		return limit.Job{}, usageErr(err)
	}
	if lf.hold < 0 {
		return limit.Job{}, usageErrf("--hold %v: give a positive duration, e.g. 40s, or --no-hold", lf.hold)
	}
	j := limit.Job{Out: lf.out, Resume: lf.resume, BrokersDown: down, BrokersDownShare: downShare, Command: commandLine(), Hold: lf.hold, NoHold: lf.noHold, StartRate: lf.startR,
		Search: limit.Options{Sizes: sz, Tolerance: lf.tolerance, Growth: lf.growth, MinRate: lf.minR, MaxRate: lf.maxR},
		Base:   trial.Config{Spec: spec}}
	j.Base.Load.DrainTimeout, j.Base.Load.LeanProducer = lf.drain, lf.lean
	if err := j.Check(); err != nil {
		return limit.Job{}, optionErr(err)
	}
	return j, nil
}

// limitOptionFlags names the flag behind each limit.Options field the command line sets.
var limitOptionFlags = map[string]string{"Sizes": "--message-sizes", "Tolerance": "--tolerance", "Growth": "--growth",
	"MinRate": "--min-rate", "MaxRate": "--max-rate", "Hold": "--hold", "StartRate": "--start-rate"}

// optionFlagNames rewrites the fields a limit option's message names as their flags.
var optionFlagNames = strings.NewReplacer("MinRate", "--min-rate", "MaxRate", "--max-rate", "Tolerance", "--tolerance", "Growth", "--growth")

// optionErr words a bad limit option as the flag that set it (exit 2).
func optionErr(err error) error {
	var oe *limit.OptionError
	if errors.As(err, &oe) {
		if flag, ok := limitOptionFlags[oe.Option]; ok {
			return usageErrf("%s: %s", flag, optionFlagNames.Replace(oe.Msg))
		}
	}
	return usageErr(err)
}

// zeroFlags refuses 0 for flags whose 0 a package would read as "the default": a user who
// writes --tolerance 0 means no tolerance, not 5%.
func zeroFlags(fs *pflag.FlagSet, names ...string) error {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil && f.Changed && f.Value.String() == "0" {
			return usageErrf("--%s 0: give a positive value, or leave the flag out for its default (%s)", name, f.DefValue)
		}
	}
	return nil
}

// progress prints a line per finished trial and, on a terminal, a live line per second, each
// with the time the search has left (limit.ETA); it feeds exp (nil: no endpoint) each trial's
// seconds, start and verdict.
func (lf *limitFlags) progress(j *limit.Job, stderr io.Writer, exp *promexport.Exporter) {
	tty := isTTY(stderr)
	var cur limit.Progress
	eta := &limit.ETA{}
	if tty {
		total := (j.Base.Spec.Warmup + j.Base.Spec.Duration).Seconds()
		j.Base.Load.Progress = func(s loadgen.Second) {
			left, _ := eta.Left(cur)
			fmt.Fprintf(stderr, "\r\033[K%s", report.TrialProgress(cur, s, total, left))
		}
	}
	j.Search.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, "warning: "+format+"\n", args...) }
	exp.Feed(&j.Base.Load)
	j.Search.Progress = func(p limit.Progress) {
		cur = p
		eta.Observe(p)
		switch {
		case !p.Done:
			exp.Trial(p.Trial, p.Size, p.Rate)
		case !p.Reused:
			exp.Done(p.Result)
		}
		if tty {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if p.Done {
			left, _ := eta.Left(p)
			fmt.Fprintln(stderr, report.SearchProgress(p, left))
		}
	}
}

// serve starts the live page of --ui, if asked for, following j; a bad or busy address is a
// usage error naming --ui.
func (lf *limitFlags) serve(j *limit.Job, stderr io.Writer) (*live.Server, error) {
	if lf.ui == "" {
		return nil, nil
	}
	s, err := live.Serve(lf.ui, j, stderr)
	if err != nil {
		return nil, usageErrf("--ui %v", err)
	}
	return s, nil
}

// searchErr words a failed search for the command line.
func (lf *limitFlags) searchErr(ctx context.Context, err error, tf *targetFlags) error {
	store := filepath.Join(lf.out, limit.StoreName)
	switch {
	case ctx.Err() != nil:
		return interruptedErr(ctx, fmt.Sprintf("%v; the trials that finished are in %s", err, store),
			"continue it with: plimsoll limit --out "+lf.out+" --resume (and the same settings); it runs the interrupted trial again")
	case errors.Is(err, limit.ErrStoreInUse):
		return usageErrf("%s already holds a search: continue it with --resume, or pick another --out", store)
	case errors.Is(err, limit.ErrNothingToResume):
		return usageErrf("--resume: %s does not exist; start the search without --resume", store)
	case errors.Is(err, limit.ErrBrokersDown):
		return usageErrf("--brokers-down %s: %v; keep at least one up", lf.brokersDown, err)
	case errors.Is(err, limit.ErrOptions):
		return optionErr(err)
	case errors.Is(err, limit.ErrResumeMismatch), errors.Is(err, workload.ErrInvalid):
		return usageErr(err)
	case errors.Is(err, target.ErrAuth), errors.Is(err, target.ErrCertificate), errors.Is(err, target.ErrUnreachable), errors.Is(err, target.ErrNotKafka):
		return tf.reachErr(err)
	case errors.Is(err, loadgen.ErrNotAuthorized):
		return tf.deniedErr(err, "plimsoll-")
	}
	return err
}

// report prints the search's report and writes index.html; with --json it writes the page
// first, so the document can name it.
func (lf *limitFlags) report(w, stderr io.Writer, sf *results.SearchFile) error {
	for _, warn := range sf.Warnings {
		fmt.Fprintf(stderr, "warning: %v\n", warn)
	}
	if !lf.output.json {
		if err := report.Text(w, sf); err != nil {
			return err
		}
	}
	page := ""
	if !lf.noReport {
		if err := report.WriteDir(lf.out, sf); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		page = filepath.Join(lf.out, "index.html")
	}
	if lf.output.json {
		return report.SearchJSON(w, sf, page)
	}
	if page != "" {
		fmt.Fprintf(w, "\nreport: %s\n", page)
	}
	return nil
}

// commandLine is how this search was started, without --resume and --ui, so a resumed search
// records (and compares) the same command whether or not either follows it.
func commandLine() string { return searchCommand(os.Args[1:]) }

// searchCommand is the command line of args without the flags that do not change a search:
// --resume, and --ui with its address.
func searchCommand(in []string) string {
	var args []string
	for i := 0; i < len(in); i++ {
		switch a := in[i]; {
		case a == "--resume" || a == "--resume=true" || strings.HasPrefix(a, "--ui="):
		case a == "--ui":
			i++ // and its address
		default:
			args = append(args, a)
		}
	}
	return "plimsoll " + strings.Join(args, " ")
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := workload.ParseSize(strings.TrimSpace(f))
		if err != nil || n < 24 {
			return nil, usageErrf("--message-sizes %q: give sizes in bytes, at least 24 each (the stamp), e.g. 100,1KiB,10000", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkWorkers refuses --workers or --local-workers below 0, the two together, or a workload
// that many workers cannot share.
func (lf *limitFlags) checkWorkers(spec workload.Spec) error {
	switch {
	case lf.workers < 0 || lf.localWorkers < 0:
		return usageErrf("--workers %d, --local-workers %d: give a number of workers, 1 or more", lf.workers, lf.localWorkers)
	case lf.workers > 0 && lf.localWorkers > 0:
		return usageErrf("--workers and --local-workers together: give one (--workers for workers you start, --local-workers for children of this plimsoll)")
	case lf.workers+lf.localWorkers == 0:
		return nil
	case lf.lean:
		return errLeanWithWorkers()
	}
	return checkWorkerSpec(spec, max(lf.workers, lf.localWorkers))
}
