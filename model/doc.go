// Package model is plimsoll's capacity model: given a Kafka cluster's shape (brokers, partitions,
// replication factor, consumer groups), its traffic and, optionally, its brokers' capacities, it
// computes each broker's load, the resource that gives out first, the produce ceiling, the wire
// bytes a message costs, how many partitions the traffic needs, and the headroom left by a
// measured per-broker limit. It is pure arithmetic: no I/O, no clocks, no goroutines.
//
// # Assumptions
//
//   - Every produced byte is written once by its partition's leader and copied by r-1 followers
//     (r = replication factor). Followers fetch from the leader, so per broker
//     network in = produce in + replication in and network out = replication out + consume out.
//   - Leaders and followers are spread as evenly as a balanced assignment allows: with P leader
//     partitions on N brokers the busiest broker leads ceil(P/N) of them and follows
//     ceil(P(r-1)/N). It is assumed to carry both ceilings at once (an upper bound). Every
//     partition carries the same traffic. Without a partition count the spread is exactly even.
//   - Consumer groups reading from the tail are served from the page cache (network only);
//     lagging groups read from disk. Each group reads every byte once, from the leader.
//   - Disk write = network in (the broker appends what it receives, as leader or follower);
//     disk read = what lagging groups read. Index writes, compaction and tiered storage are
//     not modelled, nor is CPU.
//   - Rates are bytes per second of record batches as they cross the wire. Request and
//     response framing adds about 0.3-1.7% on a real socket and is left out.
//   - A network interface capacity is per direction (full duplex). A resource is planned up
//     to MaxUtilization of its capacity (default 0.8, as Cruise Control's thresholds).
//   - With F brokers down, the ceiling is computed on the N-F survivors, which then carry all
//     leaders and every replica they can hold: the replication factor in effect is
//     min(r, N-F). This is the conservative view (as after a reassignment); without one, a
//     cluster runs under-replicated and moves less replication traffic.
//   - A measured per-broker limit (the cluster's produce rate over N when it overloaded, as
//     Dropbox measured 60 MB/s per broker) is used as is: the safe rate per broker leaves
//     room for F brokers down, limit x (N-F)/N. MaxUtilization applies to capacities only.
//   - Wire bytes of a message follow Kafka's record formats (see WireBytes): record batch v2
//     with a 61-byte header shared by the records that fit in batch.size, or the legacy
//     v0/v1 message sets with 26/34 bytes per message.
//   - Partitions: Little's law (partitions >= messages/s x consumer latency), the per-partition
//     throughput rule (partitions >= max(t/p, t/c)), and the operating system's memory-map
//     limit (two maps per partition replica, so vm.max_map_count/2 per broker).
//
// The figures in a Result are rounded to 12 significant digits so they print the same on
// every platform; the functions that return plain numbers (LoadFor, MaxProduce, WireBytes) do
// not round.
package model
