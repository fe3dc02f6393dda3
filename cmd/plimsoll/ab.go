package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/spf13/cobra"
)

// abFlags are compare's flags for the A/B driver (--a, --b and the ones that go with them).
type abFlags struct {
	a, b   string
	repeat int
	out    string
	warm   time.Duration
}

// active reports whether compare was asked to drive an experiment rather than read results.
func (af *abFlags) active(cmd *cobra.Command) bool {
	return cmd.Flags().Changed("a") || cmd.Flags().Changed("b")
}

// abPlan is an A/B experiment, checked: the arms, the command each repetition runs, where.
type abPlan struct {
	a, b   arms.Arm
	mode   string   // run or limit
	args   []string // the run or limit flags as given after --
	remote bool     // --bootstrap: the user's cluster, client-side arms only
	repeat int
	out    string
	warm   time.Duration // each fresh cluster's JIT warm-up
	// metrics is the experiment's Prometheus endpoint (--metrics-listen); nil when off.
	metrics *promexport.Exporter
}

// abOwned are the flags of run and limit the driver sets itself for each repetition.
var abOwned = map[string]string{"out": "each repetition writes to --out DIR/a-N or DIR/b-N of compare",
	"cluster-dir": "each repetition runs on a fresh cluster of its own", "json": "compare prints the comparison; --json on compare prints it as JSON",
	"resume":         "each repetition is a new search",
	"metrics-listen": "give --metrics-listen to compare: its endpoint serves every repetition", "metrics-linger": "give --metrics-linger to compare"}

// plan checks the flags, the arms and the command, and makes the experiment's plan.
func (af *abFlags) plan(args []string) (*abPlan, error) {
	if af.repeat < 1 {
		return nil, usageErrf("--repeat %d: give 1 or more repetitions per arm (4 or more for tests over repetitions)", af.repeat)
	}
	if af.warm < 0 {
		return nil, usageErrf("--warm-jit %s: give a duration, or 0 for none", af.warm)
	}
	if err := checkOut(af.out); err != nil {
		return nil, err
	}
	p := &abPlan{repeat: af.repeat, out: af.out, warm: af.warm}
	var err error
	if p.a, err = arms.Parse("--a", af.a); err != nil {
		return nil, usageErr(err)
	}
	if p.b, err = arms.Parse("--b", af.b); err != nil {
		return nil, usageErr(err)
	}
	if len(args) == 0 || (args[0] != "run" && args[0] != "limit") {
		return nil, usageErrf("give the command each arm runs after --, e.g. plimsoll compare --a kafka=3.9.1 --b kafka=4.1.0 -- run --rate 5000 (or -- limit ...)")
	}
	p.mode, p.args = args[0], args[1:]
	workers := ""
	for i, a := range p.args {
		name, value, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if why, ok := abOwned[name]; ok {
			return nil, usageErrf("%s %s: the A/B driver sets --%s itself (%s); leave it out", p.mode, a, name, why)
		}
		p.remote = p.remote || name == "bootstrap"
		if name == "workers" {
			if !eq && i+1 < len(p.args) {
				value = p.args[i+1]
			}
			workers = value
		}
	}
	if workers != "" && workers != "0" && !p.remote {
		return nil, usageErrf("%s --workers %s: each repetition runs on a local cluster the A/B driver starts for it, which workers you start cannot be given in advance; "+
			"spread the load over children of this plimsoll with --local-workers %s, or compare against your cluster with --bootstrap", p.mode, workers, workers)
	}
	if p.remote {
		if err := p.clientSideOnly(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// clientSideOnly refuses arms that change the cluster when the cluster is the user's.
func (p *abPlan) clientSideOnly() error {
	for _, s := range []struct {
		flag string
		arm  arms.Arm
	}{{"--a", p.a}, {"--b", p.b}} {
		if keys := s.arm.ServerSide(); len(keys) > 0 {
			return &cliError{code: ExitUsage, err: fmt.Errorf("%s %s: against a remote cluster (--bootstrap) only client-side arms are possible; its entries %s change the cluster, which plimsoll does not start",
				s.flag, s.arm, strings.Join(keys, ", ")), hint: "compare producer:, consumer: and message-size= arms against --bootstrap, or leave out --bootstrap to run each arm on a local cluster"}
		}
	}
	return nil
}

// noiseCheck reports whether the arms differ in nothing (an A/A run).
func (p *abPlan) noiseCheck() bool { return arms.Same(p.a, p.b) }

func (p *abPlan) arm(name string) arms.Arm {
	if name == "b" {
		return p.b
	}
	return p.a
}

// command is the run or limit command a repetition executes in-process.
func (p *abPlan) command(hook *abHook, args []string, out io.Writer) *cobra.Command {
	cmd := newRunCmdFor(hook)
	if p.mode == "limit" {
		cmd = newLimitCmdFor(hook)
	}
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	markArgErrorsAsUsage(cmd)
	noteFormerNames(cmd)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	return cmd
}

// repArgs are the flags of one repetition: the command's, the arm's client side, its --out.
func (p *abPlan) repArgs(arm arms.Arm, dir string) []string {
	args := append([]string{}, p.args...)
	args = append(args, arm.ClientArgs(p.mode == "limit")...)
	return append(args, "--out", dir)
}

// check validates, before any cluster starts, each arm's command line (flags, workload) and,
// for local clusters, each arm's values (Kafka resolvable by Maven, the JDK usable).
func (p *abPlan) check(ctx context.Context, log io.Writer) error {
	for _, s := range []struct{ flag, name string }{{"--a", "a"}, {"--b", "b"}} {
		arm := p.arm(s.name)
		cmd := p.command(&abHook{checkOnly: true}, p.repArgs(arm, filepath.Join(p.out, "check")), io.Discard)
		if err := cmd.Execute(); err != nil {
			return prefixErr(fmt.Sprintf("%s %s: the %s arguments", s.flag, arm, p.mode), err)
		}
		if p.remote || (s.name == "b" && p.noiseCheck()) {
			continue
		}
		fmt.Fprintf(log, "checking arm %s: %s (Kafka %s jars, java %s)\n", strings.ToUpper(s.name), arm, arm.KafkaVersion(), arm.Java())
		if err := arm.Check(ctx, s.flag); err != nil {
			var ae *arms.Error
			if errors.As(err, &ae) {
				return usageErr(err)
			}
			return err
		}
	}
	return nil
}

// prefixErr puts what an error is about in front of it, keeping its exit code and hint.
func prefixErr(what string, err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return &cliError{code: ce.code, err: fmt.Errorf("%s: %w", what, ce.err), hint: ce.hint}
	}
	return usageErr(fmt.Errorf("%s: %w", what, err))
}

// randomPassword is a SASL password for one arm's cluster (hex: the characters localkafka takes).
func randomPassword() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
