// Package promexport is plimsoll's own Prometheus endpoint: what a run, a limit search or an A/B
// experiment measures, while it runs, under Prometheus's naming conventions (the plimsoll_
// prefix, base units in the names, _total counters), from a registry of its own built with the
// official Go client, github.com/prometheus/client_golang. docs/prometheus.md lists every metric.
//
// An Exporter is fed by the command that runs trials: once a second by the load generator
// (Feed sets loadgen.Options.Live), when a trial starts (Trial) and when it has been judged
// (Done). It keeps what a scrape reads under its own lock, so nothing on a message's path
// changes: the load generator's per-second reading is all it takes. Handler serves the
// registry; Listen checks an address the way --metrics-listen takes it (loopback unless a host
// is given as an IP address) and Serve serves a handler there, so another endpoint of the same
// command can share the policy and the server.
//
// # What the figures are
//
// The gauges are the last second's, as the run's timeline has them (by arrival). The message
// counters count by intended time, like result.json: window="measured" counts what the result's
// counts do, window="excluded" what its excluded_counts do (warm-up, backlog building); lost is
// known only once a trial is over. The latency histograms hold the measured window's values, the
// ones result.json's latency_ms summarises: each second the Exporter copies the load
// generator's HDR histograms (hdr.Hist.Merge into its own, no allocation), and a scrape turns
// the copy into classic buckets (Bounds), so the work of conversion is paid per scrape, not per
// message or per second. Counters and histograms add up over every trial the process runs.
package promexport
