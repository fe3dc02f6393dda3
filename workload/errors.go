package workload

import (
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/kafkaprops"
)

// ErrInvalid is wrapped by every error about bad input (a file, a flag value, a property), so
// the CLI can map it to its usage exit code with errors.Is.
var ErrInvalid = errors.New("invalid workload")

// ErrUnknownField is wrapped by errors about a YAML key plimsoll does not know.
var ErrUnknownField = errors.New("unknown field")

// ErrUnknownProperty is wrapped by errors about a Kafka property name plimsoll does not know, or
// one its clients cannot honour (kafkaprops.ErrUnknownProperty).
var ErrUnknownProperty = kafkaprops.ErrUnknownProperty

// FieldError is one problem with one field, property or line of input.
type FieldError struct {
	// Pos is where the value came from: "workload.yaml:7", "client.properties:3", a flag such as
	// "--rate", or "" for a default or a value set by code.
	Pos string
	// Field is the name as the user wrote it: a YAML key ("rate", OMB's "producerRate") or a
	// Kafka property ("linger.ms"); "" when the problem is the line itself.
	Field string
	// Flag is the plimsoll flag that sets the field ("rate", "producer-prop"), "" if none.
	Flag string
	// Msg says what is wrong and how to fix it.
	Msg string
	// Err is a more specific cause (ErrUnknownField, an *os.PathError, ...), or nil.
	Err error
}

func (e *FieldError) Error() string { return kafkaprops.Place(e.Pos, e.Field, e.Flag) + e.Msg }

// Unwrap lets errors.Is find ErrInvalid and the specific cause.
func (e *FieldError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// propErr turns the errors of package kafkaprops (one or joined) into FieldErrors, which wrap
// ErrInvalid and the kafkaprops error itself (so errors.Is finds its kind).
func propErr(err error) error {
	if err == nil {
		return nil
	}
	var out []error
	for _, e := range flatten([]error{err}) {
		var pe *kafkaprops.Error
		if errors.As(e, &pe) {
			e = &FieldError{Pos: pe.Pos, Field: pe.Name, Flag: pe.Flag, Msg: pe.Msg, Err: pe}
		}
		out = append(out, e)
	}
	return kafkaprops.JoinErrors(out)
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// inLineOrder returns err's errors in the order of the input: by file (in the order the files
// first appear) and line within it; errors without a line (flags, defaults) follow, in their
// own order. A user fixing a file reads its problems top to bottom.
func inLineOrder(err error) error {
	errs := flatten([]error{err})
	if len(errs) < 2 {
		return err
	}
	files := map[string]int{}
	type key struct{ file, line int }
	keys := make([]key, len(errs))
	for i, e := range errs {
		name, line := position(e)
		if line == 0 {
			keys[i] = key{len(errs) + 1, 0}
			continue
		}
		if _, ok := files[name]; !ok {
			files[name] = len(files)
		}
		keys[i] = key{files[name], line}
	}
	idx := make([]int, len(errs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		return ka.file < kb.file || ka.file == kb.file && ka.line < kb.line
	})
	out := make([]error, len(errs))
	for i, j := range idx {
		out[i] = errs[j]
	}
	return kafkaprops.JoinErrors(out)
}

// position is the file and line an error points at ("workload.yaml:7"), or line 0.
func position(err error) (string, int) {
	var pos string
	var fe *FieldError
	var pe *kafkaprops.Error
	switch {
	case errors.As(err, &fe):
		pos = fe.Pos
	case errors.As(err, &pe):
		pos = pe.Pos
	}
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return pos, 0
	}
	line, convErr := strconv.Atoi(pos[i+1:])
	if convErr != nil || line <= 0 {
		return pos, 0
	}
	return pos[:i], line
}
