package scenario

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// replay is a fake Exec that answers each plimsoll command by copying a recorded output into its
// --out directory: pick names the recorded file (testdata path) for a command line, and dest the
// file's name in --out. It keeps every command line it was given.
type replay struct {
	t    *testing.T
	pick func(args []string) (src, dest string)
	seen [][]string
}

func (r *replay) exec(_ context.Context, args ...string) (int, error) {
	r.seen = append(r.seen, args)
	out := flagOf(args, "--out")
	if out == "" {
		return 0, nil
	}
	src, dest := r.pick(args)
	data, err := os.ReadFile(src)
	if err != nil {
		r.t.Fatalf("replay of %v: %v", args, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, dest), data, 0o644); err != nil {
		r.t.Fatal(err)
	}
	return 0, nil
}

// flagOf is the value after flag in args, or "".
func flagOf(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func replayEnv(t *testing.T, clusterDir string, r *replay) *Env {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return &Env{Out: t.TempDir(), Mode: Short, ClusterDir: clusterDir, Log: io.Discard, Exec: r.exec,
		Now: func() time.Time { at = at.Add(time.Second); return at }}
}
