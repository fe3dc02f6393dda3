package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

// Files of a trial directory.
const (
	ResultFile   = "result.json"     // the Trial record, with its schema
	TimelineFile = "timeline.csv"    // one row a second
	HDRLogFile   = "histograms.hlog" // HdrHistogram interval log: publish, end-to-end, schedule delay
	ProbeFile    = "probe.json"      // every probe sample
)

// resultFile is result.json: the Trial record with the schema it was written in.
type resultFile struct {
	Schema int `json:"schema"`
	*Trial
}

// WriteTrialDir writes t into dir: timeline.csv, histograms.hlog, probe.json (when the trial
// was probed) and, last, result.json (the record), so a directory with a result.json holds the
// whole trial. Each file goes through a temporary file renamed into place; when one cannot be
// written (a full disk: ENOSPC), the files this call wrote are removed again, and dir too when
// this call made it and it is empty, so a failed write leaves nothing half-written.
func WriteTrialDir(dir string, t *Trial) (err error) {
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var written []string
	defer func() {
		if err == nil {
			return
		}
		for _, name := range written {
			os.Remove(filepath.Join(dir, name))
		}
		if statErr != nil {
			os.Remove(dir) // only when empty: never what another writer put there
		}
	}()
	for _, f := range t.files() {
		if err := create(dir, f.name, f.write); err != nil {
			return err
		}
		written = append(written, f.name)
	}
	return nil
}

// trialFile is one file of a trial's directory and how it is written.
type trialFile struct {
	name  string
	write func(*os.File) error
}

// files are the files of t's directory in the order they are written: result.json last.
func (t *Trial) files() []trialFile {
	fs := []trialFile{
		{TimelineFile, func(f *os.File) error { return t.WriteTimelineCSV(f) }},
		{HDRLogFile, func(f *os.File) error { return t.WriteHDRLog(f) }},
	}
	if t.Series != nil {
		fs = append(fs, trialFile{ProbeFile, func(f *os.File) error { return t.Series.WriteJSON(f) }})
	}
	return append(fs, trialFile{ResultFile, func(f *os.File) error { return t.writeResult(f) }})
}

// timelineKey is where result.json's timeline starts: the record's own key (two spaces in; a
// nested key has more, and a string holds no newline), its value null in a record without rows.
const timelineKey = "\n  \"timeline\": null"

// writeResult writes result.json: the record with its schema, indented by two spaces, and a
// newline. The timeline is written a row at a time (loadgen.Timeline.WriteJSON) into the rest,
// marshalled without it, so that a spilled timeline is never held whole; the bytes are those
// json.MarshalIndent writes of the whole record.
func (t *Trial) writeResult(w io.Writer) error {
	head := *t
	head.Timeline = loadgen.Timeline{}
	data, err := json.MarshalIndent(resultFile{Schema: Schema, Trial: &head}, "", "  ")
	if err != nil {
		return err
	}
	if bytes.Count(data, []byte(timelineKey)) != 1 {
		return errors.New("results: the record's JSON has no single timeline")
	}
	at := bytes.Index(data, []byte(timelineKey)) + len(timelineKey) - len("null")
	bw := bufio.NewWriter(w)
	bw.Write(data[:at])
	if err := t.Timeline.WriteJSON(bw, "  ", "  "); err != nil {
		return err
	}
	bw.Write(data[at+len("null"):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// LoadTrialDir reads a trial written by WriteTrialDir: result.json and, if present, probe.json.
// A result.json without a schema was written before schemas were recorded in it (schema 1); its
// shape is the same, so it loads. A newer schema is refused with ErrSchema.
func LoadTrialDir(dir string) (*Trial, error) {
	path := filepath.Join(dir, ResultFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (give a directory written by `plimsoll run --out`)", err)
	}
	t := &Trial{}
	rf := resultFile{Trial: t}
	if err := json.Unmarshal(data, &rf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rf.Schema > Schema {
		return nil, fmt.Errorf("%s: %w %d: written by a newer plimsoll; this one reads schema %d; upgrade plimsoll", path, ErrSchema, rf.Schema, Schema)
	}
	if data, err := os.ReadFile(filepath.Join(dir, ProbeFile)); err == nil {
		var s probe.Series
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ProbeFile), err)
		}
		t.Series = &s
		if len(t.Traffic) == 0 { // written before the record kept the brokers' traffic
			t.Traffic = t.BrokerTraffic()
		}
		if t.LinkOverhead == nil { // written before the record kept it
			if o, ok := use.LinkOverhead(t.MeasuredWindow()); ok {
				t.LinkOverhead = &o
			}
		}
	}
	return t, nil
}

// create writes a file of dir through f, via a temporary file renamed into place.
func create(dir, name string, f func(*os.File) error) error {
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	if err := errors.Join(tmp.Chmod(0o644), f(tmp), tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// WriteFileAtomic writes data to path via a temporary file renamed into place, so a reader never
// sees half a file and a failed write leaves nothing behind.
func WriteFileAtomic(path string, data []byte) error {
	return create(filepath.Dir(path), filepath.Base(path), func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}
