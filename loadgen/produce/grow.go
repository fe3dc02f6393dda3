package produce

// grower decides when the producer adds a session: once batches have waited after clock time
// units with every session's window full, without a break.
type grower struct {
	after int64
	since int64 // clock time batches began to wait on every window; -1: they do not
}

// observe takes whether batches wait on every session's window at clock time now. It reports
// grow once they have waited g.after, and otherwise, while they wait, at: the clock time to
// look again (0: no need). After grow the wait starts over.
func (g *grower) observe(now int64, bound bool) (grow bool, at int64) {
	if !bound {
		g.since = -1
		return false, 0
	}
	if g.since < 0 {
		g.since = now
	}
	if now-g.since >= g.after {
		g.since = -1
		return true, 0
	}
	return false, g.since + g.after
}
