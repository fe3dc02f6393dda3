package localkafka

import (
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// JMXRules is the exporter rules file; docs/metrics.md documents the names it produces.
//
//go:embed jmx-rules.yaml
var JMXRules []byte

// maxVoters caps the KRaft controller quorum: more voters only add election traffic here.
const maxVoters = 3

// newClusterID returns a random KRaft cluster id (16 bytes, base64url without padding, as
// kafka-storage random-uuid prints).
func newClusterID() string {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand does not fail on Linux
		}
		// An id starting with '-' reads as an option to kafka-storage's argument parser.
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id
		}
	}
}

// serverProperties renders one node's server.properties. Nodes with id <= the voter count are
// combined broker+controller nodes; the rest are brokers only.
func serverProperties(c *State, b *Broker) string {
	p := map[string]string{
		"node.id":                                  fmt.Sprint(b.ID),
		"controller.quorum.voters":                 c.voters(),
		"controller.listener.names":                "CONTROLLER",
		"inter.broker.listener.name":               "PLAINTEXT",
		"listener.security.protocol.map":           "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"advertised.listeners":                     fmt.Sprintf("PLAINTEXT://%s:%d", b.Host, b.Port),
		"log.dirs":                                 filepath.Join(b.Dir, "data"),
		"offsets.topic.replication.factor":         fmt.Sprint(min(3, len(c.Brokers))),
		"transaction.state.log.replication.factor": fmt.Sprint(min(3, len(c.Brokers))),
		"transaction.state.log.min.isr":            fmt.Sprint(min(2, len(c.Brokers))),
		"group.initial.rebalance.delay.ms":         "0",
		// Never create a topic by accident: plimsoll creates its own, with its prefix.
		"auto.create.topics.enable": "false",
		"delete.topic.enable":       "true",
		"num.partitions":            "1",
		// Small segments and indexes keep many-partition experiments within this machine's memory.
		"log.segment.bytes":     fmt.Sprint(256 << 20),
		"log.retention.bytes":   fmt.Sprint(1 << 30),
		"log.retention.minutes": "30",
		// Kafka preallocates each segment's offset and time index at this size, sparse, and
		// maps it. A host with a large read-ahead (8 MB on the VM this was measured on) zeroes
		// up to that much page cache at the first touch of each new index: at 10 MB, a fresh
		// 30-partition rf-3 topic cost up to 1.8 GB of memset in the brokers' fetcher and
		// handler threads, 2-3 s at 60-90% system CPU with nothing acknowledged (perf:
		// filemap_fault, page_cache_ra_order, ext4_mpage_readpages, zero_user_segments; 4 of 14
		// trials at 10 KB stalled). At 1 MiB none of 8 did (docs/warmup.md). 1 MiB still holds
		// an entry per 4 KiB (index.interval.bytes) of a full 256 MiB segment: 131,072 offset
		// entries of 8 B, 87,381 time entries of 12 B, against 65,536 needed.
		"log.index.size.max.bytes": fmt.Sprint(1 << 20),
	}
	switch {
	case c.ZooKeeper != nil:
		zooKeeperMode(p, c, b)
	case b.Controller:
		p["process.roles"] = "broker,controller"
		p["listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", b.Host, b.Port, b.Host, b.ControllerPort)
	default:
		p["process.roles"] = "broker"
		p["listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d", b.Host, b.Port)
	}
	c.securityProperties(b, p)
	for k, v := range c.ExtraConfig {
		p[k] = v
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "# written by plimsoll for node %d of cluster %s (Kafka %s)\n", b.ID, c.ClusterID, c.KafkaVersion)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%s\n", k, p[k])
	}
	return sb.String()
}

// zooKeeperMode turns a node's KRaft entries into a ZooKeeper-mode broker's: broker.id and
// zookeeper.connect instead of the roles, the quorum and the controller listener.
func zooKeeperMode(p map[string]string, c *State, b *Broker) {
	for _, k := range []string{"node.id", "controller.quorum.voters", "controller.listener.names"} {
		delete(p, k)
	}
	p["broker.id"] = fmt.Sprint(b.ID)
	p["zookeeper.connect"] = c.ZooKeeper.Address()
	p["listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d", b.Host, b.Port)
	p["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT"
}

// voters renders controller.quorum.voters: id@host:port for each controller node.
func (c *State) voters() string {
	var v []string
	for _, b := range c.Brokers {
		if b.Controller {
			v = append(v, fmt.Sprintf("%d@%s:%d", b.ID, b.Host, b.ControllerPort))
		}
	}
	return strings.Join(v, ",")
}

// log4j2Config keeps the broker's own log in DIR/server.log at INFO, and the noisy request and
// state-change loggers at WARN.
func log4j2Config(dir string) string {
	return fmt.Sprintf(`status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = %s
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%%d] %%p %%m (%%c)%%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
logger.request.name = kafka.request.logger
logger.request.level = warn
logger.state.name = state.change.logger
logger.state.level = warn
logger.kafka.name = org.apache.kafka
logger.kafka.level = info
`, filepath.Join(dir, "server.log"))
}

// log4jConfig is the Kafka 3.x (reload4j) equivalent of log4j2Config.
func log4jConfig(dir string) string { return log4jConfigFile(filepath.Join(dir, "server.log")) }

// log4jConfigFile is a reload4j configuration logging to path (a broker's, or ZooKeeper's).
func log4jConfigFile(path string) string {
	return fmt.Sprintf(`log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=%s
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%%d] %%p %%m (%%c)%%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
`, path)
}
