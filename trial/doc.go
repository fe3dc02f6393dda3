// Package trial runs one measured trial: the load generator drives the cluster while the probe
// observes it, and the verdict judges the measured window. `plimsoll run` is one trial; the
// limit finder runs many.
//
// It sits between loadgen, probe and verdict (which know nothing of each other) and the
// commands and the search that use all three, so the composition is written once.
//
// A trial interrupted while its load runs (its context cancelled) is still judged from what it
// measured: its record is marked interrupted and its verdict invalid, so whoever keeps it cannot
// mistake it for a finished trial.
//
// A trial with planned faults (Config.Faults, package fault) runs their schedule beside the
// load from the producers' start; after the drain, before the topics are deleted, it waits for
// every fault to have ended and its ISR watch to be over, and the record carries the windows.
//
// The probe of a trial spills its samples beyond the latest ten minutes (probe.Spill), and the
// load generator its interval histograms and timeline rows, into Config.Probe.Spill.Dir, or the
// system's temporary directory, so a long trial's memory stays flat; the record reads them back until whoever
// keeps it closes it (results.Trial.Close).
package trial
