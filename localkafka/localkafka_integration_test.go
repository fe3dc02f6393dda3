//go:build integration

package localkafka

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// One real 3-broker cluster serves every test in this package; a test that breaks a broker
// restores it before it returns.
var shared *State

// sharedClusterEnv names the directory of a cluster the integration packages share (`make test`
// sets it, and runs this package last): these tests use the cluster running there, or start one
// there, and stop it at the end, checking that Down leaves no JVM behind. Unset, the package
// starts and stops a cluster of its own in a temporary directory.
const sharedClusterEnv = "PLIMSOLL_IT_CLUSTER"

func TestMain(m *testing.M) {
	dir := os.Getenv(sharedClusterEnv)
	own := dir == ""
	if own {
		var err error
		if dir, err = os.MkdirTemp("", "plimsoll-localkafka-it-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	var err error
	shared, err = Up(ctx, Options{Dir: dir, Heap: "512m", Log: os.Stderr})
	cancel()
	if errors.Is(err, ErrRunning) {
		err = nil // the shared cluster, started by the packages before this one
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the shared cluster:", err)
		os.Exit(1)
	}
	code := m.Run()
	if _, err := Down(dir, false, 30*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the shared cluster:", err)
		code = 1
	}
	if pids := javaPIDsIn(dir); len(pids) > 0 {
		fmt.Fprintf(os.Stderr, "JVMs left behind after Down: %v\n", pids)
		code = 1
	}
	if own {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// javaPIDsIn lists processes whose command line mentions dir (our brokers).
func javaPIDsIn(dir string) []string {
	out, _ := exec.Command("pgrep", "-f", dir).Output()
	return strings.Fields(string(out))
}

func client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(shared.Target().Bootstrap...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func TestProduceConsume(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := "plimsoll-it-localkafka-pc"
	adm := kadm.NewClient(client(t))
	if _, err := adm.CreateTopic(ctx, 6, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	defer adm.DeleteTopics(context.Background(), topic)

	const n = 2000
	p := client(t, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	for i := 0; i < n; i++ {
		p.Produce(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("m-%d", i))}, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce: %v", err)
			}
		})
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	c := client(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	seen := map[string]bool{}
	for len(seen) < n {
		fs := c.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d: %v", len(seen), n, err)
		}
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
	}
}

// requiredMetrics are the names docs/metrics.md promises on every broker.
var requiredMetrics = []string{
	"kafka_server_brokertopicmetrics_bytesinpersec_total",
	"kafka_server_brokertopicmetrics_bytesoutpersec_total",
	"kafka_server_brokertopicmetrics_replicationbytesinpersec_total",
	"kafka_server_brokertopicmetrics_replicationbytesoutpersec_total",
	"kafka_server_brokertopicmetrics_messagesinpersec_total",
	"kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count",
	"kafka_network_socketserver_networkprocessoravgidlepercent",
	"kafka_server_replicamanager_isrshrinkspersec_total",
	"kafka_server_replicamanager_isrexpandspersec_total",
	"kafka_server_replicamanager_underreplicatedpartitions",
	"kafka_network_requestchannel_requestqueuesize",
	`kafka_network_requestmetrics_totaltimems{quantile="0.99",request="Produce"}`,
	`kafka_network_requestmetrics_totaltimems{quantile="0.99",request="FetchConsumer"}`,
	`kafka_network_requestmetrics_totaltimems{quantile="0.99",request="FetchFollower"}`,
	"kafka_server_socketservermetrics_incoming_byte_total",
	"kafka_server_socketservermetrics_outgoing_byte_total",
}

func TestMetricsEndpoints(t *testing.T) {
	for _, b := range shared.Brokers {
		resp, err := http.Get(b.MetricsURL())
		if err != nil {
			t.Fatalf("broker %d: %v", b.ID, err)
		}
		have := map[string]bool{}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			series := line[:strings.LastIndexByte(line, ' ')]
			have[series] = true
			if i := strings.IndexByte(series, '{'); i > 0 {
				have[series[:i]] = true
			}
		}
		resp.Body.Close()
		for _, name := range requiredMetrics {
			if !have[name] {
				t.Errorf("broker %d (%s) does not serve %s", b.ID, b.MetricsURL(), name)
			}
		}
	}
}

// liveBrokers returns the broker ids in the cluster's metadata, asked of the given broker.
func liveBrokers(t *testing.T, via *Broker) map[int32]bool {
	md, err := brokerMetadata(context.Background(), via.Address())
	if err != nil {
		return nil
	}
	ids := map[int32]bool{}
	for _, b := range md.Brokers {
		ids[b.NodeID] = true
	}
	return ids
}

func TestKillAndRestart(t *testing.T) {
	victim, witness := shared.Brokers[2], shared.Brokers[0]
	if err := shared.Kill(victim.ID); err != nil {
		t.Fatal(err)
	}
	if st := victim.ProcState(); st != ProcDead {
		t.Fatalf("after Kill, broker %d is %s", victim.ID, st)
	}
	// The controller fences a broker that stops heartbeating (broker.session.timeout.ms, 9 s).
	deadline := time.Now().Add(45 * time.Second)
	for liveBrokers(t, witness)[victim.ID] {
		if time.Now().After(deadline) {
			t.Fatalf("killed broker %d is still in the metadata after 45s", victim.ID)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err := shared.Restart(context.Background(), victim.ID, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !liveBrokers(t, witness)[victim.ID] {
		t.Fatalf("restarted broker %d is not in the metadata", victim.ID)
	}
}

func TestPauseResume(t *testing.T) {
	b := shared.Brokers[1]
	if err := shared.Pause(b.ID); err != nil {
		t.Fatal(err)
	}
	if st := shared.Status().Brokers[1]; st.Alive || st.State != ProcPaused {
		t.Errorf("paused broker reported as %+v", st)
	}
	if err := shared.Resume(b.ID); err != nil {
		t.Fatal(err)
	}
	if st := shared.Status().Brokers[1]; !st.Alive {
		t.Errorf("resumed broker reported as %+v", st)
	}
}

func TestUpOnRunningClusterChangesNothing(t *testing.T) {
	before, _ := os.ReadFile(statePath(shared.Dir))
	_, err := Up(context.Background(), Options{Dir: shared.Dir})
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("Up on a running cluster: err = %v", err)
	}
	after, _ := os.ReadFile(statePath(shared.Dir))
	if string(before) != string(after) {
		t.Error("Up on a running cluster changed cluster.json")
	}
}
