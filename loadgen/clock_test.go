package loadgen

import "context"

// fakeClock is a pace.Clock that moves only when told to; SleepUntil jumps to the wake time.
type fakeClock struct {
	now int64
}

func (c *fakeClock) Now() int64 { return c.now }
func (c *fakeClock) SleepUntil(_ context.Context, t int64) {
	if t > c.now {
		c.now = t
	}
}
