// Package loadgen executes a workload Spec against a Kafka Target for a window, with real
// franz-go producers and consumers in one process, and measures it honestly.
//
// loadgen holds the orchestration, the producers and consumers, settling, payloads and the
// accounting that makes a Result. Its parts with a job of their own are sub-packages: pace (the
// run's Clock and each producer's Pacer), hdr (the latency histograms, their exact encoding and
// the interval log), ledger (each consumer group's loss ledger) and topics (topic and group
// admin under the run's prefix, and the prefix rule).
//
// # Phases
//
// Run creates the spec's topics (prefix plimsoll-<run id>-; it refuses to start if any topic
// already has the prefix, and waits until every partition has a leader), starts the consumer
// groups and waits until every group has its partitions assigned. It then settles the topics:
// one record per partition, written with acks=all and awaited, pays a fresh topic's slow first
// acknowledgements before the schedule starts (consumers skip these records: they count
// nowhere, but reading one moves its partition's read position). Then it starts the producers.
// Warm-up comes first and is excluded from every figure; in backlog mode (Spec.BacklogBytes)
// the consumers are then paused until the backlog is built, and the measured window starts when
// they resume (OMB's consumerBacklogSizeGB). After the window the producers flush and the
// consumers drain: up to Options.DrainTimeout for every acknowledged message to be consumed.
// The topics and groups are deleted afterwards unless Options.KeepTopics.
//
// # Measuring
//
// Each producer follows a fixed schedule: message i is intended at start + i/rate (pace.Pacer).
// It wakes, sends every message that is due in one batch, and sleeps until the next one (at
// least Options.PacingTick). Publish and end-to-end latency are measured from the intended time, so a
// message sent late still counts the wait (no coordinated omission); the lateness itself is the
// schedule delay, reported on its own. The stamp in the first 24 bytes of every payload
// (producer id, sequence, intended time) lets the consumers, in the same process and on the same
// monotonic clock, compute end-to-end latency without clock skew.
//
// Latencies go into HDR histograms (1 µs to 1 h, 3 significant digits) that count values
// beyond the hour as overflow rather than clamping them; per-worker histograms are merged, never
// their percentiles averaged. A message's phase (excluded or measured) is decided by its intended
// time, so the warm-up boundary is exact. The rates likewise count the messages intended inside
// the window, whenever they were acknowledged or consumed, over the window's length; only the
// per-second timeline counts by arrival.
//
// Once a second the run hands Options.Progress that second's figures and Options.Live the run as
// it stands (the second, the counts by window, the measured histograms so far), for a live view
// such as plimsoll's Prometheus endpoint; both are read on the run's own goroutine.
//
// A run with Options.Share is one worker's share of a run spread over several processes
// (package fleet, docs/workers.md): the producers of its global indices, each as in a single
// process, writing only to its partitions of each topic (keys hashed over them), its consumers
// joining each group with the balancer it is given, so that they read only those partitions,
// and the schedule starting at the share's absolute start. Its topics exist already (the
// coordinator creates and deletes them): it neither refuses their prefix nor creates nor deletes
// anything. Each group's ledger counts the share's producers only. Options.Feed hands out what
// the worker publishes: each second's counters and encoded interval histograms (the interval
// log's encodings, made once), and after the drain the window's counts, histograms and ledgers.
//
// A run with Options.SpillDir holds only the latest ten minutes of its timeline rows (Timeline)
// and interval histograms (hdr.IntervalLog) in memory; the earlier ones are appended to spill
// files with no name in the directory (internal/spill) and read back through Timeline.All and
// IntervalLog.All, so a long run's memory stays flat.
//
// Whether the generator kept up is part of the result (ClientSignals): messages left unsent,
// the schedule delay, the time producers waited for buffer space (the cluster acknowledging too
// slowly) versus the time records waited for acknowledgement, and this process's CPU.
//
// # Loss ledger
//
// Each consumer group keeps, per producer, the set of sequences it has seen (a bitmap in 64 Ki
// chunks, released once full, so memory follows the consumers' lag rather than the run's
// length), the highest sequence per partition per producer (per lane: the lean producer's
// session, which its stamp carries, since order holds within a session only) and the highest
// offset per partition. A sequence seen again is duplicated (redelivered if its offset had
// been read before, i.e. a replay after a rebalance); a first sighting below the highest
// sequence of its producer on its lane of its partition is out of order. After the drain, a sequence acknowledged and never
// seen is lost if the group read to the end of every partition, otherwise unconsumed. Messages
// the producer failed are failed, and those still in flight when the producers stopped waiting
// for them are in flight at the end: neither was acknowledged, and neither is ever lost.
//
// # Cost
//
// The per-message paths allocate nothing: records and their payload buffers are pooled per
// producer (the pool size is buffer.memory in records, and waiting for a free record is the
// "buffer full" signal), one promise function per producer returns them, and the consumer
// decodes the stamp, records the latency and updates the ledger without allocating
// (consumer.account).
//
// The consumers read through plimsoll's own fetch path by default (package fetch,
// Options.ConsumerFetch): franz-go keeps the group (its balancers, the share's included), its
// callbacks and the offset commits, with its own fetching paused; a Fetcher per consumer sends
// Fetch requests on connections of its own, reads each response into a buffer it keeps and
// parses its record batches in place (recbatch), handing each record to the consumer's sink
// (ownfetch.go). Each assignment reaches it through AdjustFetchOffsetsFn (after resume), each
// revocation through OnPartitionsRevoked and OnPartitionsLost, which return only once no record
// of the partition can be accounted any more; the positions it has reached are committed on
// revocation (as commitOnRevoke) and every auto.commit.interval.ms with enable.auto.commit.
// max.poll.records does not apply: a response's records are accounted as it is read.
//
// With FetchFranzGo ($PLIMSOLL_CONSUMER_FETCH=franz-go) the consumer polls franz-go instead: its
// client decodes fetches into slices from pools of its own (recordPools), and the consumer
// recycles every record once accounted. What franz-go still allocates per fetch there (the
// response read off the connection, about the records' size on the wire, and each partition's
// slice of record pointers) has no pool in franz-go v1.22; BenchmarkConsumer measures both paths.
package loadgen
