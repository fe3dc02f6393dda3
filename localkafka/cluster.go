package localkafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// ErrRunning means `up` found the cluster already running; nothing was changed.
var ErrRunning = errors.New("cluster already running")

// ErrDead means the directory records a cluster whose brokers are gone.
var ErrDead = errors.New("cluster is not running")

// Options configure Up. The zero value is a 3-broker Kafka 4.1.0 cluster in DefaultDir.
type Options struct {
	// Brokers is the number of nodes (default 3). The first min(Brokers, 3) are combined
	// broker+controller nodes forming the KRaft quorum.
	Brokers int
	// KafkaVersion is the Apache Kafka release (default DefaultKafkaVersion).
	KafkaVersion string
	// Dir holds the cluster's state, configs, logs and data (default DefaultDir()).
	Dir string
	// Java is the java binary that runs the brokers, e.g. /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
	// (default "java", the one on PATH).
	Java string
	// Heap is each JVM's -Xms/-Xmx, e.g. "1g" (default "1g").
	Heap string
	// Host is the address every listener binds to (default 127.0.0.1).
	Host string
	// ExtraConfig adds or overrides server.properties entries on every node.
	ExtraConfig map[string]string
	// NIC, when positive, puts each broker in its own network namespace behind an emulated NIC
	// of this many bytes/s per direction (needs root, ip and tc). 0 = loopback.
	NIC float64
	// Subnet is the emulated NICs' /24 (default DefaultSubnet); the next /24 is for metrics.
	Subnet string
	// Metadata is MetadataKRaft (default) or MetadataZooKeeper: brokers only, beside one
	// ZooKeeper server started from Kafka's own jars (Kafka 3.x only; 4.0 removed the mode).
	Metadata string
	// Security adds TLS and/or SASL client listeners on each broker besides PLAINTEXT (default
	// none). Kafka's listener.security.protocol.map entries SSL, SASL_PLAINTEXT, SASL_SSL.
	Security Security
	// StartTimeout bounds how long Up waits for every broker to register (default 3 minutes).
	StartTimeout time.Duration
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

func (o *Options) defaults() {
	if o.Brokers == 0 {
		o.Brokers = 3
	}
	if o.KafkaVersion == "" {
		o.KafkaVersion = DefaultKafkaVersion
	}
	if o.Dir == "" {
		o.Dir = DefaultDir()
	}
	if o.Java == "" {
		o.Java = "java"
	}
	if o.Heap == "" {
		o.Heap = "1g"
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 3 * time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

var heapRE = regexp.MustCompile(`^[0-9]+[kKmMgG]$`)

// Validate checks the options without touching the machine; errors name the flag.
func (o Options) Validate() error {
	o.defaults()
	if o.Brokers < 1 || o.Brokers > 32 {
		return fmt.Errorf("--brokers %d: must be between 1 and 32", o.Brokers)
	}
	if !heapRE.MatchString(o.Heap) {
		return fmt.Errorf("--heap %q: use a JVM size such as 512m or 1g", o.Heap)
	}
	if !versionRE.MatchString(o.KafkaVersion) {
		return fmt.Errorf("--kafka-version %q: use a release such as %s or 3.9.1", o.KafkaVersion, DefaultKafkaVersion)
	}
	if o.NIC < 0 {
		return fmt.Errorf("--nic must be positive, e.g. 16Mbit/s")
	}
	if o.NIC > 0 {
		if _, err := newNICNet(o.Dir, o.Subnet); err != nil {
			return err
		}
	}
	if err := o.Security.validate(o.KafkaVersion); err != nil {
		return err
	}
	return o.validateMetadata()
}

// Up starts a cluster, or starts again one stopped with its data kept. It fails with ErrRunning,
// changing nothing, when the cluster in the directory is already running.
func Up(ctx context.Context, o Options) (*State, error) {
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(o.Dir)
	unlock, err := lockDir(o.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	defer leaveNothing(o.Dir, os.IsNotExist(statErr))
	c, err := stoppedOrNone(o)
	if err != nil {
		return c, err
	}
	dist, err := prerequisites(ctx, c, &o)
	if err != nil {
		return nil, err
	}
	fresh := c == nil
	if fresh {
		if c, err = newState(o, dist); err != nil {
			return nil, err
		}
	}
	if err := c.prepare(ctx, fresh, o.Log); err != nil {
		return nil, err
	}
	return c, c.startAll(ctx, fresh, o)
}

// leaveNothing removes the lock file of a directory holding no cluster after a failed Up, and the
// directory too when Up made it: a failed start leaves no half-made cluster directory behind.
func leaveNothing(dir string, made bool) {
	if _, err := os.Stat(statePath(dir)); !os.IsNotExist(err) {
		return
	}
	os.Remove(filepath.Join(dir, ".lock"))
	if made {
		os.Remove(dir) // only succeeds if empty
	}
}

// stoppedOrNone opens the cluster in o.Dir: nil when there is none, the state of a stopped one
// to start again, and an error (ErrRunning, ErrDead) for one that is up or half up.
func stoppedOrNone(o Options) (*State, error) {
	c, err := Open(o.Dir)
	switch {
	case errors.Is(err, ErrNoCluster):
		return nil, nil
	case err != nil:
		return nil, err
	}
	alive := 0
	for _, b := range c.Brokers {
		if b.ProcState() != ProcDead {
			alive++
		}
	}
	switch {
	case !c.Stopped && alive == len(c.Brokers):
		return c, fmt.Errorf("%w in %s (Kafka %s, bootstrap %s); nothing changed", ErrRunning, c.Dir, c.KafkaVersion, c.Bootstrap())
	case !c.Stopped:
		return c, fmt.Errorf("%w: the cluster in %s has %d of %d brokers alive; run `plimsoll cluster down --cluster-dir %s` to clean it up, or `plimsoll cluster restart ID --cluster-dir %s` for one broker", ErrDead, c.Dir, alive, len(c.Brokers), c.Dir, c.Dir)
	}
	fmt.Fprintf(o.Log, "starting the stopped cluster in %s again with its data\n", c.Dir)
	return c, nil
}

// prerequisites checks what starting the cluster needs (network namespaces for emulated NICs,
// a Java new enough) and resolves Kafka's jars: the stopped cluster's version, else o's.
func prerequisites(ctx context.Context, c *State, o *Options) (Dist, error) {
	if (c == nil && o.NIC > 0) || (c != nil && c.NIC > 0) {
		if err := CheckNIC(); err != nil {
			return Dist{}, err
		}
	}
	java := o.Java
	if c != nil {
		java = c.JavaBin()
	}
	if _, err := CheckJava(java, o.KafkaVersion); err != nil {
		return Dist{}, err
	}
	fmt.Fprintf(o.Log, "resolving Kafka %s jars (cached in %s)\n", o.KafkaVersion, filepath.Join(CacheDir(), "kafka", o.KafkaVersion))
	if c != nil {
		o.KafkaVersion = c.KafkaVersion
	}
	return Resolve(ctx, o.KafkaVersion)
}

// prepare sets up the network and, for a fresh cluster, writes its configuration and formats its
// storage, undoing what it did when a step fails.
func (c *State) prepare(ctx context.Context, fresh bool, log io.Writer) error {
	if err := c.setupNetwork(log); err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := c.writeConfigs(); err != nil {
		c.teardownNetwork()
		return err
	}
	if c.ZooKeeper != nil { // ZooKeeper-mode brokers need no formatted storage
		return nil
	}
	if err := c.formatStorage(ctx); err != nil {
		c.teardownNetwork()
		c.removeFailed()
		return err
	}
	return nil
}

// startAll starts every broker and waits until they serve (and, in a fresh cluster, accept the
// SASL user's SCRAM credentials), within o.StartTimeout. On a failure
// it stops them all again and leaves nothing of a fresh cluster (a stopped one stays stopped).
func (c *State) startAll(ctx context.Context, fresh bool, o Options) error {
	undo := func(err error) error {
		c.stopAll(10 * time.Second)
		c.teardownNetwork()
		if fresh {
			c.removeFailed()
		} else {
			c.Stopped = true
			c.save()
		}
		return err
	}
	c.Stopped = false
	if err := c.startZooKeeper(ctx); err != nil {
		return undo(err)
	}
	for _, b := range c.Brokers {
		if err := c.start(b); err != nil {
			return undo(err)
		}
	}
	if err := c.save(); err != nil {
		return undo(err)
	}
	fmt.Fprintf(o.Log, "waiting for %d brokers to register\n", len(c.Brokers))
	wctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	if err := c.waitReady(wctx, nil); err != nil {
		return undo(err)
	}
	if fresh {
		if err := c.addSCRAMUsers(wctx); err != nil {
			return undo(err)
		}
	}
	return nil
}

// newState chooses ports and directories for a new cluster.
func newState(o Options, dist Dist) (*State, error) {
	c := &State{
		Dir: o.Dir, ClusterID: newClusterID(), KafkaVersion: o.KafkaVersion, Heap: o.Heap, Java: o.Java,
		Dist: dist, ExtraConfig: o.ExtraConfig, Created: time.Now().UTC(), NIC: o.NIC,
	}
	if o.Security.Enabled() {
		sec := o.Security
		c.Security = &sec
	}
	if o.Metadata == MetadataZooKeeper {
		return c, c.zooKeeperNodes(o)
	}
	if o.NIC > 0 {
		// Each broker has a namespace of its own, so the well-known ports are free; addresses
		// are assigned when the network is made.
		c.Subnet = o.Subnet
		if c.Subnet == "" {
			c.Subnet = DefaultSubnet
		}
		for i := 1; i <= o.Brokers; i++ {
			c.Brokers = append(c.Brokers, &Broker{ID: int32(i), Port: 9092, ControllerPort: 9093, MetricsPort: 9404,
				Controller: i <= maxVoters, Dir: filepath.Join(o.Dir, fmt.Sprintf("broker-%d", i))})
			if i > maxVoters {
				c.Brokers[i-1].ControllerPort = 0
			}
		}
		c.assignSecurePorts(nil)
		return c, nil
	}
	nports := 0
	for i := 1; i <= o.Brokers; i++ {
		nports += 2 + len(o.Security.Listeners())
		if i <= maxVoters {
			nports++
		}
	}
	ports, err := freePorts(o.Host, nports)
	if err != nil {
		return nil, err
	}
	take := func() int { p := ports[0]; ports = ports[1:]; return p }
	for i := 1; i <= o.Brokers; i++ {
		b := &Broker{ID: int32(i), Host: o.Host, Controller: i <= maxVoters, Dir: filepath.Join(o.Dir, fmt.Sprintf("broker-%d", i))}
		b.Port, b.MetricsPort = take(), take()
		if b.Controller {
			b.ControllerPort = take()
		}
		c.Brokers = append(c.Brokers, b)
	}
	c.assignSecurePorts(take)
	return c, nil
}

// freePorts asks the kernel for n distinct free TCP ports on host, holding them all open until
// every one is chosen so none is handed out twice.
func freePorts(host string, n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("finding a free port on %s: %w", host, err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// zooKeeperNodes chooses ports for a ZooKeeper-mode cluster: brokers only, and ZooKeeper.
func (c *State) zooKeeperNodes(o Options) error {
	ports, err := freePorts(o.Host, 2*o.Brokers+1)
	if err != nil {
		return err
	}
	c.ZooKeeper = &ZooKeeper{Host: o.Host, Port: ports[0], Dir: filepath.Join(o.Dir, "zookeeper")}
	for i := 1; i <= o.Brokers; i++ {
		c.Brokers = append(c.Brokers, &Broker{ID: int32(i), Host: o.Host, Port: ports[2*i-1], MetricsPort: ports[2*i],
			Dir: filepath.Join(o.Dir, fmt.Sprintf("broker-%d", i))})
	}
	return nil
}

func (c *State) writeConfigs() error {
	if err := os.WriteFile(filepath.Join(c.Dir, "jmx-rules.yaml"), JMXRules, 0o644); err != nil {
		return err
	}
	if err := c.writeZooKeeperConfig(); err != nil {
		return err
	}
	if err := c.writeTLS(); err != nil {
		return err
	}
	for _, b := range c.Brokers {
		if err := os.MkdirAll(filepath.Join(b.Dir, "data"), 0o755); err != nil {
			return err
		}
		// Logs left by a failed earlier attempt in this directory would confuse a new one.
		os.Remove(filepath.Join(b.Dir, "stdout.log"))
		os.Remove(b.LogPath())
		perm := os.FileMode(0o644)
		if c.Security != nil && c.Security.SASLUser != "" {
			perm = 0o600 // the PLAIN login module's password is in it
		}
		if err := os.WriteFile(b.configPath(), []byte(serverProperties(c, b)), perm); err != nil {
			return err
		}
		logCfg, name := log4j2Config(b.Dir), "log4j2.properties"
		if !c.Dist.Log4j2 {
			logCfg, name = log4jConfig(b.Dir), "log4j.properties"
		}
		if err := os.WriteFile(filepath.Join(b.Dir, name), []byte(logCfg), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// removeAll deletes what plimsoll wrote in the cluster directory (never the directory's other
// contents).
func (c *State) removeAll() {
	for _, b := range c.Brokers {
		os.RemoveAll(b.Dir)
	}
	if c.ZooKeeper != nil {
		os.RemoveAll(c.ZooKeeper.Dir)
	}
	os.Remove(filepath.Join(c.Dir, "jmx-rules.yaml"))
	os.RemoveAll(c.tlsDir())
	os.Remove(statePath(c.Dir))
}

// setupNetwork makes the emulated NICs when the cluster has them (a no-op on loopback).
func (c *State) setupNetwork(log io.Writer) error {
	if c.NIC <= 0 {
		return nil
	}
	n, err := newNICNet(c.Dir, c.Subnet)
	if err != nil {
		return err
	}
	return n.setup(c, log)
}

// teardownNetwork removes the emulated NICs, if any.
func (c *State) teardownNetwork() {
	if c.NIC <= 0 {
		return
	}
	if n, err := newNICNet(c.Dir, c.Subnet); err == nil {
		n.teardown()
	}
}

// removeFailed undoes a start that failed: the data and state go, the brokers' logs stay so the
// user can read why (the error names them).
func (c *State) removeFailed() {
	for _, b := range c.Brokers {
		os.RemoveAll(filepath.Join(b.Dir, "data"))
	}
	if c.ZooKeeper != nil {
		os.RemoveAll(filepath.Join(c.ZooKeeper.Dir, "data"))
	}
	os.Remove(statePath(c.Dir))
}

// Down stops every broker: SIGTERM (a controlled shutdown), then SIGKILL after timeout. Unless
// keepData, it removes the cluster's files; with keepData a later Up starts it again. With no
// cluster in dir it returns ErrNoCluster and creates nothing.
func Down(dir string, keepData bool, timeout time.Duration) (*State, error) {
	if _, err := Open(dir); err != nil { // nothing to stop: create neither dir nor its lock
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := Open(dir)
	if err != nil {
		return nil, err
	}
	c.stopAll(timeout)
	for _, b := range c.Brokers {
		if b.ProcState() != ProcDead {
			return c, fmt.Errorf("broker %d (pid %d) did not stop; kill it by hand", b.ID, b.PID)
		}
	}
	if z := c.ZooKeeper; z != nil && z.ProcState() != ProcDead {
		return c, fmt.Errorf("ZooKeeper (pid %d) did not stop; kill it by hand", z.PID)
	}
	c.teardownNetwork()
	if keepData {
		c.Stopped = true
		for _, b := range c.Brokers {
			b.PID = 0
		}
		if c.ZooKeeper != nil {
			c.ZooKeeper.PID = 0
		}
		return c, c.save()
	}
	c.removeAll()
	os.Remove(filepath.Join(dir, ".lock"))
	os.Remove(dir) // only succeeds if plimsoll put everything there
	return c, nil
}

// stopAll stops brokers-only nodes first (they need the controllers for a controlled shutdown),
// then the controllers, each group with SIGTERM and then SIGKILL after timeout, then ZooKeeper if
// the cluster has one.
func (c *State) stopAll(timeout time.Duration) {
	var brokers, controllers []*Broker
	for _, b := range c.Brokers {
		if b.Controller {
			controllers = append(controllers, b)
		} else {
			brokers = append(brokers, b)
		}
	}
	stopGroup(brokers, timeout)
	stopGroup(controllers, timeout)
	c.stopZooKeeper(timeout)
}

func stopGroup(bs []*Broker, timeout time.Duration) {
	for _, b := range bs {
		if b.ProcState() == ProcPaused {
			syscall.Kill(b.PID, syscall.SIGCONT) // a stopped JVM cannot handle SIGTERM
		}
		if b.ProcState() != ProcDead {
			syscall.Kill(b.PID, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && anyAlive(bs) {
		time.Sleep(100 * time.Millisecond)
	}
	for _, b := range bs {
		if b.ProcState() != ProcDead {
			syscall.Kill(b.PID, syscall.SIGKILL)
		}
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && anyAlive(bs); {
		time.Sleep(50 * time.Millisecond)
	}
}

func anyAlive(bs []*Broker) bool {
	for _, b := range bs {
		if b.ProcState() != ProcDead {
			return true
		}
	}
	return false
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(data) > 64<<10 {
		data = data[len(data)-64<<10:]
	}
	return lastLines(strings.TrimSpace(string(data)), n)
}

// errorLines returns the last n lines of a log that carry ERROR or FATAL, with the line after
// each (usually the exception), or "" if there are none.
func errorLines(path string, n int) string {
	lines := strings.Split(tail(path, 400), "\n")
	var out []string
	for i, l := range lines {
		if strings.Contains(l, "] ERROR ") || strings.Contains(l, "] FATAL ") {
			out = append(out, l)
			if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "[") {
				out = append(out, lines[i+1])
			}
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n")
}
