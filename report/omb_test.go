package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/omb"
)

// ombFile is the OMB export of omb's recorded run.
const ombFile = "../omb/testdata/run.omb.golden.json"

func readOMB(t *testing.T) *omb.Result {
	t.Helper()
	r, err := omb.ReadFile(ombFile)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOMBText(t *testing.T) {
	var b bytes.Buffer
	if err := OMBText(&b, "run.omb.json", readOMB(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "omb.txt", b.Bytes())
}

// TestOMBHTML: the page says the file is imported from OMB, names its workload and driver,
// shows the aggregates and draws the three charts, with nothing from the network.
func TestOMBHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteOMBHTML(&b, "run.omb.json", readOMB(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Imported from an OpenMessaging Benchmark result file", "1-topic-10-partitions-512b-2000msgs",
		"plimsoll kafka 4.1.0", "publish delay (µs)", "15,300", "Rates per 10-second window", "Latency per 10-second window",
		"Latency distribution (the whole test)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d charts, want 3", n)
	}
	if bad := externalRefs(page); len(bad) > 0 {
		t.Errorf("the page reaches outside itself: %v", bad)
	}
}

// TestCompareOMBText is compare's text for an OMB file against the run it was exported from:
// the notes say what each side is, the basis is the 10-second windows.
func TestCompareOMBText(t *testing.T) {
	a, err := compare.Load([]string{ombFile})
	if err != nil {
		t.Fatal(err)
	}
	b, err := compare.Load([]string{"../omb/testdata/run"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := compare.Compare(a, b, compare.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Compare(&out, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-omb.txt", out.Bytes())
}
