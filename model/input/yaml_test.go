package input

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadYAML(t *testing.T) {
	in := New()
	err := in.LoadYAML("model.yaml", []byte(`# a cluster
brokers: 3
partitions: 3
replication-factor: 2
produce: 300MB/s
max-utilization: 80%
consumer-latency: 10ms
record-format: v1
message-size: 100
`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Cluster.Brokers != 3 || in.Cluster.ReplicationFactor != 2 || in.ProduceBytesPerSec != 300e6 ||
		in.Cluster.MaxUtilization != 0.8 || in.Message.PayloadBytes != 100 {
		t.Errorf("loaded %+v", in)
	}
	if got := in.Where("produce"); got != "model.yaml:5: produce" {
		t.Errorf("Where(produce) = %q", got)
	}
	if got := in.Where("nic"); got != "--nic" {
		t.Errorf("Where(nic) = %q", got)
	}
	// Flags override the file: a later Set wins and says where it came from.
	if err := in.Set("produce", "100MB/s", "--produce"); err != nil || in.ProduceBytesPerSec != 100e6 || in.Where("produce") != "--produce" {
		t.Errorf("override: %v, %v, %q", err, in.ProduceBytesPerSec, in.Where("produce"))
	}
}

func TestLoadYAMLErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"unknown key", "brokers: 3\nprodcue: 1MB/s\n", `model.yaml:2: unknown key "prodcue" (did you mean "produce"?)`},
		{"snake case", "replication_factor: 3\n", `did you mean "replication-factor"?`},
		{"far off key", "colour: blue\n", `unknown key "colour" (the keys are the flag names`},
		{"bad value", "brokers: 3\nreplication-factor: 0\n", "model.yaml:2: replication-factor: 0 must be at least 1"},
		{"bad rate", "\n\nproduce: fast\n", `model.yaml:3: produce: invalid quantity "fast"`},
		{"twice", "brokers: 3\nbrokers: 4\n", "model.yaml:2: brokers: given twice (first on line 1)"},
		{"null", "brokers:\n", "model.yaml:1: brokers: needs a single value, e.g. brokers: 3"},
		{"list", "produce: [1, 2]\n", "model.yaml:1: produce: needs a single value, e.g. produce: 100MB/s"},
		{"not a mapping", "- brokers: 3\n", "model.yaml:1: the file must map flag names to values"},
		{"not yaml", "brokers: [3\n", "model.yaml: not valid YAML"},
		{"key not scalar", "[a]: 3\n", "model.yaml:1: a key must be a flag name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := New()
			before := *in
			err := in.LoadYAML("model.yaml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadYAML = %v, want it to contain %q", err, tc.want)
			}
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("%v is not an *Error", err)
			}
			if in.Cluster != before.Cluster || len(in.Given()) != 0 {
				t.Errorf("a failed load kept values: %+v", in)
			}
		})
	}
}

func TestLoadYAMLEmpty(t *testing.T) {
	for _, data := range []string{"", "# nothing\n", "---\n"} {
		in := New()
		if err := in.LoadYAML("m.yaml", []byte(data)); err != nil || len(in.Given()) != 0 {
			t.Errorf("LoadYAML(%q) = %v, given %v", data, err, in.Given())
		}
	}
}

func FuzzLoadYAML(f *testing.F) {
	for _, s := range []string{
		"brokers: 3\nreplication-factor: 2\nproduce: 300MB/s\n",
		"brokers: [3\n", "- 1\n", "a: &x 1\nbrokers: *x\n", "brokers: !!binary aGVsbG8=\n",
		"messages-per-sec: 1.5M\nmessage-size: 100\nrecord-format: v0\n", "brokers-down: 20%\nbrokers: 5\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		in := New()
		err := in.LoadYAML("f.yaml", []byte(data))
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) || !strings.HasPrefix(ie.Where, "f.yaml") {
				t.Fatalf("LoadYAML(%q) = %v: not an Error located in the file", data, err)
			}
			if len(in.Given()) != 0 {
				t.Fatalf("LoadYAML(%q) failed but kept %v", data, in.Given())
			}
			return
		}
		_, _, _, _ = in.Model()
	})
}
