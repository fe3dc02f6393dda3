package fault

import (
	"errors"
	"testing"
)

// FuzzParse: Parse never panics, every error is an ErrSpec, and what it accepts prints back
// (String) to a spec that parses to the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"kill 2 at 20s for 15s", "stop 3 at 1m for 500ms", "cut 1 at 0s for 1s",
		"pause 2 at 20s for 10s", "kill 2 at 20s", "kill 2 at 2562047h for 2562047h", "kill 99999999999 at 1s for 1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("Parse(%q): %v is not an ErrSpec", in, err)
			}
			return
		}
		if s.For <= 0 || s.At < 0 || s.End() < s.At {
			t.Fatalf("Parse(%q) accepted %+v", in, s)
		}
		again, err := Parse(s.String())
		if err != nil || again != s {
			t.Fatalf("Parse(%q) = %+v; its String %q parses to %+v, %v", in, s, s.String(), again, err)
		}
	})
}
