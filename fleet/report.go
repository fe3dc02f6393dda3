package fleet

import (
	"encoding/json"
	"fmt"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/probe"
)

// ReportFormat names the encoding of what workers publish; the coordinator refuses any other.
//
// Format 3 added each second's Go scheduler latency (Process.SchedLatency) and a join's boot id
// (Message.BootID); a coordinator of format 2 would refuse them as unknown fields, so it names
// the mismatch instead.
const ReportFormat = "plimsoll-fleet-report/3"

// Kinds of Message a worker publishes to the results topic.
const (
	KindJoin   = "join"   // the worker read the plan, accepted it and will start on time
	KindRefuse = "refuse" // the worker cannot run the plan (Reason says why) and exits
	KindSecond = "second" // one second of its load (Second)
	KindFinal  = "final"  // after its drain: the window's figures and its ledgers (Final)
	// KindLeave: the worker's run ended before its final report (interrupted, or failed);
	// Reason says why. It publishes nothing after it.
	KindLeave = "leave"
)

// Message is one record of the results topic: who wrote it, and one of a join, a refusal, a
// second or the final report.
type Message struct {
	Format  string `json:"format"`
	RunID   string `json:"run_id"`
	Worker  int    `json:"worker"`
	Kind    string `json:"kind"`
	Version string `json:"version,omitempty"` // join and refuse: the worker's plimsoll version
	Host    string `json:"host,omitempty"`    // join: the worker's host name
	// BootID is the join's kernel boot id (/proc/sys/kernel/random/boot_id): the same on two
	// workers (containers, say) that share one machine's CPUs, whatever their host names.
	BootID string  `json:"boot_id,omitempty"`
	Reason string  `json:"reason,omitempty"` // refuse and leave
	Second *Second `json:"second,omitempty"`
	Final  *Final  `json:"final,omitempty"`
}

// Second is one second of one worker's load, lined up with the others' by Index.
type Second struct {
	// Index counts seconds from the plan's start: this second ends Index seconds after it.
	// The first is 1, and each worker reports every second in order.
	Index int    `json:"index"`
	Phase string `json:"phase"`
	Tally Tally  `json:"tally"`
	// The second's interval histograms, every phase included (the HDR interval log's).
	Publish       hdr.Encoded `json:"publish"`
	EndToEnd      hdr.Encoded `json:"end_to_end"`
	ScheduleDelay hdr.Encoded `json:"schedule_delay"`
	// Process is the worker process's own use of its host over the second, for the verdict's
	// client-bound criteria: the coordinator's probe sees only the coordinator. Nil (a report
	// of a plimsoll that did not measure it) is unknown, not idle.
	Process *Process `json:"process,omitempty"`
}

// Process is one second of a worker process's use of its host (probe.ProcessMeter): CPU
// seconds per second (user + system), its threads' run-queue wait in thread-seconds per
// second, and the cores it may use. A figure the worker could not measure is null (missing).
type Process struct {
	CPU          probe.Num `json:"cpu_cores"`
	RunQueueWait probe.Num `json:"runq_wait"`
	GOMAXPROCS   int       `json:"gomaxprocs"`
	NumCPU       int       `json:"num_cpu"`
	// SchedLatency is how long its goroutines waited for one of its Go scheduler threads over
	// the second (probe.SchedMeter: the runtime's /sched/latencies:seconds, the second's
	// difference), in the probe's mergeable buckets; absent when not measured.
	SchedLatency *probe.SchedHist `json:"sched_latency,omitempty"`
}

// UnmarshalJSON reads a Process strictly, as DecodeMessage reads the rest of a report; a
// figure left out is missing, as null is, never 0.
func (p *Process) UnmarshalJSON(b []byte) error {
	type plain Process
	v := plain{CPU: probe.Missing, RunQueueWait: probe.Missing}
	if err := strictJSON(b, &v); err != nil {
		return err
	}
	*p = Process(v)
	return nil
}

// Tally are one second's counters, by arrival within the second; merged by summing (the
// window by loadgen.ProduceWindow.Merge).
type Tally struct {
	Sent         int64   `json:"sent"`
	Acked        int64   `json:"acked"`
	AckedBytes   int64   `json:"acked_bytes"`
	Consumed     int64   `json:"consumed"`
	Failed       int64   `json:"failed"`
	Errors       int64   `json:"errors"`         // produce and fetch errors
	BufferFullNs int64   `json:"buffer_full_ns"` // summed over producers
	InFlight     int64   `json:"in_flight"`      // at the end of the second
	Backlog      []int64 `json:"backlog"`        // per group: acknowledged, not yet consumed
	// Window is the producers' protocol window over the second: merged, the shares' largest
	// is the whole run's (each producer connection is one worker's), the batches summed.
	Window loadgen.ProduceWindow `json:"window"`
}

// Final is one worker's measured window after its drain.
type Final struct {
	Counts   loadgen.Counts `json:"counts"`   // messages intended inside the window
	Excluded loadgen.Counts `json:"excluded"` // of warm-up and backlog building
	// The window's histograms, which the Result's latency percentiles summarise.
	Publish       hdr.Encoded   `json:"publish"`
	EndToEnd      hdr.Encoded   `json:"end_to_end"`
	ScheduleDelay hdr.Encoded   `json:"schedule_delay"`
	AckWait       hdr.Encoded   `json:"ack_wait"`
	Groups        []GroupLedger `json:"groups"`
	// Window is the producers' protocol window over the measured window.
	Window loadgen.ProduceWindow `json:"window"`
}

// GroupLedger is one consumer group's loss ledger (package ledger) over one worker's
// producers, as counts.
type GroupLedger struct {
	Name string `json:"name"`
	// Producers are the global producer indices this ledger accounts for: the worker's own,
	// since it consumes what it produced.
	Producers Range        `json:"producers"`
	Measured  LedgerCounts `json:"measured"`
	Excluded  LedgerCounts `json:"excluded"`
	Foreign   int64        `json:"foreign"` // records without a stamp of these producers
	Seen      uint64       `json:"seen"`    // distinct messages seen, every phase
	// Lost and Unconsumed are of the measured window (loadgen.Counts' meaning).
	Lost       int64 `json:"lost"`
	Unconsumed int64 `json:"unconsumed"`
	// CaughtUp: the worker's consumers read to the end of every partition it owns.
	CaughtUp bool `json:"caught_up"`
}

// LedgerCounts are what a group saw of one phase (ledger.Counts).
type LedgerCounts struct {
	Consumed    int64 `json:"consumed"`
	Duplicated  int64 `json:"duplicated"`
	Redelivered int64 `json:"redelivered"`
	OutOfOrder  int64 `json:"out_of_order"`
}

// EncodeMessage returns m's JSON, its format set.
func EncodeMessage(m Message) ([]byte, error) {
	m.Format = ReportFormat
	if err := m.check(); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// DecodeMessage reads a results-topic record strictly: another format, an unknown field,
// data after the object, or a kind without its part is an error wrapping ErrPlan.
func DecodeMessage(b []byte) (Message, error) {
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Message{}, fmt.Errorf("%w: results record: %w", ErrPlan, err)
	}
	if head.Format != ReportFormat {
		return Message{}, fmt.Errorf("%w: results record of format %q, this plimsoll reads %q: run the coordinator and the workers from the same plimsoll", ErrPlan, head.Format, ReportFormat)
	}
	var m Message
	if err := strictJSON(b, &m); err != nil {
		return Message{}, fmt.Errorf("%w: results record: %w", ErrPlan, err)
	}
	return m, m.check()
}

// check says whether m holds what its kind needs, and nothing of another kind.
func (m Message) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: results record of worker %d (%s): %s", ErrPlan, m.Worker, m.Kind, fmt.Sprintf(format, args...))
	}
	switch {
	case m.RunID == "":
		return bad("no run_id")
	case m.Worker < 0:
		return bad("negative worker index")
	}
	second, final := m.Second != nil, m.Final != nil
	switch m.Kind {
	case KindJoin, KindRefuse:
		if m.Version == "" {
			return bad("no version")
		}
		if m.Kind == KindRefuse && m.Reason == "" {
			return bad("no reason")
		}
		if second || final {
			return bad("carries a report")
		}
	case KindSecond:
		if !second || final {
			return bad("needs a second and nothing else")
		}
	case KindFinal:
		if !final || second {
			return bad("needs a final report and nothing else")
		}
	case KindLeave:
		if m.Reason == "" {
			return bad("no reason")
		}
		if second || final {
			return bad("carries a report")
		}
	default:
		return bad("unknown kind; want %s, %s, %s, %s or %s", KindJoin, KindRefuse, KindSecond, KindFinal, KindLeave)
	}
	return nil
}

// LedgerState is the state of a worker's ledger of one group, whose producer ids are global
// and of which the worker's producers are the given range; lost, unconsumed and caughtUp come
// from the worker's accounting after its drain.
func LedgerState(name string, g *ledger.Group, producers Range, lost, unconsumed int64, caughtUp bool) GroupLedger {
	return GroupLedger{Name: name, Producers: producers, Measured: ledgerCounts(g.Counts[ledger.Measured]), Excluded: ledgerCounts(g.Counts[ledger.Excluded]),
		Foreign: g.Foreign, Seen: g.Seen(), Lost: lost, Unconsumed: unconsumed, CaughtUp: caughtUp}
}
