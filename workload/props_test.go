package workload

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
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
		{"even backslashes do not continue", "k=a\\\\\nj=b\n", map[string]string{"k": `a\`, "j": "b"}},
		{"escapes", `k=tab\tnl\ncr\rff\fq\q` + "\n", map[string]string{"k": "tab\tnl\ncr\rff\fqq"}},
		{"escaped separators in key", `a\=b\:c\ d=v` + "\n", map[string]string{"a=b:c d": "v"}},
		{"unicode escape", `k=caf\u00e9 \u2603` + "\n", map[string]string{"k": "café ☃"}},
		{"surrogate pair", `k=\ud83d\ude00` + "\n", map[string]string{"k": "😀"}},
		{"raw utf-8", "k=naïve\n", map[string]string{"k": "naïve"}},
		{"crlf and cr", "a=1\r\nb=2\rc=3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"trailing whitespace dropped", "acks=all   \t\n", map[string]string{"acks": "all"}},
		{"escaped trailing space kept", "k=x\\ \n", map[string]string{"k": "x "}},
		{"later key wins", "k=1\nk=2\n", map[string]string{"k": "2"}},
		{"no final newline", "k=v", map[string]string{"k": "v"}},
		{"continuation at end of input", "k=v\\", map[string]string{"k": "v"}},
		{"empty", "", map[string]string{}},
		{"byte-order mark", "\ufeffacks=all\n", map[string]string{"acks": "all"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseProperties(strings.NewReader(c.in), "t.properties")
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Map(); !maps.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"malformed unicode", "a=1\nk=\\u12g4\n", `t.properties:2: property "k": malformed \uXXXX escape "\\u12g4" (it needs four hex digits)`},
		{"short unicode", "k=\\u12", `t.properties:1: property "k": malformed \uXXXX escape "\\u12" (it needs four hex digits)`},
		{"lone surrogate", `k=\ud83d`, `t.properties:1: property "k": \u escape "\\ud83d" is half of a UTF-16 surrogate pair`},
		{"empty key", "a=1\n\n=v\n", "t.properties:3: empty property name (write key=value, e.g. linger.ms=5)"},
		{"invalid utf-8", "a=1\nb=\xff\n", "t.properties:2: the text is not valid UTF-8"},
		{"line of continuation start", "a=1\nk=x\\\n  \\u00zz\n", `t.properties:2: property "k": malformed \uXXXX escape "\\u00zz" (it needs four hex digits)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProperties(strings.NewReader(c.in), "t.properties")
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestPropertiesOrigins(t *testing.T) {
	p, err := ParseProperties(strings.NewReader("# c\nacks=all\nbatch.size=\\\n  1\nbootstrap.servers=x:9092\n"), "p.properties")
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
	back, err := ParseProperties(strings.NewReader(p.Format()), "rt")
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
	_ = p.set("linger.ms", "20", "--producer-prop", false)
	_ = p.set("linger.ms", "5", "c.properties:1", true) // a file read later does not override
	_ = p.set("acks", "1", "c.properties:2", true)
	_ = p.set("acks", "all", "--producer-prop", false) // an explicit setting replaces the file's
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
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseKeyValue(%q) error %v, want %q wrapping ErrInvalid", c.in, err, c.err)
			}
			continue
		}
		if err != nil || k != c.k || v != c.v {
			t.Errorf("ParseKeyValue(%q) = %q, %q, %v; want %q, %q", c.in, k, v, err, c.k, c.v)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		role       Role
		key, value string
		err, warn  string // substrings; both empty = valid
	}{
		{RoleProducer, "acks", "all", "", ""},
		{RoleProducer, "acks", "-1", "", ""},
		{RoleProducer, "acks", "ALL", `"ALL" is not valid; use one of all, -1, 0, 1`, ""},
		{RoleProducer, "linger.ms", "5", "", ""},
		{RoleProducer, "linger.ms", "-1", "below the minimum, 0", ""},
		{RoleProducer, "linger.ms", "5ms", `"5ms" is not a whole number`, ""},
		{RoleProducer, "batch.size", "3000000000", "out of range (Kafka reads it as a Java int)", ""},
		{RoleProducer, "compression.type", "zstd", "", ""},
		{RoleProducer, "compression.zstd.level", "23", "above the maximum, 22", ""},
		{RoleProducer, "enable.idempotence", "TRUE", "", ""},
		{RoleProducer, "linger.mss", "5", `did you mean "linger.ms"?`, ""},
		{RoleProducer, "linger_ms", "5", `did you mean "linger.ms"?`, ""},
		{RoleProducer, "bootstrap.server", "x", `did you mean "bootstrap.servers"?`, ""},
		{RoleProducer, "fetch.min.bytes", "1", "", "is a consumer property; producers ignore it"},
		{RoleConsumer, "linger.ms", "1", "", "is a producer property; consumers ignore it"},
		{RoleProducer, "retention.ms", "1", "is a topic config, not a producer property", ""},
		{RoleProducer, "totally.unrelated.name", "1", "unknown producer property (plimsoll takes Kafka's own producer config names", ""},
		{RoleCommon, "ssl.truststore.password", "x", "", ""},
		{RoleCommon, "sasl.oauthbearer.brand.new.setting", "x", "", "passed on unchecked"},
		{RoleCommon, "ssl.keystore.pasword", "x", `did you mean "ssl.keystore.password"?`, ""},
		{RoleCommon, "ssl.key.password", "  ", "", ""},
		{RoleCommon, "security.protocol", "sasl_ssl", "", ""},
		{RoleCommon, "fetch.max.wait.ms", "500", "", ""},
		{RoleConsumer, "auto.offset.reset", "by_duration:PT1H", "", ""},
		{RoleConsumer, "auto.offset.reset", "oldest", "use earliest, latest, none", ""},
		{RoleConsumer, "isolation.level", "read_committed", "", ""},
		{RoleTopic, "min.cleanable.dirty.ratio", "0.5", "", ""},
		{RoleTopic, "cleanup.policy", "delete,compact", "", ""},
		{RoleTopic, "cleanup.policy", "remove", "use delete, compact", ""},
		{RoleTopic, "compression.type", "producer", "", ""},
		{RoleTopic, "retention.ms", "-1", "", ""},
		{RoleTopic, "retension.ms", "1", `did you mean "retention.ms"?`, ""},
		{RoleTopic, "acks", "all", "is a client property, not a topic config", ""},
	}
	for _, c := range cases {
		var p Props
		_ = p.set(c.key, c.value, "x.properties:1", false)
		warns, err := p.Check(c.role)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s %s=%s: unexpected error %v", c.role, c.key, c.value, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %s=%s: error %v, want it to contain %q", c.role, c.key, c.value, err, c.err)
		case err != nil && !strings.HasPrefix(err.Error(), "x.properties:1: "+c.key+": "):
			t.Errorf("%s %s=%s: error %q must start with the origin and key", c.role, c.key, c.value, err)
		}
		got := strings.Join(warns, "\n")
		if c.warn == "" && got != "" || c.warn != "" && !strings.Contains(got, c.warn) {
			t.Errorf("%s %s=%s: warnings %q, want %q", c.role, c.key, c.value, got, c.warn)
		}
	}
}

func TestCheckNeverEchoesSecrets(t *testing.T) {
	var p Props
	_ = p.set("ssl.keystore.pasword", "hunter2", "", false)        // misspelt: an error
	_ = p.set("sasl.oauthbearer.new.secret", "hunter2", "", false) // unknown family member: a warning
	_ = p.set("ssl.truststore.password", "hunter2", "", false)
	w, err := p.Check(RoleCommon)
	if err == nil || len(w) != 1 {
		t.Fatalf("want one error and one warning, got %v, %q", err, w)
	}
	if strings.Contains(strings.Join(w, " "), "hunter2") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a secret value was echoed: %q %v", w, err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b     string
		limit, d int
	}{
		{"", "", 5, 0}, {"a", "", 5, 1}, {"kitten", "sitting", 5, 3}, {"linger.mss", "linger.ms", 5, 1},
		{"acks", "acks", 0, 0}, {"kitten", "sitting", 2, 3}, {"abcdefgh", "a", 3, 4}, {"xxxxxxxx", "yyyyyyyy", 3, 4},
	} {
		if got := editDistance(c.a, c.b, c.limit); got != c.d {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.d)
		}
	}
}

func TestLoadProperties(t *testing.T) {
	p, err := LoadProperties("testdata/good/client.properties")
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
	_, err = LoadProperties("testdata/good/missing.properties")
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "testdata/good/missing.properties: cannot read") {
		t.Errorf("missing file: %v", err)
	}
}
