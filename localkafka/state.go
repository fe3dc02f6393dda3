package localkafka

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plimsoll/plimsoll/target"
)

// ErrNoCluster means the directory holds no cluster: `plimsoll cluster up` creates one.
var ErrNoCluster = errors.New("no cluster")

// ErrNoBroker means a broker id is not part of the cluster.
var ErrNoBroker = errors.New("no such broker")

// State is a cluster as recorded in DIR/cluster.json. It is the only shared truth between the
// process that started the cluster and later ones (status, down, kill, ...).
type State struct {
	Dir          string `json:"dir"`
	ClusterID    string `json:"cluster_id"`
	KafkaVersion string `json:"kafka_version"`
	Heap         string `json:"heap"`
	// Java is the java binary running the brokers ("java" or empty: the one on PATH).
	Java        string            `json:"java,omitempty"`
	Dist        Dist              `json:"dist"`
	ExtraConfig map[string]string `json:"extra_config,omitempty"`
	Brokers     []*Broker         `json:"brokers"`
	Created     time.Time         `json:"created"`
	// Stopped is true after `down --keep-data`: the data is kept and `up` starts it again.
	Stopped bool `json:"stopped"`
	// NIC is each broker's emulated link rate in bytes/s per direction; 0 = loopback, unshaped.
	NIC float64 `json:"nic_bytes_per_sec,omitempty"`
	// Subnet is the /24 of the emulated NICs' data network.
	Subnet string `json:"subnet,omitempty"`
	// Security records the TLS/SASL client listeners (see SecureListeners); nil = PLAINTEXT only.
	Security *Security `json:"security,omitempty"`
	// ZooKeeper is the ZooKeeper server of a ZooKeeper-mode cluster; nil for KRaft.
	ZooKeeper *ZooKeeper `json:"zookeeper,omitempty"`
}

// Metadata is the cluster's metadata mode, MetadataKRaft or MetadataZooKeeper.
func (c *State) Metadata() string {
	if c.ZooKeeper != nil {
		return MetadataZooKeeper
	}
	return MetadataKRaft
}

// Broker is one Kafka node (JVM) of the local cluster.
type Broker struct {
	ID             int32  `json:"id"`
	Host           string `json:"host"`
	Port           int    `json:"port"`
	ControllerPort int    `json:"controller_port,omitempty"`
	MetricsPort    int    `json:"metrics_port"`
	Controller     bool   `json:"controller"`
	Dir            string `json:"dir"`
	PID            int    `json:"pid"`
	// With emulated NICs: the broker's network namespace, the root-namespace end of its data
	// link, its management address (metrics), and its current link rate in bytes/s.
	Netns     string  `json:"netns,omitempty"`
	HostIface string  `json:"host_iface,omitempty"`
	MgmtHost  string  `json:"mgmt_host,omitempty"`
	NIC       float64 `json:"nic_bytes_per_sec,omitempty"`
	// SecurePorts are the ports of the secure client listeners, by listener name (SSL, ...).
	SecurePorts map[string]int `json:"secure_ports,omitempty"`
}

// Address is the broker's client listener, host:port.
func (b *Broker) Address() string { return fmt.Sprintf("%s:%d", b.Host, b.Port) }

// MetricsURL is where the broker's exporter agent serves Prometheus text.
func (b *Broker) MetricsURL() string {
	return fmt.Sprintf("http://%s:%d/metrics", b.metricsHost(), b.MetricsPort)
}

// metricsHost is the management address when there is one, so scrapes bypass the shaped link.
func (b *Broker) metricsHost() string {
	if b.MgmtHost != "" {
		return b.MgmtHost
	}
	return b.Host
}

// LogPath is the broker's own log file.
func (b *Broker) LogPath() string { return filepath.Join(b.Dir, "server.log") }

func (b *Broker) configPath() string { return filepath.Join(b.Dir, "server.properties") }

// ProcState reports the broker's JVM: running, paused (SIGSTOP), or dead (no process, a zombie,
// or a pid reused by another program).
func (b *Broker) ProcState() ProcState { return procState(b.PID, b.configPath()) }

// procState reports the JVM pid that runs with the configuration file config.
func procState(pid int, config string) ProcState {
	if pid <= 0 {
		return ProcDead
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), config) {
		// Our own child may be between two programs (ip netns exec -> java): ask its exit status.
		if alive, known := childAlive(pid); !known || !alive {
			return ProcDead
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ProcDead
	}
	// The state letter follows the parenthesised command name, which may contain spaces.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		switch s[i+2] {
		case 'Z', 'X':
			return ProcDead
		case 'T', 't':
			return ProcPaused
		}
	}
	return ProcRunning
}

// ProcState is the state of a broker's JVM.
type ProcState string

// The states of a broker's JVM.
const (
	ProcRunning ProcState = "running"
	ProcPaused  ProcState = "paused"
	ProcDead    ProcState = "dead"
)

// JavaBin is the java binary the brokers run on: State.Java, or "java" (the one on PATH) for a
// cluster recorded without one.
func (c *State) JavaBin() string {
	if c.Java == "" {
		return "java"
	}
	return c.Java
}

// Bootstrap is the comma-separated client listeners of all brokers.
func (c *State) Bootstrap() string {
	var s []string
	for _, b := range c.Brokers {
		s = append(s, b.Address())
	}
	return strings.Join(s, ",")
}

// Target describes the cluster for the load generator and the probe.
func (c *State) Target() target.Target {
	t := target.Target{Local: true, MetricsURLs: map[int32]string{}}
	for _, b := range c.Brokers {
		t.Bootstrap = append(t.Bootstrap, b.Address())
		t.MetricsURLs[b.ID] = b.MetricsURL()
	}
	return t
}

// Broker returns the broker with the given id.
func (c *State) Broker(id int32) (*Broker, error) {
	for _, b := range c.Brokers {
		if b.ID == id {
			return b, nil
		}
	}
	var ids []string
	for _, b := range c.Brokers {
		ids = append(ids, fmt.Sprint(b.ID))
	}
	return nil, fmt.Errorf("%w %d: the cluster in %s has brokers %s", ErrNoBroker, id, c.Dir, strings.Join(ids, ", "))
}

func statePath(dir string) string { return filepath.Join(dir, "cluster.json") }

// Open reads the cluster recorded in dir.
func Open(dir string) (*State, error) {
	data, err := os.ReadFile(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: start one with `plimsoll cluster up --cluster-dir %s`", ErrNoCluster, dir, dir)
	}
	if err != nil {
		return nil, err
	}
	var c State
	err = json.Unmarshal(data, &c)
	if err == nil {
		err = c.complete()
	}
	if err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): remove the directory and run `plimsoll cluster up` again", statePath(dir), err)
	}
	return &c, nil
}

// complete checks what every use of a State takes for granted: at least one broker, none null.
func (c *State) complete() error {
	if len(c.Brokers) == 0 {
		return errors.New("it lists no brokers")
	}
	for i, b := range c.Brokers {
		if b == nil {
			return fmt.Errorf("broker entry %d is null", i+1)
		}
	}
	return nil
}

// save writes cluster.json atomically.
func (c *State) save() error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(c.Dir) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(c.Dir))
}

// DefaultDir is where `plimsoll cluster` keeps its cluster: $PLIMSOLL_CLUSTER_DIR, else
// ~/.plimsoll/cluster.
func DefaultDir() string {
	if d := os.Getenv("PLIMSOLL_CLUSTER_DIR"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".plimsoll", "cluster")
	}
	return filepath.Join(os.TempDir(), "plimsoll-cluster")
}

// lockDir takes an exclusive lock on dir so two plimsoll processes never start or stop the same
// cluster at once. The returned func releases it.
func lockDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another plimsoll process is changing the cluster in %s; wait for it to finish", dir)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
