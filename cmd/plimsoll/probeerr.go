package main

import (
	"errors"
	"fmt"

	"github.com/plimsoll/plimsoll/probe"
)

// probeFlagText words a probe configuration error in terms of the flag that set the value;
// false for a field no flag sets.
func probeFlagText(ce *probe.ConfigError) (string, bool) {
	switch ce.Field {
	case "NICBytesPerSec":
		return fmt.Sprintf("--nic %v is negative; give a rate such as 1Gbit/s, or leave it out", ce.Value), true
	case "DiskWriteBytesPerSec":
		return fmt.Sprintf("--disk-write %v is negative; give a rate such as 500MB/s, or leave it out", ce.Value), true
	case "Target.MetricsURLs":
		return fmt.Sprintf("--metrics-url for broker %d is %q; want http://HOST:PORT/metrics", ce.Broker, ce.Value), true
	}
	return "", false
}

// probeErr words the probe's errors for the command line: a configuration value by the flag
// that gave it, and unreadable metadata with a hint at the flags that reach the cluster.
func probeErr(err error) error {
	var ce *probe.ConfigError
	if errors.As(err, &ce) {
		if text, ok := probeFlagText(ce); ok {
			return fmt.Errorf("starting the probe: %w: %s", probe.ErrConfig, text)
		}
	}
	if errors.Is(err, probe.ErrMetadata) {
		return withHint(err, "check --bootstrap and the TLS/SASL settings")
	}
	return err
}
