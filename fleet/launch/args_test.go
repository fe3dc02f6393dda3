package launch

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/internal/golden"
)

func TestLinesGolden(t *testing.T) {
	search := plain()
	search.Search = true
	for name, s := range map[string]Spec{"secured": secured(), "plain": plain(), "search": search} {
		t.Run(name, func(t *testing.T) {
			lines, err := Lines(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != s.Workers {
				t.Fatalf("%d lines for %d workers", len(lines), s.Workers)
			}
			golden.Check(t, filepath.Join("testdata", name+".golden.sh"), []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}

// TestLinesNeedNoKubernetes: the shell lines use neither the image, the Secret nor the times.
func TestLinesNeedNoKubernetes(t *testing.T) {
	s := Spec{RunID: "r1", Workers: 2, Target: Target{Bootstrap: "b:9092", SASLMechanism: "plain", SASLUser: "u"}}
	lines, err := Lines(s)
	if err != nil {
		t.Fatal(err)
	}
	want := "plimsoll worker --run-id r1 --index 1 --bootstrap b:9092 --sasl-mechanism plain --sasl-user u --sasl-password-env PLIMSOLL_SASL_PASSWORD"
	if lines[1] != want {
		t.Errorf("line 1:\n got %s\nwant %s", lines[1], want)
	}
}

// odd are values a path or a user name may hold, each a trap for some way of quoting.
var odd = []string{
	"", " ", "plain", "two words", "it's", "'", "''", `"quoted"`, `back\slash`, "$HOME", "${x}",
	"`id`", "$(id)", "a;b", "a|b", "a&b", "a>b", "*", "?", "[a]", "~", "~user", "#comment",
	"new\nline", "tab\there", "!bang", "%=+@:,./-_", "-dash", "ünïcode", "{a,b}", "x=y",
}

func TestQuote(t *testing.T) {
	for _, w := range []string{"broker1:9092,broker2:9092", "/etc/kafka/ca.pem", "SCRAM-SHA-512", "--tls"} {
		if got := quote(w); got != w {
			t.Errorf("quote(%q) = %s, want it unquoted", w, got)
		}
	}
	for w, want := range map[string]string{"": "''", "it's": `'it'\''s'`, "a b": "'a b'", "$HOME": "'$HOME'"} {
		if got := quote(w); got != want {
			t.Errorf("quote(%q) = %s, want %s", w, got, want)
		}
	}
}

// TestQuoteThroughShell hands a line of every odd value to a real POSIX shell and checks it
// splits the line back into exactly the words given, expanding nothing.
func TestQuoteThroughShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	line := shellLine(odd)
	cmd := exec.Command(sh, "-c", "for w in "+line+"; do printf '%s\\0' \"$w\"; done")
	cmd.Dir = t.TempDir() // a glob that did expand would find nothing to match here anyway
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh on %s: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, odd) {
		t.Errorf("sh split %s into\n%q, want\n%q", line, got, odd)
	}
}

// TestOddPathsInLines: odd TLS paths and user names reach the shell lines quoted.
func TestOddPathsInLines(t *testing.T) {
	s := Spec{RunID: "r1", Workers: 1, Target: Target{
		Bootstrap: "b:9092", CAFile: "/keys/it's $HOME/ca.pem", SASLMechanism: "plain", SASLUser: "load tester",
	}}
	lines, err := Lines(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `plimsoll worker --run-id r1 --index 0 --bootstrap b:9092 --tls --tls-ca '/keys/it'\''s $HOME/ca.pem' --sasl-mechanism plain --sasl-user 'load tester' --sasl-password-env PLIMSOLL_SASL_PASSWORD`
	if lines[0] != want {
		t.Errorf("line:\n got %s\nwant %s", lines[0], want)
	}
	var buf bytes.Buffer
	cmd := exec.Command("sh", "-c", `for w in `+strings.TrimPrefix(lines[0], "plimsoll ")+`; do printf '%s\n' "$w"; done`)
	cmd.Stdout = &buf
	if err := cmd.Run(); err != nil {
		t.Skip("no sh to check with:", err)
	}
	if got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"); !slices.Equal(got, Args("r1", 0, s.Target)) {
		t.Errorf("sh read the line as %q, want %q", got, Args("r1", 0, s.Target))
	}
}

// TestJobAndLinesAgree: the Job's container runs what line i runs, less the index (from
// IndexEnv) and with the TLS files at their mounted paths.
func TestJobAndLinesAgree(t *testing.T) {
	s := plain()
	j, err := Job(s)
	if err != nil {
		t.Fatal(err)
	}
	c := j.Spec.Template.Spec.Containers[0]
	for i := range s.Workers {
		line := Args(s.RunID, i, s.Target)
		withoutIndex := slices.Delete(slices.Clone(line), 3, 5)
		if !slices.Equal(c.Command, []string{Command}) || !slices.Equal(c.Args, withoutIndex) {
			t.Errorf("worker %d: the Job runs %q %q, the line %q", i, c.Command, c.Args, line)
		}
	}
}

// TestSearchWorkers: the workers of a limit search follow it (FlagSearch and its id), in the
// Job's container and in every line alike, and never take a run id.
func TestSearchWorkers(t *testing.T) {
	s := plain()
	s.Search = true
	j, err := Job(s)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Lines(s)
	if err != nil {
		t.Fatal(err)
	}
	c := j.Spec.Template.Spec.Containers[0]
	want := []string{Subcommand, FlagSearch, s.RunID}
	if !slices.Equal(c.Args[:3], want) || slices.Contains(c.Args, FlagRunID) {
		t.Errorf("the Job runs %q, want it to start %q", c.Args, want)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, Command+" "+strings.Join(want, " ")+" ") || strings.Contains(l, FlagRunID) {
			t.Errorf("line %d %q, want it to start %q", i, l, want)
		}
	}
}
