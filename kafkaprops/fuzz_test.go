package kafkaprops

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var errLine = regexp.MustCompile(`^f\.properties:(\d+): `)

// FuzzParse: the .properties parser never panics; every error is ErrSyntax placed at
// f.properties:LINE with LINE a line of the input; and what parses renders back (Format) to
// text that parses to the same properties.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.properties")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"a=1\nb: 2\nc 3", "k=\\u00e9\\\n  x", "a\\=b=c\\ ", "# c\n!d\n=x", "k=\\ud83d\\ude00",
		"k=\\", "a=1\r\nb=2\rc", "\ufeffk=v", "k=\\u12", "k\\u00zz=1", "x=\\\\u0041", "a=1\\\r\n  2", "k=\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(bytes.NewReader(data), "f.properties")
		if err != nil {
			m := errLine.FindStringSubmatch(err.Error())
			if !errors.Is(err, ErrSyntax) || m == nil {
				t.Fatalf("error %q must be ErrSyntax and start with f.properties:LINE", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > len(splitLines(string(data)))+1 {
				t.Fatalf("error %q names line %d of %d", err, n, len(splitLines(string(data))))
			}
			return
		}
		text := p.Format()
		back, err := Parse(strings.NewReader(text), "back")
		if err != nil {
			t.Fatalf("Format output does not parse: %v\n%q", err, text)
		}
		if !maps.Equal(p.Map(), back.Map()) {
			t.Fatalf("round trip changed the properties:\n in  %q\n out %q\n text %q", p.Map(), back.Map(), text)
		}
		for _, r := range []Role{RoleProducer, RoleConsumer, RoleCommon, RoleTopic} {
			if _, err := p.Check(r); err != nil && !errors.Is(err, ErrBadProperty) && !errors.Is(err, ErrUnknownProperty) {
				t.Fatalf("Check error has no kind: %v", err)
			}
		}
	})
}

// FuzzParseKeyValue: --producer-prop's key=value never panics; an accepted pair has a trimmed,
// non-empty key and the value as written after the first '='; a refusal is a syntax error.
func FuzzParseKeyValue(f *testing.F) {
	for _, s := range []string{"linger.ms=5", " acks = all", "a==b", "=x", "x", "k=", "  =  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, v, err := ParseKeyValue(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseKeyValue(%q) error %v is not ErrSyntax", s, err)
			}
			return
		}
		_, after, _ := strings.Cut(s, "=")
		if k == "" || k != strings.TrimSpace(k) || strings.Contains(k, "=") || v != after {
			t.Fatalf("ParseKeyValue(%q) = %q, %q", s, k, v)
		}
	})
}
