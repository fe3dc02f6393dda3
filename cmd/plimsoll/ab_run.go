package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/spf13/cobra"
)

// runAB runs the experiment: every check first, then the repetitions in interleaved order, each
// on a fresh cluster brought down afterwards, then the comparison of the two sides.
func runAB(cmd *cobra.Command, af *abFlags, mf *metricsFlags, args []string, o compare.Options, asJSON bool) error {
	if err := o.Check(); err != nil {
		return usageErr(err)
	}
	p, err := af.plan(args)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if _, err := os.Stat(filepath.Join(p.out, "manifest.json")); err == nil {
		return usageErrf("--out %s already holds an A/B experiment (manifest.json); pick another --out", p.out)
	}
	ctx, cancel := interruptible()
	defer cancel()
	if err := p.check(ctx, stderr); err != nil {
		return err
	}
	exp, stopMetrics, err := mf.open(stderr, nil)
	if err != nil {
		return err
	}
	defer stopMetrics()
	p.metrics = exp
	if err := os.MkdirAll(p.out, 0o755); err != nil {
		return err
	}
	m := &arms.Manifest{Command: commandLine(), Mode: p.mode, A: p.a, B: p.b, ASpec: p.a.String(), BSpec: p.b.String(),
		NoiseCheck: p.noiseCheck(), Remote: p.remote, Repeat: p.repeat, Order: arms.Order(p.repeat)}
	for i := range m.Order {
		st := &m.Order[i]
		fmt.Fprintf(stderr, "== %s (%d of %d): arm %s: %s\n", st.Dir, i+1, len(m.Order), strings.ToUpper(st.Arm), p.arm(st.Arm))
		err := p.runStep(ctx, st, stderr)
		if ctx.Err() != nil && st.Error == "" {
			st.Error = "interrupted (Ctrl-C or SIGTERM); its results, if any, cover part of the window"
		}
		if werr := m.Write(p.out); werr != nil {
			return abFullErr(p.out, errors.Join(err, werr))
		}
		if ctx.Err() != nil {
			return interruptedErr(ctx, fmt.Sprintf("interrupted in %s; the clusters are down, finished repetitions are in %s", st.Dir, p.out), "run the experiment again with another --out")
		}
		if err != nil {
			return abFullErr(p.out, prefixErr(st.Dir, err))
		}
	}
	return abFullErr(p.out, p.compare(cmd, m, o, asJSON))
}

// abFullErr says, when --out filled up, what of the experiment is kept.
func abFullErr(out string, err error) error {
	return fullErr(out, err, "the repetitions that finished are in "+out+", the one running was not kept; a cluster it started is down, its topics deleted",
		"run the experiment again with another --out")
}

// runStep runs one repetition: its cluster up (unless remote), the command, its cluster down.
func (p *abPlan) runStep(ctx context.Context, st *arms.Step, log io.Writer) (err error) {
	st.Started = time.Now().UTC()
	defer func() {
		st.Finished = time.Now().UTC()
		if err != nil {
			st.Exit, st.Error = exitOf(err), err.Error()
		}
	}()
	arm := p.arm(st.Arm)
	args := p.repArgs(arm, filepath.Join(p.out, st.Dir))
	hook := &abHook{metrics: p.metrics}
	if !p.remote {
		dir, err := filepath.Abs(filepath.Join(p.out, ".cluster-"+st.Dir))
		if err != nil {
			return err
		}
		c, err := p.up(ctx, arm, dir, hook, log)
		if err != nil {
			return err
		}
		defer down(dir, log)
		if err := warmArm(ctx, c, hook, p.warm, log); err != nil {
			return err
		}
		st.KafkaVersion, st.Java = c.KafkaVersion, c.JavaBin()
		st.JavaMajor, _ = localkafka.CheckJava(st.Java, st.KafkaVersion)
		args = append(args, "--cluster-dir", dir)
	}
	err = p.command(hook, args, log).Execute()
	var ce *cliError
	if errors.As(err, &ce) && (ce.code == ExitOverloaded || ce.code == ExitInvalid) {
		st.Exit = ce.code // the verdict is part of the results; the repetition counts
		return nil
	}
	return err
}

// warmArm lets the arm's brokers compile before they are measured, as plimsoll cluster up's
// do, through the listener the arm measures: warmed over PLAINTEXT, a secure arm's brokers
// compiled their TLS and SASL code inside the measured window (tls-cost's SASL_SSL arm spent
// 0.5-0.6 cores in its JIT compilers at 100 msgs/s, PLAINTEXT's 0.2), and that window ran the
// code still interpreted.
func warmArm(ctx context.Context, c *localkafka.State, hook *abHook, d time.Duration, log io.Writer) error {
	w := trial.LocalWhere(c)
	if hook.adjust != nil {
		if err := hook.adjust(w); err != nil {
			return err
		}
	}
	return trial.WarmLocal(ctx, w, d, log)
}

// up starts the arm's cluster in dir and, for a secure listener, points the hook at it.
func (p *abPlan) up(ctx context.Context, arm arms.Arm, dir string, hook *abHook, log io.Writer) (*localkafka.State, error) {
	pw := randomPassword()
	o := arm.ClusterOptions(dir, pw)
	o.Log = log
	if o.NIC > 0 {
		// Emulated NICs need a subnet of their own: another cluster may hold the default.
		var err error
		if o.Subnet, err = localkafka.FreeSubnet(); err != nil {
			return nil, clusterErr(err)
		}
	}
	c, err := localkafka.Up(ctx, o)
	if err != nil {
		return nil, clusterErr(err)
	}
	if name := arm.ListenerName(); name != "" {
		hook.adjust = secureListener(c, name, arm.SASL, pw)
	}
	return c, nil
}

// down brings a repetition's cluster down, whatever happened to the repetition.
func down(dir string, log io.Writer) {
	if _, err := localkafka.Down(dir, false, 30*time.Second); err != nil && !errors.Is(err, localkafka.ErrNoCluster) {
		fmt.Fprintf(log, "warning: bringing down the cluster in %s: %v (stop it with plimsoll cluster down --cluster-dir %s)\n", dir, err, dir)
	}
}

// secureListener makes the load go through the local cluster's listener name (SSL,
// SASL_PLAINTEXT or SASL_SSL) with the cluster's CA, the client certificate where SSL requires
// one, and the arm's SASL credentials (none when mech is empty). The probe
// keeps the cluster's metrics endpoints and broker processes.
func secureListener(c *localkafka.State, name, mech, password string) func(*trial.Where) error {
	return func(w *trial.Where) error {
		for _, l := range c.SecureListeners() {
			if l.Name != name {
				continue
			}
			w.Target.Bootstrap = strings.Split(l.Bootstrap, ",")
			if l.CAFile != "" {
				w.Target.TLS = &target.TLS{CAFile: l.CAFile, CertFile: l.ClientCert, KeyFile: l.ClientKey}
			}
			if mech != "" {
				w.Target.SASL = &target.SASL{Mechanism: strings.ToUpper(mech), User: l.SASLUser, Password: password}
			}
			return nil
		}
		return fmt.Errorf("the local cluster in %s has no %s listener", c.Dir, name)
	}
}

// exitOf is the exit code err would give.
func exitOf(err error) int {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	return ExitError
}

// compare compares the two sides' repetitions, prints and writes the comparison (compare.json)
// and records it in the manifest.
func (p *abPlan) compare(cmd *cobra.Command, m *arms.Manifest, o compare.Options, asJSON bool) error {
	var a, b, order []string
	for _, st := range m.Order {
		dir := filepath.Join(p.out, st.Dir)
		order = append(order, st.Dir)
		if st.Arm == "a" {
			a = append(a, dir)
		} else {
			b = append(b, dir)
		}
	}
	// Arms that differ on the client side, or in their clusters' sizes (the replication factor
	// and a search's brokers follow), run different workloads on purpose.
	o.Force = o.Force || p.a.MessageSize != p.b.MessageSize || p.a.Brokers != p.b.Brokers ||
		!arms.Same(clientSide(p.a), clientSide(p.b))
	c, err := loadAndCompare(a, b, o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.CompareJSON(&buf, c); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(p.out, "compare.json"), buf.Bytes()); err != nil {
		return err
	}
	m.Compare, m.Verdict = "compare.json", string(c.Verdict)
	if err := m.Write(p.out); err != nil {
		return err
	}
	page := writeABPage(p.out, cmd.ErrOrStderr())
	return p.print(cmd.OutOrStdout(), m, c, order, page, asJSON)
}

// writeABPage renders the finished experiment in dir as plimsoll report does and returns the
// page's path; "" when it could not, which is a warning: the results stand without it.
func writeABPage(dir string, log io.Writer) string {
	r, err := report.LoadAB(dir)
	if err == nil {
		err = report.WriteABDir(r)
	}
	if err != nil {
		fmt.Fprintf(log, "warning: the experiment's page: %v (plimsoll report %s tries again)\n", err, dir)
		return ""
	}
	return filepath.Join(dir, "index.html")
}

// clientSide is the part of an arm the clients see.
func clientSide(a arms.Arm) arms.Arm {
	return arms.Arm{Producer: a.Producer, Consumer: a.Consumer, MessageSize: a.MessageSize}
}

// loadAndCompare loads both sides and compares them; every failure is the experiment's own.
func loadAndCompare(a, b []string, o compare.Options) (*compare.Comparison, error) {
	sa, err := compare.Load(a)
	if err != nil {
		return nil, fmt.Errorf("arm A's results: %w", err)
	}
	sb, err := compare.Load(b)
	if err != nil {
		return nil, fmt.Errorf("arm B's results: %w", err)
	}
	return compare.Compare(sa, sb, o)
}

// print writes the experiment's header, the comparison and, for A/A, the noise floor, then the
// files written (page: the HTML page, if written); exit 5 when B is slower.
func (p *abPlan) print(w io.Writer, m *arms.Manifest, c *compare.Comparison, order []string, page string, asJSON bool) error {
	var err error
	if asJSON {
		err = report.CompareJSON(w, c)
	} else {
		report.ABHeader(w, report.ABExperiment{A: m.ASpec, B: m.BSpec, NoiseCheck: m.NoiseCheck, Remote: m.Remote,
			Mode: m.Mode, Order: order, Out: p.out})
		if err = report.Compare(w, c); err == nil && m.NoiseCheck {
			err = report.NoiseFloor(w, c)
		}
		fmt.Fprintf(w, "\nwrote %s and %s\n", filepath.Join(p.out, "manifest.json"), filepath.Join(p.out, "compare.json"))
		if page != "" {
			fmt.Fprintf(w, "the experiment's page: %s (open it in a browser)\n", page)
		}
	}
	if err != nil {
		return err
	}
	if c.Verdict == compare.Slower {
		return &cliError{code: ExitSlower, err: errors.New("side B is slower"), silent: true}
	}
	return nil
}
