package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/workload"
)

// PlanFormat names the plan's encoding; a worker refuses a plan of any other format.
const PlanFormat = "plimsoll-fleet-plan/1"

// Errors of the plan and of joining a run. Callers tell them apart with errors.Is.
var (
	// ErrPlan: a plan (or report) that does not decode, or that no worker could run.
	ErrPlan = errors.New("invalid worker plan")
	// ErrVersion: the coordinator and a worker are different plimsolls.
	ErrVersion = errors.New("plimsoll versions differ")
	// ErrRunID: a worker was started for another run than the plan's.
	ErrRunID = errors.New("another run's plan")
	// ErrLate: the worker read the plan after the schedule's start.
	ErrLate = errors.New("the plan's start has passed")
)

// Plan is what the coordinator writes to the run's control topic for every worker: the whole
// workload and when it starts. Each worker derives its Share from it.
type Plan struct {
	RunID   string // the run; names its topics (Prefix)
	Version string // the coordinator's plimsoll version
	Workers int    // N
	// Start is the absolute start of the producers' schedule: every worker's producers follow
	// the single-process schedule from it.
	Start time.Time
	// Spec is the whole workload, PartitionsPerTopic resolved (> 0), a payload file's bytes in
	// Payload.Data (which the spec's JSON leaves out). It holds no secret: Validate refuses
	// security properties in a spec (they belong to the target), and the plan is readable by
	// whoever reads the run's prefix.
	Spec workload.Spec
	// Silence, when set, is the silence limit of this run on both sides: how long the
	// coordinator hears nothing from a worker, or a worker from the coordinator, before calling
	// it gone (the coordinator also takes it, in seconds, as the Lag limit). A run with planned
	// faults sets it: its bus lives on the cluster under test, which the faults stall. Zero:
	// each side's own limits.
	Silence time.Duration
}

// planWire is the plan's JSON. The spec is decoded apart (workload.DecodeJSONStrict), since
// its own UnmarshalJSON would let unknown fields through.
type planWire struct {
	Format  string          `json:"format"`
	RunID   string          `json:"run_id"`
	Version string          `json:"version"`
	Workers int             `json:"workers"`
	StartNs int64           `json:"start_unix_ns"`
	Spec    json.RawMessage `json:"spec"`
	Payload []byte          `json:"payload,omitempty"`
	Silence int64           `json:"silence_ns,omitempty"`
}

// Encode checks the plan (Check) and returns its JSON.
func (p Plan) Encode() ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	spec, err := json.Marshal(p.Spec)
	if err != nil {
		return nil, fmt.Errorf("%w: spec: %w", ErrPlan, err)
	}
	return json.Marshal(planWire{Format: PlanFormat, RunID: p.RunID, Version: p.Version, Workers: p.Workers,
		StartNs: p.Start.UnixNano(), Spec: spec, Payload: p.Spec.Payload.Data, Silence: int64(p.Silence)})
}

// DecodePlan reads a plan strictly: another format, an unknown or missing field (the spec's
// included), data after the object or a plan no worker could run is an error wrapping ErrPlan
// that names it.
func DecodePlan(b []byte) (Plan, error) {
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Plan{}, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	if head.Format != PlanFormat {
		return Plan{}, fmt.Errorf("%w: format %q, this plimsoll reads %q: run the coordinator and the workers from the same plimsoll", ErrPlan, head.Format, PlanFormat)
	}
	var w planWire
	if err := strictJSON(b, &w); err != nil {
		return Plan{}, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	if len(w.Spec) == 0 || string(w.Spec) == "null" {
		return Plan{}, fmt.Errorf("%w: the field spec is missing", ErrPlan)
	}
	spec, err := workload.DecodeJSONStrict(w.Spec)
	if err != nil {
		return Plan{}, fmt.Errorf("%w: spec: %w", ErrPlan, err)
	}
	spec.Payload.Data = w.Payload
	p := Plan{RunID: w.RunID, Version: w.Version, Workers: w.Workers, Start: time.Unix(0, w.StartNs).UTC(), Spec: spec, Silence: time.Duration(w.Silence)}
	if w.StartNs == 0 {
		p.Start = time.Time{}
	}
	return p, p.Check()
}

// strictJSON decodes b into v, refusing unknown fields. Its callers have read b's format with
// json.Unmarshal first, which refuses anything after the value.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Check says whether workers can run the plan: every field present, the workload valid
// (Validate: a payload file's bytes present, no security property) with its partitions
// resolved, payload bytes only for a payload file, and N within what the workload can be
// split into (CheckWorkers).
func (p Plan) Check() error {
	switch {
	case p.RunID == "":
		return fmt.Errorf("%w: the field run_id is missing", ErrPlan)
	case p.Version == "":
		return fmt.Errorf("%w: the field version is missing", ErrPlan)
	case p.Start.IsZero():
		return fmt.Errorf("%w: the field start_unix_ns is missing", ErrPlan)
	case p.Silence < 0:
		return fmt.Errorf("%w: silence_ns is %d; give a duration, or leave it out for the workers' own limit", ErrPlan, p.Silence)
	case p.Spec.PartitionsPerTopic < 1:
		return fmt.Errorf("%w: spec.partitions is %d; the coordinator resolves the partitions before writing the plan", ErrPlan, p.Spec.PartitionsPerTopic)
	}
	if err := CheckRunID(p.RunID); err != nil {
		return err
	}
	if err := p.Spec.Validate(); err != nil {
		return fmt.Errorf("%w: spec: %w", ErrPlan, err)
	}
	if p.Spec.Payload.Kind != workload.PayloadFile && len(p.Spec.Payload.Data) > 0 {
		return fmt.Errorf("%w: payload of %d bytes for a %s payload; a plan carries a payload file's bytes only", ErrPlan, len(p.Spec.Payload.Data), p.Spec.Payload)
	}
	return CheckWorkers(p.Spec, p.Workers)
}

// CheckJoin is a worker's check of the plan it read: its run and its version, and a start
// still ahead of now.
func (p Plan) CheckJoin(runID, version string, now time.Time) error {
	if p.RunID != runID {
		return fmt.Errorf("%w: the control topic holds the plan of run %s, this worker was started for run %s", ErrRunID, p.RunID, runID)
	}
	if p.Version != version {
		return fmt.Errorf("%w: the coordinator runs plimsoll %s, this worker %s; start workers of the coordinator's version", ErrVersion, p.Version, version)
	}
	if !now.Before(p.Start) {
		return fmt.Errorf("%w: the schedule started at %s, %s ago; a late worker would skew the run, so start the workers before it", ErrLate,
			p.Start.Format(time.RFC3339Nano), now.Sub(p.Start).Round(time.Millisecond))
	}
	return nil
}

// PhaseOf is the phase of the run's second i (the second ending i seconds after the plan's
// start) by the plan: warmup up to the warm-up's end, measure up to the window's end, drain
// after. A worker labels each second with the phase it ran in, a boundary inside the second
// counted only once passed, so a running worker's phase is never ahead of the plan's.
func (p Plan) PhaseOf(i int) string {
	end := time.Duration(i) * time.Second
	switch {
	case end <= p.Spec.Warmup:
		return loadgen.PhaseWarmup
	case end <= p.Spec.Warmup+p.Spec.Duration:
		return loadgen.PhaseMeasure
	}
	return loadgen.PhaseDrain
}

// windowEnd is the index of the window's last second: the last the plan has in measure.
func (p Plan) windowEnd() int { return int(math.Ceil((p.Spec.Warmup + p.Spec.Duration).Seconds())) }

// ahead says whether phase comes after the plan's phase of second i: a worker whose second is
// labelled so has left the schedule (its run cut short). A phase of no rank is not ahead.
func (p Plan) ahead(i int, phase string) bool {
	r, ok := loadgen.PhaseRank(phase)
	plan, _ := loadgen.PhaseRank(p.PhaseOf(i))
	return ok && r > plan
}
