package kafkaprops

import (
	"bytes"
	"strings"
	"testing"

	"github.com/magiconair/properties"
)

// TestLibraryGaps pins the measured reasons for the hand-written code around
// github.com/magiconair/properties (splitEntries, unicodeEscapes, escape). When an upgrade makes
// one of these fail, the library has closed that gap and the code working around it can go.
func TestLibraryGaps(t *testing.T) {
	load := func(s string) (*properties.Properties, error) {
		return (&properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}).LoadBytes([]byte(s))
	}
	// It reports the line of an error, counting "\n" only; a file with Java's "\r" line ends
	// puts the error on line 1.
	if _, err := load("a=1\rb=2\rc=\\u12"); err == nil || !strings.Contains(err.Error(), "Line 1:") {
		t.Errorf("lone \\r line ends: %v (the library now counts them)", err)
	}
	// A continuation backslash before "\r\n" leaves the "\n" to end the entry: the next line
	// becomes a key of its own.
	if p, err := load("a=1,\\\r\n  2\r\n"); err != nil || p.Len() != 2 {
		t.Errorf("crlf continuation: %v, %v (the library now joins it)", p, err)
	}
	// A surrogate pair written as two escapes becomes two replacement characters.
	if p, err := load(`k=\ud83d\ude00`); err != nil || p.GetString("k", "") != "\ufffd\ufffd" {
		t.Errorf("surrogate pair: %q, %v (the library now decodes it)", p.GetString("k", ""), err)
	}
	// Its writer leaves a key's leading '#' unescaped, so the entry reads back as a comment.
	p := properties.NewProperties()
	p.DisableExpansion = true
	p.Set("#hash", "v")
	var b bytes.Buffer
	p.Write(&b, properties.UTF8)
	if back, _ := load(b.String()); back.Len() != 0 {
		t.Errorf("the writer's %q now reads back", b.String())
	}
}
