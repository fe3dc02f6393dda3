package probe

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
	"time"
)

// DefaultSpillKeep is how many of the latest samples a spilling series holds in memory: ten
// minutes at one a second, about 2.2 MB of a 3-broker cluster's samples. Every pass over a spilled
// sample decodes it again (judging a window costs about a hundred passes: 14.6 ms a spilled
// sample against 9 µs one in memory, BenchmarkJudgeSpilled in trial), so a series spills only
// what a long run adds: the trials of a limit search and runs of up to ten minutes never do.
const DefaultSpillKeep = 600

// spill is the file a long series keeps its older samples in: one JSON object a line (a Sample
// as probe.json has it), appended as the samples leave memory and read back from the start for
// every pass over the series. The file is unlinked as soon as it is open, so it never shows in a
// directory and a crash leaves nothing behind; its space is freed when it is closed (Close, or
// the file's finalizer). Where the system refuses to unlink an open file, it is removed at Close.
type spill struct {
	f    *os.File
	path string // set when the file still has a name: removed at Close

	mu   sync.Mutex
	size int64 // bytes appended
	err  error // the first read or write error
}

// openSpill creates the spill file in dir, or in dir's nearest existing parent: a spill never
// creates a directory.
func openSpill(dir string) (*spill, error) {
	dir = existingDir(dir)
	f, err := os.CreateTemp(dir, ".plimsoll-probe-spill-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("probe: spill file: %w", err)
	}
	sp := &spill{f: f}
	if err := os.Remove(f.Name()); err != nil {
		sp.path = f.Name()
	}
	return sp, nil
}

// existingDir is dir or its nearest parent that exists.
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

// append writes x at the end of the file and returns the file's size after it.
func (sp *spill) append(x Sample) (int64, error) {
	line, err := json.Marshal(x)
	if err != nil {
		return 0, fmt.Errorf("probe: spilling a sample: %w", err)
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	n, err := sp.f.WriteAt(append(line, '\n'), sp.size)
	if err != nil {
		// A partial line is overwritten by the next append, never read: reads stop at size.
		return 0, fmt.Errorf("probe: spilling a sample: %w", err)
	}
	sp.size += int64(n)
	return sp.size, nil
}

// read yields the samples in the file's bytes [from, to), in order, each with the offset just
// after it. A read or decoding error ends the sequence and is kept for Err.
func (sp *spill) read(from, to int64) iter.Seq2[Sample, int64] {
	return decode[Sample](sp, from, to)
}

// times yields the times of the samples in [from, to), each with the offset just after its line,
// reading each line's start only (a sample's JSON begins with its start and time, as append
// writes it); a line that does not is decoded whole.
func (sp *spill) times(from, to int64) iter.Seq2[Sample, int64] {
	return func(yield func(Sample, int64) bool) {
		r := bufio.NewReaderSize(io.NewSectionReader(sp.f, from, to-from), 64<<10)
		for off := from; ; {
			head, n, err := readLine(r)
			if n == 0 {
				if err != nil && !errors.Is(err, io.EOF) {
					sp.fail(fmt.Errorf("probe: reading the spilled samples back: %w", err))
				}
				return
			}
			off += n
			x, err := timesOf(head)
			if err != nil {
				sp.fail(fmt.Errorf("probe: reading the spilled samples back: %w", err))
				return
			}
			if !yield(x, off) {
				return
			}
		}
	}
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

// timesOf reads a sample's start and time from the start of its line, or the whole line.
func timesOf(line []byte) (Sample, error) {
	var x Sample
	rest, ok := bytes.CutPrefix(line, []byte(`{"start":`))
	i := bytes.IndexByte(rest, ',')
	if ok && i > 0 {
		if tail, ok := bytes.CutPrefix(rest[i:], []byte(`,"time":`)); ok {
			if j := bytes.IndexAny(tail, ",}"); j > 0 &&
				x.Start.UnmarshalJSON(rest[:i]) == nil && x.Time.UnmarshalJSON(tail[:j]) == nil {
				return x, nil
			}
		}
	}
	var t sampleTimes
	err := json.Unmarshal(line, &t)
	return Sample{Start: t.Start, Time: t.Time}, err
}

// sampleTimes is the part of a sample's JSON that windows read.
type sampleTimes struct {
	Start time.Time `json:"start"`
	Time  time.Time `json:"time"`
}

// decode yields the JSON values in [from, to) as T, each with the offset just after it.
func decode[T any](sp *spill, from, to int64) iter.Seq2[T, int64] {
	return func(yield func(T, int64) bool) {
		dec := json.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(sp.f, from, to-from), 64<<10))
		for {
			var x T
			err := dec.Decode(&x)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				sp.fail(fmt.Errorf("probe: reading the spilled samples back: %w", err))
				return
			}
			if !yield(x, from+dec.InputOffset()) {
				return
			}
		}
	}
}

func (sp *spill) fail(err error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.err == nil {
		sp.err = err
	}
}

// Err is the first error reading the file back.
func (sp *spill) Err() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.err
}

// close closes the file (freeing its space) and removes it when it still has a name.
func (sp *spill) close() error {
	err := sp.f.Close()
	if errors.Is(err, fs.ErrClosed) {
		err = nil
	}
	if sp.path != "" {
		if rerr := os.Remove(sp.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
