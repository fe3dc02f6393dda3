package scenario

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/compare"
)

// TestSharedHost: the CPU ratio's finding names the repetitions compare noted as run beside
// other processes' work, and says nothing when none was.
func TestSharedHost(t *testing.T) {
	c := &compare.Comparison{A: []string{"/o/run-ssl/a-1", "/o/run-ssl/a-2"}, B: []string{"/o/run-ssl/b-1", "/o/run-ssl/b-2"},
		Notes: []compare.Note{{Location: "/o/run-ssl/b-2", What: compare.NoteHostShared, Detail: "0.68 of the host's 2 cores"},
			{Location: "/o/run-ssl/a-1", What: compare.NoteInterrupted}}}
	got := sharedHost(c)
	if want := "; 1 repetition of 4 ran beside other processes' work (more than 5.0% of the host's cores: b-2), which this ratio includes: run again on a quiet host"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c.Notes = c.Notes[1:]
	if got := sharedHost(c); got != "" {
		t.Errorf("without a shared-host note: %q", got)
	}
}

// TestTLSCPU: the brokers' CPU per message counts their user CPU less their JIT compilers' where
// both sides have it, else their CPU less JIT (a record from before user time was kept), else the
// whole CPU (from before the compilers were read); beside a user-CPU ratio, the ratio with the
// system time counted as well.
func TestTLSCPU(t *testing.T) {
	fig := func(name string, a1, b1, a2, b2 float64) []compare.Figure {
		return []compare.Figure{{Name: name, Subject: "broker 1", A: a1, B: b1}, {Name: name, Subject: "broker 2", A: a2, B: b2}}
	}
	whole := fig("CPU per message", 0.006, 0.005, 0.001, 0.001)
	less := fig(compare.CPUPerMessageLessJIT, 0.002, 0.003, 0.002, 0.001)
	user := fig(compare.UserCPUPerMessageLessJIT, 0.001, 0.002, 0.001, 0.002)
	for _, c := range []struct {
		name        string
		figs        [][]compare.Figure
		a, b        float64
		counted     string  // a part of what tlsCPU says it counted
		systemRatio float64 // the finding beside it; 0: none
	}{
		{"user CPU less JIT first", [][]compare.Figure{whole, less, user}, 0.002, 0.004, "user CPU less their JIT", 1},
		{"CPU less JIT without user time", [][]compare.Figure{whole, less}, 0.004, 0.004, "CPU less their JIT", 0},
		{"the whole CPU without the compilers", [][]compare.Figure{whole}, 0.007, 0.006, "the brokers' CPU over", 0},
		{"nothing", nil, 0, 0, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := &compare.Comparison{Figures: slices.Concat(c.figs...)}
			a, b, _, counted := tlsCPU(cmp)
			if math.Abs(a-c.a) > 1e-12 || math.Abs(b-c.b) > 1e-12 || !strings.Contains(counted, c.counted) {
				t.Errorf("%g, %g (%s); want %g and %g (%s)", a, b, counted, c.a, c.b, c.counted)
			}
			fs := tlsSystemToo(cmp, "SASL_SSL")
			switch {
			case c.systemRatio == 0 && len(fs) > 0:
				t.Errorf("the ratio with system time: %+v, want none", fs)
			case c.systemRatio > 0 && (len(fs) != 1 || math.Abs(fs[0].Value-c.systemRatio) > 1e-12 || fs[0].Name != "broker CPU per message with system time, SASL_SSL / PLAINTEXT"):
				t.Errorf("the ratio with system time: %+v, want %g", fs, c.systemRatio)
			}
		})
	}
}
