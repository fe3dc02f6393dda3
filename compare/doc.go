// Package compare answers "is B slower than A?" over results plimsoll already wrote: runs
// (`plimsoll run --out` directories) or limit searches (their results.jsonl), one or more per
// side, several meaning repetitions; or OpenMessaging Benchmark result files, on one side or both
// (omb.go: the figures an OMB file shares with a run, the run cut into OMB's 10-second windows).
//
// It loads each side through package results, checks that both sides ran the same workload,
// and turns them into figures (rates, latency percentiles from the merged HDR histograms, CPU
// and bytes per message, USE utilisation, safe rates per message size). Each figure gets the
// change B/A − 1 with a 95% confidence interval, a Mann-Whitney U p-value and a verdict word;
// the USE tables of the two sides are diffed to rank what moved closer to its limit. The rules
// are in docs/compare.md.
//
// It is pure apart from reading results (through packages results and omb, after a stat that tells a
// run's directory from a search's): it writes nothing and words nothing. What weakens a
// repetition (interrupted, an invalid verdict, a torn results file) is a Note, not a sentence.
// Package report renders a Comparison; the command maps its verdict to an exit code.
package compare
