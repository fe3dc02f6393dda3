// Package spill keeps the values a long run produces in a file instead of in memory: one JSON
// line a value, appended as each leaves memory and read back from the start (or from an offset
// a reader noted) for every pass over them. The file is unlinked as soon as it is open, so it
// never shows in a directory and a crash leaves nothing behind; its space is freed when it is
// closed (Close, or the file's finalizer). Where the system refuses to unlink an open file, it
// is removed at Close. Tail keeps the latest values of a sequence in memory and the earlier
// ones in a File. The probe's samples, the load generator's interval histograms and a run's
// timeline rows use it.
package spill

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sync"
)

// File holds values of type T as JSON lines.
type File[T any] struct {
	f    *os.File
	path string // set when the file still has a name: removed at Close

	mu   sync.Mutex
	size int64 // bytes appended
	err  error // the first read error
}

// Open creates a spill file in dir, or in dir's nearest existing parent (nothing is created),
// named after pattern as os.CreateTemp names files.
func Open[T any](dir, pattern string) (*File[T], error) {
	f, err := os.CreateTemp(existingDir(dir), pattern)
	if err != nil {
		return nil, fmt.Errorf("spill file: %w", err)
	}
	sf := &File[T]{f: f}
	if err := os.Remove(f.Name()); err != nil {
		sf.path = f.Name()
	}
	return sf, nil
}

// existingDir is dir or its nearest parent that exists; the temporary directory when none does.
func existingDir(dir string) string {
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return os.TempDir()
		}
		dir = up
	}
}

// Append writes v at the end of the file and returns the file's size after it. A failed write
// leaves at most a partial line past the returned sizes, which the next append overwrites.
func (sf *File[T]) Append(v T) (int64, error) {
	line, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("spilling: %w", err)
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	n, err := sf.f.WriteAt(append(line, '\n'), sf.size)
	if err != nil {
		return 0, fmt.Errorf("spilling: %w", err)
	}
	sf.size += int64(n)
	return sf.size, nil
}

// Read yields the values in the file's bytes [from, to), in order, each with the offset just
// after it. A read or decoding error ends the sequence and is kept for Err.
func (sf *File[T]) Read(from, to int64) iter.Seq2[T, int64] {
	return func(yield func(T, int64) bool) {
		dec := json.NewDecoder(sf.reader(from, to))
		for {
			var v T
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				sf.Fail(err)
				return
			}
			if !yield(v, from+dec.InputOffset()) {
				return
			}
		}
	}
}

// Lines yields the lines in [from, to) undecoded, each cut to its first 64 KiB, with the offset
// just after it: for a reader that needs only what a line begins with.
func (sf *File[T]) Lines(from, to int64) iter.Seq2[[]byte, int64] {
	return func(yield func([]byte, int64) bool) {
		r := sf.reader(from, to)
		for off := from; ; {
			head, n, err := readLine(r)
			if n == 0 {
				if err != nil && !errors.Is(err, io.EOF) {
					sf.Fail(err)
				}
				return
			}
			off += n
			if !yield(head, off) {
				return
			}
		}
	}
}

func (sf *File[T]) reader(from, to int64) *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(sf.f, from, to-from), 64<<10)
}

// readLine reads one line of r and returns its first bytes (up to r's buffer) and its length.
func readLine(r *bufio.Reader) (head []byte, n int64, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if head == nil {
			head = bytes.Clone(chunk)
		}
		n += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return head, n, err
		}
	}
}

// Fail keeps err for Err when it is the first.
func (sf *File[T]) Fail(err error) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.err == nil {
		sf.err = fmt.Errorf("reading spilled values back: %w", err)
	}
}

// Err is the first error reading the file back.
func (sf *File[T]) Err() error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.err
}

// Close closes the file (freeing its space) and removes it when it still has a name. Closing
// twice is harmless.
func (sf *File[T]) Close() error {
	err := sf.f.Close()
	if errors.Is(err, fs.ErrClosed) {
		err = nil
	}
	if sf.path != "" {
		if rerr := os.Remove(sf.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
