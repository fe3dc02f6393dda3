//go:build !integration

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
)

// badInput is one bad input tried on the command line: the files it needs (written to DIR),
// the command (DIR, HTTP and RO stand for the test's directory, an HTTP server's address and a
// directory this user cannot write), the exit code and the words its message must hold.
type badInput struct {
	what  string
	files map[string]string
	args  []string
	code  int
	want  []string
}

// badInputs are the cases of docs/bad-input.md, in its order. Commands that would contact a
// cluster name a closed port (127.0.0.1:1), so input that got through would fail there, with
// exit 1, instead of starting a local cluster.
var badInputs = []badInput{
	{what: "YAML: unknown field (a typo)", files: map[string]string{"w.yaml": "rate: 1000\nmesage-size: 100\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:2: unknown field \"mesage-size\"", "did you mean \"message-size\""}},
	{what: "YAML: not YAML", files: map[string]string{"w.yaml": "rate: [1, 2\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: not valid YAML"}},
	{what: "YAML: a key given twice", files: map[string]string{"w.yaml": "rate: 1000\nrate: 2000\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:2: \"rate\" is given twice (first at line 1)"}},
	{what: "YAML: nesting 20,000 deep", files: map[string]string{"w.yaml": "topic-config: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml: not valid YAML: exceeded max depth"}},
	{what: "YAML: nesting 5,000 deep in a field", files: map[string]string{"w.yaml": "topic-config: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: topic-config: expected a mapping"}},
	{what: "YAML: alias bomb (9^10 nodes if expanded)", files: map[string]string{"w.yaml": aliasBomb()},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: a0: expected a single value, not a list"}},
	{what: "YAML: number beyond float64", files: map[string]string{"w.yaml": "rate: 1e400\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: rate: \"1e400\" is not a rate"}},
	{what: "YAML: rate beyond any cluster", files: map[string]string{"w.yaml": "rate: 99999999999999999999999999\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: rate:", "over 1 TB/s"}},
	{what: "YAML: message size beyond int", files: map[string]string{"w.yaml": "message-size: 99999999999999999999\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: message-size:", "within 2 GiB"}},
	{what: "YAML: partitions beyond int32", files: map[string]string{"w.yaml": "partitions: 9999999999999\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: partitions:", "too large"}},
	{what: "YAML: negative count", files: map[string]string{"w.yaml": "producers: -1\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: producers:", "at least 1"}},
	{what: "workload: a device that never ends", args: runArgs("--workload", "/dev/zero"), code: ExitUsage,
		want: []string{"/dev/zero: is over 1048576 bytes"}},
	{what: "workload: missing file", args: runArgs("--workload", "DIR/absent.yaml"), code: ExitUsage,
		want: []string{"absent.yaml: cannot read: no such file"}},
	{what: "workload: a directory", args: runArgs("--workload", "DIR"), code: ExitUsage, want: []string{"is a directory"}},
	{what: "OMB workload: missing payload file", files: map[string]string{"omb.yaml": ombMissingPayload},
		args: runArgs("--workload", "DIR/omb.yaml"), code: ExitUsage, want: []string{"omb.yaml:4: payloadFile: cannot find \"payload/missing.data\""}},
	{what: "OMB: driver file missing", files: map[string]string{"omb.yaml": ombMissingPayload},
		args: runArgs("--workload", "DIR/omb.yaml", "--driver", "DIR/driver.yaml"), code: ExitUsage, want: []string{"driver.yaml: cannot read: no such file"}},
	{what: "OMB: --driver without --workload", args: runArgs("--driver", "DIR/driver.yaml"), code: ExitUsage,
		want: []string{"--driver needs --workload"}},
	{what: ".properties: malformed \\u escape", files: map[string]string{"p.properties": "acks=all\nlinger.ms=\\u12G4\n"},
		args: runArgs("--producer.config", "DIR/p.properties"), code: ExitUsage, want: []string{"p.properties:2: property \"linger.ms\": malformed \\uXXXX escape"}},
	{what: ".properties: half a surrogate pair", files: map[string]string{"p.properties": "acks=all\nclient.id=\\uD800\n"},
		args: runArgs("--producer.config", "DIR/p.properties"), code: ExitUsage, want: []string{"p.properties:2:", "half of a UTF-16 surrogate pair"}},
	{what: ".properties: a device that never ends", args: runArgs("--producer.config", "/dev/zero"), code: ExitUsage,
		want: []string{"--producer.config", "/dev/zero: too large: over 1048576 bytes"}},
	{what: ".properties named in YAML: missing", files: map[string]string{"w.yaml": "producer.config: absent.properties\n"},
		args: runArgs("--workload", "DIR/w.yaml"), code: ExitUsage, want: []string{"w.yaml:1: producer.config: cannot read producer properties file", "no such file"}},
	{what: "property: unknown name", args: runArgs("--producer-prop", "lingerms=5"), code: ExitUsage,
		want: []string{"--producer-prop lingerms: unknown producer property; did you mean \"linger.ms\"?"}},
	{what: "property: bad value", args: runArgs("--producer-prop", "acks=maybe"), code: ExitUsage,
		want: []string{"--producer-prop acks: \"maybe\" is not valid; use one of all, -1, 0, 1"}},
	{what: "--bootstrap: an HTTP server", args: []string{"run", "--bootstrap", "HTTP", "--out", "DIR/out"}, code: ExitUsage,
		want: []string{"not a Kafka broker: HTTP answers HTTP", "--bootstrap must name Kafka brokers' client listeners"}},
	{what: "--out: a file", files: map[string]string{"file": "x"}, args: runArgs("--out", "DIR/file"), code: ExitUsage,
		want: []string{"--out DIR/file: DIR/file is a file, not a directory"}},
	{what: "--out: below a file", files: map[string]string{"file": "x"}, args: runArgs("--out", "DIR/file/out"), code: ExitUsage,
		want: []string{"--out DIR/file/out: DIR/file is a file, not a directory"}},
	{what: "--out: not writable", args: runArgs("--out", "RO/out"), code: ExitUsage,
		want: []string{"--out RO/out: cannot write in RO (permission denied)"}},
	{what: "limit --out: a file", files: map[string]string{"file": "x"}, args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/file"},
		code: ExitUsage, want: []string{"--out DIR/file: DIR/file is a file"}},
	{what: "limit --start-rate: above --max-rate", args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/out", "--start-rate", "3e6"},
		code: ExitUsage, want: []string{"--start-rate: 3e+06 must be a rate in messages/s between --min-rate (1) and --max-rate (2e+06)"}},
	{what: "limit --ui: not an address", args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/out", "--ui", "localhost"},
		code: ExitUsage, want: []string{"--ui localhost: give [HOST]:PORT"}},
	{what: "limit --ui: a host name", args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/out", "--ui", "example.com:8080"},
		code: ExitUsage, want: []string{"--ui example.com:8080: give the host as an IP address"}},
	{what: "limit --ui: an address in use", args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/out", "--ui", "HTTP"},
		code: ExitUsage, want: []string{"--ui HTTP: the address is in use"}},
	{what: "compare --a/--b --out: a file", files: map[string]string{"file": "x"},
		args: []string{"compare", "--a", "kafka=3.9.1", "--b", "kafka=4.1.0", "--out", "DIR/file", "--", "run", "--rate", "100"},
		code: ExitUsage, want: []string{"--out DIR/file: DIR/file is a file"}},
	{what: "--metrics-listen: a host name", args: runArgs("--metrics-listen", "example.com:9465"), code: ExitUsage,
		want: []string{"--metrics-listen: bad listen address \"example.com:9465\"", "IP address", "0.0.0.0 for every interface"}},
	{what: "--metrics-listen: a port that is not a number", args: runArgs("--metrics-listen", ":http"), code: ExitUsage,
		want: []string{"--metrics-listen: bad listen address \":http\": the port must be a number"}},
	{what: "--metrics-listen: a port in use", args: runArgs("--metrics-listen", "HTTP"), code: ExitUsage,
		want: []string{"--metrics-listen HTTP:", "address already in use", "pick another port"}},
	{what: "--metrics-linger without --metrics-listen", args: runArgs("--metrics-linger", "15s"), code: ExitUsage,
		want: []string{"--metrics-linger needs --metrics-listen"}},
	{what: "limit --metrics-listen: a host name", args: []string{"limit", "--bootstrap", "127.0.0.1:1", "--out", "DIR/out", "--metrics-listen", "metrics.internal:9465"},
		code: ExitUsage, want: []string{"--metrics-listen: bad listen address", "not a name"}},
	{what: "compare --metrics-listen: reading results", args: []string{"compare", "DIR/a", "DIR/b", "--metrics-listen", ":0"}, code: ExitUsage,
		want: []string{"--metrics-listen serves the runs of an A/B experiment (--a/--b)"}},
	{what: "compare --a/--b: --metrics-listen on the command after --",
		args: []string{"compare", "--a", "kafka=3.9.1", "--b", "kafka=4.1.0", "--out", "DIR/ab", "--", "run", "--metrics-listen", ":0"},
		code: ExitUsage, want: []string{"run --metrics-listen: the A/B driver sets --metrics-listen itself", "give --metrics-listen to compare"}},
	{what: "--fault: unknown action", args: faultArgs("pause 2 at 8s for 8s"), code: ExitUsage,
		want: []string{"--fault", `unknown action "pause"; give kill`}},
	{what: "--fault: no such broker", args: faultArgs("kill 5 at 8s for 8s"), code: ExitUsage,
		want: []string{"--fault", "the cluster has no broker 5; its brokers are 1, 2, 3"}},
	{what: "--fault: after the run's end", args: faultArgs("kill 2 at 30s for 8s"), code: ExitUsage,
		want: []string{"--fault", "at 30s is not before the end of the 20s measured window"}},
	{what: "--fault: cut without emulated NICs", args: faultArgs("cut 2 at 8s for 8s"), code: ExitUsage,
		want: []string{"--fault", "cut needs emulated NICs", "cluster up --nic RATE"}},
	{what: "--fault: a cluster plimsoll did not start", args: runArgs("--fault", "kill 2 at 8s for 8s"), code: ExitUsage,
		want: []string{"--fault: plimsoll injects faults only into a local cluster it runs", "leave out --bootstrap"}},
	{what: "model --file: a device that never ends", args: []string{"model", "--file", "/dev/zero"}, code: ExitUsage,
		want: []string{"--file: /dev/zero: too large"}},
	{what: "export: an unknown --format", args: []string{"export", "--format", "csv", "DIR"}, code: ExitUsage,
		want: []string{`--format "csv" is not a format export writes: give --format omb`}},
	{what: "export: a directory of neither a run nor a limit search", args: []string{"export", "--format", "omb", "DIR"}, code: ExitUsage,
		want: []string{"neither a run's result.json nor a limit search's results.jsonl", "give the directory plimsoll run --out or plimsoll limit --out wrote"}},
	{what: "export: a run shorter than one 10-second window",
		files: map[string]string{"result.json": `{"schema": 2, "window": {"measured_seconds": 5}, "timeline": [{"t": 1}]}`, "histograms.hlog": ""},
		args:  []string{"export", "--format", "omb", "DIR"}, code: ExitUsage,
		want: []string{"measured window shorter than one 10-second window: 5.0 s measured; OMB's series need a run with --duration 10s or more"}},
	{what: "report: a JSON neither an OMB result nor a directory", files: map[string]string{"x.json": `{"name": "not a result"}`},
		args: []string{"report", "DIR/x.json"}, code: ExitUsage,
		want: []string{`not an OpenMessaging Benchmark result file: no "workload" field`, "report reads an OMB result file"}},
	{what: "compare: a JSON neither an OMB result nor a plimsoll one", files: map[string]string{"x.json": `{"name": "not a result"}`},
		args: []string{"compare", "DIR/x.json", "DIR/x.json"}, code: ExitUsage,
		want: []string{`not an OpenMessaging Benchmark result file: no "workload" field`, "or OMB result files (.json)"}},
	{what: "watch: an interval shorter than the probe's", args: []string{"watch", "--interval", "1s", "--cluster-dir", "DIR/cluster"}, code: ExitUsage,
		want: []string{"--interval 1s: give at least 2s"}},
	{what: "watch: a negative --for", args: []string{"watch", "--for", "-5s", "--cluster-dir", "DIR/cluster"}, code: ExitUsage,
		want: []string{"--for -5s: give a positive duration"}},
	{what: "watch: no local cluster (watch starts none)", args: []string{"watch", "--cluster-dir", "DIR/cluster"}, code: ExitUsage,
		want: []string{"no local cluster in DIR/cluster, and watch starts none", "plimsoll cluster up --cluster-dir DIR/cluster"}},
	{what: "watch: a user's cluster without metrics endpoints", args: []string{"watch", "--bootstrap", "127.0.0.1:1"}, code: ExitUsage,
		want: []string{"--bootstrap without --metrics-url"}},
	{what: "watch: a CPU ceiling above 100%", args: []string{"watch", "--host-busy", "1.5", "--cluster-dir", "DIR/cluster"}, code: ExitUsage,
		want: []string{"--host-busy 1.5: give a share between 0 and 1"}},
	{what: "scenario: --local-workers on a scenario that drives no load", args: []string{"scenario", "run", "reassignment", "--local-workers", "2", "--out", "DIR/out"},
		code: ExitUsage, want: []string{"--local-workers 2: scenario reassignment drives no load", "leave --local-workers out"}},
	{what: "scenario: more local workers than its producers", args: []string{"scenario", "run", "partitions-throughput", "--mode", "short", "--local-workers", "5", "--out", "DIR/out"},
		code: ExitUsage, want: []string{"--local-workers 5: the steps run 4 producers", "raise --set producers=5"}},
	{what: "scenario: local workers where clients set the measure", args: []string{"scenario", "run", "message-overhead", "--local-workers", "2", "--out", "DIR/out"},
		code: ExitUsage, want: []string{"message-overhead's searches run one producer", "leave --local-workers out"}},
	{what: "scenario: --workers", args: []string{"scenario", "run", "partitions-throughput", "--workers", "2", "--out", "DIR/out"},
		code: ExitUsage, want: []string{"--workers: scenario run takes no workers you start", "--local-workers 2"}},
}

// runArgs is `run` against a closed port, plus args, with --out DIR/out unless args set --out.
func runArgs(args ...string) []string {
	base := []string{"run", "--bootstrap", "127.0.0.1:1"}
	if !slices.Contains(args, "--out") {
		base = append(base, "--out", "DIR/out")
	}
	return append(base, args...)
}

// faultArgs is `run --fault spec` for 20 s on the local cluster of DIR/cluster, which does not
// exist: run would start the default 3-broker loopback cluster.
func faultArgs(spec string) []string {
	return []string{"run", "--cluster-dir", "DIR/cluster", "--duration", "20s", "--out", "DIR/out", "--fault", spec}
}

const ombMissingPayload = "topics: 1\npartitionsPerTopic: 1\nmessageSize: 100\npayloadFile: payload/missing.data\n" +
	"producersPerTopic: 1\nconsumerPerSubscription: 1\nsubscriptionsPerTopic: 1\nproducerRate: 100\ntestDurationMinutes: 1\n"

// aliasBomb is a billion laughs in YAML: ten levels of nine aliases each.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("producer-props: {a0: &a0 [x, x, x, x, x, x, x, x, x]")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, ", a%d: &a%d [%s]", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

// TestBadInput runs every catalogued bad input in-process: each exits with its code and a
// message naming the field or flag, within seconds, and leaves its directory as it was (no
// --out, no half-written file). The table in docs/bad-input.md is rendered from what the
// commands printed; -update rewrites it.
func TestBadInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	ro := unwritableDir(t)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, tc := range badInputs {
		dir := t.TempDir()
		for name, data := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		subst := strings.NewReplacer("DIR", dir, "HTTP", strings.TrimPrefix(srv.URL, "http://"), "RO", ro)
		var args []string
		for _, a := range tc.args {
			args = append(args, subst.Replace(a))
		}
		before := tree(t, dir)
		start := time.Now()
		_, stderr, code := runCLI(t, args...)
		took := time.Since(start)
		stderr = strings.NewReplacer(dir, "DIR", filepath.Dir(dir), "DIR/..", cwd, "CWD",
			strings.TrimPrefix(srv.URL, "http://"), "HTTP", ro, "RO").Replace(stderr)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.what, code, tc.code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: the message lacks %q:\n%s", tc.what, w, stderr)
			}
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v", tc.what, took)
		}
		if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("%s: the directory changed: %v, was %v", tc.what, after, before)
		}
		if _, err := os.Stat(filepath.Join(ro, "out")); err == nil {
			t.Errorf("%s: created %s/out", tc.what, ro)
		}
		rows = append(rows, docRow(tc, stderr, code))
	}
	checkDocTable(t, filepath.Join("..", "..", "docs", "bad-input.md"), "TestBadInput", rows)
}

// unwritableDir is a directory this user cannot create files in: for root, who may write
// anywhere mode bits allow nothing, sysfs's root.
func unwritableDir(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "/sys"
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	return dir
}

// docRow is the case's row in the catalogue: what, the command, the exit code, the message.
func docRow(tc badInput, stderr string, code int) string {
	cmd := "plimsoll " + strings.Join(tc.args, " ")
	if len(cmd) > 90 && strings.Contains(cmd, strings.Repeat("[", 20)) {
		cmd = cmd[:90] + "..."
	}
	msg := strings.TrimSpace(stderr)
	lines := strings.Split(msg, "\n")
	if len(lines) > 2 {
		lines = append(lines[:2], fmt.Sprintf("(%d more lines)", len(lines)-2))
	}
	cell := strings.NewReplacer("|", `\|`, "`", "'").Replace(strings.Join(lines, "<br>"))
	return fmt.Sprintf("| %s | `%s` | %d | %s |", tc.what, strings.ReplaceAll(cmd, "|", `\|`), code, cell)
}

// checkDocTable compares the table that test renders, between its markers in path, with rows
// (or rewrites it).
func checkDocTable(t *testing.T, path, test string, rows []string) {
	t.Helper()
	begin, end := "<!-- table: "+test+" renders it; go test ./cmd/plimsoll -run "+test+" -update -->\n", "<!-- end of table -->\n"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte(begin))
	j := i + bytes.Index(doc[max(i, 0):], []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s lacks the table's markers", path)
	}
	table := "| bad input | command | exit | message |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	got := append(append(append([]byte{}, doc[:i+len(begin)]...), table...), doc[j:]...)
	goldenfile.Check(t, path, got)
}
