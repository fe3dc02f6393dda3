package omb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
)

// RunFile is the name an exported run's OMB file takes in the run's directory.
const RunFile = "omb-result.json"

// SearchDir is the directory, in a limit search's directory, its exported trials go to.
const SearchDir = "omb"

// ErrNoResults: a directory holds neither a run's result.json nor a search's results.jsonl.
var ErrNoResults = errors.New("neither a run's result.json nor a limit search's results.jsonl")

// File is one exported OMB file: where it goes (relative to the directory exported), its
// result and what it covers, or why the trial was left out.
type File struct {
	Name     string
	Result   *Result
	Coverage Coverage
	Trial    *results.Trial
	Skipped  error // the trial could not be exported; Result is nil
}

// ExportDir exports a run's directory (one file, RunFile) or a limit search's (one file per
// trial, in SearchDir, named by its place in the search). names overrides DefaultNames' fields
// that are set. A trial that cannot be exported (too short, its files missing) is returned with
// Skipped set; a directory of neither kind is ErrNoResults.
func ExportDir(dir string, names Names) ([]File, error) {
	if _, err := os.Stat(filepath.Join(dir, results.ResultFile)); err == nil {
		t, err := results.LoadTrialDir(dir)
		if err != nil {
			return nil, err
		}
		return []File{exportTrial(RunFile, t, dir, names)}, nil
	}
	store := filepath.Join(dir, "results.jsonl")
	if _, err := os.Stat(store); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoResults)
	}
	sf, err := results.LoadSearch(store)
	if err != nil {
		return nil, err
	}
	var out []File
	for i := range sf.Trials {
		t := &sf.Trials[i]
		name := fmt.Sprintf("trial-%d.json", i+1)
		if t.Step != nil {
			name = fmt.Sprintf("trial-%03d-%db-%.0fmsgs.json", t.Step.Seq, t.Step.Size, t.Step.Rate)
		}
		f := File{Name: filepath.Join(SearchDir, name), Trial: t}
		if t.Dir == "" {
			f.Skipped = errors.New("its files (histograms.hlog) were not written")
			out = append(out, f)
			continue
		}
		f = exportTrial(f.Name, t, filepath.Join(dir, t.Dir), names)
		out = append(out, f)
	}
	return out, nil
}

// exportTrial exports t, whose interval log is in trialDir.
func exportTrial(name string, t *results.Trial, trialDir string, names Names) File {
	f := File{Name: name, Trial: t}
	n := DefaultNames(t)
	if names.Workload != "" {
		n.Workload = names.Workload
	}
	if names.Driver != "" {
		n.Driver = names.Driver
	}
	ivs, err := readLog(filepath.Join(trialDir, results.HDRLogFile))
	if err != nil {
		f.Skipped = err
		return f
	}
	f.Result, f.Coverage, f.Skipped = Export(t, ivs, n)
	return f
}

func readLog(path string) ([]hdr.LoggedInterval, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	ivs, err := hdr.ReadIntervalLog(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ivs, nil
}

// ReadLog reads the interval log (histograms.hlog) of the trial whose files are in dir.
func ReadLog(dir string) ([]hdr.LoggedInterval, error) {
	return readLog(filepath.Join(dir, results.HDRLogFile))
}
