package kafkaprops

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]string
	}{
		{"separators", "a=1\nb: 2\nc 3\nd\t4\ne = 5\nf   :   6\n", map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}},
		{"comments and blanks", "# hash\n! bang\n\n   # indented comment\n  \t\nk=v\n", map[string]string{"k": "v"}},
		{"key without value", "flag\nempty=\n", map[string]string{"flag": "", "empty": ""}},
		{"value keeps separators", "url=http://h:1/x=y\n", map[string]string{"url": "http://h:1/x=y"}},
		{"continuation", "list=a,\\\n    b,\\\n    c\nnext=1\n", map[string]string{"list": "a,b,c", "next": "1"}},
		{"continuation of a comment-like line", "k=one\\\n# not a comment\n", map[string]string{"k": "one# not a comment"}},
		{"continuation inside a key", "lin\\\n  ger.ms=5\n", map[string]string{"linger.ms": "5"}},
		{"even backslashes do not continue", "k=a\\\\\nj=b\n", map[string]string{"k": `a\`, "j": "b"}},
		{"escapes", `k=tab\tnl\ncr\rff\fq\q` + "\n", map[string]string{"k": "tab\tnl\ncr\rff\fqq"}},
		{"escaped separators in key", `a\=b\:c\ d=v` + "\n", map[string]string{"a=b:c d": "v"}},
		{"unicode escape", `k=caf\u00e9 \u2603` + "\n", map[string]string{"k": "café ☃"}},
		{"surrogate pair", `k=\ud83d\ude00` + "\n", map[string]string{"k": "😀"}},
		{"escaped backslash before u", `k=\\u12` + "\n", map[string]string{"k": `\u12`}},
		{"raw utf-8", "k=naïve\n", map[string]string{"k": "naïve"}},
		{"crlf and cr", "a=1\r\nb=2\rc=3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"crlf continuation", "a=1,\\\r\n  2\r\nb=3\r\n", map[string]string{"a": "1,2", "b": "3"}},
		{"trailing whitespace dropped", "acks=all   \t\n", map[string]string{"acks": "all"}},
		{"escaped trailing space kept", "k=x\\ \n", map[string]string{"k": "x "}},
		{"later key wins", "k=1\nk=2\n", map[string]string{"k": "2"}},
		{"no final newline", "k=v", map[string]string{"k": "v"}},
		{"continuation at end of input", "k=v\\", map[string]string{"k": "v"}},
		{"empty", "", map[string]string{}},
		{"byte-order mark", "\ufeffacks=all\n", map[string]string{"acks": "all"}},
		{"no expansion", "sasl.jaas.config=x password=\"${env:P}\";\n", map[string]string{"sasl.jaas.config": `x password="${env:P}";`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(c.in), "t.properties")
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Map(); !maps.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"malformed unicode", "a=1\nk=\\u12g4\n", `t.properties:2: property "k": malformed \uXXXX escape "\\u12g4" (it needs four hex digits)`},
		{"short unicode", "k=\\u12", `t.properties:1: property "k": malformed \uXXXX escape "\\u12" (it needs four hex digits)`},
		{"malformed unicode in a key", "a\\u00zz=1", `t.properties:1: malformed \uXXXX escape "\\u00zz" (it needs four hex digits)`},
		{"lone surrogate", `k=\ud83d`, `t.properties:1: property "k": \u escape "\\ud83d" is half of a UTF-16 surrogate pair`},
		{"empty key", "a=1\n\n=v\n", "t.properties:3: empty property name (write key=value, e.g. linger.ms=5)"},
		{"empty key after spaces", "a=1\n  : v\n", "t.properties:2: empty property name (write key=value, e.g. linger.ms=5)"},
		{"invalid utf-8", "a=1\nb=\xff\n", "t.properties:2: the text is not valid UTF-8"},
		{"invalid utf-8 in a continuation", "a=1\\\n\xff\n", "t.properties:2: the text is not valid UTF-8"},
		{"line of continuation start", "a=1\nk=x\\\n  \\u00zz\n", `t.properties:2: property "k": malformed \uXXXX escape "\\u00zz" (it needs four hex digits)`},
		{"lines counted across cr and crlf", "a=1\rb=2\r\n\r\n=3\n", "t.properties:4: empty property name (write key=value, e.g. linger.ms=5)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.in), "t.properties")
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("%v does not wrap ErrSyntax", err)
			}
		})
	}
}

// TestParseIntoLines: text taken from inside a file (an OMB driver's block) keeps the file's
// line numbers.
func TestParseIntoLines(t *testing.T) {
	var p Props
	if err := ParseInto(&p, "acks=all\n\n# c\nlinger.ms=\\\n 1\n", "driver.yaml", 12, false); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"acks": "driver.yaml:12", "linger.ms": "driver.yaml:15"} {
		if got, _ := p.Lookup(key); got.Origin != want {
			t.Errorf("%s origin %q, want %q", key, got.Origin, want)
		}
	}
	err := ParseInto(&p, "acks=all\nbad\\u1=2\n", "driver.yaml", 12, false)
	if err == nil || !strings.HasPrefix(err.Error(), "driver.yaml:13: ") {
		t.Errorf("error %v, want it at driver.yaml:13", err)
	}
}

func TestPropertiesOrigins(t *testing.T) {
	p, err := Parse(strings.NewReader("# c\nacks=all\nbatch.size=\\\n  1\nbootstrap.servers=x:9092\n"), "p.properties")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"acks": "p.properties:2", "batch.size": "p.properties:3"} {
		if got, _ := p.Lookup(key); got.Origin != want {
			t.Errorf("%s origin %q, want %q", key, got.Origin, want)
		}
	}
	ign := p.Ignored()
	if len(ign) != 1 || ign[0].Key != "bootstrap.servers" || ign[0].Origin != "p.properties:5" {
		t.Errorf("ignored = %+v, want bootstrap.servers from line 5", ign)
	}
	if _, ok := p.Get("bootstrap.servers"); ok {
		t.Error("a runner-owned key must not be applied")
	}
}

func TestPropsStringAndRoundTrip(t *testing.T) {
	var p Props
	for k, v := range map[string]string{
		"linger.ms": "5", "acks": "all", "ssl.truststore.password": "s3cret",
		"odd key=:": " lead and trail ", "multi": "a\nb\tc\\d", "#hash": "!bang", "ctl": "\x01",
		"\ufeffbom": "\ufeff", "emoji": "😀",
	} {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	s := p.String()
	if strings.Contains(s, "s3cret") || !strings.Contains(s, "ssl.truststore.password=[hidden]") {
		t.Errorf("String must hide secrets:\n%s", s)
	}
	if !strings.HasPrefix(s, "\\#hash=!bang\nacks=all\nctl=") {
		t.Errorf("String must list keys sorted:\n%s", s)
	}
	back, err := Parse(strings.NewReader(p.Format()), "rt")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(back.Map(), p.Map()) {
		t.Errorf("round trip changed the properties:\n got %q\nwant %q", back.Map(), p.Map())
	}
	j, err := json.Marshal(p)
	if err != nil || strings.Contains(string(j), "s3cret") {
		t.Errorf("JSON %s (%v) must hide secrets", j, err)
	}
}

func TestPropsExplicitBeatsConfigFile(t *testing.T) {
	var p Props
	_ = p.SetAt("linger.ms", "20", "--producer-prop", false)
	_ = p.SetAt("linger.ms", "5", "c.properties:1", true) // a file read later does not override
	_ = p.SetAt("acks", "1", "c.properties:2", true)
	_ = p.SetAt("acks", "all", "--producer-prop", false) // an explicit setting replaces the file's
	if v, _ := p.Get("linger.ms"); v != "20" {
		t.Errorf("linger.ms = %s, want the explicit 20", v)
	}
	if v, _ := p.Get("acks"); v != "all" {
		t.Errorf("acks = %s, want the explicit all", v)
	}
}

func TestParseKeyValue(t *testing.T) {
	cases := []struct{ in, k, v, err string }{
		{"acks=all", "acks", "all", ""},
		{" linger.ms = 5", "linger.ms", " 5", ""},
		{"client.id=", "client.id", "", ""},
		{"sasl.jaas.config=a=b c=d", "sasl.jaas.config", "a=b c=d", ""},
		{"acks", "", "", `"acks" is not key=value`},
		{"=all", "", "", `"=all" is not key=value`},
	}
	for _, c := range cases {
		k, v, err := ParseKeyValue(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrSyntax) {
				t.Errorf("ParseKeyValue(%q) error %v, want %q wrapping ErrSyntax", c.in, err, c.err)
			}
			continue
		}
		if err != nil || k != c.k || v != c.v {
			t.Errorf("ParseKeyValue(%q) = %q, %q, %v; want %q, %q", c.in, k, v, err, c.k, c.v)
		}
	}
}

func TestLoad(t *testing.T) {
	p, err := Load("testdata/client.properties")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"acks": "all", "linger.ms": "5", "compression.type": "zstd", "batch.size": "131072"}
	if !maps.Equal(p.Map(), want) {
		t.Errorf("got %q, want %q", p.Map(), want)
	}
	if got := len(p.Ignored()); got != 2 {
		t.Errorf("ignored %d keys, want bootstrap.servers and key.serializer", got)
	}
	if o, _ := p.Lookup("batch.size"); o.Origin != "testdata/client.properties:8" {
		t.Errorf("batch.size from %s, want testdata/client.properties:8", o.Origin)
	}
	_, err = Load("testdata/missing.properties")
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "testdata/missing.properties: cannot read") {
		t.Errorf("missing file: %v", err)
	}
}
