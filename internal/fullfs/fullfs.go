// Package fullfs gives tests a file system that fills up: a small tmpfs mounted for the test
// (root only; the test is skipped otherwise) and filled to within a given number of bytes, so
// the next writes fail with ENOSPC as they would on a full disk.
package fullfs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes (a multiple of the page size) on a new directory and
// unmounts it when the test ends. Not root, or no mount allowed: the test is skipped.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs to fill needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes a file into dir until at most leave bytes of its file system are free (tmpfs
// counts whole pages) and returns the free bytes left.
func Fill(t testing.TB, dir string, leave int64) int64 {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, os.Getpagesize())
	for Free(t, dir) > leave {
		if _, err := f.Write(page); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	return Free(t, dir)
}

// Free is the number of bytes free on dir's file system.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// Tree lists every file under dir with its size, for before/after comparisons.
func Tree(t testing.TB, dir string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && path != dir {
			rel, _ := filepath.Rel(dir, path)
			m[rel] = fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
