package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// LineError is a line of a results file that is not a valid record. It wraps ErrCorrupt or
// ErrSchema.
type LineError struct {
	File string // the name given to Load or Read
	Line int    // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// Warning is a problem Load worked around: a torn last line, left by a write that a kill or a
// crash interrupted, which Load skips.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// Load reads every record of the results file at path, in file order. A torn last line (no
// newline, not a valid record) is skipped and reported as a Warning; any other line that is not a
// valid record is an error (*LineError) naming the file and line. A missing file is an error that
// wraps os.ErrNotExist.
func Load(path string) ([]Record, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// Read is Load from any reader; name is used in errors and warnings.
func Read(r io.Reader, name string) ([]Record, []Warning, error) {
	var (
		recs  []Record
		warns []Warning
		br    = bufio.NewReaderSize(r, 64<<10)
	)
	for n := 1; ; n++ {
		// ReadBytes, not a Scanner: a trial with full histograms can exceed any fixed line cap.
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return recs, warns, fmt.Errorf("results: %s:%d: %w", name, n, rerr)
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			rec, perr := parseLine(trimmed)
			switch {
			case perr == nil:
				rec.Pos = fmt.Sprintf("%s:%d", name, n)
				recs = append(recs, rec)
			case !complete && !errors.Is(perr, ErrSchema):
				warns = append(warns, Warning{File: name, Line: n,
					Msg: fmt.Sprintf("skipped a torn last line (%d bytes, an interrupted write): %v", len(line), perr)})
			default:
				return recs, warns, &LineError{File: name, Line: n, Err: perr}
			}
		}
		if rerr != nil { // io.EOF
			return recs, warns, nil
		}
	}
}

// parseLine decodes and checks one line without its newline.
func parseLine(line []byte) (Record, error) {
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := rec.validate(); err != nil {
		return Record{}, err
	}
	return rec, nil
}
