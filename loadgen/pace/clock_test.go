package pace

import (
	"context"
	"testing"
	"time"
)

func TestMonoClockSleepUntil(t *testing.T) {
	c := NewClock()
	for _, d := range []time.Duration{300 * time.Microsecond, 5 * time.Millisecond} {
		start := c.Now()
		c.SleepUntil(context.Background(), start+int64(d))
		// Never early; the upper bound is loose because test hosts are often busy.
		if got := time.Duration(c.Now() - start); got < d || got > d+2*time.Second {
			t.Errorf("SleepUntil(+%s) slept %s", d, got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := c.Now()
	c.SleepUntil(ctx, start+int64(time.Hour))
	if time.Duration(c.Now()-start) > 5*time.Second { // far below the hour asked for
		t.Error("SleepUntil ignored a cancelled context")
	}
}
