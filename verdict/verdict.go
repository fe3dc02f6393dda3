package verdict

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/use"
	"gonum.org/v1/gonum/stat"
)

// State is a verdict's outcome.
type State string

// The outcomes of a verdict.
const (
	OK         State = "ok"         // the cluster kept up by every criterion
	Overloaded State = "overloaded" // at least one criterion failed because of the cluster
	Invalid    State = "invalid"    // the run cannot tell (client-bound, no data)
)

// Criterion names, used in Reason.Criterion and to switch criteria off.
const (
	CritClientBound = "client-bound"
	CritShortfall   = "shortfall"
	CritLag         = "lag"
	CritReplication = "replication"
	CritLatency     = "latency"
	CritHandlerIdle = "handler-idle"
	CritISR         = "isr"
	CritErrors      = "produce-errors"
	CritNoData      = "no-data"
	CritHostCPU     = "host-cpu"
	CritHostNoise   = "host-noise"
	CritInterrupted = "interrupted"
	CritSilent      = "silent-broker" // a broker answered nothing at the run's start, or for SilentSeconds in it
	CritWorkerLost  = "worker-lost"   // a generator worker of a run with workers went silent or died
	// A run with planned faults (package fault) is judged by these two instead of the
	// throughput, latency, ISR and produce-error criteria.
	CritFaultLoss     = "fault-loss"     // acknowledged messages lost, or written twice with idempotence
	CritFaultRecovery = "fault-recovery" // the ISR not full again soon enough after a fault
)

// Criteria are the thresholds a run is judged by. A zero threshold switches its criterion off;
// DefaultCriteria gives the documented defaults.
type Criteria struct {
	// MinAchieved: produced msgs/s below this share of the target is a shortfall (0.97).
	MinAchieved float64 `json:"min_achieved"`
	// MaxLagGrowth: consumer backlog growing faster than this share of the target rate, per
	// second, over the measured window (least-squares slope) means consumers fall behind (0.02).
	MaxLagGrowth float64 `json:"max_lag_growth"`
	// MinReplicated: the followers fetching less than this share of what the leaders appended
	// over the window means replication falls behind (0.97): summed over brokers, replication
	// bytes in / ((replication factor - 1) x produce bytes in). With acks=1 a producer can take
	// more than its share of a broker's inbound link while the followers fall behind; the ISR
	// shrinks only replica.lag.time.max.ms (30 s) later, so this catches it within a trial.
	MinReplicated float64 `json:"min_replicated"`
	// PublishP99SLOMs: p99 publish latency above this many ms is overloaded (1000).
	PublishP99SLOMs float64 `json:"publish_p99_slo_ms"`
	// MinHandlerIdle: a broker whose request handlers are idle less than this share on
	// average is overloaded (0.20, Dropbox's rule).
	MinHandlerIdle float64 `json:"min_handler_idle"`
	// MaxISRShare: ISR shrinks or expands, or under-replicated partitions, in more than this
	// share of the window's seconds is overloaded (0.5, Dropbox's rule).
	MaxISRShare float64 `json:"max_isr_share"`
	// ProduceErrors: any failed produce is overloaded (true).
	ProduceErrors bool `json:"produce_errors"`
	// ClientMaxCPU: plimsoll using more than this share of the cores it may use
	// (min(GOMAXPROCS, cores)) is client-bound (0.9); so is plimsoll short of its target that
	// wanted this share (the CPU its threads got plus their run-queue wait) and, at the CPU it
	// spent per message, needed this share for the target rate.
	ClientMaxCPU float64 `json:"client_max_cpu"`
	// ScheduleP99Ms: the generator is behind its schedule when its p99 schedule delay exceeds
	// this many ms or messages went unsent (50). Below it, delays are the operating system's
	// scheduling jitter, not a generator that cannot keep up.
	ScheduleP99Ms float64 `json:"schedule_p99_ms"`
	// ClientMaxLateMs: a p99 schedule delay above this many ms, or any message left unsent, is
	// a generator that cannot keep up whatever its threads' run-queue wait says: a single busy
	// producer goroutine on a host of many cores never waits for a CPU (500).
	ClientMaxLateMs float64 `json:"client_max_late_ms"`
	// ClientStarvedWait and ClientMinWaitS: behind its schedule by less than ClientMaxLateMs,
	// the generator lacked CPU only if its threads waited in the run queue at least
	// ClientStarvedWait seconds per second of CPU they got (0.5) and at least ClientMinWaitS
	// seconds per second (0.01); below either, the lateness is timer jitter.
	ClientStarvedWait float64 `json:"client_starved_wait"`
	ClientMinWaitS    float64 `json:"client_min_wait_s"`
	// ClientSchedP99Ms: plimsoll's goroutines waiting longer than this for one of its Go
	// scheduler threads (p99 over the window's merged histogram, ms) is client-bound (25).
	ClientSchedP99Ms float64 `json:"client_sched_p99_ms"`
	// MaxBufferFullShare: producers that waited for buffer space more than this share of the
	// window were held back by the cluster's acknowledgements, not short of CPU (0.01).
	MaxBufferFullShare float64 `json:"max_buffer_full_share"`
	// HostBusy: a co-located host whose CPU was busier than this share (0.9) is saturated: by
	// the brokers (host-cpu, overloaded) or, when the brokers and plimsoll used less than
	// HostOursShare of its busy cores (0.5), by other processes (host-noise, invalid).
	HostBusy      float64 `json:"host_busy"`
	HostOursShare float64 `json:"host_ours_share"`
	// HostSqueezeShare: a co-located generator behind its schedule whose threads were starved
	// (ClientStarvedWait, ClientMinWaitS) while it used at most this share of the CPU it and the
	// brokers used together (0.25) fell behind because the brokers held the CPU when it needed
	// one, in bursts a mean busy share below HostBusy hides: host-cpu (overloaded), not
	// client-bound. Measured: a message-overhead trial near the NICs' limit (100 B at 17,220
	// msgs/s, 3 brokers, 2 cores), the host 73% busy on average, the brokers using 1.29 cores and
	// plimsoll 0.14 (a share of 0.10) whose threads waited 0.29 s per second for a CPU; the
	// partitions-throughput trials whose brokers saturated the host gave plimsoll 0.14-0.22.
	// 0 = off: only a host busier than HostBusy squeezes the generator.
	HostSqueezeShare float64 `json:"host_squeeze_share"`
	// MinBottleneckUtil: a resource below this share of its capacity (0.5) is never named the
	// bottleneck; without one near its limit the bottleneck is unknown, and the verdict says
	// what would show it.
	MinBottleneckUtil float64 `json:"min_bottleneck_utilisation"`
	// LinkDropsPerSec and LinkRetransPerSec: an emulated link whose shaper dropped at least
	// LinkDropsPerSec packets/s (1), or out of whose broker's namespace TCP retransmitted at
	// least LinkRetransPerSec segments/s (5), on average over the window, lost data. They judge
	// nothing alone: in an overloaded trial such a link is the bottleneck, named with how it lost
	// data, unless the failing criteria name another broker. Retransmits have the higher threshold
	// because namespaces retransmit a little at any load (1.3-3.6 segments/s at half the link's
	// rate, where the shapers dropped nothing).
	LinkDropsPerSec   float64 `json:"link_drops_per_sec"`
	LinkRetransPerSec float64 `json:"link_retrans_per_sec"`
	// ClientWindowShare: a run that fell short of its target or latency objective while one
	// producer's connection to one broker had its produce-request window full (every request it
	// may have in flight) at least this share of the window (0.9), with no broker resource at
	// MinBottleneckUtil, is client-bound: the producers could not ask faster. Measured on
	// loopback, 3 brokers, acks=all, idempotent (window 1): 0.14-0.23 at loads the cluster kept
	// up with (300 and 3,000 msgs/s of 1 KB, 10,000 of 100 B), 0.93-0.99 with batch.size 1100
	// and linger 0 at 5,000 msgs/s of 1 KB (1,243 msgs/s produced; 4 producers: 3,015), and
	// 1.0 on brokers slow to acknowledge (replica.fetch.min.bytes 1 MB, wait 400 ms: 120 of
	// 1,000 msgs/s of 1 KB on 3 partitions; 8 producers: 933).
	ClientWindowShare float64 `json:"client_window_share"`
	// ClientFullBatchShare: ... and at least this share of the producers' batches had no room
	// for another record (0.8): records were waiting for the window, not for linger. Measured:
	// 0-0.43 at loads the cluster kept up with (the sticky partitioner fills batches at high
	// rates), 0.15 on the slow brokers at 50 msgs/s (window full, latency the brokers'),
	// 0.93-1.0 where the window set the rate.
	ClientFullBatchShare float64 `json:"client_full_batch_share"`
	// MaxRecoverySeconds: in a run with planned faults, a fault after whose end the run's
	// partitions took longer than this to have their full ISR again fails the run
	// (fault-recovery, 60; 0 = off: only never recovering within the run fails it).
	MaxRecoverySeconds float64 `json:"fault_max_recovery_s"`
	// SilentSeconds: a broker whose metrics scrapes went unanswered for at least this many
	// seconds in a row in the window (paused, hung or cut off mid-run) is a silent-broker reason
	// naming it: the run is invalid (it measured a cluster missing a broker) unless the cluster's
	// own criteria failed, when it is one more reason of an overloaded verdict (5; 0 = off).
	// Measured: across the 113 probe.json files of runs, trials and scenarios on the development
	// machine, overloaded NIC-bound trials among them, no broker missed more than 2 scrapes in
	// a row; a paused broker misses every one.
	SilentSeconds float64 `json:"silent_broker_s"`
}

// DefaultCriteria are the documented defaults (README, "Verdict criteria").
func DefaultCriteria() Criteria {
	return Criteria{
		MinAchieved: 0.97, MaxLagGrowth: 0.02, MinReplicated: 0.97, PublishP99SLOMs: 1000, MinHandlerIdle: 0.20,
		MaxISRShare: 0.5, ProduceErrors: true, ClientMaxCPU: 0.9, ScheduleP99Ms: 50,
		ClientMaxLateMs: 500, ClientStarvedWait: 0.5, ClientMinWaitS: 0.01, ClientSchedP99Ms: 25,
		MaxBufferFullShare: 0.01, HostBusy: 0.9, HostOursShare: 0.5, HostSqueezeShare: 0.25,
		MinBottleneckUtil: 0.5,
		LinkDropsPerSec:   1, LinkRetransPerSec: 5, ClientWindowShare: 0.9,
		ClientFullBatchShare: 0.8, MaxRecoverySeconds: 60, SilentSeconds: 5,
	}
}

// Reason is one failed criterion with its evidence.
type Reason struct {
	Criterion string `json:"criterion"`
	Text      string `json:"text"`
	// Broker is the broker the reason is about, 0 when it is about the cluster or the client.
	Broker int32 `json:"broker,omitempty"`
}

// Verdict is the judgement of one run. A run has two limits to respect: the throughput the
// cluster sustains (every criterion but the latency SLO) and the latency objective on top of it.
// State is the judgement by every criterion; Ceiling the judgement without the latency SLO, so
// a run that kept up but missed its SLO is ok for the throughput ceiling and overloaded for the
// SLO. Both are invalid together.
type Verdict struct {
	State   State    `json:"state"`
	Ceiling State    `json:"ceiling"`
	Reasons []Reason `json:"reasons"`
	// Bottleneck names the busiest resource with its evidence, e.g. "broker 2 network in: 97%
	// of its NIC"; empty when nothing stood out.
	Bottleneck string `json:"bottleneck"`
	// Evidence lists the busiest resources, busiest first.
	Evidence []string `json:"evidence,omitempty"`
	// Skipped lists criteria that could not be checked, and why.
	Skipped  []string `json:"skipped,omitempty"`
	Criteria Criteria `json:"criteria"`
}

// Input is what a verdict is drawn from. Series should be the measured window only
// (probe.Series.Window), and USE its table (use.Summarise), from which the evidence is drawn;
// both may be nil when nothing was probed.
type Input struct {
	Run    *loadgen.Result
	Series *probe.Series
	USE    *use.Table
	// Faults are the run's planned faults as they happened; a run with any is judged on loss,
	// duplicates and recovery (fault-loss, fault-recovery), not on throughput and latency.
	Faults []fault.Window
}

// Judge applies the criteria to a run.
func Judge(in Input, c Criteria) Verdict {
	v := Verdict{Criteria: c, Reasons: []Reason{}}
	if in.Run == nil {
		v.State, v.Ceiling = Invalid, Invalid
		v.Reasons = append(v.Reasons, Reason{Criterion: CritNoData, Text: "no load-generator result"})
		return v
	}
	if in.Series == nil || in.Series.Len() == 0 {
		v.Skipped = append(v.Skipped, "broker and host criteria: no probe samples in the window")
	}
	v.Evidence, v.Bottleneck = evidence(in.USE, c)

	if len(in.Faults) > 0 {
		judgeFaults(in, c, &v)
		if markInterrupted(in.Run, &v) {
			v.Ceiling = Invalid
		}
		return v
	}
	if r := silentReason(in.Run); r != nil {
		v.State, v.Ceiling = Invalid, Invalid
		v.Reasons = append(v.Reasons, *r)
		v.Bottleneck = r.Text
		markInterrupted(in.Run, &v)
		return v
	}
	silent := windowSilentReason(in.Series, c)
	if noisy(in, c, silent, &v) {
		return v
	}
	judgeLoad(in, c, &v)
	addSilence(&v, silent)
	markInterrupted(in.Run, &v)
	v.Ceiling = ceilingState(v)
	return v
}

// noisy makes v invalid when other processes took the host (hostNoise), naming a broker silent
// in the window instead when there is one: the host looked busy with other work because a
// broker did none. It reports whether it did.
func noisy(in Input, c Criteria, silent *Reason, v *Verdict) bool {
	noise := hostNoise(in, c)
	if noise == nil {
		return false
	}
	v.State, v.Ceiling = Invalid, Invalid
	v.Bottleneck = "other processes on the host"
	if silent != nil {
		noise, v.Bottleneck = silent, silent.Text
	}
	v.Reasons = append(v.Reasons, *noise)
	return true
}

// judgeLoad sets v's state, reasons and bottleneck from the load generator's criteria and the
// cluster's: invalid when the client bound the run, overloaded when the cluster's criteria
// failed, ok otherwise.
func judgeLoad(in Input, c Criteria, v *Verdict) {
	client, host := clientBound(in, c, v)
	cluster := clusterReasons(in, c, v)
	if host != nil {
		cluster = append([]Reason{*host}, cluster...)
	}
	switch {
	case len(client) > 0:
		v.State = Invalid
		v.Reasons = append(client, cluster...)
		v.Bottleneck = "plimsoll (the load generator): " + client[0].Text
	case len(cluster) > 0:
		v.State = Overloaded
		v.Reasons = cluster
		v.Bottleneck = overloadBottleneck(*v, in.USE, c)
	default:
		v.State = OK
	}
}

// silentReason: a broker that answered nothing when the run's topics were settling (paused,
// hung) leaves a run that measured a cluster missing it, not the cluster's capacity.
func silentReason(r *loadgen.Result) *Reason {
	ids := r.Window.SilentBrokers
	if len(ids) == 0 {
		return nil
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = fmt.Sprint(id)
	}
	return &Reason{Criterion: CritSilent, Text: fmt.Sprintf("broker %s answered nothing when the run started (paused, hung or overloaded) while the cluster still listed it: the run measured a cluster missing it; bring it back and run again",
		strings.Join(names, ", "))}
}

// markInterrupted makes the verdict of an interrupted run invalid, its first reason saying how
// much of the window it measured, and says whether it did.
func markInterrupted(r *loadgen.Result, v *Verdict) bool {
	if !r.Interrupted {
		return false
	}
	v.State = Invalid
	v.Reasons = append([]Reason{{Criterion: CritInterrupted, Text: interruptedText(r)}}, v.Reasons...)
	return true
}

// interruptedText says how much of its window an interrupted run measured.
func interruptedText(r *loadgen.Result) string {
	return fmt.Sprintf("the run was interrupted after %s s of its %s s window; its figures cover only that part",
		units.Short(r.Window.MeasuredSeconds), units.Short(r.Config.Spec.Duration.Seconds()))
}

// overloadBottleneck is an overloaded trial's bottleneck: when the failing criteria point at a
// broker, that broker's busiest resource near its capacity (MinBottleneckUtil, its heap aside),
// or, when none is, the busiest resource anywhere with a word that the broker's own were far
// from theirs; and a link that lost data named with how it did. A resource far from its limit
// is never named for being the pointed-at broker's: on a saturated host the criteria's broker
// once gave "broker 1 memory: 38%".
func overloadBottleneck(v Verdict, t *use.Table, c Criteria) string {
	bn := v.Bottleneck
	b := brokerOfReasons(v.Reasons)
	if b != "" && !strings.HasPrefix(bn, b+" ") {
		if busy, ok := nearCapacity(t, b, c); ok {
			bn = evidenceLine(busy)
		} else if t != nil {
			bn = strings.TrimPrefix(bn+"; ", "; ") + fmt.Sprintf(
				"%s, which the failing criteria name, had no resource at %.0f%% of its capacity (its heap aside)", b, 100*c.MinBottleneckUtil)
		}
	}
	return linkBottleneck(bn, lossyLinks(t, c), b)
}

// ceilingState is the verdict without the latency SLO: overloaded only for a reason other than
// latency.
func ceilingState(v Verdict) State {
	if v.State != Overloaded {
		return v.State
	}
	for _, r := range v.Reasons {
		if r.Criterion != CritLatency {
			return Overloaded
		}
	}
	return OK
}

// hostNoise reports a co-located run whose host was busy mostly with other work than the
// brokers and plimsoll: then neither the cluster nor the generator can be judged.
func hostNoise(in Input, c Criteria) *Reason {
	if in.Series == nil || !in.Series.Local {
		return nil
	}
	busy, cores, ours := hostCPU(in)
	if cores == 0 || c.HostBusy <= 0 || busy < c.HostBusy {
		return nil
	}
	if busyCores := busy * cores; ours < c.HostOursShare*busyCores {
		return &Reason{Criterion: CritHostNoise, Text: fmt.Sprintf(
			"the host's CPU was %.0f%% busy but the brokers and plimsoll used only %.2f of its %.2f busy cores: other processes competed for the CPU; run again on a quiet host",
			100*busy, ours, busyCores)}
	}
	return nil
}

// hostCPU returns the host's mean busy share, its cores, and the cores the brokers' JVMs and
// plimsoll (in a run with workers, the workers: generatorCores) used together, over the window.
func hostCPU(in Input) (busy, cores, ours float64) {
	busy, n := meanOf(in.Series, func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		return x.Host.CPU.Busy
	})
	if n == 0 {
		return 0, 0, 0
	}
	brokers, _ := brokerCPU(in.Series)
	cores = float64(in.Series.Cores)
	if cores == 0 {
		cores = float64(in.Run.Config.NumCPU)
	}
	return busy, cores, brokers + generatorCores(in.Run)
}

// brokerCPU is the local brokers' JVMs' CPU over the window, cores: the sum of each broker's
// mean (use.CPU: a missing reading is left out, not counted as 0), and how many brokers had one.
func brokerCPU(s *probe.Series) (float64, int) {
	return use.BrokersCPU(use.CPU(s))
}

// clientBound returns reasons when plimsoll itself limited the run: it used nearly all the cores
// it may use, its goroutines queued for its Go scheduler threads, or it fell behind its schedule
// while its buffers had room (not held back by the cluster) and either fell far behind (unsent
// messages, a p99 lateness beyond ClientMaxLateMs) or its threads were short of CPU. On a host
// it shares with the brokers, falling behind because the brokers took the CPU makes the host
// the limit (host, host-cpu), not the client.
//
// In a run with workers (loadgen.Result.Workers) the generator is the workers: the CPU,
// run-queue and Go scheduler criteria read their own reports, the busiest worker standing for
// the client and named (the probe's scheduler latency is the coordinator's, which generates no
// load).
func clientBound(in Input, c Criteria, v *Verdict) (client []Reason, host *Reason) {
	r := in.Run
	used := generatorCores(r)
	if reason := cpuBound(in, c, used); reason != nil {
		client = append(client, *reason)
	}
	if reason := schedOf(in, c, v); reason != nil {
		client = append(client, *reason)
	}
	if reason := windowBound(in, c); reason != nil {
		client = append(client, *reason)
	}
	behind, far := lateness(r, c)
	if behind == "" {
		return client, nil
	}
	if !far {
		if rq, ok := generatorRunQueue(in, c); ok && !starvedBy(rq.wait, rq.cpu, c) {
			// Without the wait, no CPU shortage explains a small lateness: judge the cluster.
			// Publish latency, measured from the intended time, still includes it.
			v.Skipped = append(v.Skipped, fmt.Sprintf(
				"%s: %s, but %s waited only %.3f s per second for a CPU while using %.2f cores: timer jitter, not a CPU shortage",
				CritClientBound, behind, rq.whose, rq.wait, rq.cpu))
			return client, nil
		}
	}
	if h := hostSqueezed(in, c, behind, used); h != nil {
		return client, h
	}
	text := behind + ": it could not keep up, not the cluster"
	if len(r.Workers) > 0 {
		text += workersNamed(r, c)
	}
	return append(client, Reason{Criterion: CritClientBound, Text: text}), nil
}

// schedOf is schedBound's reason; in a run with workers the slowest worker's (workersSchedBound),
// the criterion skipped, said so, when no worker reported its latency (a plimsoll from before it).
func schedOf(in Input, c Criteria, v *Verdict) *Reason {
	if len(in.Run.Workers) == 0 {
		return schedBound(in, c)
	}
	if c.ClientSchedP99Ms <= 0 {
		return nil
	}
	reason, measured := workersSchedBound(in.Run.Workers, c)
	if !measured {
		v.Skipped = append(v.Skipped, CritClientBound+": the Go scheduler's latency: no worker reported its own, and the probe's is the coordinator's, which generates no load")
	}
	return reason
}

// cpuBound is the client-bound reason of a generator that used nearly all the cores it may use
// (ClientMaxCPU), or that wanted them and could not have kept the target with them (cpuWanted);
// in a run with workers, the busiest worker of its own cores (workersCPUBound).
func cpuBound(in Input, c Criteria, used float64) *Reason {
	r := in.Run
	if len(r.Workers) > 0 {
		return workersCPUBound(r.Workers, c)
	}
	usable := float64(r.Config.NumCPU)
	if g := r.Config.GOMAXPROCS; g > 0 && float64(g) < usable {
		usable = float64(g)
	}
	if c.ClientMaxCPU <= 0 || usable <= 0 {
		return nil
	}
	if used >= c.ClientMaxCPU*usable {
		return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
			"plimsoll used %.2f of the %s it may use (GOMAXPROCS %d): give it more cores or producers, or run it on another host", used, units.Plural(int(usable), "core"), r.Config.GOMAXPROCS)}
	}
	return cpuWanted(in, c, used, usable)
}

// cpuWanted is the client-bound reason of a generator short of its target that wanted at least
// ClientMaxCPU of the cores it may use (the CPU its threads got plus the time they waited in
// the run queue for one) and, at the CPU it spent per message, needed at least that much for
// the target rate: it ran at its own ceiling, and that ceiling is below the target. A host that
// gives plimsoll a little less than a whole core keeps its used CPU under ClientMaxCPU while it
// is no less the limit: one scheduler thread compressing with gzip at level 9 used 0.84 cores,
// its threads waiting 0.22 s per second, and produced 74% of 100,000 msgs/s of 1 KB (needing
// 1.14 cores). Both halves are needed: a stalled cluster's shortfall scales a small CPU up to a
// large need while the generator idles, and brokers holding the CPU make a generator wait
// without its CPU coming near the target's need.
func cpuWanted(in Input, c Criteria, used, usable float64) *Reason {
	r := in.Run
	if r.ProducedMsgsPerSec <= 0 || r.ProducedMsgsPerSec >= r.TargetMsgsPerSec {
		return nil
	}
	rq, ok := generatorRunQueue(in, c)
	need := used * r.TargetMsgsPerSec / r.ProducedMsgsPerSec
	limit := c.ClientMaxCPU * usable
	if !ok || rq.cpu+rq.wait < limit || need < limit {
		return nil
	}
	return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
		"plimsoll wanted %.2f of the %s it may use (GOMAXPROCS %d; it used %.2f, its threads waiting %.2f s per second for a CPU), and at the CPU it spent per message the %.0f msgs/s asked need %.2f cores: give it more cores or producers, or run it on another host",
		rq.cpu+rq.wait, units.Plural(int(usable), "core"), r.Config.GOMAXPROCS, rq.cpu, rq.wait, r.TargetMsgsPerSec, need)}
}

// schedBound is the client-bound reason of goroutines queueing for one of plimsoll's Go
// scheduler threads (GOMAXPROCS): the generator's own CPU is the limit, whatever its buffers
// say. The p99 is over the window's merged histogram.
func schedBound(in Input, c Criteria) *Reason {
	if c.ClientSchedP99Ms <= 0 || in.Series == nil {
		return nil
	}
	var hs []*probe.SchedHist
	for x := range in.Series.All() {
		if x.Host != nil {
			hs = append(hs, x.Host.Self.SchedLatency)
		}
	}
	p99 := probe.MergeSched(hs...).Quantile(0.99)
	if !p99.OK() || 1000*float64(p99) <= c.ClientSchedP99Ms {
		return nil
	}
	return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
		"plimsoll's goroutines waited %.0f ms (p99 over the window) for one of its %d Go scheduler threads: the generator's CPU is the limit; give it more cores (GOMAXPROCS) or run it on another host",
		1000*float64(p99), in.Run.Config.GOMAXPROCS)}
}

// lateness says how the generator fell behind its schedule while its buffers had room ("" when
// it did not, or when it waited for buffer space: held back by the cluster), and whether it fell
// far behind: messages left unsent, or a p99 schedule delay above ClientMaxLateMs.
func lateness(r *loadgen.Result, c Criteria) (string, bool) {
	late := r.Counts.Unsent > 0 || c.ScheduleP99Ms > 0 && r.Latency.ScheduleDelay.P99 > c.ScheduleP99Ms
	if !late || r.Client.BufferFullShare > c.MaxBufferFullShare {
		return "", false
	}
	far := r.Counts.Unsent > 0 || c.ClientMaxLateMs > 0 && r.Latency.ScheduleDelay.P99 > c.ClientMaxLateMs
	return fmt.Sprintf("the generator fell behind its schedule (p99 schedule delay %.0f ms, max %.0f ms, %d messages never sent) while its buffers had room",
		r.Latency.ScheduleDelay.P99, r.Client.MaxScheduleDelayMs, r.Counts.Unsent), far
}

// hostSqueezed is the host-cpu reason of a co-located generator that fell behind because the
// brokers took the host's CPU: the host was saturated (HostBusy), or the generator's threads
// were starved while it used a small share of the CPU it and the brokers used (squeezed).
func hostSqueezed(in Input, c Criteria, behind string, used float64) *Reason {
	if in.Series == nil || !in.Series.Local {
		return nil
	}
	busy, _, _ := hostCPU(in)
	brokers, n := brokerCPU(in.Series)
	if n == 0 || brokers <= used {
		return nil
	}
	if c.HostBusy > 0 && busy >= c.HostBusy {
		return &Reason{Criterion: CritHostCPU, Text: fmt.Sprintf(
			"%s because the host's CPU was %.0f%% busy, the brokers using %.2f cores and plimsoll %.2f: on a co-located cluster the shared host is the limit",
			behind, 100*busy, brokers, used)}
	}
	if rq, ok := squeezed(in, c, brokers, used); ok {
		return &Reason{Criterion: CritHostCPU, Text: fmt.Sprintf(
			"%s because the brokers held the CPU when it needed one: %s waited %.2f s per second for a CPU while plimsoll used %.2f cores and the brokers %.2f (the host %.0f%% busy on average, in bursts): on a co-located cluster the shared host is the limit",
			behind, rq.whose, rq.wait, used, brokers, 100*busy)}
	}
	return nil
}

// squeezed reports a generator whose threads were starved for a CPU (ClientStarvedWait and
// ClientMinWaitS) while it used at most HostSqueezeShare of the CPU it and the brokers used,
// and its threads' run-queue wait (generatorRunQueue).
func squeezed(in Input, c Criteria, brokers, used float64) (runQueue, bool) {
	if c.HostSqueezeShare <= 0 || used > c.HostSqueezeShare*(brokers+used) {
		return runQueue{}, false
	}
	rq, ok := generatorRunQueue(in, c)
	return rq, ok && starvedBy(rq.wait, rq.cpu, c)
}

// selfRunQueue is plimsoll's run-queue wait (thread-seconds per second) and CPU (cores), means
// over the window; ok is false when the probe did not measure them.
func selfRunQueue(s *probe.Series) (wait, cpu float64, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	wait, n := meanOf(s, func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		return x.Host.Self.RunQueueWait
	})
	cpu, m := meanOf(s, func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		return x.Host.Self.CPU
	})
	return wait, cpu, n > 0 && m > 0
}

// clusterReasons checks every cluster-side criterion.
func clusterReasons(in Input, c Criteria, v *Verdict) []Reason {
	r := in.Run
	var out []Reason
	if c.MinAchieved > 0 && r.TargetMsgsPerSec > 0 {
		if got := r.ProducedMsgsPerSec / r.TargetMsgsPerSec; got < c.MinAchieved {
			out = append(out, Reason{Criterion: CritShortfall, Text: fmt.Sprintf(
				"produced %.0f msgs/s of %.0f targeted (%.1f%% < %.0f%%)", r.ProducedMsgsPerSec, r.TargetMsgsPerSec, 100*got, 100*c.MinAchieved)})
		}
	}
	if c.MaxLagGrowth > 0 {
		if slope, ok := lagSlope(r); !ok {
			v.Skipped = append(v.Skipped, CritLag+": fewer than 3 seconds of consumer backlog in the window (or no consumers)")
		} else if rate := refRate(r); rate > 0 && slope > c.MaxLagGrowth*rate {
			out = append(out, Reason{Criterion: CritLag, Text: fmt.Sprintf(
				"consumer backlog grew by %.0f msgs/s over the window (more than %.0f%% of %.0f msgs/s): consumers fall behind", slope, 100*c.MaxLagGrowth, rate)})
		}
	}
	if slo := c.PublishP99SLOMs; slo > 0 {
		if p := r.Latency.Publish.P99; p > slo {
			out = append(out, Reason{Criterion: CritLatency, Text: fmt.Sprintf("p99 publish latency %.0f ms above the %.0f ms SLO", p, slo)})
		}
	}
	if c.ProduceErrors && r.Counts.Failed > 0 {
		out = append(out, Reason{Criterion: CritErrors, Text: fmt.Sprintf("%d produce requests failed%s", r.Counts.Failed, firstError(r))})
	}
	if c.ProduceErrors && r.Counts.InFlightAtEnd > 0 {
		out = append(out, Reason{Criterion: CritErrors, Text: fmt.Sprintf(
			"%d messages were neither acknowledged nor failed when the producers stopped waiting: the cluster did not answer them in time", r.Counts.InFlightAtEnd)})
	}
	if in.Series != nil && in.Series.Len() > 0 {
		out = append(out, brokerReasons(in.Series, c, v)...)
		if c.MinReplicated > 0 {
			if rr := replicationReason(in.Series, r, c, v); rr != nil {
				out = append(out, *rr)
			}
		}
	}
	return out
}

// refRate is the rate lag growth is compared with: the target, else what was produced.
func refRate(r *loadgen.Result) float64 {
	if r.TargetMsgsPerSec > 0 {
		return r.TargetMsgsPerSec
	}
	return r.ProducedMsgsPerSec
}

// lagSlope fits a line to the measured window's consumer backlog (msgs) against time and
// returns its slope in msgs/s.
func lagSlope(r *loadgen.Result) (float64, bool) {
	if r.Config.ConsumerClients == 0 {
		return 0, false
	}
	var xs, ys []float64
	for s := range r.Timeline.All() {
		if s.Phase == loadgen.PhaseMeasure {
			xs = append(xs, s.T)
			ys = append(ys, float64(s.BacklogMsgs))
		}
	}
	if len(xs) < 3 {
		return 0, false
	}
	_, slope := stat.LinearRegression(xs, ys, nil, false)
	return slope, !math.IsNaN(slope)
}

func firstError(r *loadgen.Result) string {
	for _, e := range r.Errors {
		if e.Source == "produce" {
			return fmt.Sprintf(" (e.g. %s)", e.Message)
		}
	}
	return ""
}

// brokerReasons applies the broker-side criteria to the probe's samples.
func brokerReasons(s *probe.Series, c Criteria, v *Verdict) []Reason {
	var out []Reason
	ids := s.BrokerIDs()
	if c.MinHandlerIdle > 0 {
		checked := false
		for _, id := range ids {
			idle, n := meanOf(s, func(x probe.Sample) probe.Num {
				if b := x.Brokers[id]; b != nil {
					return b.HandlerIdle
				}
				return probe.Missing
			})
			if n == 0 {
				continue
			}
			checked = true
			if idle < c.MinHandlerIdle {
				out = append(out, Reason{Criterion: CritHandlerIdle, Broker: id, Text: fmt.Sprintf(
					"broker %d: request handlers idle %.0f%% on average (< %.0f%%): %.0f%% busy", id, 100*idle, 100*c.MinHandlerIdle, 100*(1-idle))})
			}
		}
		if !checked {
			v.Skipped = append(v.Skipped, CritHandlerIdle+": no broker metrics")
		}
	}
	if c.MaxISRShare > 0 {
		out = append(out, isrReasons(s, c)...)
	}
	return out
}

// replicationReason compares what the followers fetched with what the leaders appended.
// It assumes the cluster's traffic is the run's, all at the run's replication factor.
func replicationReason(s *probe.Series, r *loadgen.Result, c Criteria, v *Verdict) *Reason {
	rf := r.Config.ReplicationFactor
	if rf <= 1 {
		v.Skipped = append(v.Skipped, CritReplication+": replication factor 1, no followers")
		return nil
	}
	var in, repl, secs float64
	n := 0
	perBroker := map[int32]float64{}
	for x := range s.All() {
		ok := len(x.Brokers) > 0
		for _, b := range x.Brokers {
			ok = ok && b != nil && b.BytesIn.OK() && b.ReplicationBytesIn.OK()
		}
		if !ok {
			continue
		}
		n++
		secs += x.Time.Sub(x.Start).Seconds()
		for id, b := range x.Brokers {
			in += float64(b.BytesIn) * b.Interval
			repl += float64(b.ReplicationBytesIn) * b.Interval
			perBroker[id] += float64(b.ReplicationBytesIn) * b.Interval
		}
	}
	if n < 3 || in <= 0 {
		v.Skipped = append(v.Skipped, CritReplication+": fewer than 3 seconds of produce and replication bytes from every broker")
		return nil
	}
	want := float64(rf-1) * in
	share := repl / want
	if share >= c.MinReplicated {
		return nil
	}
	// The broker that fetched least is named; with a balanced assignment each follows alike.
	var slow int32
	for id, b := range perBroker {
		if slow == 0 || b < perBroker[slow] || b == perBroker[slow] && id < slow {
			slow = id
		}
	}
	behind := "" // over the seconds whose bytes were summed
	if secs > 0 {
		behind = fmt.Sprintf(", %s behind", units.FormatRate((want-repl)/secs))
	}
	return &Reason{Criterion: CritReplication, Broker: slow, Text: fmt.Sprintf(
		"followers fetched %.1f%% of the bytes the leaders appended (< %.0f%%, replication factor %d)%s: replication falls behind; broker %d fetched least",
		100*share, 100*c.MinReplicated, rf, behind, slow)}
}

// isrReasons finds ISR churn (from broker metrics or metadata) and persistent under-replication.
func isrReasons(s *probe.Series, c Criteria) []Reason {
	var out []Reason
	n := s.Len()
	churn, under := 0, 0
	outOf := map[int32]int{}
	for x := range s.All() {
		changed := false
		for _, b := range x.Brokers {
			if b != nil && (b.ISRShrinks.Or(0) > 0 || b.ISRExpands.Or(0) > 0) {
				changed = true
			}
		}
		if x.Meta != nil && x.Meta.Err == "" {
			changed = changed || x.Meta.ISRChanges > 0
			if x.Meta.UnderReplicated > 0 {
				under++
			}
			for id, k := range x.Meta.OutOfISR {
				if k > 0 {
					outOf[id]++
				}
			}
		}
		if changed {
			churn++
		}
	}
	if share := float64(churn) / float64(n); churn > 0 && share > c.MaxISRShare {
		out = append(out, Reason{Criterion: CritISR, Text: fmt.Sprintf(
			"ISR shrinks or expands in %d of %d seconds (%.0f%% > %.0f%%)", churn, n, 100*share, 100*c.MaxISRShare)})
	}
	if share := float64(under) / float64(n); under > 0 && share > c.MaxISRShare {
		r := Reason{Criterion: CritISR, Text: fmt.Sprintf(
			"under-replicated partitions in %d of %d seconds (%.0f%% > %.0f%%): followers do not keep up", under, n, 100*share, 100*c.MaxISRShare)}
		ids := make([]int32, 0, len(outOf))
		for id := range outOf {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b int32) int { return outOf[b] - outOf[a] })
		if len(ids) > 0 {
			r.Broker = ids[0]
			r.Text += fmt.Sprintf("; broker %d fell out of the ISR", ids[0])
		}
		out = append(out, r)
	}
	return out
}

// meanOf averages f over the samples that have it.
func meanOf(s *probe.Series, f func(probe.Sample) probe.Num) (float64, int) {
	sum, n := 0.0, 0
	for x := range s.All() {
		if v := f(x); v.OK() {
			sum += float64(v)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

func brokerOfReasons(rs []Reason) string {
	for _, r := range rs {
		if r.Broker != 0 {
			return fmt.Sprintf("broker %d", r.Broker)
		}
	}
	return ""
}

// Describe lists the criteria that are on, for people: e.g. "achieved < 97% of target; ...".
// LinkDropsPerSec and LinkRetransPerSec are not among them: they judge nothing, they only name a
// bottleneck.
func (c Criteria) Describe() string {
	var s []string
	pct := func(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }
	if c.MinAchieved > 0 {
		s = append(s, "achieved < "+pct(c.MinAchieved)+" of target")
	}
	if c.MaxLagGrowth > 0 {
		s = append(s, "consumer lag growth > "+pct(c.MaxLagGrowth)+" of the rate per second")
	}
	if c.MinReplicated > 0 {
		s = append(s, "followers fetch < "+pct(c.MinReplicated)+" of appended bytes")
	}
	if c.PublishP99SLOMs > 0 {
		s = append(s, fmt.Sprintf("p99 publish > %g ms", c.PublishP99SLOMs))
	}
	if c.MinHandlerIdle > 0 {
		s = append(s, "handler idle < "+pct(c.MinHandlerIdle))
	}
	if c.MaxISRShare > 0 {
		s = append(s, "ISR churn or under-replication > "+pct(c.MaxISRShare)+" of seconds")
	}
	if c.ProduceErrors {
		s = append(s, "any produce error")
	}

	if len(s) == 0 {
		return "none (every criterion switched off)"
	}
	return strings.Join(s, "; ")
}

// WorkerLost makes v invalid, both its state and its ceiling, with a worker-lost reason of the
// given text first: a run with workers that lost one measured only part of its load, so no
// figure of it may stand for the whole (never a silently lower rate).
func WorkerLost(v *Verdict, text string) {
	v.State, v.Ceiling = Invalid, Invalid
	v.Reasons = append([]Reason{{Criterion: CritWorkerLost, Text: text}}, v.Reasons...)
}
