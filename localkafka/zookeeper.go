package localkafka

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// The metadata modes a cluster runs in: KRaft (Kafka's own quorum; the only mode from Kafka 4.0)
// or ZooKeeper (one ZooKeeper server beside the brokers; Kafka 3.x only).
const (
	MetadataKRaft     = "kraft"
	MetadataZooKeeper = "zookeeper"
)

// ZooKeeper is the one ZooKeeper server of a ZooKeeper-mode cluster. Its jar comes with Kafka
// 3.x's own dependencies (Kafka 3.9.1 depends on ZooKeeper 3.8.4), so Resolve fetches it.
type ZooKeeper struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	Dir  string `json:"dir"`
	PID  int    `json:"pid"`
}

// Address is ZooKeeper's client address, the brokers' zookeeper.connect.
func (z *ZooKeeper) Address() string { return fmt.Sprintf("%s:%d", z.Host, z.Port) }

func (z *ZooKeeper) configPath() string { return filepath.Join(z.Dir, "zookeeper.properties") }

// LogPath is ZooKeeper's own log file.
func (z *ZooKeeper) LogPath() string { return filepath.Join(z.Dir, "zookeeper.log") }

// ProcState reports ZooKeeper's JVM as Broker.ProcState does a broker's.
func (z *ZooKeeper) ProcState() ProcState { return procState(z.PID, z.configPath()) }

// validateMetadata checks the metadata mode against the release and the other options.
func (o Options) validateMetadata() error {
	switch o.Metadata {
	case "", MetadataKRaft:
		if majorVersion(o.KafkaVersion) < 3 || o.KafkaVersion < "3.3" && majorVersion(o.KafkaVersion) == 3 {
			return fmt.Errorf("--kafka-version %s: KRaft clusters need Kafka 3.3 or later (or give --metadata zookeeper for an older release)", o.KafkaVersion)
		}
		return nil
	case MetadataZooKeeper:
	default:
		return fmt.Errorf("--metadata %q: want %s or %s", o.Metadata, MetadataKRaft, MetadataZooKeeper)
	}
	switch {
	case majorVersion(o.KafkaVersion) >= 4:
		return fmt.Errorf("--metadata zookeeper: Kafka %s has no ZooKeeper mode (removed in 4.0); give a 3.x release such as --kafka-version 3.9.1, or --metadata kraft", o.KafkaVersion)
	case o.NIC > 0:
		return fmt.Errorf("--metadata zookeeper: emulated NICs (--nic) are for KRaft clusters only; drop --nic or use --metadata kraft")
	case o.Security.Enabled():
		return fmt.Errorf("--metadata zookeeper: --tls and --sasl-user are for KRaft clusters only; drop them or use --metadata kraft")
	}
	return nil
}

// zooKeeperProperties is a standalone server's configuration: no admin server, no client limit.
func zooKeeperProperties(z *ZooKeeper) string {
	return fmt.Sprintf(`# written by plimsoll: the standalone ZooKeeper of a ZooKeeper-mode Kafka cluster
dataDir=%s
clientPort=%d
clientPortAddress=%s
maxClientCnxns=0
admin.enableServer=false
tickTime=2000
`, filepath.Join(z.Dir, "data"), z.Port, z.Host)
}

// writeZooKeeperConfig writes ZooKeeper's configuration and log settings.
func (c *State) writeZooKeeperConfig() error {
	z := c.ZooKeeper
	if z == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(z.Dir, "data"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(z.configPath(), []byte(zooKeeperProperties(z)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(z.Dir, "log4j.properties"), []byte(log4jConfigFile(z.LogPath())), 0o644)
}

// startZooKeeper launches ZooKeeper in its own session (it outlives this process, as the brokers
// do) and waits until it accepts connections.
func (c *State) startZooKeeper(ctx context.Context) error {
	z := c.ZooKeeper
	if z == nil || z.ProcState() != ProcDead {
		return nil
	}
	out, err := os.OpenFile(filepath.Join(z.Dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(c.JavaBin(), "-Xms128m", "-Xmx512m", "-Djava.awt.headless=true",
		"-Dlog4j.configuration=file:"+filepath.Join(z.Dir, "log4j.properties"),
		"-Dzookeeper.admin.enableServer=false", "-cp", c.Dist.Classpath(),
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", z.configPath())
	cmd.Env = c.childEnv(os.Environ())
	cmd.Stdout, cmd.Stderr, cmd.Dir = out, out, z.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting ZooKeeper: %w", err)
	}
	z.PID = cmd.Process.Pid
	exited := make(chan struct{})
	children.Store(z.PID, exited)
	go func() { cmd.Wait(); close(exited) }()
	return waitListening(ctx, z)
}

// waitListening waits until ZooKeeper accepts a TCP connection, or fails if it died.
func waitListening(ctx context.Context, z *ZooKeeper) error {
	for {
		if z.ProcState() == ProcDead {
			return fmt.Errorf("ZooKeeper exited during start-up; see %s and %s", z.LogPath(), filepath.Join(z.Dir, "stdout.log"))
		}
		if conn, err := net.DialTimeout("tcp", z.Address(), time.Second); err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ZooKeeper at %s did not start listening: %w; see %s", z.Address(), ctx.Err(), z.LogPath())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stopZooKeeper stops ZooKeeper after the brokers (they deregister through it).
func (c *State) stopZooKeeper(timeout time.Duration) {
	z := c.ZooKeeper
	if z == nil || z.ProcState() == ProcDead {
		return
	}
	syscall.Kill(z.PID, syscall.SIGTERM)
	for end := time.Now().Add(timeout); time.Now().Before(end) && z.ProcState() != ProcDead; {
		time.Sleep(100 * time.Millisecond)
	}
	if z.ProcState() != ProcDead {
		syscall.Kill(z.PID, syscall.SIGKILL)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && z.ProcState() != ProcDead; {
		time.Sleep(50 * time.Millisecond)
	}
}
