package kafkaprops

import (
	"errors"
	"strings"
	"testing"
)

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
		{RoleProducer, "compression.type", "ZSTD", `"ZSTD" is not valid; use one of none, gzip, snappy, lz4, zstd`, ""},
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
		_ = p.SetAt(c.key, c.value, "x.properties:1", false)
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

// TestAdmit: what Check lets through, Admit also refuses when plimsoll's clients cannot honour
// it; names that are the other client's or plimsoll's own pass.
func TestAdmit(t *testing.T) {
	cases := []struct {
		role       Role
		key, value string
		err        string // substring; "" = admitted
	}{
		{RoleProducer, "linger.ms", "5", ""},
		{RoleProducer, "fetch.min.bytes", "1", ""},
		{RoleProducer, "bootstrap.servers", "b:9092", ""},
		{RoleConsumer, "max.block.ms", "100", ""},
		{RoleProducer, "max.block.ms", "100", "never blocks in send"},
		{RoleProducer, "transactional.id", "t", "transactional producing is not supported"},
		{RoleProducer, "compression.lz4.level", "4", "fast mode only"},
		{RoleProducer, "interceptor.classes", "a.B", "cannot load Java classes"},
		{RoleConsumer, "exclude.internal.topics", "true", "has no franz-go equivalent in plimsoll; remove it (supported: auto.commit.interval.ms, "},
		{RoleConsumer, "group.instance.id", "c1", "dynamic members"},
		{RoleCommon, "security.protocol", "plaintext", ""},
		{RoleCommon, "security.protocol", "SSL", "--tls-ca"},
		{RoleCommon, "ssl.truststore.location", "/t.jks", "--tls-ca"},
		{RoleCommon, "sasl.oauthbearer.brand.new.setting", "x", "--sasl-mechanism"},
		{RoleCommon, "request.timeout.ms", "1000", ""},
		{RoleCommon, "max.block.ms", "5", "never blocks in send"},
		{RoleCommon, "default.api.timeout.ms", "5", ""},
		{RoleTopic, "flush.messages", "1", ""},
		{RoleProducer, "linger.mss", "5", `did you mean "linger.ms"?`},
		{RoleProducer, "linger.ms", "-5", "below the minimum"},
	}
	for _, c := range cases {
		err := Admit(c.role, Prop{Key: c.key, Value: c.value, Origin: "--" + c.role.Flag()})
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %s=%s: %v, want %q", c.role, c.key, c.value, err, c.err)
		}
		if err != nil && !errors.Is(err, ErrUnknownProperty) && !errors.Is(err, ErrBadProperty) {
			t.Errorf("%s %s: %v has no kind", c.role, c.key, err)
		}
	}
}

func TestCheckNeverEchoesSecrets(t *testing.T) {
	var p Props
	_ = p.Set("ssl.keystore.pasword", "hunter2")        // misspelt: an error
	_ = p.Set("sasl.oauthbearer.new.secret", "hunter2") // unknown family member: a warning
	_ = p.Set("ssl.truststore.password", "hunter2")
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

// TestCatalogue keeps the tables consistent: every default passes its own checks, enums list
// their default, and each client property says how plimsoll's client treats it.
func TestCatalogue(t *testing.T) {
	for _, role := range []Role{RoleProducer, RoleConsumer, RoleTopic} {
		for _, d := range Defs(role) {
			if d.Doc == "" {
				t.Errorf("%s has no doc", d.Name)
			}
			for _, v := range []string{d.Default, d.ConsumerDefault} {
				if v != "" && d.Kind != KindPassword {
					if err := checkValue(d.Name, v, d); err != nil {
						t.Errorf("%s: its default %q fails its own check: %v", d.Name, v, err)
					}
				}
			}
			if d.Use == Owned && d.Why == "" {
				t.Errorf("%s is owned without a reason", d.Name)
			}
		}
	}
	for name, d := range brokerIndex {
		if d.Default == "" || d.Scope != ScopeBroker {
			t.Errorf("broker setting %s: default %q scope %d", name, d.Default, d.Scope)
		}
	}
}
