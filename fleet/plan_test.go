package fleet

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/workload"
)

var start = time.Date(2026, 11, 26, 15, 0, 0, 123456789, time.UTC)

// testSpec is a workload that splits over up to 3 workers (3 consumers per group).
func testSpec() workload.Spec {
	s := workload.Default()
	s.Producers, s.PartitionsPerTopic, s.ConsumerGroups, s.ConsumersPerGroup, s.Topics = 7, 12, 2, 3, 2
	s.Rate = 10_000
	if err := s.ProducerProps.Set("linger.ms", "5"); err != nil {
		panic(err)
	}
	return s
}

func testPlan() Plan {
	return Plan{RunID: "20261126t150000-ab12", Version: "v1.2.3", Workers: 3, Start: start, Spec: testSpec()}
}

func TestPlanRoundTrip(t *testing.T) {
	file := testPlan()
	file.Spec.Payload = workload.Payload{Kind: workload.PayloadFile, Path: "/data/msg.bin"}
	file.Spec.Payload.Data = []byte("a payload file's bytes, as the workers must send them")
	file.Spec.MessageSize = len(file.Spec.Payload.Data)
	faults := testPlan()
	faults.Silence = 32 * time.Second
	for name, p := range map[string]Plan{"generated payload": testPlan(), "payload file": file, "a silence limit": faults} {
		b, err := p.Encode()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := DecodePlan(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		if got.RunID != p.RunID || got.Version != p.Version || got.Workers != p.Workers || !got.Start.Equal(p.Start) ||
			got.Spec.String() != p.Spec.String() || got.Spec.ProducerProps.String() != p.Spec.ProducerProps.String() ||
			string(got.Spec.Payload.Data) != string(p.Spec.Payload.Data) || got.Silence != p.Silence {
			t.Errorf("%s: decoded %+v\n want %+v", name, got, p)
		}
		again, err := got.Encode()
		if err != nil || string(again) != string(b) {
			t.Errorf("%s: encoding the decoded plan gives other bytes (%v):\n%s\n%s", name, err, again, b)
		}
	}
}

// TestDecodePlanRefuses: every way a plan can be wrong is an error wrapping ErrPlan that
// names the field or the fix.
func TestDecodePlanRefuses(t *testing.T) {
	good, err := testPlan().Encode()
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	edit := func(old, new string) string {
		if !strings.Contains(g, old) {
			t.Fatalf("the plan's JSON has no %s:\n%s", old, g)
		}
		return strings.Replace(g, old, new, 1)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "plan", "invalid character"},
		{"another format", edit(PlanFormat, "plimsoll-fleet-plan/2"), `format "plimsoll-fleet-plan/2"`},
		{"no format", edit(`"format":"`+PlanFormat+`",`, ""), `format ""`},
		{"unknown field", edit(`"workers":3`, `"workers":3,"leader":0`), `unknown field "leader"`},
		{"unknown spec field", edit(`"topics":2`, `"topics":2,"producer-rate":5`), `unknown field "producer-rate"`},
		{"data after the plan", g + `{}`, "after top-level value"},
		{"no run id", edit(`"run_id":"20261126t150000-ab12"`, `"run_id":""`), "run_id is missing"},
		{"a run id breaking the prefix rule", edit(`"run_id":"20261126t150000-ab12"`, `"run_id":"a b"`), `run id "a b"`},
		{"no version", edit(`"version":"v1.2.3"`, `"version":""`), "version is missing"},
		{"no start", edit(`"start_unix_ns":1795705200123456789`, `"start_unix_ns":0`), "start_unix_ns is missing"},
		{"no spec", edit(g[strings.Index(g, `"spec":`):strings.Index(g, `}}`)+2], `"spec":null}`), "spec is missing"},
		{"partitions unresolved", edit(`"partitions":12`, `"partitions":0`), "spec.partitions is 0"},
		{"an invalid spec", edit(`"producers":7`, `"producers":-1`), "producers"},
		{"more workers than producers", edit(`"producers":7`, `"producers":2`), "3 workers with 2 producers"},
		{"a payload for a generated payload", edit(`"workers":3`, `"workers":3,"payload":"eA=="`), "payload of 1 bytes"},
		{"a negative silence limit", edit(`"workers":3`, `"workers":3,"silence_ns":-1`), "silence_ns is -1"},
		{"a secret", edit(`"linger.ms":"5"`, `"linger.ms":"5","sasl.jaas.config":"x"`), "security is configured on the target"},
	} {
		_, err := DecodePlan([]byte(tc.in))
		if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\n want ErrPlan naming %q", tc.name, err, tc.want)
		}
	}
}

func TestEncodeRefusesSecrets(t *testing.T) {
	p := testPlan()
	p.Spec = p.Spec.Clone()
	if err := p.Spec.CommonProps.Set("ssl.key.password", "s3cret"); err != nil {
		t.Fatal(err)
	}
	b, err := p.Encode()
	if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "ssl.key.password") || strings.Contains(string(b), "s3cret") {
		t.Errorf("err = %v, plan %s", err, b)
	}
}

func TestCheckJoin(t *testing.T) {
	p := testPlan()
	for _, tc := range []struct {
		name, run, version string
		now                time.Time
		want               error
		says               string
	}{
		{"on time", p.RunID, "v1.2.3", start.Add(-time.Second), nil, ""},
		{"another run", "20261126t140000-ffff", "v1.2.3", start.Add(-time.Second), ErrRunID, "plan of run 20261126t150000-ab12, this worker was started for run 20261126t140000-ffff"},
		{"another version", p.RunID, "v1.2.4", start.Add(-time.Second), ErrVersion, "coordinator runs plimsoll v1.2.3, this worker v1.2.4"},
		{"late", p.RunID, "v1.2.3", start.Add(1500 * time.Millisecond), ErrLate, "1.5s ago"},
		{"at the start", p.RunID, "v1.2.3", start, ErrLate, "0s ago"},
	} {
		err := p.CheckJoin(tc.run, tc.version, tc.now)
		if !errors.Is(err, tc.want) || (tc.want != nil && !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("%s: err = %v, want %v saying %q", tc.name, err, tc.want, tc.says)
		}
	}
}

func FuzzDecodePlan(f *testing.F) {
	good, err := testPlan().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format":"` + PlanFormat + `"}`))
	f.Add([]byte(`{"format":"` + PlanFormat + `","spec":{"duration":"1s","warmup":"x"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePlan(b)
		if err != nil {
			if !errors.Is(err, ErrPlan) {
				t.Fatalf("an error not wrapping ErrPlan: %v", err)
			}
			return
		}
		// Whatever decodes is a plan workers can run, and encodes to a plan that decodes to
		// the same encoding.
		if _, err := p.Share(p.Workers - 1); err != nil {
			t.Fatalf("a decoded plan has no share for its last worker: %v", err)
		}
		e, err := p.Encode()
		if err != nil {
			t.Fatalf("a decoded plan does not encode: %v", err)
		}
		q, err := DecodePlan(e)
		if err != nil {
			t.Fatalf("a re-encoded plan does not decode: %v\n%s", err, e)
		}
		if e2, err := q.Encode(); err != nil || string(e2) != string(e) {
			t.Fatalf("encoding is not stable (%v):\n%s\n%s", err, e, e2)
		}
	})
}

// TestPlanLimits: a plan's silence limit replaces the side's own, and is the Lag limit in
// seconds when that is shorter; a plan without one leaves the limits alone.
func TestPlanLimits(t *testing.T) {
	own := Limits{Join: time.Minute, Silence: 5 * time.Second, Lag: 5, Find: time.Minute, Poll: time.Second, Beat: time.Second}
	p := testPlan()
	if got := p.limits(own); got != own {
		t.Errorf("no silence limit: %+v, want %+v", got, own)
	}
	p.Silence = 32 * time.Second
	want := own
	want.Silence, want.Lag = 32*time.Second, 32
	if got := p.limits(own); got != want {
		t.Errorf("a 32 s silence limit: %+v, want %+v", got, want)
	}
	own.Lag = 40
	if got := p.limits(own); got.Lag != 40 {
		t.Errorf("a longer Lag limit of the side's own: %d, want 40 kept", got.Lag)
	}
}
