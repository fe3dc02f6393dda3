package fault

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string // a fragment of the error; "" for none
	}{
		{in: "kill 2 at 20s for 15s", want: Spec{Kill, 2, 20 * time.Second, 15 * time.Second}},
		{in: "  stop 3   at 1m for 500ms ", want: Spec{Stop, 3, time.Minute, 500 * time.Millisecond}},
		{in: "cut 1 at 0s for 1s", want: Spec{Cut, 1, 0, time.Second}},
		{in: "pause 2 at 20s for 10s", err: `unknown action "pause"`},
		{in: "kill two at 20s for 10s", err: `broker "two" is not a broker id`},
		{in: "kill -1 at 20s for 10s", err: "is not a broker id"},
		{in: "kill 2 at 20 for 10s", err: `at "20"`},
		{in: "kill 2 at -1s for 10s", err: `at "-1s"`},
		{in: "kill 2 at 20s for 0s", err: "positive duration"},
		{in: "kill 2 at 20s", err: "give ACTION BROKER"},
		{in: "kill 2 after 20s for 5s", err: "give ACTION BROKER"},
		{in: "", err: "give ACTION BROKER"},
		{in: "kill 2 at 2562047h for 2562047h", err: "too long"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want an ErrSpec with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	loop := Cluster{Brokers: []int32{1, 2, 3}}
	nic := Cluster{Brokers: []int32{1, 2, 3}, NIC: true}
	spec := func(s string) Spec {
		sp, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	for _, tc := range []struct {
		plan []string
		c    Cluster
		err  string
	}{
		{plan: []string{"kill 2 at 8s for 8s", "stop 3 at 8s for 8s"}, c: loop},
		{plan: []string{"kill 2 at 8s for 8s", "stop 2 at 16s for 8s"}, c: loop}, // back to back
		{plan: []string{"cut 1 at 8s for 8s"}, c: nic},
		{plan: []string{"kill 4 at 8s for 8s"}, c: loop, err: "no broker 4; its brokers are 1, 2, 3"},
		{plan: []string{"cut 1 at 8s for 8s"}, c: loop, err: "cut needs emulated NICs"},
		{plan: []string{"kill 1 at 30s for 8s"}, c: loop, err: "not before the end of the 30s measured window"},
		{plan: []string{"kill 2 at 8s for 8s", "stop 2 at 10s for 8s"}, c: loop, err: "overlaps"},
	} {
		var plan []Spec
		for _, s := range tc.plan {
			plan = append(plan, spec(s))
		}
		err := Check(plan, tc.c, 30*time.Second)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Check(%q) = %v; want %q", tc.plan, err, tc.err)
		}
	}
}
