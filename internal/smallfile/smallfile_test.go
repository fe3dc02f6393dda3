package smallfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(path, 5); err != nil || string(data) != "12345" {
		t.Errorf("Read at the bound = %q, %v", data, err)
	}
	if _, err := Read(path, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over the bound = %v, want ErrTooLarge", err)
	}
	// A device that never ends is cut at the bound.
	if _, err := Read("/dev/zero", 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(/dev/zero) = %v, want ErrTooLarge", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(missing) = %v, want ErrNotExist", err)
	}
}
