package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Writer appends records to one results file. It is not safe for concurrent use; plimsoll has
// one writer per file.
type Writer struct {
	f        *os.File
	name     string
	now      func() time.Time
	repaired int64
	buf      bytes.Buffer
}

// Option configures a Writer.
type Option func(*Writer)

// WithClock sets the clock that stamps each record's time (default time.Now, in UTC). Tests use
// it to write reproducible files.
func WithClock(now func() time.Time) Option { return func(w *Writer) { w.now = now } }

// Open opens (creating it and its directory if needed) the results file at path for appending.
// If the file ends in a torn line, Open completes it with a newline when it is a whole record and
// otherwise cuts it off; Repaired reports how many bytes were cut.
func Open(path string, opts ...Option) (*Writer, error) {
	w := &Writer{name: path, now: func() time.Time { return time.Now().UTC() }}
	for _, o := range opts {
		o(w)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	w.f = f
	if created {
		// Make the new directory entry durable too, or a crash could lose the whole file.
		syncDir(dir)
	}
	if err := w.repair(); err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return w, nil
}

// Repaired is the number of bytes of a torn last line that Open cut off (0 when none).
func (w *Writer) Repaired() int64 { return w.repaired }

// Name is the path the Writer appends to.
func (w *Writer) Name() string { return w.name }

// Append writes one record of the given kind and id with v, marshalled to JSON, as its Data
// (nothing when v is nil; a json.RawMessage is stored as is). The line goes out in one write and
// is fsynced before Append returns, so a record Append returned for survives a kill or a crash.
func (w *Writer) Append(kind, id string, v any) error {
	if kind == "" {
		return errors.New("results: Append: kind must not be empty")
	}
	rec := Record{Kind: kind, Schema: Schema, Time: w.now(), ID: id}
	if v != nil {
		data, err := marshal(v)
		if err != nil {
			return fmt.Errorf("results: %s record %q: %w", kind, id, err)
		}
		rec.Data = data
	}
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false) // keep "<" readable in verdict reasons
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("results: %s record %q: %w", kind, id, err)
	}
	if err := w.write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("results: %s: %w", w.name, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("results: %s: fsync: %w", w.name, err)
	}
	return nil
}

// write appends line; when it fails part-way (a full disk: ENOSPC), the part written is cut off
// again, so the file still ends with a whole record and the next Append starts a line of its own.
func (w *Writer) write(line []byte) error {
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	if _, err := w.f.Write(line); err != nil {
		return errors.Join(err, w.f.Truncate(st.Size()))
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Append opens the results file at path, appends one record and closes it: the simplest way to
// add a record when records are far apart (a trial takes seconds; an open costs microseconds).
func Append(path, kind, id string, v any) error {
	w, err := Open(path)
	if err != nil {
		return err
	}
	if err := w.Append(kind, id, v); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func marshal(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, errors.New("data is not valid JSON")
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// repair finds the bytes after the last newline. A whole record there (only its newline was
// lost) gets its newline; anything else is what a kill left of a line and is cut off, so the
// next record starts on a line of its own.
func (w *Writer) repair() error {
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	const chunk = 64 << 10
	var tail []byte // bytes after the last newline, in order
	buf := make([]byte, chunk)
	end := size
	lineStart := int64(0)
	for end > 0 {
		n := min(int64(chunk), end)
		if _, err := w.f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			lineStart = end - n + int64(i) + 1
			tail = append(append([]byte(nil), buf[i+1:n]...), tail...)
			break
		}
		tail = append(append([]byte(nil), buf[:n]...), tail...)
		end -= n
	}
	if len(tail) == 0 {
		return nil
	}
	if trimmed := bytes.TrimSpace(tail); len(trimmed) == 0 {
		// Whitespace only: harmless to Load, but keep lines clean.
	} else if _, perr := parseLine(trimmed); perr == nil {
		if _, err := w.f.Write([]byte{'\n'}); err != nil {
			return err
		}
		return w.f.Sync()
	} else if errors.Is(perr, ErrSchema) {
		return fmt.Errorf("last line: %w", perr) // a newer plimsoll's record: not ours to cut
	}
	if err := w.f.Truncate(lineStart); err != nil {
		return err
	}
	w.repaired = size - lineStart
	return w.f.Sync()
}

// syncDir fsyncs a directory; failures are ignored because some filesystems do not support it
// and the file itself is fsynced on every append anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
