package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plimsoll/plimsoll/internal/fullfs"
)

// TestWriteTrialDirFull: on a file system that fills up part-way through a trial's files,
// WriteTrialDir fails with ENOSPC and leaves nothing: no result.json, no file of the trial, no
// temporary file, not the directory it made; with room, the same trial is written whole.
func TestWriteTrialDirFull(t *testing.T) {
	tr, err := LoadTrialDir(filepath.Join("testdata", "schema1", "run"))
	if err != nil {
		t.Fatal(err)
	}
	need := pagedSize(t, tr) // room for every file but the last page of result.json, written last
	fs := fullfs.Mount(t, 1<<20)
	for _, leave := range []int64{0, 4 << 10, need - 4<<10} {
		free := fullfs.Fill(t, fs, leave)
		dir := filepath.Join(fs, "run")
		err := WriteTrialDir(dir, tr)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%d bytes free: WriteTrialDir = %v, want ENOSPC", free, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%d bytes free: %s left behind: %v", free, dir, fullfs.Tree(t, fs))
		}
		if got := fullfs.Tree(t, fs); len(got) != 1 {
			t.Errorf("%d bytes free: files left: %v", free, got)
		}
		os.Remove(filepath.Join(fs, "filler"))
	}
	if err := WriteTrialDir(filepath.Join(fs, "run"), tr); err != nil {
		t.Fatalf("with room: %v", err)
	}
}

// TestAppendFull: an Append that runs out of space part-way through its line cuts the part it
// wrote, so the file still holds whole records only; once there is room the next Append lands
// on a line of its own and the file loads.
func TestAppendFull(t *testing.T) {
	fs := fullfs.Mount(t, 256<<10)
	path := filepath.Join(fs, "results.jsonl")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(KindSearch, "", Search{Sizes: []int{100}}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	fullfs.Fill(t, fs, 4<<10) // room for part of the next line
	big := Trial{KafkaVersion: strings.Repeat("x", 64<<10), Step: &Step{Seq: 1, Size: 100, Rate: 1}}
	if err := w.Append(KindTrial, "", big); !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Append on a full disk = %v, want ENOSPC naming %s", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("a failed Append left %d bytes (was %d)", len(after), len(before))
	}
	os.Remove(filepath.Join(fs, "filler"))
	small := Trial{KafkaVersion: "4.1.0", Step: &Step{Seq: 1, Size: 100, Rate: 1}}
	if err := w.Append(KindTrial, "", small); err != nil {
		t.Fatal(err)
	}
	sf, err := LoadSearch(path)
	if err != nil || len(sf.Trials) != 1 {
		t.Fatalf("LoadSearch after the full disk: %v", err)
	}
	if w2, err := Open(path); err != nil || w2.Repaired() != 0 {
		t.Errorf("reopened: %v, repaired %d bytes", err, w2.Repaired())
	}
}

// pagedSize is the room tr's directory takes on a tmpfs: its files' sizes in whole pages.
func pagedSize(t *testing.T, tr *Trial) int64 {
	dir := t.TempDir()
	if err := WriteTrialDir(dir, tr); err != nil {
		t.Fatal(err)
	}
	page, n := int64(os.Getpagesize()), int64(0)
	for _, size := range fullfs.Tree(t, dir) {
		n += (size + page - 1) / page * page
	}
	return n
}
