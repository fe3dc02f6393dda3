package scenario

import (
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

// TestTLSCPULessJIT: the brokers' CPU per message leaves out their JIT compilers where both sides
// have the figure, and falls back to the whole CPU (a record from before the compilers were read).
func TestTLSCPULessJIT(t *testing.T) {
	whole := []compare.Figure{{Name: "CPU per message", Subject: "broker 1", A: 0.006, B: 0.005}, {Name: "CPU per message", Subject: "broker 2", A: 0.001, B: 0.001}}
	less := []compare.Figure{{Name: compare.CPUPerMessageLessJIT, Subject: "broker 1", A: 0.002, B: 0.003}, {Name: compare.CPUPerMessageLessJIT, Subject: "broker 2", A: 0.001, B: 0.002}}
	a, b, _, counted := tlsCPU(&compare.Comparison{Figures: append(append([]compare.Figure{}, whole...), less...)})
	if a != 0.003 || b != 0.005 || !strings.Contains(counted, "less their JIT compiler threads'") {
		t.Errorf("with both figures: %g, %g (%s); want 0.003 and 0.005, the JIT left out", a, b, counted)
	}
	a, b, _, counted = tlsCPU(&compare.Comparison{Figures: whole})
	if a != 0.007 || b != 0.006 || strings.Contains(counted, "JIT") {
		t.Errorf("the whole CPU only: %g, %g (%s); want 0.007 and 0.006", a, b, counted)
	}
}
