package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkOut checks, before anything is measured, that --out can be written: an existing
// directory that takes a new file, or a path whose nearest existing parent is such a directory
// (the command creates the rest). It creates nothing it leaves behind: the probe file it writes
// is removed at once. Finding out only when the results are written would throw a run away.
func checkOut(dir string) error {
	if dir == "" {
		return nil
	}
	probe := dir
	for {
		st, err := os.Stat(probe)
		switch {
		case err == nil && !st.IsDir():
			return usageErrf("--out %s: %s is a file, not a directory; give a directory (it is created if missing)", dir, probe)
		case err == nil:
			return writable(dir, probe)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return usageErrf("--out %s: %v; give a directory you can write", dir, err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return usageErrf("--out %s: no parent directory exists", dir)
		}
		probe = parent
	}
}

// writable creates and removes a file in existing, the directory where dir's writing begins.
func writable(dir, existing string) error {
	f, err := os.CreateTemp(existing, ".plimsoll-out-check-*")
	if err != nil {
		return usageErrf("--out %s: cannot write in %s (%v); give a directory you can write", dir, existing, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// fullErr names a full --out (ENOSPC) as the reason err failed, with what was kept and the fix;
// any other err is returned as it is. kept says what of the command's work is still there.
func fullErr(out string, err error, kept, fix string) error {
	if out == "" || !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	return withHint(&fullError{msg: fmt.Sprintf("--out %s: no space left on device (ENOSPC): %s", out, kept), err: err},
		fmt.Sprintf("free space on the file system of %s (df -h %s), then %s", out, out, fix))
}

// fullError is a full --out: its own message, the write that failed beneath it.
type fullError struct {
	msg string
	err error
}

func (e *fullError) Error() string { return e.msg }
func (e *fullError) Unwrap() error { return e.err }
