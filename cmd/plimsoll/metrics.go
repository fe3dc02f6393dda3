package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/plimsoll/plimsoll/promexport"
	"github.com/spf13/pflag"
)

// metricsFlags are --metrics-listen and --metrics-linger: plimsoll's own Prometheus endpoint
// (package promexport) while a command runs. A command registers them with addMetricsFlags and
// opens the endpoint with open once its other flags are checked, before any side effect.
type metricsFlags struct {
	addr   string
	linger time.Duration
}

func addMetricsFlags(fs *pflag.FlagSet) *metricsFlags {
	m := &metricsFlags{}
	fs.StringVar(&m.addr, "metrics-listen", "", "serve plimsoll's own Prometheus metrics at http://`ADDR`/metrics while the command runs: :9465 on this machine only (loopback), 0.0.0.0:9465 on every interface (docs/prometheus.md)")
	fs.DurationVar(&m.linger, "metrics-linger", 0, "when the work is done, keep serving /metrics until one more scrape, at most this long (your scrape interval), so Prometheus gets the final figures")
	return m
}

// open starts the endpoint and returns its Exporter (nil when --metrics-listen is not given,
// which every Exporter method takes) and the function that stops it. In a repetition of an A/B
// experiment the endpoint is compare's (ab.metrics), opened and stopped there.
func (m *metricsFlags) open(log io.Writer, ab *abHook) (*promexport.Exporter, func(), error) {
	if ab != nil {
		return ab.metrics, func() {}, nil
	}
	if m.linger < 0 {
		return nil, nil, usageErrf("--metrics-linger %s: give a duration, e.g. 15s, or 0 to stop serving at once", m.linger)
	}
	if m.addr == "" {
		if m.linger > 0 {
			return nil, nil, usageErrf("--metrics-linger needs --metrics-listen ADDR (the endpoint to keep serving)")
		}
		return nil, func() {}, nil
	}
	exp := promexport.New()
	mux := http.NewServeMux()
	mux.Handle("/metrics", exp.Handler())
	srv, err := promexport.Serve(m.addr, mux)
	if errors.Is(err, promexport.ErrAddress) {
		return nil, nil, usageErrf("--metrics-listen: %v", err)
	}
	if err != nil {
		return nil, nil, usageErrf("--metrics-listen %s: %v; pick another port (:0 takes any free one)", m.addr, err)
	}
	where := "this machine only"
	if !srv.Loopback() {
		where = "reachable from other machines, without authentication"
	}
	fmt.Fprintf(log, "metrics: Prometheus endpoint at %s (%s)\n", srv.URL("/metrics"), where)
	return exp, func() { m.stop(exp, srv, log) }, nil
}

// stop waits up to --metrics-linger (or an interrupt) for a scrape of the final figures, then
// stops serving.
func (m *metricsFlags) stop(exp *promexport.Exporter, srv *promexport.Server, log io.Writer) {
	if m.linger > 0 {
		fmt.Fprintf(log, "metrics: waiting up to %s for a last scrape of %s\n", m.linger, srv.URL("/metrics"))
		ctx, cancel := interruptible()
		defer cancel()
		ctx, cancelT := context.WithTimeout(ctx, m.linger)
		defer cancelT()
		exp.WaitScrape(ctx)
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintf(log, "warning: stopping the metrics endpoint: %v\n", err)
	}
}
