// Package live serves the live page of a running limit search (plimsoll limit --ui ADDR): an
// HTTP server on one address, loopback unless the address names another host, that shows the
// running trial's rate and latency each second, the boundary found so far and the trials table,
// and, once the search has ended, its report.
//
// The server keeps a small state, fed by the hooks a limit.Job already has (the load
// generator's per-second figures, the search's progress) and by the search's results file,
// read again whenever a trial begins or ends; it draws nothing itself. Every page and fragment
// is rendered by package report (WriteLivePage, WriteLiveBody, WriteHTML), at most once per
// change of the state however many browsers poll. The page is self-contained: a few lines of
// inline script ask for live.json once a second, and put its html in place; when done is true
// the html is the report, the same page plimsoll report writes, and the script replaces the
// document with it, so the report stays on screen after plimsoll exits. GET / serves the
// report too from then on.
package live
