package fleet

import (
	"errors"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
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
