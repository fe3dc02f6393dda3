package probe

import (
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/name, rewriting the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}
