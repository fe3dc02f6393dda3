package kafkaprops

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/magiconair/properties"
	"github.com/plimsoll/plimsoll/internal/smallfile"
)

// Parse reads Java .properties text: # and ! comment lines, key=value, key: value or key value,
// lines continued with a trailing backslash, and the escapes \t \n \r \f \uXXXX and \c (c
// itself). name is used in errors as name:line. Unlike Java, unescaped trailing whitespace is
// dropped from values (Kafka trims typed values anyway; a stray space after a password is
// nearly always a mistake) and an empty key is an error. Later keys replace earlier ones.
func Parse(r io.Reader, name string) (Props, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Props{}, &Error{Pos: name + ":1", Msg: fmt.Sprintf("cannot read: %v", err), Kind: ErrSyntax, Cause: err}
	}
	var p Props
	err = ParseInto(&p, string(data), name, 1, false)
	return p, err
}

// Load reads a .properties file such as the one given to --producer.config. Errors name the
// file and line.
func Load(path string) (Props, error) {
	data, err := ReadFile(path)
	if err != nil {
		return Props{}, &Error{Pos: path, Msg: fmt.Sprintf("cannot read the properties file: %v", err), Cause: err}
	}
	var p Props
	err = ParseInto(&p, string(data), path, 1, false)
	return p, err
}

// MaxFileSize bounds a .properties file; real ones are a few KB.
const MaxFileSize = 1 << 20

// ReadFile reads a .properties file of at most MaxFileSize bytes. Its errors name the problem
// but not the path (callers place it).
func ReadFile(path string) ([]byte, error) {
	data, err := smallfile.Read(path, MaxFileSize)
	switch {
	case errors.Is(err, smallfile.ErrTooLarge):
		return nil, fmt.Errorf("%w; a .properties file of client settings is a few lines", err)
	case err != nil:
		return nil, unwrapPathErr(err)
	}
	return data, nil
}

// ParseInto reads .properties text into p, as Parse does. firstLine is the file line of the
// text's first line (text taken from a block of a YAML file starts further down); weak marks
// the values as read from a config file, so explicit settings already in p win over them.
func ParseInto(p *Props, text, name string, firstLine int, weak bool) error {
	entries, err := splitEntries(text, name, firstLine)
	if err != nil {
		return err
	}
	for _, e := range entries {
		pos := fmt.Sprintf("%s:%d", name, e.line)
		key, value, err := parseEntry(e.text)
		if err == nil {
			err = p.SetAt(key, value, pos, weak)
		}
		if err != nil {
			return &Error{Pos: pos, Msg: err.Error(), Kind: ErrSyntax}
		}
	}
	return nil
}

// ParseKeyValue splits "key=value" as given to --producer-prop and --consumer-prop. The key is
// trimmed and must not be empty; the value is kept as written (it may be empty).
func ParseKeyValue(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", &Error{Msg: fmt.Sprintf("%q is not key=value (write it as a Kafka property, e.g. linger.ms=5)", s), Kind: ErrSyntax}
	}
	return k, v, nil
}

// entry is one logical line: a key and its value, continuation lines joined.
type entry struct {
	line int // where it starts
	text string
}

// splitEntries finds the logical lines of text and the line each starts on.
//
// Hand-written around github.com/magiconair/properties, which parses each entry (ParseInto):
// the library reports no line per key, only the line of an error, and it counts lines by "\n"
// alone, so a file with Java's lone "\r" line ends, or a "\r\n" after a continuation
// backslash, reads wrongly (TestLibraryGaps shows both). Finding where each entry starts takes
// only the rules here: line ends, comment lines, and an odd run of backslashes continuing a line.
func splitEntries(text, name string, firstLine int) ([]entry, error) {
	lines := splitLines(strings.TrimPrefix(text, "\ufeff")) // a byte-order mark some editors write
	var out []entry
	for i := 0; i < len(lines); i++ {
		start := firstLine + i
		if !utf8.ValidString(lines[i]) {
			return nil, syntaxErr(name, start, "the text is not valid UTF-8")
		}
		logical := strings.TrimLeft(lines[i], " \t\f")
		if logical == "" || logical[0] == '#' || logical[0] == '!' {
			continue
		}
		for continued(logical) && i+1 < len(lines) {
			i++
			if !utf8.ValidString(lines[i]) {
				return nil, syntaxErr(name, firstLine+i, "the text is not valid UTF-8")
			}
			logical = logical[:len(logical)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		if continued(logical) {
			logical = logical[:len(logical)-1] // a continuation at the end of the text continues nothing
		}
		if logical != "" { // a line that only continued into nothing holds no entry
			out = append(out, entry{start, logical})
		}
	}
	return out, nil
}

// splitLines splits on "\n", "\r\n" or a lone "\r", the three line ends Java accepts.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return out
}

func syntaxErr(name string, line int, msg string) error {
	return &Error{Pos: fmt.Sprintf("%s:%d", name, line), Msg: msg, Kind: ErrSyntax}
}

// continued reports whether s ends in an odd number of backslashes: an escape of the line end.
func continued(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// parseEntry parses one logical line with the library.
func parseEntry(s string) (key, value string, err error) {
	s = dropTrailingSpace(s)
	if s[0] == '=' || s[0] == ':' {
		return "", "", fmt.Errorf("empty property name (write key=value, e.g. linger.ms=5)")
	}
	text, err := unicodeEscapes(s)
	if err != nil {
		return "", "", inValue(s, err)
	}
	if strings.HasPrefix(text, "\ufeff") {
		text = `\ufeff` + text[len("\ufeff"):] // the library drops a leading byte-order mark; Java keeps it in the key
	}
	p, err := (&properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}).LoadBytes([]byte(text))
	if err != nil {
		return "", "", fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "properties: Line 1: "))
	}
	keys := p.Keys()
	if len(keys) != 1 {
		return "", "", fmt.Errorf("cannot read %q as key=value", s)
	}
	value, _ = p.Get(keys[0])
	return keys[0], value, nil
}

// inValue names the property when err is about its value rather than its key.
func inValue(s string, err error) error {
	ke := keyEnd(s)
	if _, kerr := unicodeEscapes(s[:ke]); kerr != nil || ke == len(s) {
		return err
	}
	if k, kerr := libParse(s[:ke]); kerr == nil {
		return fmt.Errorf("property %q: %v", k, err)
	}
	return err
}

// libParse returns the key of a line holding only a key.
func libParse(rawKey string) (string, error) {
	p, err := (&properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}).LoadBytes([]byte(rawKey))
	if err != nil || len(p.Keys()) != 1 {
		return "", fmt.Errorf("no key")
	}
	return p.Keys()[0], nil
}

// keyEnd is the index of the first unescaped separator of a logical line.
func keyEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '=', ':', ' ', '\t', '\f':
			return i
		}
	}
	return len(s)
}

// dropTrailingSpace drops unescaped trailing whitespace ("\ " keeps its space).
func dropTrailingSpace(s string) string {
	end := len(s)
	for end > 0 && strings.IndexByte(" \t\f", s[end-1]) >= 0 && !continued(s[:end-1]) {
		end--
	}
	return s[:end]
}

// unicodeEscapes checks every \uXXXX escape of a logical line and writes each escaped UTF-16
// surrogate pair as the character it encodes.
//
// Hand-written in front of the library: it decodes each \uXXXX on its own, so a surrogate
// pair (Java strings are UTF-16: "\ud83d\ude00" is one emoji) becomes two U+FFFD, and it
// reports a malformed escape as "invalid unicode literal" without saying which (see
// TestLibraryGaps). Escapes that are not surrogates are left for the library.
func unicodeEscapes(s string) (string, error) {
	if !strings.Contains(s, `\u`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) || s[i+1] != 'u' {
			if s[i] == '\\' && i+1 < len(s) {
				b.WriteByte('\\')
				i++ // an escaped character, possibly a backslash, is not the start of an escape
			}
			b.WriteByte(s[i])
			continue
		}
		r, err := hex4(s[i:])
		if err != nil {
			return "", err
		}
		if utf16.IsSurrogate(r) {
			lo, err := hex4(s[min(i+6, len(s)):])
			pair := utf16.DecodeRune(r, lo)
			if err != nil || pair == utf8.RuneError {
				return "", fmt.Errorf(`\u escape %q is half of a UTF-16 surrogate pair`, s[i:i+6])
			}
			b.WriteRune(pair)
			i += 11
			continue
		}
		b.WriteString(s[i : i+6])
		i += 5
	}
	return b.String(), nil
}

// hex4 reads the \uXXXX escape at the start of s.
func hex4(s string) (rune, error) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		if strings.HasPrefix(s, `\u`) {
			return 0, fmt.Errorf(`malformed \uXXXX escape %q (it needs four hex digits)`, s)
		}
		return 0, fmt.Errorf("no escape")
	}
	v, err := strconv.ParseUint(s[2:6], 16, 16)
	if err != nil || strings.ContainsAny(s[2:6], "+-_") {
		return 0, fmt.Errorf(`malformed \uXXXX escape %q (it needs four hex digits)`, s[:6])
	}
	return rune(v), nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
