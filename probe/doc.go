// Package probe watches a Kafka cluster and the host plimsoll runs on while a run is under way:
// one observation per interval (a second by default) of
//
//   - the host, from Linux /proc read with github.com/prometheus/procfs: CPU time by kind, run
//     queue and CPU pressure, the CPU used by each local broker JVM and by plimsoll itself,
//     network bytes, packets, drops and TCP retransmits, disk throughput, busy time and queue,
//     memory and page cache; for brokers in network namespaces of their own (emulated NICs),
//     their namespace's TCP segments and retransmits;
//   - the queueing disciplines, read with github.com/vishvananda/netlink (one socket per network
//     namespace, one qdisc dump each interval): each emulated link's tbf shapers (bytes, drops,
//     backlog; Config.Links) and the root qdiscs of the client host's interfaces;
//   - every broker's Prometheus endpoint (the JMX exporter with plimsoll's rules, see
//     docs/metrics.md), read with Prometheus's own text parser (model/textparse): traffic,
//     request-handler and network-processor idle, queues, ISR changes, under-replicated
//     partitions, request time percentiles, JVM CPU and heap;
//   - Kafka's own metadata (leaders, replicas, ISR of the run's topics) from a Metadata request
//     sent with franz-go, which needs no metrics endpoint at all.
//
// Counters become per-second rates from the difference of two readings over the time between
// them; a failed or reset reading is recorded as missing (null in JSON), never as zero. Start
// samples in a goroutine until Stop, which returns the Series; Series.Window cuts out the
// measured window (warm-up excluded). Package use summarises a window (the USE table of
// docs/use.md, CPU and traffic means); the verdict package reads the raw samples too, every
// reader through Series.All and Len.
//
// Over a long run the probe's memory stays flat when Config.Spill names a directory: beyond the
// latest Spill.Keep samples (ten minutes), each sample is appended to a spill file (one JSON
// line, the file unlinked as soon as it is open) and read back for every pass over the series;
// a Window narrows its reads to its own lines, and Series.WriteJSON writes probe.json a sample
// at a time. docs/long-runs.md has the figures.
//
// The probe only collects: it renders nothing for people and names no command-line flag.
package probe
