package fleet

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/probe"
)

func TestMessageRoundTrip(t *testing.T) {
	h := hdr.New()
	h.Record(1_500_000)
	e := encode(t, h)
	for _, m := range []Message{
		{RunID: "r", Worker: 2, Kind: KindJoin, Version: "v1", Host: "node-7"},
		{RunID: "r", Worker: 0, Kind: KindRefuse, Version: "v2", Reason: "another version"},
		{RunID: "r", Worker: 1, Kind: KindSecond, Second: &Second{Index: 3, Phase: "warmup", Tally: Tally{Sent: 5, Backlog: []int64{1}}, Publish: e, EndToEnd: e, ScheduleDelay: e}},
		{RunID: "r", Worker: 1, Kind: KindFinal, Final: &Final{Publish: e, EndToEnd: e, ScheduleDelay: e, AckWait: e, Groups: []GroupLedger{{Name: "g0", Producers: Range{0, 1}, Seen: 9}}}},
		{RunID: "r", Worker: 1, Kind: KindLeave, Reason: "interrupted by SIGINT"},
	} {
		got := wire(t, m)
		if got.Format != ReportFormat || got.Kind != m.Kind || got.Worker != m.Worker || got.Version != m.Version || got.Reason != m.Reason || got.Host != m.Host {
			t.Errorf("%s: decoded %+v, want %+v", m.Kind, got, m)
		}
		if m.Second != nil && (got.Second.Tally.Sent != 5 || got.Second.Publish != e) {
			t.Errorf("second: decoded %+v", got.Second)
		}
		if m.Final != nil && (got.Final.Groups[0] != m.Final.Groups[0] || got.Final.AckWait != e) {
			t.Errorf("final: decoded %+v", got.Final)
		}
	}
}

func TestDecodeMessageRefuses(t *testing.T) {
	join := `{"format":"` + ReportFormat + `","run_id":"r","worker":1,"kind":"join","version":"v1"}`
	if _, err := DecodeMessage([]byte(join)); err != nil {
		t.Fatalf("a good join: %v", err)
	}
	edit := func(old, new string) string { return strings.Replace(join, old, new, 1) }
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "{", "unexpected end"},
		{"another format", edit(ReportFormat, "plimsoll-fleet-report/0"), `format "plimsoll-fleet-report/0"`},
		{"unknown field", edit(`"kind"`, `"pid":1,"kind"`), `unknown field "pid"`},
		{"unknown nested field", `{"format":"` + ReportFormat + `","run_id":"r","worker":1,"kind":"second","second":{"index":1,"cpu":2}}`, `unknown field "cpu"`},
		{"data after", join + "{}", "after top-level value"},
		{"no run id", edit(`"run_id":"r"`, `"run_id":""`), "no run_id"},
		{"negative index", edit(`"worker":1`, `"worker":-1`), "negative worker index"},
		{"no version", edit(`,"version":"v1"`, ""), "no version"},
		{"a refusal without reason", edit(`"join"`, `"refuse"`), "no reason"},
		{"a join with a report", edit(`"version":"v1"`, `"version":"v1","final":{}`), "carries a report"},
		{"a second without one", edit(`"join"`, `"second"`), "needs a second"},
		{"a final without one", edit(`"join"`, `"final"`), "needs a final report"},
		{"a leave without reason", edit(`"join"`, `"leave"`), "no reason"},
		{"a leave with a report", edit(`"join","version":"v1"`, `"leave","reason":"failed","second":{}`), "carries a report"},
		{"another kind", edit(`"join"`, `"depart"`), "unknown kind"},
	} {
		if _, err := DecodeMessage([]byte(tc.in)); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrPlan saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := EncodeMessage(Message{RunID: "r", Kind: KindSecond}); !errors.Is(err, ErrPlan) {
		t.Errorf("encoding a second without its report: err = %v", err)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	e, _ := hdr.New().Encode()
	for _, m := range []Message{
		{RunID: "r", Worker: 2, Kind: KindJoin, Version: "v1"},
		{RunID: "r", Kind: KindSecond, Second: &Second{Index: 3, Publish: e, EndToEnd: e, ScheduleDelay: e}},
		{RunID: "r", Kind: KindSecond, Second: &Second{Index: 3, Publish: e, EndToEnd: e, ScheduleDelay: e,
			Process: &Process{CPU: 1.5, RunQueueWait: probe.Missing, GOMAXPROCS: 2, NumCPU: 4}}},
	} {
		b, err := EncodeMessage(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMessage(b)
		if err != nil {
			if !errors.Is(err, ErrPlan) {
				t.Fatalf("an error not wrapping ErrPlan: %v", err)
			}
			return
		}
		e, err := EncodeMessage(m)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		if _, err := DecodeMessage(e); err != nil {
			t.Fatalf("a re-encoded record does not decode: %v\n%s", err, e)
		}
	})
}

// TestSecondProcess: a second's Process figures survive the wire, a missing one as null; a
// report without them (an older worker's) decodes with none, and a Process without a figure
// has it missing, never 0.
func TestSecondProcess(t *testing.T) {
	e := encode(t, hdr.New())
	b, err := EncodeMessage(Message{RunID: "r", Worker: 1, Kind: KindSecond, Second: &Second{Index: 1, Phase: "measured", Publish: e, EndToEnd: e, ScheduleDelay: e}})
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSuffix(string(b), "}}") // the second, open for one more field
	for _, tc := range []struct {
		name      string
		in        string
		none      bool
		cpu, wait float64 // NaN: missing
		procs     int
		err       string
	}{
		{"an older worker's", head + `}}`, true, 0, 0, 0, ""},
		{"every figure", head + `,"process":{"cpu_cores":1.5,"runq_wait":0.25,"gomaxprocs":4,"num_cpu":8}}}`, false, 1.5, 0.25, 4, ""},
		{"null figures", head + `,"process":{"cpu_cores":null,"runq_wait":null,"gomaxprocs":4,"num_cpu":8}}}`, false, math.NaN(), math.NaN(), 4, ""},
		{"figures left out", head + `,"process":{"gomaxprocs":2,"num_cpu":2}}}`, false, math.NaN(), math.NaN(), 2, ""},
		{"an unknown figure", head + `,"process":{"cpu_cores":1,"steal":0.5}}}`, false, 0, 0, 0, `unknown field "steal"`},
		{"scheduler latencies", head + `,"process":{"cpu_cores":1,"runq_wait":0,"gomaxprocs":2,"num_cpu":2,"sched_latency":{"buckets":[{"lo":0,"hi":1e-6,"n":9},{"lo":0.01,"hi":0.05,"n":1}]}}}}`, false, 1, 0, 2, ""},
		{"an unknown bucket field", head + `,"process":{"cpu_cores":1,"sched_latency":{"buckets":[{"lo":0,"hi":1,"n":1,"p":2}]}}}}`, false, 0, 0, 0, `unknown field "p"`},
	} {
		m, err := DecodeMessage([]byte(tc.in))
		if tc.err != "" {
			if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want ErrPlan saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := m.Second.Process
		if tc.none {
			if p != nil {
				t.Errorf("%s: process %+v, want none", tc.name, *p)
			}
			continue
		}
		if p == nil || !sameNum(p.CPU, tc.cpu) || !sameNum(p.RunQueueWait, tc.wait) || p.GOMAXPROCS != tc.procs {
			t.Errorf("%s: process %+v, want cpu %v, wait %v, GOMAXPROCS %d", tc.name, p, tc.cpu, tc.wait, tc.procs)
		}
		if wantLat := strings.Contains(tc.in, "sched_latency"); wantLat != (p.SchedLatency != nil) || wantLat && p.SchedLatency.Quantile(0.99) != 0.05 {
			t.Errorf("%s: scheduler latencies %+v", tc.name, p.SchedLatency)
		}
		if back := wire(t, m); back.Second.Process == nil || !sameNum(back.Second.Process.CPU, tc.cpu) || !sameNum(back.Second.Process.RunQueueWait, tc.wait) ||
			!reflect.DeepEqual(back.Second.Process.SchedLatency, p.SchedLatency) {
			t.Errorf("%s: re-encoded as %+v", tc.name, back.Second.Process)
		}
	}
}

// nan stands for a missing figure in the tables.
var nan = math.NaN()

// sameNum says whether n is want, NaN meaning missing.
func sameNum(n probe.Num, want float64) bool {
	if math.IsNaN(want) {
		return !n.OK()
	}
	return n.OK() && float64(n) == want
}
