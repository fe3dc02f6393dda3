package workload

import (
	"errors"
	"strings"
)

// ErrInvalid is wrapped by every error about bad input (a file, a flag value, a property), so
// the CLI can map it to its usage exit code with errors.Is.
var ErrInvalid = errors.New("invalid workload")

// ErrUnknownField is wrapped by errors about a YAML key plimsoll does not know.
var ErrUnknownField = errors.New("unknown field")

// ErrUnknownProperty is wrapped by errors about a Kafka property name plimsoll does not know.
var ErrUnknownProperty = errors.New("unknown Kafka property")

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

func (e *FieldError) Error() string {
	var b strings.Builder
	switch {
	case strings.HasPrefix(e.Pos, "--"):
		b.WriteString(e.Pos)
		if e.Field != "" && e.Field != e.Pos[2:] {
			b.WriteString(" " + e.Field)
		}
	case e.Pos != "":
		b.WriteString(e.Pos)
		if e.Field != "" {
			b.WriteString(": " + e.Field)
		}
	default:
		b.WriteString(e.Field)
		if e.Flag != "" && e.Field != "" {
			b.WriteString(" (--" + e.Flag + ")")
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap lets errors.Is find ErrInvalid and the specific cause.
func (e *FieldError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// joinErrs joins errs, or returns nil, or the only one unwrapped so its message stays plain.
func joinErrs(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
