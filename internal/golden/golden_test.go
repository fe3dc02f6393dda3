package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.failed = f; panic(r) }
func (r *recorder) Fatal(a ...any)            { r.failed = "fatal"; panic(r) }

func check(t *testing.T, path string, got []byte) (failed string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	Check(r, path, got)
	return ""
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := check(t, path, []byte("a\nb\n")); f != "" {
		t.Errorf("equal contents failed: %s", f)
	}
	if f := check(t, path, []byte("a\nc\n")); f == "" {
		t.Error("a difference passed")
	}
	if f := check(t, filepath.Join(t.TempDir(), "missing"), []byte("a")); f == "" {
		t.Error("a missing golden file passed")
	}
}
