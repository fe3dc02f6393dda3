package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Schema is the version of the records this package writes: the envelope and the shapes of its
// kinds (Trial, Search, Boundary, Recommendation). Load accepts exactly this schema; records of
// an older or a newer one are refused with ErrSchema and a message naming both versions and the
// plimsoll that reads them.
//
// Schema 1 was written by plimsoll up to commit 5814fc7 (November 2026): a limit search's trial
// record held an "outcome" with the full result nested in it. Schema 2 stores the one trial
// record (Trial) as it is.
const Schema = 2

// lastWriter names, for each older schema, the last plimsoll that wrote it.
var lastWriter = map[int]string{1: "plimsoll at commit 5814fc7 or earlier"}

// Record kinds used across plimsoll. A kind names the shape of Data; the package accepts any
// non-empty kind so new commands need no change here.
const (
	KindSearch   = "search"   // a limit search's header: its full configuration
	KindTrial    = "trial"    // one finished trial: the rate asked for and its verdict
	KindBoundary = "boundary" // one point of the boundary found by a limit search
	KindRun      = "run"      // one `plimsoll run`
	// KindRecommendation is the safe load a finished limit search recommends.
	KindRecommendation = "recommendation"
)

// Errors callers can test with errors.Is.
var (
	// ErrCorrupt is wrapped by every error about a line that is not a valid record.
	ErrCorrupt = errors.New("corrupt results line")
	// ErrSchema is wrapped when a record was written by an older or a newer plimsoll.
	ErrSchema = errors.New("unsupported results schema")
	// ErrKind is wrapped when a record is not of the kind a caller asked for.
	ErrKind = errors.New("unexpected record kind")
)

// Record is one line of a results file.
type Record struct {
	Kind   string          `json:"kind"`
	Schema int             `json:"schema"`
	Time   time.Time       `json:"time"`
	ID     string          `json:"id,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`

	// Pos is where the record was read from ("results.jsonl:12"); empty for a record built in
	// memory. It is not stored.
	Pos string `json:"-"`
}

// Decode unmarshals the record's Data into v. Errors name the record's position.
func (r Record) Decode(v any) error {
	if len(r.Data) == 0 {
		return fmt.Errorf("%s: %s record has no data", r.where(), r.Kind)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("%s: %s record: %w", r.where(), r.Kind, err)
	}
	return nil
}

func (r Record) where() string {
	if r.Pos == "" {
		return "record"
	}
	return r.Pos
}

// Decode returns the Data of r as a T, after checking that r is of the given kind.
func Decode[T any](r Record, kind string) (T, error) {
	var v T
	if r.Kind != kind {
		return v, fmt.Errorf("%s: %w: got %q, want %q", r.where(), ErrKind, r.Kind, kind)
	}
	err := r.Decode(&v)
	return v, err
}

// Filter returns the records of the given kind, in file order.
func Filter(recs []Record, kind string) []Record {
	var out []Record
	for _, r := range recs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// DecodeAll decodes the Data of every record of the given kind, in file order.
func DecodeAll[T any](recs []Record, kind string) ([]T, error) {
	var out []T
	for _, r := range recs {
		if r.Kind != kind {
			continue
		}
		v, err := Decode[T](r, kind)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// validate checks the envelope of a record read from a file.
func (r Record) validate() error {
	switch {
	case r.Kind == "":
		return fmt.Errorf("%w: no \"kind\"", ErrCorrupt)
	case r.Schema < 1:
		return fmt.Errorf("%w: \"schema\" must be 1 or more, got %d", ErrCorrupt, r.Schema)
	case r.Schema > Schema:
		return fmt.Errorf("%w %d: written by a newer plimsoll; this one reads schema %d; upgrade plimsoll", ErrSchema, r.Schema, Schema)
	case r.Schema < Schema:
		return fmt.Errorf("%w %d: written by %s; this plimsoll reads schema %d only; render it with that plimsoll, or run the search again",
			ErrSchema, r.Schema, lastWriter[r.Schema], Schema)
	case r.Time.IsZero():
		return fmt.Errorf("%w: no \"time\"", ErrCorrupt)
	}
	return nil
}
