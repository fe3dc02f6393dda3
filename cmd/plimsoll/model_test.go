//go:build !integration

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
)

// The golden files are rewritten with `go test ./cmd/plimsoll -run TestModelGolden -update`.

// runCLI runs plimsoll in-process as main does and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	errFile, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	var out, cobraErr bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&cobraErr)
	code = exitCode(root.Execute(), errFile)
	if _, err := errFile.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	if _, err := errOut.ReadFrom(errFile); err != nil {
		t.Fatal(err)
	}
	return out.String(), cobraErr.String() + errOut.String(), code
}

type modelCase struct {
	name string
	args []string
}

// modelCases are the acceptance points (from the source articles), then the rest.
var modelCases = []modelCase{
	// 1. Netflix: 3 brokers, 3 partitions, rf 2, 300 MB/s: in 200 MB/s, out 100 MB/s.
	{"netflix-3-brokers", []string{"--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s"}},
	{"netflix-3-brokers-json", []string{"--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s", "--json"}},
	// 2. 300 brokers, 3000 partitions, 3000 MB/s: rf 2 in 20 out 10; rf 6 in 60 out 50.
	{"netflix-300-brokers-rf2", []string{"--brokers", "300", "--partitions", "3000", "--replication-factor", "2", "--produce", "3000MB/s", "--json"}},
	{"netflix-300-brokers-rf6", []string{"--brokers", "300", "--partitions", "3000", "--replication-factor", "6", "--produce", "3000MB/s"}},
	{"netflix-300-brokers-rf6-json", []string{"--brokers", "300", "--partitions", "3000", "--replication-factor", "6", "--produce", "3000MB/s", "--json"}},
	// 3. Consumer groups add (G + r - 1) t / N to out.
	{"consumer-groups", []string{"--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s", "--consumer-groups", "2", "--json"}},
	// 4. Heroku: 1.5M msg/s at rf 3; v0 -> v1 and 100 -> 108 bytes add 288 Mbit/s of network in.
	{"heroku-v0", []string{"--brokers", "3", "--replication-factor", "3", "--messages-per-sec", "1.5M", "--message-size", "100", "--record-format", "v0", "--json"}},
	{"heroku-v1", []string{"--brokers", "3", "--replication-factor", "3", "--messages-per-sec", "1.5M", "--message-size", "100", "--record-format", "v1", "--json"}},
	{"heroku-v0-108", []string{"--brokers", "3", "--replication-factor", "3", "--messages-per-sec", "1.5M", "--message-size", "108", "--record-format", "v0", "--json"}},
	{"heroku-v1-explain", []string{"--brokers", "3", "--replication-factor", "3", "--messages-per-sec", "1.5M", "--message-size", "100", "--record-format", "v1", "--explain"}},
	// 5. Dropbox: 60 MB/s per broker with 20% of brokers down: 48 MB/s safe per broker.
	{"dropbox-headroom", []string{"--brokers", "5", "--brokers-down", "20%", "--broker-limit", "60MB/s", "--explain"}},
	{"dropbox-headroom-json", []string{"--brokers", "5", "--brokers-down", "1", "--broker-limit", "60MB/s", "--json"}},
	// 6. Instaclustr: 1M msg/s at 10 ms consumer latency needs 10,000 partitions.
	{"littles-law", []string{"--messages-per-sec", "1M", "--consumer-latency", "10ms", "--explain"}},
	{"littles-law-json", []string{"--messages-per-sec", "1000000", "--consumer-latency", "10ms", "--json"}},
	// 7. vm.max_map_count 65530 allows 32,765 partitions per broker.
	{"max-map-count", []string{"--max-map-count", "65530"}},
	{"max-map-count-json", []string{"--max-map-count", "65530", "--json"}},

	// Capacities, the bottleneck and the ceiling, with brokers down and every figure explained.
	{"capacity-explain", []string{"--brokers", "6", "--partitions", "60", "--replication-factor", "3", "--consumer-groups", "2",
		"--lagging-consumer-groups", "1", "--messages-per-sec", "200k", "--message-size", "1000", "--nic", "1Gbit/s",
		"--disk-write", "400MB/s", "--disk-read", "200MB/s", "--brokers-down", "1", "--broker-limit", "60MB/s",
		"--consumer-latency", "5ms", "--partition-throughput", "10MB/s", "--explain"}},
	{"capacity-json", []string{"--brokers", "6", "--partitions", "60", "--replication-factor", "3", "--consumer-groups", "2",
		"--produce", "200MB/s", "--message-size", "1000", "--nic", "1Gbit/s", "--disk-write", "400MB/s", "--json"}},
	// The emulated-NIC case of ANCHORS: 3 brokers rf 3 on 16 Mbit/s links, 100-byte records.
	{"emulated-nic", []string{"--brokers", "3", "--partitions", "3", "--replication-factor", "3", "--message-size", "100",
		"--nic", "16Mbit/s", "--max-utilization", "1"}},
	// Inputs from a file; a flag overrides the file's produce rate.
	{"file", []string{"--file", "testdata/model/cluster.yaml"}},
	{"file-override", []string{"--file", "testdata/model/cluster.yaml", "--produce", "150MB/s", "--json"}},

	// Sizing: a target load and a capacity, no --brokers (figures checked in TestModelSizingFigures).
	{"sizing", []string{"--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--disk-write", "400MB/s"}},
	{"sizing-brokers-down", []string{"--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--disk-write", "400MB/s", "--brokers-down", "1"}},
	{"sizing-partitions-json", []string{"--partitions", "6", "--replication-factor", "2", "--produce", "300MB/s", "--nic", "100MB/s",
		"--max-utilization", "1", "--brokers-down", "1", "--json"}},
	{"sizing-messages", []string{"--replication-factor", "3", "--consumer-groups", "2", "--messages-per-sec", "1M", "--message-size", "1KiB", "--nic", "10Gbit/s"}},

	// Bad input: exit 2, the error on stderr, nothing on stdout.
	{"err-sizing-share-down", []string{"--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--brokers-down", "20%"}},
	{"err-sizing-explain", []string{"--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--explain"}},
	{"err-sizing-no-rf", []string{"--produce", "300MB/s", "--nic", "1Gbit/s"}},
	{"err-sizing-too-few-partitions", []string{"--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s", "--nic", "100MB/s", "--max-utilization", "1"}},
	{"err-no-brokers-no-capacity", []string{"--replication-factor", "3", "--produce", "300MB/s"}},
	{"err-rf-above-brokers", []string{"--brokers", "2", "--partitions", "3", "--replication-factor", "3", "--produce", "300MB/s"}},
	{"err-rf-above-brokers-file", []string{"--file", "testdata/model/cluster.yaml", "--brokers", "1"}},
	{"err-unknown-unit", []string{"--brokers", "3", "--replication-factor", "2", "--produce", "300MB/x"}},
	{"err-zero-brokers", []string{"--brokers", "0", "--replication-factor", "2", "--produce", "300MB/s"}},
	{"err-negative-partitions", []string{"--brokers", "3", "--partitions", "-3", "--replication-factor", "2"}},
	{"err-negative-rate", []string{"--brokers", "3", "--replication-factor", "2", "--nic", "-1Gbit/s"}},
	{"err-both-rates", []string{"--brokers", "3", "--replication-factor", "2", "--produce", "1MB/s", "--messages-per-sec", "1000"}},
	{"err-missing-rf", []string{"--brokers", "3", "--produce", "1MB/s"}},
	{"err-all-brokers-down", []string{"--brokers", "3", "--replication-factor", "2", "--nic", "1Gbit/s", "--brokers-down", "3"}},
	{"err-key-without-size", []string{"--messages-per-sec", "1000", "--key-size", "16"}},
	{"err-unknown-key-in-file", []string{"--file", "testdata/model/typo.yaml"}},
	{"err-missing-file", []string{"--file", "testdata/model/absent.yaml"}},
	{"err-nothing", []string{}},
	{"err-json-explain", []string{"--max-map-count", "65530", "--json", "--explain"}},
}

func TestModelGolden(t *testing.T) {
	for _, tc := range modelCases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"model"}, tc.args...)...)
			got := formatRun(tc.args, stdout, stderr, code)
			goldenfile.Check(t, filepath.Join("testdata", "model", tc.name+".golden"), []byte(got))
			if strings.HasPrefix(tc.name, "err-") {
				if code != ExitUsage || stdout != "" || !strings.HasPrefix(stderr, "plimsoll: ") || strings.Count(stderr, "\n") != 1 {
					t.Errorf("bad input: exit %d, stdout %q, stderr %q; want exit 2, no stdout, one error line", code, stdout, stderr)
				}
			} else if code != ExitOK || stderr != "" {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

func formatRun(args []string, stdout, stderr string, code int) string {
	var b strings.Builder
	b.WriteString("$ plimsoll model " + strings.Join(args, " ") + "\n")
	b.WriteString("exit " + strconv.Itoa(code) + "\n")
	b.WriteString("--- stdout\n" + stdout)
	b.WriteString("--- stderr\n" + stderr)
	return b.String()
}

// modelJSON runs plimsoll model --json and decodes the result.
func modelJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := runCLI(t, append(append([]string{"model"}, args...), "--json")...)
	if code != ExitOK {
		t.Fatalf("plimsoll model %v: exit %d: %s", args, code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout)
	}
	return doc
}

// field digs a number out of a decoded JSON document by its dotted path.
func field(t *testing.T, doc map[string]any, path string) float64 {
	t.Helper()
	var cur any = doc
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %v is not an object", path, cur)
		}
		cur = m[p]
	}
	v, ok := cur.(float64)
	if !ok {
		t.Fatalf("%s = %v, not a number", path, cur)
	}
	return v
}

// The acceptance figures, checked on the JSON so a careless -update cannot bless wrong numbers.
func TestModelAcceptanceFigures(t *testing.T) {
	netflix := []struct {
		args    []string
		in, out float64
	}{
		{[]string{"--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s"}, 200e6, 100e6},
		{[]string{"--brokers", "300", "--partitions", "3000", "--replication-factor", "2", "--produce", "3000MB/s"}, 20e6, 10e6},
		{[]string{"--brokers", "300", "--partitions", "3000", "--replication-factor", "6", "--produce", "3000MB/s"}, 60e6, 50e6},
	}
	for _, n := range netflix {
		doc := modelJSON(t, n.args...)
		if in, out := field(t, doc, "busiest_broker.network_in_bytes_per_sec"), field(t, doc, "busiest_broker.network_out_bytes_per_sec"); in != n.in || out != n.out {
			t.Errorf("%v: in/out %v/%v, want %v/%v", n.args, in, out, n.in, n.out)
		}
	}

	// (G + r - 1) t / N.
	for _, g := range []string{"0", "1", "2", "5"} {
		doc := modelJSON(t, "--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s", "--consumer-groups", g)
		want := (float64(g[0]-'0') + 2 - 1) * 300e6 / 3
		if got := field(t, doc, "busiest_broker.network_out_bytes_per_sec"); got != want {
			t.Errorf("%s groups: out %v, want %v", g, got, want)
		}
	}

	heroku := func(size, format string) map[string]any {
		return modelJSON(t, "--brokers", "3", "--replication-factor", "3", "--messages-per-sec", "1.5M", "--message-size", size, "--record-format", format)
	}
	v0, v1, v0big := heroku("100", "v0"), heroku("100", "v1"), heroku("108", "v0")
	if d := field(t, v1, "cluster.wire_bytes_per_message") - field(t, v0, "cluster.wire_bytes_per_message"); d != 8 {
		t.Errorf("v0 -> v1 adds %v bytes per message, want 8", d)
	}
	for name, doc := range map[string]map[string]any{"v0 -> v1": v1, "100 -> 108 bytes": v0big} {
		d := field(t, doc, "cluster.network_in_bytes_per_sec") - field(t, v0, "cluster.network_in_bytes_per_sec")
		if d*8 != 288e6 {
			t.Errorf("%s raises cluster network in by %v bit/s, want 288 Mbit/s", name, d*8)
		}
	}

	for _, down := range []string{"1", "20%"} {
		doc := modelJSON(t, "--brokers", "5", "--brokers-down", down, "--broker-limit", "60MB/s")
		if got := field(t, doc, "headroom.safe_per_broker_bytes_per_sec"); got != 48e6 {
			t.Errorf("--brokers-down %s: safe per broker %v, want 48 MB/s", down, got)
		}
	}

	if got := field(t, modelJSON(t, "--messages-per-sec", "1M", "--consumer-latency", "10ms"), "partitions.littles_law_min"); got != 10000 {
		t.Errorf("Little's law: %v partitions, want 10000", got)
	}
	if got := field(t, modelJSON(t, "--max-map-count", "65530"), "partitions.max_by_map_count"); got != 32765 {
		t.Errorf("max_map_count 65530: %v partitions per broker, want 32765", got)
	}
}

// Sizing mode's counts, hand-computed: rf 3, no partitions, 300 MB/s on 125 MB/s NICs planned to
// 80%: the busiest of U brokers takes 900/U MB/s in (U >= 9) and 600/U out (U >= 6); disks of
// 400 MB/s take 900/U <= 320 (U >= 3). One down: N-1 >= 9 and 6; disk write fits at N=3 (2 up
// holding 2 replicas: 300 <= 320). The survivor of 10 with 1 down takes 900/9 = 100 MB/s in.
func TestModelSizingFigures(t *testing.T) {
	doc := modelJSON(t, "--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--disk-write", "400MB/s", "--brokers-down", "1")
	for path, want := range map[string]float64{
		"all_up.by_resource.network_in": 9, "all_up.by_resource.network_out": 6, "all_up.by_resource.disk_write": 3,
		"all_up.brokers": 9, "with_brokers_down.brokers": 10, "with_brokers_down.brokers_down": 1,
		"with_brokers_down.by_resource.network_out": 7, "with_brokers_down.by_resource.disk_write": 3,
		"with_brokers_down.busiest_broker.network_in_bytes_per_sec": 100e6,
		"with_brokers_down.busiest_broker.produce_in_bytes_per_sec": 300e6 / 9,
	} {
		if got := field(t, doc, path); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if doc["schema"] != sizingSchema {
		t.Errorf("schema %v, want %s", doc["schema"], sizingSchema)
	}
}

// The JSON schema keeps every documented key, null or not (docs/model.md).
func TestModelJSONSchemaKeys(t *testing.T) {
	doc := modelJSON(t, "--max-map-count", "65530")
	want := map[string][]string{
		"":               {"schema", "inputs", "busiest_broker", "cluster", "utilization", "max_produce_by_resource", "bottleneck", "max_produce_bytes_per_sec", "max_messages_per_sec", "partitions", "headroom", "notes"},
		"cluster":        {"produce_bytes_per_sec", "messages_per_sec", "network_in_bytes_per_sec", "network_out_bytes_per_sec", "disk_write_bytes_per_sec", "disk_read_bytes_per_sec", "wire_bytes_per_message", "overhead_bytes_per_message", "records_per_batch"},
		"utilization":    {"network_in", "network_out", "disk_write", "disk_read"},
		"partitions":     {"littles_law_min", "throughput_min", "max_by_map_count", "replicas_per_broker"},
		"busiest_broker": nil,
	}
	for obj, keys := range want {
		m := doc
		if obj != "" {
			if v, present := doc[obj]; keys == nil {
				if !present || v != nil {
					t.Errorf("%s = %v (present %v), want null without traffic", obj, v, present)
				}
				continue
			}
			sub, ok := doc[obj].(map[string]any)
			if !ok {
				t.Fatalf("%s = %v, want an object", obj, doc[obj])
			}
			m = sub
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("key %q missing from %q", k, obj)
			}
		}
	}
	if doc["schema"] != modelSchema {
		t.Errorf("schema = %v", doc["schema"])
	}
	full := modelJSON(t, "--brokers", "3", "--partitions", "3", "--replication-factor", "2", "--produce", "300MB/s", "--broker-limit", "60MB/s")
	b := full["busiest_broker"].(map[string]any)
	for _, k := range []string{"leaders", "followers", "produce_in_bytes_per_sec", "replication_in_bytes_per_sec", "replication_out_bytes_per_sec",
		"consume_out_bytes_per_sec", "network_in_bytes_per_sec", "network_out_bytes_per_sec", "disk_write_bytes_per_sec", "disk_read_bytes_per_sec"} {
		if _, ok := b[k]; !ok {
			t.Errorf("busiest_broker.%s missing", k)
		}
	}
	h := full["headroom"].(map[string]any)
	for _, k := range []string{"safe_per_broker_bytes_per_sec", "safe_cluster_bytes_per_sec", "spare_bytes_per_sec"} {
		if _, ok := h[k]; !ok {
			t.Errorf("headroom.%s missing", k)
		}
	}
}

func BenchmarkModelCommand(b *testing.B) {
	args := []string{"model", "--brokers", "6", "--partitions", "60", "--replication-factor", "3", "--consumer-groups", "2",
		"--messages-per-sec", "200k", "--message-size", "1000", "--nic", "1Gbit/s", "--json"}
	b.ReportAllocs()
	for b.Loop() {
		root := newRootCmd()
		root.SetArgs(args)
		root.SetOut(&bytes.Buffer{})
		if err := root.Execute(); err != nil {
			b.Fatal(err)
		}
	}
}
