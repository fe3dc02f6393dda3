package localkafka

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// jvmArgs are the flags every node's JVM gets before the main class.
func (c *State) jvmArgs(b *Broker) []string {
	args := []string{
		"-Xms" + c.Heap, "-Xmx" + c.Heap,
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
		"-XX:+ExplicitGCInvokesConcurrent",
	}
	return append(args, c.commonJVMArgs(b)...)
}

// commonJVMArgs are the flags of every JVM run for a node, broker or tool: logging and the
// classpath.
func (c *State) commonJVMArgs(b *Broker) []string {
	args := []string{"-Djava.awt.headless=true", "-Dkafka.logs.dir=" + b.Dir}
	if c.Dist.Log4j2 {
		args = append(args, "-Dlog4j2.configurationFile=file:"+filepath.Join(b.Dir, "log4j2.properties"))
	} else {
		args = append(args, "-Dlog4j.configuration=file:"+filepath.Join(b.Dir, "log4j.properties"))
	}
	return append(args, "-cp", c.Dist.Classpath())
}

// formatStorage runs Kafka's storage tool on every node's data directory, in parallel.
func (c *State) formatStorage(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, len(c.Brokers))
	for i, b := range c.Brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, c.JavaBin(), c.formatArgs(b)...)
			cmd.Env = c.childEnv(os.Environ())
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("formatting storage of broker %d failed (%v): %s", b.ID, err, lastLines(string(out), 10))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// formatArgs are the storage tool's JVM arguments for one node. They carry no secret: the SCRAM
// credentials are created once the cluster runs (addSCRAMUsers).
//
// The tool runs for a few seconds and does little work, so its JVM is set for starting, not for
// running long: a small heap, the serial collector, the client compiler alone
// (TieredStopAtLevel=1: no C2 compiles of code that runs once) and no perf-data file. Three
// formats in parallel (a 3-node cluster's start) took 9.6-10.6 CPU s with the brokers' flags
// and 5.0-7.7 with these, measured here on a 2-core host.
func (c *State) formatArgs(b *Broker) []string {
	args := []string{"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"}
	args = append(args, c.commonJVMArgs(b)...)
	return append(args, "kafka.tools.StorageTool", "format", "-t", c.ClusterID, "-c", b.configPath())
}

// childEnv is env without the SASL password: Kafka reads it from server.properties, and a JVM
// that inherited it would hold it in /proc/PID/environ for as long as it runs. Dropped are the
// variable plimsoll reads it from by default and any other holding the same value.
func (c *State) childEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PLIMSOLL_SASL_PASSWORD" || c.Security != nil && c.Security.SASLPassword != "" && v == c.Security.SASLPassword {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// agentArg loads the Prometheus exporter agent, bound to the broker's own address (loopback, or
// its management address with an emulated NIC), never 0.0.0.0.
func (c *State) agentArg(b *Broker) string {
	return fmt.Sprintf("-javaagent:%s=%s:%d:%s", c.Dist.Exporter, b.metricsHost(), b.MetricsPort, filepath.Join(c.Dir, "jmx-rules.yaml"))
}

// start launches one node's JVM in its own session, so it outlives this process.
func (c *State) start(b *Broker) error {
	if b.ProcState() != ProcDead {
		return fmt.Errorf("broker %d is already running (pid %d)", b.ID, b.PID)
	}
	out, err := os.OpenFile(filepath.Join(b.Dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	fmt.Fprintf(out, "%s %s\n", startMarker, time.Now().UTC().Format(time.RFC3339))
	args := append([]string{c.JavaBin(), c.agentArg(b)}, c.jvmArgs(b)...)
	args = append(args, "kafka.Kafka", b.configPath())
	if b.Netns != "" {
		// ip execs java inside the namespace, so the recorded pid is the JVM's.
		args = append([]string{"ip", "netns", "exec", b.Netns}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = c.childEnv(os.Environ())
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = b.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting broker %d: %w", b.ID, err)
	}
	b.PID = cmd.Process.Pid
	// Reap the child if it dies while this process lives, so it never lingers as a zombie, and
	// remember whether it has exited: see ProcState.
	exited := make(chan struct{})
	children.Store(b.PID, exited)
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return nil
}

// children maps the pid of each JVM this process started to a channel closed when it exits.
// With an emulated NIC the JVM is started by `ip netns exec`, which execs java only after
// start returns; while the kernel swaps the program, /proc/PID/cmdline may read empty, and a
// busy host once made that window wide enough for a live broker to look dead at start-up.
// For our own children, the exit status is the truth.
var children sync.Map // int -> chan struct{}

// childAlive reports whether pid is a JVM this process started (known) and has not exited.
func childAlive(pid int) (alive, known bool) {
	v, ok := children.Load(pid)
	if !ok {
		return false, false
	}
	select {
	case <-v.(chan struct{}):
		return false, true
	default:
		return true, true
	}
}

// startMarker separates one start of a broker from the next in its stdout.log.
const startMarker = "=== plimsoll: starting broker at"

// startFailure describes a broker that died during start-up: its log path and last lines.
func startFailure(b *Broker) error {
	// A JVM that fails before logging is set up writes only to stdout.log; Kafka's fatal errors
	// are in server.log, followed by shutdown noise, so show the ERROR lines if there are any.
	path := b.LogPath()
	msg := errorLines(path, 8)
	if msg == "" {
		path = filepath.Join(b.Dir, "stdout.log")
		msg = tail(path, 12)
		if i := strings.LastIndex(msg, startMarker); i >= 0 {
			msg = strings.TrimSpace(msg[i+len(startMarker):])
		}
	}
	return fmt.Errorf("broker %d exited during start-up; see %s. Last lines:\n%s", b.ID, path, msg)
}

// waitReady returns when every broker (or only those in ids) is registered in the cluster's
// metadata and serving metrics, or fails early if one of them died.
func (c *State) waitReady(ctx context.Context, ids []int32) error {
	want := map[int32]*Broker{}
	for _, b := range c.Brokers {
		if ids == nil || contains(ids, b.ID) {
			want[b.ID] = b
		}
	}
	var last string
	for {
		for _, b := range want {
			if b.ProcState() == ProcDead {
				return startFailure(b)
			}
		}
		// Ask each broker itself: its listener serves requests only once it has started, while
		// the controller may still list a broker that was just killed.
		var missing []string
		last = ""
		for id, b := range want {
			md, err := brokerMetadata(ctx, b.Address())
			if err != nil {
				missing = append(missing, fmt.Sprint(id))
				last = err.Error()
				continue
			}
			found := false
			for _, m := range md.Brokers {
				found = found || m.NodeID == id
			}
			if !found {
				missing = append(missing, fmt.Sprint(id))
			}
		}
		if len(missing) == 0 {
			return waitMetrics(ctx, want)
		}
		sort.Strings(missing)
		last = "brokers not ready: " + strings.Join(missing, ", ") + " " + last
		select {
		case <-ctx.Done():
			return fmt.Errorf("the cluster in %s did not become ready (%s); broker logs are in %s/broker-*/server.log", c.Dir, last, c.Dir)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// brokerMetadata asks the cluster for its live brokers with a fresh client, so no state from an
// attempt made while the cluster was still starting carries over.
func brokerMetadata(ctx context.Context, bootstrap string) (kadm.Metadata, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return kadm.Metadata{}, err
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return kadm.NewClient(cl).BrokerMetadata(mctx)
}

// waitMetrics waits until each broker's exporter answers with the bytes-in metric.
func waitMetrics(ctx context.Context, bs map[int32]*Broker) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	for _, b := range bs {
		for {
			resp, err := hc.Get(b.MetricsURL())
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("broker %d's metrics endpoint %s does not answer: %v", b.ID, b.MetricsURL(), err)
			case <-time.After(300 * time.Millisecond):
			}
		}
	}
	return nil
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Kill sends SIGKILL to one broker (a crash) and waits until it is gone.
func (c *State) Kill(id int32) error {
	return c.signal(id, syscall.SIGKILL, func(b *Broker) bool { return b.ProcState() == ProcDead })
}

// Pause stops one broker with SIGSTOP: it holds its connections but answers nothing.
func (c *State) Pause(id int32) error {
	return c.signal(id, syscall.SIGSTOP, func(b *Broker) bool { return b.ProcState() == ProcPaused })
}

// Resume continues a paused broker with SIGCONT.
func (c *State) Resume(id int32) error {
	return c.signal(id, syscall.SIGCONT, func(b *Broker) bool { return b.ProcState() == ProcRunning })
}

func (c *State) signal(id int32, sig syscall.Signal, done func(*Broker) bool) error {
	b, err := c.Broker(id)
	if err != nil {
		return err
	}
	if b.ProcState() == ProcDead {
		return fmt.Errorf("broker %d is not running; start it with `plimsoll cluster restart %d`", id, id)
	}
	if err := syscall.Kill(b.PID, sig); err != nil {
		return fmt.Errorf("signalling broker %d (pid %d): %w", id, b.PID, err)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if done(b) {
			return nil
		}
	}
	return fmt.Errorf("broker %d (pid %d) did not reach the expected state after %v", id, b.PID, sig)
}

// Restart stops one broker if it runs (gracefully, then by force after timeout), starts it again
// on the same data and ports, and waits until it is registered again.
func (c *State) Restart(ctx context.Context, id int32, timeout time.Duration) error {
	unlock, err := lockDir(c.Dir)
	if err != nil {
		return err
	}
	defer unlock()
	b, err := c.Broker(id)
	if err != nil {
		return err
	}
	stopGroup([]*Broker{b}, timeout)
	if err := c.start(b); err != nil {
		return err
	}
	if err := c.save(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return c.waitReady(wctx, []int32{id})
}

// BrokerStatus is one broker as `plimsoll cluster status` reports it.
type BrokerStatus struct {
	ID         int32     `json:"id"`
	PID        int       `json:"pid"`
	Address    string    `json:"address"`
	MetricsURL string    `json:"metrics_url"`
	Alive      bool      `json:"alive"`
	State      ProcState `json:"state"`
	Controller bool      `json:"controller"`
	Log        string    `json:"log"`
	// NICBytesPerSec is the emulated link rate per direction; absent on loopback.
	NICBytesPerSec float64 `json:"nic_bytes_per_sec,omitempty"`
	Netns          string  `json:"netns,omitempty"`
}

// Status is the cluster as `plimsoll cluster status --json` prints it.
type Status struct {
	KafkaVersion string `json:"kafka_version"`
	ClusterID    string `json:"cluster_id"`
	Dir          string `json:"dir"`
	Bootstrap    string `json:"bootstrap"`
	Stopped      bool   `json:"stopped"`
	// Java is the java binary running the brokers ("java": the one on PATH).
	Java    string         `json:"java"`
	Brokers []BrokerStatus `json:"brokers"`
	// SecureListeners are the TLS/SASL client listeners, absent when the cluster has none.
	SecureListeners []ListenerStatus `json:"secure_listeners,omitempty"`
	// ZooKeeper is the ZooKeeper server's address and state; absent in KRaft mode.
	ZooKeeper *ZooKeeperStatus `json:"zookeeper,omitempty"`
}

// ZooKeeperStatus is a ZooKeeper-mode cluster's ZooKeeper server as status reports it.
type ZooKeeperStatus struct {
	Address string    `json:"address"`
	PID     int       `json:"pid"`
	State   ProcState `json:"state"`
	Log     string    `json:"log"`
}

// Status reads each broker's process state. Alive means the JVM exists and is not paused.
func (c *State) Status() Status {
	s := Status{KafkaVersion: c.KafkaVersion, ClusterID: c.ClusterID, Dir: c.Dir, Bootstrap: c.Bootstrap(), Stopped: c.Stopped,
		Java: c.JavaBin(), SecureListeners: c.SecureListeners()}
	if z := c.ZooKeeper; z != nil {
		s.ZooKeeper = &ZooKeeperStatus{Address: z.Address(), PID: z.PID, State: z.ProcState(), Log: z.LogPath()}
	}
	for _, b := range c.Brokers {
		st := b.ProcState()
		s.Brokers = append(s.Brokers, BrokerStatus{
			ID: b.ID, PID: b.PID, Address: b.Address(), MetricsURL: b.MetricsURL(),
			Alive: st == ProcRunning, State: st, Controller: b.Controller, Log: b.LogPath(),
			NICBytesPerSec: b.NIC, Netns: b.Netns,
		})
	}
	return s
}
