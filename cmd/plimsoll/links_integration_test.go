//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/use"
)

// slowLinkCheck runs on TestNICVerdicts' cluster (emulated 16 Mbit/s NICs) after broker 2's
// link is shaped to 4 Mbit/s (500 KB/s). With rf 3, 3 brokers and one consumer group each
// broker takes t in and gives t out: 250 msgs/s of 1 KB is about 55% of broker 2's link, 1000
// msgs/s about twice it. Below the link its shapers drop nothing; above it they queue and drop,
// broker 2's USE rows show both, and the verdict names broker 2's link losses. Retransmits are
// not asserted in broker 2's namespace: when its own outbound shaper drops, the broker resends
// as new data; retransmits appear in the senders' namespaces (docs/use.md).
func slowLinkCheck(t *testing.T, dir string) {
	run := func(rate string) (table use.Table, state, bottleneck, why string) {
		out := nicRun(t, dir, rate)
		state, bottleneck, _, why = verdictOf(t, out)
		return useOf(t, out), state, bottleneck, why
	}

	low, state, _, why := run("250")
	in, out := useRow(t, low, "broker 2", "network in"), useRow(t, low, "broker 2", "network out")
	t.Logf("250 msgs/s: %s; broker 2 in %+v / %+v, out %+v / %+v\n%s", state, in.Saturation, in.Errors, out.Saturation, out.Errors, why)
	if state != "ok" {
		t.Errorf("250 msgs/s, at most 55%% of any link: verdict %s, want ok\n%s", state, why)
	}
	if d := shaperDrops(t, in.Errors); d != 0 {
		t.Errorf("at 55%% of broker 2's link its inbound shaper dropped %v packets/s, want 0", d)
	}
	if d := shaperDrops(t, out.Errors); d != 0 {
		t.Errorf("at 55%% of broker 2's link its outbound shaper dropped %v packets/s, want 0", d)
	}

	high, state, bottleneck, why := run("1000")
	in, out = useRow(t, high, "broker 2", "network in"), useRow(t, high, "broker 2", "network out")
	t.Logf("1000 msgs/s: %s, bottleneck %q; broker 2 in %+v / %+v, out %+v / %+v", state, bottleneck, in.Saturation, in.Errors, out.Saturation, out.Errors)
	for _, r := range []use.Row{in, out} {
		if r.Saturation.Metric != "shaper backlog" || r.Saturation.Drain != 500000 {
			t.Errorf("broker 2 %s saturation %+v: want the shaper's backlog drained at 500 KB/s", r.Resource, r.Saturation)
		}
	}
	if in.Saturation.Max.Or(0)+out.Saturation.Max.Or(0) == 0 {
		t.Errorf("at twice broker 2's link no backlog in either shaper")
	}
	if shaperDrops(t, in.Errors)+shaperDrops(t, out.Errors) == 0 {
		t.Errorf("at twice broker 2's link its shapers dropped nothing")
	}
	if state != "overloaded" || !strings.HasPrefix(bottleneck, "broker 2 network") || !strings.Contains(bottleneck, "the shaper dropping") {
		t.Errorf("1000 msgs/s with broker 2 at 4 Mbit/s: verdict %s, bottleneck %q; want overloaded by broker 2's network, its link losses\n%s", state, bottleneck, why)
	}
}

// useOf reads the USE table of a run's result.json.
func useOf(t *testing.T, dir string) use.Table {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		USE use.Table `json:"use"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r.USE
}

func useRow(t *testing.T, tb use.Table, entity, resource string) use.Row {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Entity == entity && r.Resource == resource {
			return r
		}
	}
	t.Fatalf("no USE row %s / %s", entity, resource)
	return use.Row{}
}

// shaperDrops is the mean shaper drops per second of a link's errors cell, alone or the first
// part of its sum with TCP retransmits; the test fails when the cell holds neither.
func shaperDrops(t *testing.T, c use.Cell) float64 {
	t.Helper()
	switch {
	case len(c.Parts) == 2:
		return c.Parts[0].Mean.Or(0)
	case c.Metric == "packets dropped by the shaper":
		return c.Mean.Or(0)
	}
	t.Fatalf("errors cell %+v holds no shaper drops", c)
	return 0
}
