package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
)

// Kind is what a side holds: runs or limit searches.
type Kind string

// The kinds of result compare reads.
const (
	KindRun    Kind = "run"    // a `plimsoll run --out` directory: result.json
	KindSearch Kind = "search" // a limit search: its directory with results.jsonl, or the file
)

func (k Kind) plural() string {
	switch k {
	case KindSearch:
		return "limit searches"
	case KindOMB:
		return "OMB result files"
	}
	return "runs"
}

// SearchFile is the results file of a limit search in its directory.
const SearchFile = "results.jsonl"

// Errors Load returns, wrapped with the location.
var (
	ErrMissing  = errors.New("no such file or directory")
	ErrNotKnown = errors.New("neither a run (result.json), a limit search (results.jsonl) nor an OMB result file (.json)")
	ErrMixed    = errors.New("runs and limit searches mixed")
)

// Side is one side of a comparison: its repetitions, all runs or all searches.
type Side struct {
	Locations []string // as given
	Kind      Kind
	Runs      []*results.Trial      // KindRun
	Searches  []*results.SearchFile // KindSearch
	OMB       []*omb.Result         // KindOMB
	Notes     []Note                // what a reader should know of its repetitions
}

// Note is something about one repetition that weakens what its figures say.
type Note struct {
	Location string `json:"location"`
	What     string `json:"what"`             // NoteInterrupted, NoteInvalid or NoteTornTail
	Detail   string `json:"detail,omitempty"` // the verdict's state or the results file's warning
}

// The notes Load makes.
const (
	NoteInterrupted = "interrupted" // the run was interrupted before its window ended
	NoteInvalid     = "invalid"     // the run's verdict was invalid: its figures may measure the load generator
	NoteTornTail    = "torn-tail"   // the search's results file ended in a torn line, skipped
	NoteHostShared  = "host-shared" // other processes used more than MaxOtherShare of the run's host
)

// MaxOtherShare is the share of its host's cores that processes other than the brokers and
// plimsoll may use, on average over a run's measured window, before the run is noted
// (NoteHostShared): they compete with what the run measures, and CPU per message most of all.
// Measured in tls-cost's full mode (one broker, 100 KiB at 100 msgs/s, 2 cores): 20 quiet
// repetitions had -0.03 to 0.08 cores of other work; 4 beside another engineer's compiling had
// 0.23 to 0.98, and their brokers' CPU per message read 20-29% above the mean of the quiet ones
// of the same arm and run (0.05 of 2 cores is 0.1).
const MaxOtherShare = 0.05

// Reps is the number of repetitions the side holds.
func (s Side) Reps() int { return len(s.Locations) }

// Load reads one side: each location is a run's directory, a search's directory or a search's
// results file. Every location must be of the same kind.
func Load(locations []string) (Side, error) {
	var s Side
	if len(locations) == 0 {
		return s, errors.New("no result location given")
	}
	for _, loc := range locations {
		k, err := s.add(loc)
		if err != nil {
			return Side{}, err
		}
		if s.Kind != "" && k != s.Kind {
			return Side{}, fmt.Errorf("%s is a %s, %s a %s: %w", loc, k, locations[0], s.Kind, ErrMixed)
		}
		s.Kind = k
		s.Locations = append(s.Locations, loc)
	}
	return s, nil
}

// add loads one location and reports its kind.
func (s *Side) add(loc string) (Kind, error) {
	fi, err := os.Stat(loc)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", loc, ErrMissing)
		}
		return "", err
	}
	search := loc
	if !fi.IsDir() && filepath.Ext(loc) == ".json" {
		r, err := omb.ReadFile(loc)
		if err != nil {
			return "", fmt.Errorf("%w (%w)", err, ErrNotKnown)
		}
		s.OMB = append(s.OMB, r)
		s.Notes = append(s.Notes, Note{Location: loc, What: NoteOMB})
		return KindOMB, nil
	}
	if fi.IsDir() {
		if exists(filepath.Join(loc, results.ResultFile)) {
			t, err := results.LoadTrialDir(loc)
			if err != nil {
				return "", err
			}
			s.Runs = append(s.Runs, t)
			s.noteRun(loc, t)
			return KindRun, nil
		}
		search = filepath.Join(loc, SearchFile)
		if !exists(search) {
			return "", fmt.Errorf("%s: %w", loc, ErrNotKnown)
		}
	}
	sf, err := results.LoadSearch(search)
	if errors.Is(err, results.ErrNoSearch) {
		return "", fmt.Errorf("%s: %w", loc, ErrNotKnown)
	}
	if err != nil {
		return "", err
	}
	s.Searches = append(s.Searches, sf)
	for _, w := range sf.Warnings {
		s.Notes = append(s.Notes, Note{Location: loc, What: NoteTornTail, Detail: w.String()})
	}
	return KindSearch, nil
}

func (s *Side) noteRun(loc string, t *results.Trial) {
	if others, cores, ok := otherCores(t); ok && others > MaxOtherShare*cores {
		s.Notes = append(s.Notes, Note{Location: loc, What: NoteHostShared,
			Detail: fmt.Sprintf("%.2f of the host's %g cores over the window (%g allowed)", others, cores, MaxOtherShare*cores)})
	}
	if t.Interrupted {
		s.Notes = append(s.Notes, Note{Location: loc, What: NoteInterrupted})
	}
	if t.Verdict.State == verdict.Invalid {
		var why []string
		for _, r := range t.Verdict.Reasons {
			why = append(why, r.Criterion)
		}
		s.Notes = append(s.Notes, Note{Location: loc, What: NoteInvalid, Detail: strings.Join(why, ", ")})
	}
}

// otherCores is what the run's host spent on processes other than the brokers and plimsoll
// over the measured window (its busy cores less theirs, from the USE table and Trial.CPU), and
// its cores; ok is false without those figures.
func otherCores(t *results.Trial) (others, cores float64, ok bool) {
	cores = float64(t.Config.NumCPU)
	if t.USE == nil || len(t.CPU) == 0 || cores == 0 {
		return 0, 0, false
	}
	r, ok := t.USE.HostCPU()
	if !ok || r.Amount.Unit != use.UnitCores || r.Amount.Blank() {
		return 0, 0, false
	}
	others = float64(r.Amount.Mean)
	for _, c := range t.CPU {
		others -= c
	}
	return others, cores, true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
