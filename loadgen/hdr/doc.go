// Package hdr holds the load generator's latency histograms: HDR histograms of durations from
// 1 µs to one hour at 3 significant digits (0.1% resolution), built on hdrhistogram-go.
//
// A Hist never clamps: a value above the hour is counted as overflow and still bounds the
// percentiles and the exact max it reports. Histograms of different workers are merged, never
// their percentiles averaged; Percentiles summarises a merged one in milliseconds.
//
// An IntervalLog keeps a run's per-second histograms, encoded, for histograms.hlog; with a
// SpillDir it holds only the latest ten minutes of them and spills the rest to a file
// (internal/spill), read back through IntervalLog.All.
package hdr
