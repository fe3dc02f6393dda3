package trial

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Workers spread a trial's load over N worker processes (docs/workers.md): this process
// coordinates, the workers (`plimsoll worker`) generate the load.
type Workers struct {
	N       int
	Version string // the coordinator's plimsoll version: each worker's must be the same
	// Limits bound the transport's waits; zero: fleet.DefaultLimits.
	Limits fleet.Limits
	// Lead is the time from the plan to the producers' start, for every worker to start, join
	// and set up its share; zero: the join limit and 10 s.
	Lead time.Duration
	// Spread says the workers are meant for separate machines (workers the user starts, not
	// local ones): two that joined from one machine make a note in the result.
	Spread bool
	// Opened is called once the run is open and its topics exist, before the joins: it prints
	// the workers' command lines or starts them. An error ends the trial, its topics deleted.
	Opened func(fleet.Plan) error
}

func (ws Workers) limits() fleet.Limits {
	if ws.Limits == (fleet.Limits{}) {
		return fleet.DefaultLimits
	}
	return ws.Limits
}

func (ws Workers) lead() time.Duration {
	if ws.Lead > 0 {
		return ws.Lead
	}
	return ws.limits().Join + 10*time.Second
}

// RunWorkers executes one trial whose load N workers generate: it opens the run (the plan,
// the control and results topics, the workload's topics, sized for the cluster), calls
// ws.Opened, waits for the joins, merges the workers' reports into one result (fleet.Assembly)
// and judges it with the probe's samples as Run does. A worker that went silent, died or left
// early (interrupted) makes the trial invalid (verdict criterion worker-lost), naming it. When
// ctx ends while the reports are merged, it returns, as Run does, the trial of the seconds
// merged so far (marked interrupted, its verdict invalid) with an error wrapping
// loadgen.ErrInterrupted. Whatever happens, it deletes the run's topics and groups, never a
// name outside the run's prefix.
func RunWorkers(ctx context.Context, cfg Config, ws Workers) (*results.Trial, error) {
	runID := cfg.Load.RunID
	if runID == "" {
		runID = NewRunID()
	}
	if cfg.Load.TopicPrefix != "" && cfg.Load.TopicPrefix != fleet.Prefix(runID) {
		return nil, fmt.Errorf("%w: a run with workers lives under its run's prefix %s; leave the topic prefix unset", fleet.ErrPlan, fleet.Prefix(runID))
	}
	base, err := cfg.Target.ClientOpts()
	if err != nil {
		return nil, err
	}
	spec, err := sized(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := fleet.CheckWorkers(spec, ws.N); err != nil { // after sizing: 0 partitions is the cluster's default
		return nil, err
	}
	plan := fleet.Plan{RunID: runID, Version: ws.Version, Workers: ws.N, Spec: spec, Start: time.Now().Add(ws.lead()), Silence: faultSilence(cfg)}
	cfg.Spec = spec
	co, err := fleet.Open(ctx, base, plan, fleet.WallClock, ws.limits())
	if err != nil {
		return nil, err
	}
	t, err := coordinate(ctx, cfg, ws, co, plan, base)
	cerr := cleanUp(co, plan, base)
	if t != nil && cerr != nil { // what was measured stands (err is nil, or its interruption); what is left is said
		t.Notes = append(t.Notes, fmt.Sprintf("cleaning up the run's topics and groups: %v", cerr))
		return t, err
	}
	return t, errors.Join(err, cerr)
}

// faultMargin is what a run with planned faults adds to its longest fault for the silence
// limit of its bus. The bus (the run's control and results topics) lives on the cluster under
// test: a broker killed, paused or cut off while it leads a bus topic stalls that topic until
// the controller fences it (broker.session.timeout.ms, 9 s by default), elects another leader
// and the clients find it; on a cluster too small to replicate the bus, until the fault ends.
const faultMargin = 20 * time.Second

// faultSilence is the silence limit of a run with workers and planned faults: the longest
// fault plus faultMargin, so that a fault stalling the bus is not taken for a worker, or the
// coordinator, gone; zero (the limits' own) without faults.
func faultSilence(cfg Config) time.Duration {
	if len(cfg.Faults) == 0 || cfg.FaultTarget == nil {
		return 0
	}
	longest := time.Duration(0)
	for _, f := range cfg.Faults {
		longest = max(longest, f.For)
	}
	return longest + faultMargin
}

// sized is the trial's spec with its partitions and replication resolved for the cluster, as a
// single-process run sizes its topics: every worker computes its share from them.
func sized(ctx context.Context, cfg Config) (workload.Spec, error) {
	spec := cfg.Spec
	brokers, err := cfg.Target.Brokers(ctx)
	if err != nil {
		return spec, err
	}
	if err := spec.CheckCluster(brokers); err != nil {
		return spec, err
	}
	spec.PartitionsPerTopic, spec.ReplicationFactor = spec.PartitionsFor(brokers), spec.ReplicationFor(brokers)
	return spec, nil
}

// coordinate creates the workload's topics, starts the probe and the workers, collects and
// judges. Interrupted while collecting, it returns the judged partial trial (marked interrupted,
// its verdict invalid) with the error wrapping loadgen.ErrInterrupted.
func coordinate(ctx context.Context, cfg Config, ws Workers, co *fleet.Coordinator, plan fleet.Plan, base []kgo.Opt) (*results.Trial, error) {
	if err := createTopics(ctx, plan, base); err != nil {
		return nil, err
	}
	version := cfg.KafkaVersion
	if version == "" {
		version = guessVersion(ctx, cfg.Target)
	}
	var p *probe.Probe
	if !cfg.NoProbe {
		pc := cfg.Probe
		pc.Target, pc.TopicPrefix = cfg.Target, fleet.Prefix(plan.RunID)
		var err error
		if p, err = probe.Start(ctx, pc); err != nil {
			return nil, fmt.Errorf("starting the probe: %w", err)
		}
	}
	var faults *faultRun
	if len(cfg.Faults) > 0 && cfg.FaultTarget != nil {
		faults = scheduleFaults(ctx, cfg, fleet.Prefix(plan.RunID), plan.Start.Add(plan.Spec.Warmup), plan.Start)
	}
	lr, err := collect(ctx, ws, co, plan, cfg.Target.Bootstrap)
	if lr != nil {
		lr.Notes = append(lr.Notes, fleet.HostNotes(co.Hosts(), ws.Spread, brokersHost(cfg))...)
	}
	var windows []fault.Window
	if faults != nil {
		if err == nil {
			faults.wait() // every fault ended, as a run in one process waits before its clean-up
		}
		windows = faults.stop()
	}
	var series *probe.Series
	if p != nil {
		series = p.Stop()
	}
	lost, interrupted := fleet.Lost(err), errors.Is(err, loadgen.ErrInterrupted)
	if err != nil && !lost && !interrupted {
		series.Close()
		return nil, err
	}
	t := judge(lr, series, cfg, version, windows)
	if lost {
		verdict.WorkerLost(&t.Verdict, err.Error())
	}
	if interrupted {
		return t, err
	}
	return t, nil
}

// collect starts the workers (ws.Opened), waits for their joins and merges their reports. A
// worker lost (fleet.Lost: silent, or left early) comes back as the error with the result of
// the seconds merged before it (fleet.Assembly.Unfinished: the measured seconds' figures, no
// final reports, so no ledgers): the trial is then invalid. When ctx ends while the reports are merged (the coordinator interrupted), the
// result of the seconds merged so far comes back marked interrupted, with an error wrapping
// loadgen.ErrInterrupted, as loadgen.Run returns an interrupted run's.
func collect(ctx context.Context, ws Workers, co *fleet.Coordinator, plan fleet.Plan, bootstrap []string) (*loadgen.Result, error) {
	if ws.Opened != nil {
		if err := ws.Opened(plan); err != nil {
			return nil, err
		}
	}
	if err := co.AwaitJoins(ctx); err != nil {
		return nil, err
	}
	asm := fleet.NewAssembly(plan)
	asm.SetHosts(co.Hosts())
	merged, err := co.Collect(ctx, asm.Add)
	switch {
	case err == nil:
		return asm.Result(merged, bootstrap), nil
	case ctx.Err() != nil: // first: the signal that interrupted this process may have ended a worker too
		res := asm.Unfinished(bootstrap)
		res.Interrupted = true
		return res, fmt.Errorf("%w: %w", loadgen.ErrInterrupted, context.Cause(ctx))
	case fleet.Lost(err):
		return asm.Unfinished(bootstrap), err
	}
	return nil, err
}

// brokersHost is the machine of the local brokers: this process's, when the cluster is the
// local one; nil otherwise.
func brokersHost(cfg Config) *fleet.Host {
	if !cfg.Target.Local {
		return nil
	}
	h := fleet.SelfHost()
	return &h
}

// createTopics creates the workload's topics once, as a single-process run would: the
// workers produce into them and create nothing.
func createTopics(ctx context.Context, plan fleet.Plan, base []kgo.Opt) error {
	cl, err := kgo.NewClient(base...)
	if err != nil {
		return err
	}
	defer cl.Close()
	spec := plan.Spec
	names := topics.TopicNames(fleet.Prefix(plan.RunID), spec.Topics)
	return topics.Create(ctx, kadm.NewClient(cl), names, int32(spec.PartitionsPerTopic), int16(spec.ReplicationFactor),
		loadgen.TopicConfigPtrs(loadgen.TopicConfigs(spec)))
}

// cleanUp ends the run (the workers stop) and deletes its control and results topics, then its
// workload's topics and groups: only names under the run's prefix.
func cleanUp(co *fleet.Coordinator, plan fleet.Plan, base []kgo.Opt) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := co.Close(ctx)
	cl, cerr := kgo.NewClient(base...)
	if cerr != nil {
		return errors.Join(err, cerr)
	}
	defer cl.Close()
	return errors.Join(err, deleteWorkload(ctx, kadm.NewClient(cl), plan, leaveWait))
}

// leaveWait is how long the coordinator waits for the workers' consumers to leave their groups
// once it has ended the run: each stops on the end record, or on the missing heartbeat; a
// killed worker's members stay until the group's session timeout (45 s by default) drops them.
const leaveWait = 50 * time.Second

// deleteWorkload deletes the workload's topics and groups, trying again while a group still
// has members (a worker stopping its consumers) until wait has passed.
func deleteWorkload(ctx context.Context, adm *kadm.Client, plan fleet.Plan, wait time.Duration) error {
	prefix := fleet.Prefix(plan.RunID)
	names := topics.TopicNames(prefix, plan.Spec.Topics)
	groups := topics.GroupNames(prefix, plan.Spec.ConsumerGroups)
	deadline := time.Now().Add(wait)
	for {
		err := topics.DeleteOwned(ctx, adm, prefix, names, groups)
		if !errors.Is(err, kerr.NonEmptyGroup) || !time.Now().Before(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
}
