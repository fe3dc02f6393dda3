package kafkaprops

import (
	"errors"
	"strings"
)

// Kinds of property errors, for errors.Is.
var (
	// ErrUnknownProperty: the name is not a Kafka property plimsoll knows, or it is one that
	// plimsoll's clients cannot honour (a transactional id, a TLS keystore: see the message).
	ErrUnknownProperty = errors.New("unknown or unsupported Kafka property")
	// ErrBadProperty: the value is not valid for the property, conflicts with another property
	// the user set, or is outside what franz-go accepts.
	ErrBadProperty = errors.New("invalid Kafka property")
	// ErrSyntax: .properties text that cannot be read (a malformed escape, an empty key, bytes
	// that are not UTF-8).
	ErrSyntax = errors.New("malformed .properties text")
)

// Error is one problem with one property or one line of .properties text.
type Error struct {
	// Pos is where the value came from: "client.properties:3", "driver.yaml:12", a flag such as
	// "--producer-prop", or "" for a value set by code.
	Pos string
	// Name is the property ("linger.ms"); "" when the problem is the line itself.
	Name string
	// Flag is plimsoll's flag for properties of this role ("producer-prop"), "" if unknown.
	Flag string
	// Msg says what is wrong and how to fix it.
	Msg string
	// Kind is ErrUnknownProperty, ErrBadProperty or ErrSyntax; Cause is an underlying error
	// (a file system error), or nil.
	Kind, Cause error
}

// Error renders the problem as "POS: NAME: MSG", "--flag NAME: MSG" or "NAME (--flag): MSG".
func (e *Error) Error() string { return Place(e.Pos, e.Name, e.Flag) + e.Msg }

// Place renders where a value was set, as an error message starts: "POS: NAME: " for a file
// position, "--flag NAME: " for a flag (the name left out when the flag says it), "NAME (--flag): "
// with neither; "" when nothing is known.
func Place(pos, name, flag string) string {
	var b strings.Builder
	switch {
	case strings.HasPrefix(pos, "--"):
		b.WriteString(pos)
		if name != "" && name != pos[2:] {
			b.WriteString(" " + name)
		}
	case pos != "":
		b.WriteString(pos)
		if name != "" {
			b.WriteString(": " + name)
		}
	default:
		b.WriteString(name)
		if flag != "" && name != "" {
			b.WriteString(" (--" + flag + ")")
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	return b.String()
}

// Unwrap lets errors.Is find the kind and the cause.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.Cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// JoinErrors joins errs, or returns nil, or the only one unwrapped so its message stays plain.
func JoinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
