package arms

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Arm
	}{
		{"", Arm{}},
		{"kafka=3.9.1", Arm{Kafka: "3.9.1"}},
		{" kafka=4.1.0 , jdk=/usr/lib/jvm/temurin-25-jdk-amd64", Arm{Kafka: "4.1.0", JDK: "/usr/lib/jvm/temurin-25-jdk-amd64"}},
		{"listener=ssl,sasl=SCRAM-SHA-512", Arm{Listener: "ssl", SASL: "scram-sha-512"}},
		{"heap=512m,nic=16Mbit/s,message-size=108", Arm{Heap: "512m", NIC: 2e6, MessageSize: 108}},
		{"brokers=1,heap=512m", Arm{Brokers: 1, Heap: "512m"}},
		{"broker:num.io.threads=4,producer:compression.type=lz4,consumer:fetch.min.bytes=65536",
			Arm{Broker: map[string]string{"num.io.threads": "4"}, Producer: map[string]string{"compression.type": "lz4"},
				Consumer: map[string]string{"fetch.min.bytes": "65536"}}},
	} {
		got, err := Parse("--a", tc.spec)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"kafka", `--b "kafka": not key=value; the keys are kafka=VERSION`},
		{"kafak=4.1.0", "unknown key kafak; the keys are"},
		{"kafka=4.x", "give a Kafka release such as 4.1.0"},
		{"kafka=4.1.0,kafka=3.9.1", "kafka is given twice"},
		{"listener=sasl", "give listener=plaintext or listener=ssl"},
		{"sasl=gssapi", "give sasl=plain"},
		{"heap=lots", "give a JVM heap size"},
		{"brokers=0", "give a number of brokers from 1 to 32"},
		{"brokers=three", "give a number of brokers from 1 to 32"},
		{"nic=fast", "give a positive rate"},
		{"message-size=10", "at least 24"},
		{"producer:no.such.prop=1", "no.such.prop"},
		{"client:acks=all", "unknown property prefix client:"},
		{"broker:=4", "name the property after the colon"},
	} {
		_, err := Parse("--b", tc.spec)
		var ae *Error
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an *Error containing %q", tc.spec, err, tc.want)
		}
	}
}

func TestSameAndServerSide(t *testing.T) {
	for _, tc := range []struct {
		a, b   string
		same   bool
		server []string // of b
	}{
		{"", "", true, nil},
		{"listener=plaintext", "", true, []string(nil)},
		{"kafka=3.9.1", "kafka=4.1.0", false, []string{"kafka"}},
		{"brokers=3", "brokers=5", false, []string{"brokers"}},
		{"", "producer:linger.ms=5,message-size=200", false, nil},
		{"", "broker:num.io.threads=4,heap=512m,jdk=/x", false, []string{"jdk", "heap", "broker:num.io.threads"}},
	} {
		a, _ := Parse("--a", tc.a)
		b, err := Parse("--b", tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if Same(a, b) != tc.same || !reflect.DeepEqual(b.ServerSide(), tc.server) {
			t.Errorf("%q vs %q: same %v, server-side %v; want %v, %v", tc.a, tc.b, Same(a, b), b.ServerSide(), tc.same, tc.server)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, spec := range []string{"defaults", "kafka=3.9.1,jdk=/j,listener=ssl,sasl=plain,brokers=5,heap=1g,nic=16.0Mbit/s,message-size=108,broker:a.b=1,producer:acks=1,consumer:fetch.min.bytes=1"} {
		in := spec
		if spec == "defaults" {
			in = ""
		}
		a, err := Parse("--a", in)
		if err != nil || a.String() != spec {
			t.Errorf("Parse(%q).String() = %q, %v", in, a.String(), err)
		}
	}
}

func TestClientArgsAndCluster(t *testing.T) {
	a, err := Parse("--a", "producer:linger.ms=5,producer:acks=1,consumer:fetch.min.bytes=65536,message-size=108,listener=ssl,sasl=plain,broker:num.io.threads=4,brokers=1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--producer-prop", "acks=1", "--producer-prop", "linger.ms=5", "--consumer-prop", "fetch.min.bytes=65536", "--message-size", "108"}
	if got := a.ClientArgs(false); !reflect.DeepEqual(got, want) {
		t.Errorf("ClientArgs(run) = %q, want %q", got, want)
	}
	if got := a.ClientArgs(true); got[len(got)-2] != "--message-sizes" {
		t.Errorf("ClientArgs(limit) = %q, want --message-sizes", got)
	}
	o := a.ClusterOptions("/tmp/x", "pw")
	if !o.Security.TLS || o.Security.SASLUser != SASLUser || o.ExtraConfig["num.io.threads"] != "4" || o.Java != "java" || o.Brokers != 1 {
		t.Errorf("ClusterOptions = %+v", o)
	}
	if a.ListenerName() != localkafka.ListenerSASLSSL {
		t.Errorf("listener %q", a.ListenerName())
	}
}

// TestCheckJDK: a jdk= that is not a JDK is refused before Maven or any cluster is touched.
func TestCheckJDK(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old", "bin")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "java"), []byte("#!/bin/sh\necho 'openjdk version \"11.0.2\"' >&2\n"), 0o755)
	for _, tc := range []struct{ jdk, want string }{
		{dir, "jdk=" + dir + "\": java not found: " + filepath.Join(dir, "bin", "java") + " is not an executable"},
		{filepath.Join(dir, "old"), "java 11 found, Kafka 4.1.0 needs 17"},
	} {
		err := Arm{JDK: tc.jdk}.Check(context.Background(), "--b")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--b ") {
			t.Errorf("Check(jdk=%s) = %v; want %q", tc.jdk, err, tc.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                              "plain",
		"cannot resolve x: \x1b[0m[ERROR] y": "cannot resolve x",
		"one\ntwo":                           "one",
	} {
		if got := firstLine(in); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
