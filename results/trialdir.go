package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// WriteTrialDir writes t into dir: result.json (the record), timeline.csv, histograms.hlog and,
// when the trial was probed, probe.json.
func WriteTrialDir(dir string, t *Trial) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(resultFile{Schema: Schema, Trial: t}, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, ResultFile), append(data, '\n')); err != nil {
		return err
	}
	if err := create(dir, TimelineFile, func(f *os.File) error { return t.WriteTimelineCSV(f) }); err != nil {
		return err
	}
	if err := create(dir, HDRLogFile, func(f *os.File) error { return t.WriteHDRLog(f) }); err != nil {
		return err
	}
	if t.Series == nil {
		return nil
	}
	return create(dir, ProbeFile, func(f *os.File) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", " ")
		return enc.Encode(t.Series)
	})
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
