// Package omb speaks OpenMessaging Benchmark's result format: the JSON file OMB's
// WorkloadGenerator writes at the end of a test (its TestResult class), which OMB users chart with
// the bin/create_charts.py script and keep as their record of a run.
//
// Export turns a plimsoll trial (results.Trial and its interval log, histograms.hlog) into such a
// file: the series of 10-second windows of the measured window (rates, and latency percentiles
// computed from each window's merged one-second histograms, never from averaged percentiles), the
// aggregates of the whole window from its merged histograms, and the quantile maps. Units are
// OMB's: rates in messages/s, publish and end-to-end latency in milliseconds, publish delay
// latency in microseconds. docs/omb.md maps every field to its plimsoll source.
//
// Parse reads an OMB result file back, strictly: a file that lacks OMB's identifying fields, or
// has fields of the wrong type, is refused, so a plimsoll file or another JSON is never taken for
// one.
package omb
