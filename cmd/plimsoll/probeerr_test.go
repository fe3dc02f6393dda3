//go:build !integration

package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/target"
)

// TestProbeErr: the probe's typed errors are worded with the flags that set the values, as
// the user saw them before the probe stopped naming flags.
func TestProbeErr(t *testing.T) {
	for _, c := range []struct {
		cfg  probe.Config
		want string
	}{
		{probe.Config{NICBytesPerSec: -1}, "starting the probe: invalid probe config: --nic -1 is negative; give a rate such as 1Gbit/s, or leave it out"},
		{probe.Config{DiskWriteBytesPerSec: -5}, "starting the probe: invalid probe config: --disk-write -5 is negative; give a rate such as 500MB/s, or leave it out"},
		{probe.Config{Target: target.Target{MetricsURLs: map[int32]string{2: "http:/x"}}},
			`starting the probe: invalid probe config: --metrics-url for broker 2 is "http:/x"; want http://HOST:PORT/metrics`},
	} {
		_, err := probe.Start(context.Background(), c.cfg)
		got := runErr(fmt.Errorf("starting the probe: %w", err))
		if got == nil || got.Error() != c.want || !errors.Is(got, probe.ErrConfig) {
			t.Errorf("runErr(%v) = %v, want %q wrapping probe.ErrConfig", err, got, c.want)
		}
	}
	// A field no flag sets keeps the probe's own words.
	_, err := probe.Start(context.Background(), probe.Config{HandlerPools: 3})
	if got := runErr(err); got != err {
		t.Errorf("runErr(%v) = %v, want it unchanged", err, got)
	}
	meta := fmt.Errorf("starting the probe: %w from 127.0.0.1:1: dial refused", probe.ErrMetadata)
	var ce *cliError
	if got := runErr(meta); !errors.As(got, &ce) || ce.hint != "check --bootstrap and the TLS/SASL settings" || ce.code != ExitError {
		t.Errorf("runErr(%v) = %#v, want exit 1 with a hint at --bootstrap", meta, got)
	}
}
