package loadgen

import (
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"path/filepath"
	"testing"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}
