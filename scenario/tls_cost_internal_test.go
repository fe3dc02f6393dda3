package scenario

import (
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
