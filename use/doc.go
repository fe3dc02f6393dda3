// Package use turns what the probe observed (probe.Series, usually its measured Window) into
// summaries: the USE table (Summarise: utilisation, saturation and errors of every resource, per
// broker, for the cluster and for the client host, described in docs/use.md), each process's
// mean CPU (CPU), each broker's mean traffic (BrokerTraffic) and the busiest resources of a
// table (Busiest).
//
// It is pure: it reads samples and does no I/O, and it writes no sentences for people. A blank
// cell says why with a Reason code; package report words it.
//
// One rule holds throughout: a missing value (probe.Missing: a failed scrape, a counter reset)
// is left out of every mean, never counted as zero; a process or broker with no value at all is
// absent from the result.
package use
