package probe

import "errors"

// ErrParse is wrapped by every error about text the probe could not read: a /proc file (read
// with procfs, hostread.go) or a Prometheus scrape (read with textparse, prom.go).
var ErrParse = errors.New("probe: cannot parse")
