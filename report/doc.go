// Package report renders what plimsoll measured for people. Besides the pieces of other
// commands (runs, USE tables, the model, compare's table and its cause in compare.go), it
// renders the results of a limit search: a self-contained HTML page
// (index.html, with the charts drawn by gonum/plot as inline SVG, inline CSS, no JavaScript and
// no reference to anything outside the file, so it opens offline), a PNG of the boundary chart
// to paste elsewhere, and a plain-text rendering for the terminal. It renders an A/B experiment
// (compare --a/--b --out DIR) as a page of the same look: the experiment, the statistics table,
// the cause and paired charts of the arms (abhtml.go, abcharts.go). LoadAB reads such a
// directory (manifest.json, compare.json and, through package compare, the repetitions): the
// page's input is the directory as a whole, so the reading stays next to the page. An
// OpenMessaging Benchmark result file (read by package omb) is rendered as a page and as text
// (omb.go), marked as imported, and what `plimsoll export --format omb` wrote is said by
// ombexport.go. A named experiment's record (`plimsoll scenario run`, a results.Scenario) is
// rendered as a page of the same look and as text (scen*.go): its findings beside the model's
// and the article's, each chart drawn from its series (measured solid, the model's line, the
// article's dashed with its source), the sources with their hardware, the configuration, the
// commands it ran and its failures; `plimsoll scenario list` is written here too.
//
// It also renders the live page of a running search (live.go, live.html.tmpl; served by package
// live): the running trial's per-second rate and latency, the boundary so far and the trials
// table, in the report's style and with its charts and tables; a few lines of inline script
// fetch the changing part again from the server that serves it, and nothing else.
//
// A search's page, chart and text are drawn from a results.SearchFile (the search as the
// results package loads it from results.jsonl), turned into a view of plain values (view.go)
// before anything is written; the package does not read a search's files itself, which keeps
// it testable with golden files and no cluster. The page can be rendered again from the same
// results.jsonl (plimsoll report) after the renderer improves.
//
// The page states the answer first (what the cluster sustains, and the recommended safe load),
// then the charts, then the tables. Two measuring rules show up in the text, not only in the
// numbers: a client-bound point (the load generator, not the cluster, was the limit) is drawn
// and labelled apart and is never presented as the cluster's limit, and a co-located run (the
// brokers and the generator on one host) is said to measure the host, with the CPU share of each.
//
// Rendering is deterministic: no map is iterated in an unsorted order, floats are formatted to a
// fixed number of significant digits, and the time shown is when the search began (from its results), never the clock.
package report
