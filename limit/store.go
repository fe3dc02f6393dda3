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

// Header is the first record of a search (kind "search"): everything that determines which
// trials it runs.
type Header struct {
	Sizes            []int           `json:"sizes"`
	Tolerance        float64         `json:"tolerance"`
	MinRate          float64         `json:"min_rate"`
	MaxRate          float64         `json:"max_rate"`
	Growth           float64         `json:"growth"`
	MaxTrialsPerSize int             `json:"max_trials_per_size"`
	Starts           []float64       `json:"starts,omitempty"` // Start(size) per size; absent when Start was nil
	Config           json.RawMessage `json:"config,omitempty"`
}

func newHeader(o Options, starts []float64) Header {
	h := Header{Sizes: o.Sizes, Tolerance: o.Tolerance, MinRate: o.MinRate, MaxRate: o.MaxRate,
		Growth: o.Growth, MaxTrialsPerSize: o.MaxTrialsPerSize, Config: compact(o.Config)}
	for _, s := range starts {
		h.Starts = append(h.Starts, storedRate(s))
	}
	return h
}

// diff returns the first option in which h (now) differs from stored, or nil.
func (h Header) diff(stored Header, store string) error {
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
	case (h.Starts == nil) != (stored.Starts == nil):
		return mis("Start", startsText(stored.Starts), startsText(h.Starts))
	}
	for i := range h.Starts {
		if !sameRate(h.Starts[i], stored.Starts[i]) {
			return mis(fmt.Sprintf("Start(%d)", h.Sizes[i]), stored.Starts[i], h.Starts[i])
		}
	}
	if !bytes.Equal(h.Config, stored.Config) {
		key := configDiff(stored.Config, h.Config)
		return mis(key, string(stored.Config), string(h.Config))
	}
	return nil
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
	Trial
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
		stored, err := results.Decode[Header](headers[0], results.KindSearch)
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
			t, err := results.Decode[Trial](r, r.Kind)
			if err != nil {
				return fmt.Errorf("limit: %w", err)
			}
			if err := t.Outcome.check(); err != nil {
				return fmt.Errorf("limit: %s: %w", r.Pos, err)
			}
			s.done[t.Size] = append(s.done[t.Size], &storedTrial{Trial: t})
		case results.KindBoundary:
			p, err := results.Decode[Point](r, r.Kind)
			if err != nil {
				return fmt.Errorf("limit: %w", err)
			}
			s.boundaries[p.Size] = true
		}
	}
	return nil
}

// reuse returns the first stored, not yet reused trial at (size, rate). Taking them in file
// order lets a retry at the same rate find the second trial, not the first again.
func (s *store) reuse(size int, rate float64) (Outcome, bool) {
	for _, t := range s.done[size] {
		if !t.used && sameRate(t.Rate, rate) {
			t.used = true
			return t.Outcome, true
		}
	}
	return Outcome{}, false
}

func (s *store) trial(t Trial) error {
	if s.w == nil {
		return nil
	}
	t.Rate = storedRate(t.Rate)
	id := fmt.Sprintf("%dB@%s#%d", t.Size, strconv.FormatFloat(t.Rate, 'f', -1, 64), t.Attempt)
	if err := s.w.Append(results.KindTrial, id, t); err != nil {
		return fmt.Errorf("limit: %w", err)
	}
	return nil
}

func (s *store) boundary(p Point) error {
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
