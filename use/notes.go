package use

import "fmt"

// notes explains gaps: failed scrapes and metadata requests, shared hosts, leaderless
// partitions.
func (s series) notes() []string {
	var out []string
	if s.Local {
		out = append(out, "the brokers run on the client host: its cpu, disk, memory and network rows include theirs; broker rows use each broker's own metrics and JVM CPU")
	}
	for _, id := range s.BrokerIDs() {
		missing, last := 0, ""
		for x := range s.All() {
			if b := x.Brokers[id]; b != nil && b.Err != "" {
				missing++
				last = b.Err
			}
		}
		if missing > 0 {
			out = append(out, fmt.Sprintf("broker %d: %d of %d intervals without metrics (last: %s)", id, missing, s.Len(), last))
		}
	}
	metaErr, offline := 0, 0
	for x := range s.All() {
		if x.Meta != nil && x.Meta.Err != "" {
			metaErr++
		}
		if x.Meta != nil {
			offline = max(offline, x.Meta.Offline)
		}
	}
	if metaErr > 0 {
		out = append(out, fmt.Sprintf("%d of %d metadata requests failed", metaErr, s.Len()))
	}
	if offline > 0 {
		out = append(out, fmt.Sprintf("up to %d partitions had no leader", offline))
	}
	return out
}
