package loadgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/plimsoll/plimsoll/internal/spill"
)

// DefaultSpillKeep is how many of the latest seconds a spilling timeline holds in memory: ten
// minutes, as the probe's samples (probe.DefaultSpillKeep).
const DefaultSpillKeep = 600

// Timeline is a run's seconds in order, one row a second: result.json's "timeline" (an array
// of Second, as a []Second has it) and timeline.csv.
//
// Over a long run its memory stays flat when it spills (SpillTo, which Run does when
// Options.SpillDir is set): beyond the latest DefaultSpillKeep rows, each is appended to a spill
// file (internal/spill) as it leaves memory. Read the rows through All and Len, which see both;
// a Timeline read back from JSON holds its rows in memory.
type Timeline struct {
	rows spill.Tail[Second]
	// edits are applied, in order, to every row as All yields it (Edit).
	edits []func(*Second)
}

// TimelineOf is a timeline holding rows in memory (nil rows write as JSON null, as a nil slice).
func TimelineOf(rows ...Second) Timeline {
	var tl Timeline
	tl.rows.Held = rows
	return tl
}

// SpillTo makes the timeline spill its rows beyond the latest keep (DefaultSpillKeep when 0)
// to a file in dir, or in dir's nearest existing parent; the file has no name there and goes
// with Close.
func (tl *Timeline) SpillTo(dir string, keep int) {
	if keep <= 0 {
		keep = DefaultSpillKeep
	}
	tl.rows.Dir, tl.rows.Keep, tl.rows.Pattern = dir, keep, ".plimsoll-timeline-spill-*.jsonl"
}

// Add appends a second. When the spill cannot be written, the row is held in memory, as every
// later one is, and the error returned once.
func (tl *Timeline) Add(s Second) error {
	if err := tl.rows.Add(s); err != nil {
		return fmt.Errorf("timeline: %w: the rows from then on are held in memory", err)
	}
	return nil
}

// All yields every second in order, with the edits applied: the spilled ones read back, then
// those held. A spill that cannot be read back ends the spilled part early; Err says so.
func (tl *Timeline) All() iter.Seq[Second] {
	return func(yield func(Second) bool) {
		for s := range tl.rows.All() {
			for _, f := range tl.edits {
				f(&s)
			}
			if !yield(s) {
				return
			}
		}
	}
}

// Len is the number of seconds All yields.
func (tl *Timeline) Len() int { return tl.rows.Len() }

// Spilled is the number of seconds in the spill file rather than in memory.
func (tl *Timeline) Spilled() int { return tl.rows.Spilled() }

// Edit applies f to every second All yields, after the edits before it: a row is kept as
// recorded (in memory or in the spill file) and edited each time it is read, so f must give
// the same result for the same row each time.
func (tl *Timeline) Edit(f func(*Second)) { tl.edits = append(tl.edits, f) }

// Err is the first error reading the spilled seconds back.
func (tl *Timeline) Err() error { return tl.rows.Err() }

// Close releases the spill file, if any; afterwards All yields only the rows held.
func (tl *Timeline) Close() error { return tl.rows.Close() }

// MarshalJSON writes the timeline as the array of its seconds (null or [] without any, as the
// slice it was made from). It holds the whole array in memory: WriteJSON streams it.
func (tl Timeline) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := tl.WriteJSON(&buf, "", ""); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the array of seconds into memory.
func (tl *Timeline) UnmarshalJSON(data []byte) error {
	var rows []Second
	if err := json.Unmarshal(data, &rows); err != nil {
		return err
	}
	*tl = TimelineOf(rows...)
	return nil
}

// WriteJSON writes the timeline as json.MarshalIndent writes a []Second of its rows at the
// given prefix and indent (the array's first line unprefixed, as a value after its key), one
// row at a time. With an empty indent it writes the compact form without escaping HTML
// characters (the form MarshalJSON hands an encoder, which escapes them as it is set to).
func (tl *Timeline) WriteJSON(w io.Writer, prefix, indent string) error {
	if tl.Len() == 0 {
		data, err := encode(tl.rows.Held, prefix, indent)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	bw := bufio.NewWriter(w)
	sep, open, end := ",", "[", "]"
	if indent != "" {
		sep, open, end = ",\n"+prefix+indent, "[\n"+prefix+indent, "\n"+prefix+"]"
	}
	bw.WriteString(open)
	first := true
	for s := range tl.All() {
		data, err := encode(s, prefix+indent, indent)
		if err != nil {
			return err
		}
		if !first {
			bw.WriteString(sep)
		}
		first = false
		bw.Write(data)
	}
	bw.WriteString(end)
	return errors.Join(bw.Flush(), tl.Err())
}

// encode is v as json.MarshalIndent writes it, or compact and without HTML escaping when indent
// is empty.
func encode(v any, prefix, indent string) ([]byte, error) {
	if indent != "" {
		return json.MarshalIndent(v, prefix, indent)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
