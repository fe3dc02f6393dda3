package localkafka

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestServerPropertiesRoles(t *testing.T) {
	o := Options{Brokers: 4, Dir: "/tmp/x"}
	o.defaults()
	c, err := newState(o, Dist{Version: "4.1.0", Log4j2: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(c.voters(), "@"); got != 3 {
		t.Errorf("voters = %q, want 3 controllers for 4 brokers", c.voters())
	}
	p1 := serverProperties(c, c.Brokers[0])
	p4 := serverProperties(c, c.Brokers[3])
	for _, want := range []string{"process.roles=broker,controller", "auto.create.topics.enable=false", "CONTROLLER://127.0.0.1:"} {
		if !strings.Contains(p1, want) {
			t.Errorf("node 1 config lacks %q:\n%s", want, p1)
		}
	}
	if !strings.Contains(p4, "process.roles=broker\n") || strings.Contains(p4, "CONTROLLER://") {
		t.Errorf("node 4 should be a broker only:\n%s", p4)
	}
	seen := map[int]bool{}
	for _, b := range c.Brokers {
		for _, p := range []int{b.Port, b.MetricsPort, b.ControllerPort} {
			if p != 0 && seen[p] {
				t.Errorf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Brokers: -1}, "--brokers"},
		{Options{Heap: "lots"}, "--heap"},
		{Options{KafkaVersion: "latest"}, "--kafka-version"},
		{Options{KafkaVersion: "2.8.0"}, "KRaft"},
		{Options{KafkaVersion: "3.2.0"}, "KRaft"},
	}
	for _, c := range cases {
		err := c.o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want mention of %q", c.o, err, c.want)
		}
	}
	if err := (Options{KafkaVersion: "3.9.1"}).Validate(); err != nil {
		t.Errorf("3.9.1 refused: %v", err)
	}
}

func TestPomLogging(t *testing.T) {
	if !strings.Contains(pom("4.1.0"), "log4j-slf4j-impl") || strings.Contains(pom("4.1.0"), "reload4j") {
		t.Error("Kafka 4 should use log4j2")
	}
	if !strings.Contains(pom("3.9.1"), "slf4j-reload4j") {
		t.Error("Kafka 3 should use reload4j")
	}
}

func TestErrorLines(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/server.log"
	log := "[t] INFO ok (x)\n[t] ERROR boom (y)\njava.lang.RuntimeException: why\n[t] INFO shutting down (z)\n"
	if err := writeFile(path, log); err != nil {
		t.Fatal(err)
	}
	got := errorLines(path, 8)
	if !strings.Contains(got, "ERROR boom") || !strings.Contains(got, "RuntimeException: why") || strings.Contains(got, "shutting down") {
		t.Errorf("errorLines = %q", got)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func TestClusterIDNeverLooksLikeAnOption(t *testing.T) {
	for i := 0; i < 2000; i++ {
		if id := newClusterID(); len(id) != 22 || id[0] == '-' {
			t.Fatalf("cluster id %q", id)
		}
	}
}

// TestCheckJavaPath covers the java binaries CheckJava refuses before running them, and a
// fake JDK whose `java -version` prints a given version.
func TestCheckJavaPath(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, version string) string {
		p := filepath.Join(dir, name)
		script := "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2025-01-01' >&2\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, java, kafka string
		want              int
		err               error
	}{
		{"missing", filepath.Join(dir, "nope"), "4.1.0", 0, ErrNoJava},
		{"a directory", dir, "4.1.0", 0, ErrNoJava},
		{"17 for Kafka 4", fake("j17", "17.0.12"), "4.1.0", 17, nil},
		{"11 for Kafka 4", fake("j11", "11.0.2"), "4.1.0", 11, ErrOldJava},
		{"11 for Kafka 3.9", fake("j11b", "11.0.2"), "3.9.1", 11, nil},
		{"1.8 for Kafka 3.9", fake("j8", "1.8.0_402"), "3.9.1", 8, ErrOldJava},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckJava(tc.java, tc.kafka)
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Errorf("CheckJava(%s, %s) = %d, %v; want %d, %v", tc.java, tc.kafka, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestFreeSubnet(t *testing.T) {
	used := func(thirds ...int) string {
		var b strings.Builder
		for _, n := range thirds {
			fmt.Fprintf(&b, "312: plx    inet 198.18.%d.1/24 scope global plx\\       valid_lft forever\n", n)
		}
		return b.String()
	}
	for _, tc := range []struct {
		addrs, want string
	}{
		{"", DefaultSubnet},
		{used(76, 77), "198.18.78.0/24"},
		{used(76, 77, 79), "198.18.80.0/24"}, // 78's management /24 is taken
		{used(176), "198.18.76.0/24"},        // not a gateway of ours
	} {
		if got := freeSubnet(tc.addrs); got != tc.want {
			t.Errorf("freeSubnet(%q) = %s, want %s", tc.addrs, got, tc.want)
		}
	}
}

func TestProducerPerfArgs(t *testing.T) {
	got := ProducerPerf{Classpath: "/k/libs/*", Bootstrap: "b:9092", Topic: "plimsoll-x", Records: 1000,
		RecordSize: 100, Throughput: 500, Props: []string{"acks=1"}}.Args()
	want := []string{"-Xmx1g", "-cp", "/k/libs/*", "org.apache.kafka.tools.ProducerPerformance", "--topic", "plimsoll-x",
		"--num-records", "1000", "--record-size", "100", "--throughput", "500", "--producer-props", "bootstrap.servers=b:9092", "acks=1"}
	if !slices.Equal(got, want) {
		t.Errorf("args %q\nwant %q", got, want)
	}
}

func TestConsumerPerfArgs(t *testing.T) {
	got := ConsumerPerf{Classpath: "/k/libs/*", Bootstrap: "b:9092", Topic: "plimsoll-x", Group: "plimsoll-g", Messages: 1000, Heap: "512m"}.Args()
	want := []string{"-Xmx512m", "-cp", "/k/libs/*", "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", "b:9092",
		"--topic", "plimsoll-x", "--group", "plimsoll-g", "--messages", "1000"}
	if !slices.Equal(got, want) {
		t.Errorf("args %q\nwant %q", got, want)
	}
}

func TestZooKeeperMode(t *testing.T) {
	o := Options{Brokers: 2, Dir: "/tmp/x", KafkaVersion: "3.9.1", Metadata: MetadataZooKeeper}
	o.defaults()
	c, err := newState(o, Dist{Version: "3.9.1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata() != MetadataZooKeeper || c.ZooKeeper == nil || c.ZooKeeper.Port == 0 {
		t.Fatalf("state %+v: want a ZooKeeper with a port", c.ZooKeeper)
	}
	p := serverProperties(c, c.Brokers[1])
	for _, want := range []string{"broker.id=2\n", "zookeeper.connect=" + c.ZooKeeper.Address() + "\n", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT\n"} {
		if !strings.Contains(p, want) {
			t.Errorf("config lacks %q:\n%s", want, p)
		}
	}
	for _, bad := range []string{"process.roles", "node.id", "controller.", "CONTROLLER"} {
		if strings.Contains(p, bad) {
			t.Errorf("a ZooKeeper-mode broker's config holds %q:\n%s", bad, p)
		}
	}
	seen := map[int]bool{c.ZooKeeper.Port: true}
	for _, b := range c.Brokers {
		if b.Controller || b.ControllerPort != 0 || seen[b.Port] || seen[b.MetricsPort] {
			t.Errorf("broker %+v: want no controller role and ports of its own", b)
		}
		seen[b.Port], seen[b.MetricsPort] = true, true
	}
	zk := zooKeeperProperties(c.ZooKeeper)
	if !strings.Contains(zk, fmt.Sprintf("clientPort=%d\n", c.ZooKeeper.Port)) || !strings.Contains(zk, "dataDir=/tmp/x/zookeeper/data\n") {
		t.Errorf("zookeeper.properties:\n%s", zk)
	}
}

func TestMetadataValidate(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Metadata: "zookeeper"}, "Kafka 4.1.0 has no ZooKeeper mode"},
		{Options{Metadata: "zookeeper", KafkaVersion: "4.0.0"}, "--kafka-version 3.9.1"},
		{Options{Metadata: "etcd", KafkaVersion: "3.9.1"}, `--metadata "etcd": want kraft or zookeeper`},
		{Options{Metadata: "zookeeper", KafkaVersion: "3.9.1", Security: Security{TLS: true}}, "--tls"},
		{Options{Metadata: "zookeeper", KafkaVersion: "3.9.1", NIC: 1e6}, "--nic"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want mention of %q", c.o, err, c.want)
		}
	}
	for _, o := range []Options{{Metadata: "zookeeper", KafkaVersion: "3.9.1"}, {Metadata: "zookeeper", KafkaVersion: "2.8.2"}, {Metadata: "kraft"}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v refused: %v", o, err)
		}
	}
}

func TestGatewayHolder(t *testing.T) {
	out := "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever\n" +
		"5: plbf4bd    inet 198.18.80.1/24 scope global plbf4bd\\       valid_lft forever\n" +
		"6: plbf4bm    inet 198.18.81.1/24 scope global plbf4bm\\       valid_lft forever\n" +
		"7: eth0    inet6 fd00::2/64 scope global\\       valid_lft forever\n"
	for _, tc := range []struct{ addr, want string }{
		{"198.18.80.1", "plbf4bd"},
		{"198.18.81.1", "plbf4bm"},
		{"198.18.8.1", ""}, // a prefix of another address is not it
		{"198.18.76.1", ""},
	} {
		if got := gatewayHolder(out, tc.addr); got != tc.want {
			t.Errorf("gatewayHolder(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestNICTag(t *testing.T) {
	for _, tc := range []struct {
		iface, tag string
		ours       bool
	}{
		{"plbf4bd", "bf4b", true},
		{"pl0a9fm", "0a9f", true},
		{"plbf4bd1", "", false}, // a broker's veth, not a bridge
		{"plxyzwd", "", false},
		{"br0", "", false},
		{"plBF4Bd", "", false},
	} {
		tag, ours := nicTag(tc.iface)
		if tag != tc.tag || ours != tc.ours {
			t.Errorf("nicTag(%s) = %q, %v; want %q, %v", tc.iface, tag, ours, tc.tag, tc.ours)
		}
	}
}

func TestFirstOther(t *testing.T) {
	for _, tc := range []struct {
		skip int32
		ids  []int32
		want int32
		err  bool
	}{
		{2, []int32{3, 1}, 3, false},
		{3, []int32{3, 1}, 1, false},
		{1, []int32{1}, 0, true},
		{1, nil, 0, true},
	} {
		got, err := firstOther(tc.skip, tc.ids)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("firstOther(%d, %v) = %d, %v; want %d, error %v", tc.skip, tc.ids, got, err, tc.want, tc.err)
		}
	}
}
