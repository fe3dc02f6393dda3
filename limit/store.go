package limit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"

	"github.com/plimsoll/plimsoll/results"
)

// Errors about the results file, for errors.Is.
var (
	// ErrStoreInUse: Store already holds a search and Resume is off.
	ErrStoreInUse = errors.New("results file already holds a limit search")
	// ErrResumeMismatch: the options differ from those the stored search ran with.
	ErrResumeMismatch = errors.New("options differ from the stored search")
)

// MismatchError names the option that differs between a resume and the stored search.
type MismatchError struct {
	Store  string // the results file
	Option string // the Options field, or "Config.<key>"
	Stored string // its value in the file
	Now    string // its value now
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("limit: cannot resume %s: %s was %s, now %s; resume with the same options, or start a new search with another results file",
		e.Store, e.Option, e.Stored, e.Now)
}

// Unwrap lets errors.Is find ErrResumeMismatch.
func (e *MismatchError) Unwrap() error { return ErrResumeMismatch }

// header is the first record of a search (kind "search"): everything that determines which
// trials it runs.
type header results.Search

func newHeader(o Options, starts []float64) header {
	h := header{Sizes: o.Sizes, Tolerance: o.Tolerance, MinRate: o.MinRate, MaxRate: o.MaxRate,
		Growth: o.Growth, MaxTrialsPerSize: o.MaxTrialsPerSize, FirstStep: o.FirstStep, SLO: o.SLO, Confirm: o.Confirm,
		MaxHolds: o.MaxHolds, Config: o.Config}
	for _, s := range starts {
		h.Starts = append(h.Starts, storedRate(s))
	}
	return h
}

// diff returns the first option in which h (now) differs from stored, or nil.
func (h header) diff(stored header, store string) error {
	mis := func(option string, was, now any) error {
		return &MismatchError{Store: store, Option: option, Stored: fmt.Sprint(was), Now: fmt.Sprint(now)}
	}
	switch {
	case !slices.Equal(h.Sizes, stored.Sizes):
		return mis("Sizes", stored.Sizes, h.Sizes)
	case !sameRate(h.Tolerance, stored.Tolerance):
		return mis("Tolerance", stored.Tolerance, h.Tolerance)
	case !sameRate(h.MinRate, stored.MinRate):
		return mis("MinRate", stored.MinRate, h.MinRate)
	case !sameRate(h.MaxRate, stored.MaxRate):
		return mis("MaxRate", stored.MaxRate, h.MaxRate)
	case !sameRate(h.Growth, stored.Growth):
		return mis("Growth", stored.Growth, h.Growth)
	case h.MaxTrialsPerSize != stored.MaxTrialsPerSize:
		return mis("MaxTrialsPerSize", stored.MaxTrialsPerSize, h.MaxTrialsPerSize)
	case !sameRate(h.FirstStep, stored.FirstStep):
		return mis("FirstStep", stored.FirstStep, h.FirstStep)
	case h.SLO != stored.SLO:
		return mis("SLO", stored.SLO, h.SLO)
	case h.Confirm != stored.Confirm || h.MaxHolds != stored.MaxHolds:
		return mis("Confirm", fmt.Sprint(stored.Confirm, stored.MaxHolds), fmt.Sprint(h.Confirm, h.MaxHolds))
	case (h.Starts == nil) != (stored.Starts == nil):
		return mis("Start", startsText(stored.Starts), startsText(h.Starts))
	}
	for i := range h.Starts {
		if !sameRate(h.Starts[i], stored.Starts[i]) {
			return mis(fmt.Sprintf("Start(%d)", h.Sizes[i]), stored.Starts[i], h.Starts[i])
		}
	}
	now, was := configJSON(h.Config), configJSON(stored.Config)
	if !bytes.Equal(now, was) {
		return mis(configDiff(was, now), string(was), string(now))
	}
	return nil
}

// configJSON is c as compact JSON, the form in which configurations are compared.
func configJSON(c *results.Config) json.RawMessage {
	if c == nil {
		return nil
	}
	b, _ := json.Marshal(c)
	return b
}

func startsText(s []float64) string {
	if s == nil {
		return "nil (derived from the previous size)"
	}
	return fmt.Sprint(s)
}

// configDiff names the first top-level key in which two JSON objects differ, as "Config.key",
// or just "Config" when they are not both objects.
func configDiff(a, b json.RawMessage) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "Config"
	}
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		va, oka := ma[k]
		vb, okb := mb[k]
		if oka != okb || !bytes.Equal(compact(va), compact(vb)) {
			return "Config." + k
		}
	}
	return "Config"
}

func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// Rates are stored to 9 significant digits: exact enough to tell any two rates a search asks
// for apart (they differ by at least Tolerance/2 relative), short enough to read.
func storedRate(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 9, 64), 64)
	return v
}

// sameRate compares a rate with a stored one: equal within 1e-8 relative, well above the
// rounding of storedRate and far below any step of the search.
func sameRate(a, b float64) bool {
	return math.Abs(a-b) <= 1e-8*math.Max(math.Abs(a), math.Abs(b))
}

// store is the search's view of its results file: the writer and, on resume, the trials it may
// reuse.
type store struct {
	w          *results.Writer
	done       map[int][]*storedTrial // by size, in file order
	boundaries map[int]bool           // sizes with a boundary record already
}

type storedTrial struct {
	*results.Trial
	used bool
}

// openStore loads the results file, checks or writes the header and opens it for appending.
func openStore(o Options, starts []float64) (*store, error) {
	s := &store{done: map[int][]*storedTrial{}, boundaries: map[int]bool{}}
	if o.Store == "" {
		return s, nil
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	recs, warns, err := results.Load(o.Store)
	switch {
	case errors.Is(err, os.ErrNotExist):
		recs = nil
	case err != nil:
		return nil, fmt.Errorf("limit: %w", err)
	}
	for _, w := range warns {
		logf("%s", w)
	}
	h := newHeader(o, starts)
	headers := results.Filter(recs, results.KindSearch)
	switch {
	case len(headers) > 0 && !o.Resume:
		return nil, fmt.Errorf("limit: %s: %w; resume it, or write to another file", o.Store, ErrStoreInUse)
	case len(headers) > 1:
		return nil, fmt.Errorf("limit: %s: %w: it holds %d searches (%s and %s); resume needs one", o.Store, results.ErrCorrupt, len(headers), headers[0].Pos, headers[1].Pos)
	case len(headers) == 1:
		stored, err := results.Decode[header](headers[0], results.KindSearch)
		if err != nil {
			return nil, fmt.Errorf("limit: %w", err)
		}
		if err := h.diff(stored, o.Store); err != nil {
			return nil, err
		}
		if err := s.index(recs); err != nil {
			return nil, err
		}
	case o.Resume:
		logf("%s holds no search to resume; starting a new one", o.Store)
	}
	if s.w, err = results.Open(o.Store); err != nil {
		return nil, fmt.Errorf("limit: %w", err)
	}
	if n := s.w.Repaired(); n > 0 {
		logf("%s: cut a torn last line of %d bytes (an interrupted write)", o.Store, n)
	}
	if len(headers) == 0 {
		if err := s.w.Append(results.KindSearch, "", h); err != nil {
			s.w.Close()
			return nil, fmt.Errorf("limit: %w", err)
		}
	}
	return s, nil
}

func (s *store) index(recs []results.Record) error {
	for _, r := range recs {
		switch r.Kind {
		case results.KindTrial:
			t, err := results.Decode[results.Trial](r, r.Kind)
			if err != nil {
				return fmt.Errorf("limit: %w", err)
			}
			if err := checkState(t.Verdict.State); err != nil {
				return fmt.Errorf("limit: %s: %w", r.Pos, err)
			}
			if t.Step == nil {
				return fmt.Errorf("limit: %s: %w: a trial without its place in the search", r.Pos, results.ErrCorrupt)
			}
			s.done[t.Step.Size] = append(s.done[t.Step.Size], &storedTrial{Trial: &t})
		case results.KindBoundary:
			p, err := results.Decode[results.Boundary](r, r.Kind)
			if err != nil {
				return fmt.Errorf("limit: %w", err)
			}
			s.boundaries[p.Size] = true
		}
	}
	return nil
}

// reuse returns the first stored, not yet reused trial at (size, rate, hold). Taking them in
// file order lets a retry at the same rate find the second trial, not the first again.
func (s *store) reuse(size int, rate float64, hold bool) (*results.Trial, bool) {
	for _, t := range s.done[size] {
		if !t.used && sameRate(t.Step.Rate, rate) && t.Step.Hold == hold {
			t.used = true
			return t.Trial, true
		}
	}
	return nil, false
}

func (s *store) trial(t *results.Trial) error {
	if s.w == nil {
		return nil
	}
	t.Step.Rate = storedRate(t.Step.Rate)
	id := fmt.Sprintf("%dB@%s#%d", t.Step.Size, strconv.FormatFloat(t.Step.Rate, 'f', -1, 64), t.Step.Attempt)
	if err := s.w.Append(results.KindTrial, id, t); err != nil {
		return fmt.Errorf("limit: %w", err)
	}
	return nil
}

func (s *store) boundary(p results.Boundary) error {
	if s.w == nil || s.boundaries[p.Size] {
		return nil
	}
	s.boundaries[p.Size] = true
	if err := s.w.Append(results.KindBoundary, strconv.Itoa(p.Size)+"B", p); err != nil {
		return fmt.Errorf("limit: %w", err)
	}
	return nil
}

func (s *store) close() error {
	if s.w == nil {
		return nil
	}
	err := s.w.Close()
	s.w = nil
	return err
}
