//go:build !integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/trial"
)

// TestABBadInput: every mistake in an A/B experiment's command line is exit 2 with a message
// naming the field, before any cluster starts or anything is written.
func TestABBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ab")
	fakeOld := filepath.Join(dir, "jdk11", "bin")
	os.MkdirAll(fakeOld, 0o755)
	os.WriteFile(filepath.Join(fakeOld, "java"), []byte("#!/bin/sh\necho 'openjdk version \"11.0.2\"' >&2\n"), 0o755)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown key", []string{"--a", "kafak=4.1.0", "--b", "", "--", "run"}, `--a "kafak=4.1.0": unknown key kafak; the keys are kafka=VERSION`},
		{"bad value", []string{"--a", "", "--b", "heap=lots", "--", "run"}, `--b "heap=lots": give a JVM heap size`},
		{"no command", []string{"--a", "", "--b", ""}, "with --a/--b, give the command after --"},
		{"not run or limit", []string{"--a", "", "--b", "", "--", "model"}, "give the command each arm runs after --"},
		{"locations too", []string{"--a", "", "--b", "", "x", "--", "run"}, "with --a/--b, give the command after --"},
		{"repeat", []string{"--a", "", "--b", "", "--repeat", "0", "--", "run"}, "--repeat 0: give 1 or more"},
		{"owned flag", []string{"--a", "", "--b", "", "--", "run", "--out=x"}, "the A/B driver sets --out itself"},
		{"owned flag limit", []string{"--a", "", "--b", "", "--", "limit", "--resume"}, "the A/B driver sets --resume itself"},
		{"bad run flag", []string{"--a", "", "--b", "", "--", "run", "--rate", "-1"}, "--a defaults: the run arguments: --rate"},
		{"unknown run flag", []string{"--a", "", "--b", "", "--", "run", "--nosuch"}, "unknown flag: --nosuch"},
		{"bad arm property", []string{"--a", "producer:no.such=1", "--b", "", "--", "run"}, "no.such"},
		{"server-side on remote", []string{"--a", "kafka=3.9.1", "--b", "kafka=4.1.0", "--", "run", "--bootstrap", "b1:9092"},
			"--a kafka=3.9.1: against a remote cluster (--bootstrap) only client-side arms are possible; its entries kafka change the cluster"},
		{"workers you start on its clusters", []string{"--a", "", "--b", "", "--", "run", "--workers", "2"},
			"run --workers 2: each repetition runs on a local cluster the A/B driver starts for it, which workers you start cannot be given in advance; spread the load over children of this plimsoll with --local-workers 2"},
		{"workers you start on its clusters, limit", []string{"--a", "", "--b", "", "--", "limit", "--workers=3"}, "limit --workers 3: each repetition runs on a local cluster"},
		{"broker prop on remote", []string{"--a", "", "--b", "broker:num.io.threads=4", "--", "run", "--bootstrap=b1:9092"}, "its entries broker:num.io.threads"},
		{"not a JDK", []string{"--a", "jdk=" + dir, "--b", "", "--", "run"}, `--a "jdk=` + dir + `": java not found`},
		{"JDK too old", []string{"--a", "", "--b", "jdk=" + filepath.Dir(fakeOld), "--", "run"}, "java 11 found, Kafka 4.1.0 needs 17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"compare", "--out", out}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was created", out)
			}
		})
	}
}

// TestABExistingExperiment: an --out that already holds an experiment is refused.
func TestABExistingExperiment(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "manifest.json"), []byte("{}"), 0o644)
	_, stderr, code := runCLI(t, "compare", "--out", out, "--a", "", "--b", "", "--", "run")
	if code != ExitUsage || !strings.Contains(stderr, "already holds an A/B experiment") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestABSecureListener: an arm with listener=ssl and/or sasl= sends the load to the local
// cluster's listener of that name, trusting its CA, with the arm's SASL credentials.
func TestABSecureListener(t *testing.T) {
	c := &localkafka.State{Dir: "/c", Security: &localkafka.Security{TLS: true, SASLUser: arms.SASLUser},
		Brokers: []*localkafka.Broker{{ID: 1, Host: "127.0.0.1", Port: 9092,
			SecurePorts: map[string]int{"SSL": 9093, "SASL_PLAINTEXT": 9094, "SASL_SSL": 9095}}}}
	for _, tc := range []struct {
		spec, boot, ca, mech string
	}{
		{"listener=ssl", "127.0.0.1:9093", "/c/tls/ca.pem", ""},
		{"sasl=plain", "127.0.0.1:9094", "", "PLAIN"},
		{"listener=ssl,sasl=scram-sha-512", "127.0.0.1:9095", "/c/tls/ca.pem", "SCRAM-SHA-512"},
	} {
		a, err := arms.Parse("--b", tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		w := &trial.Where{Target: c.Target()}
		if err := secureListener(c, a.ListenerName(), a.SASL, "pw")(w); err != nil {
			t.Fatal(err)
		}
		var ca, mech string
		if w.Target.TLS != nil {
			ca = w.Target.TLS.CAFile
		}
		if w.Target.SASL != nil {
			mech = w.Target.SASL.Mechanism
			if w.Target.SASL.User != arms.SASLUser || w.Target.SASL.Password != "pw" {
				t.Errorf("%s: SASL %+v", tc.spec, w.Target.SASL)
			}
		}
		if strings.Join(w.Target.Bootstrap, ",") != tc.boot || ca != tc.ca || mech != tc.mech || len(w.Target.MetricsURLs) != 1 {
			t.Errorf("%s: bootstrap %v, CA %q, mechanism %q, metrics %v; want %s, %q, %q, the cluster's",
				tc.spec, w.Target.Bootstrap, ca, mech, w.Target.MetricsURLs, tc.boot, tc.ca, tc.mech)
		}
	}
}

// TestABWorkersPlan: workers you start are refused on the clusters the driver starts, taken
// against the user's cluster (each repetition prints its workers' lines, as run --workers does),
// and --workers 0 is no workers.
func TestABWorkersPlan(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"local clusters", []string{"run", "--workers", "2"}, false},
		{"the user's cluster", []string{"run", "--workers", "2", "--bootstrap", "b1:9092"}, true},
		{"none", []string{"run", "--workers=0"}, true},
		{"local workers", []string{"run", "--local-workers", "2"}, true},
	} {
		af := &abFlags{repeat: 1, out: filepath.Join(t.TempDir(), "ab")}
		_, err := af.plan(tc.args)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want accepted %v", tc.name, err, tc.ok)
		}
	}
}
