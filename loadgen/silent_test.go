package loadgen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestSilentBrokers: of three brokers, the one that never answers (every request to it held,
// as a paused broker's would be) is named, within the wait, and the answering ones are not.
func TestSilentBrokers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	wake := make(chan struct{})
	t.Cleanup(func() { close(wake); c.Close() })
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Ping(context.Background()); err != nil { // the seed's connection, before any is held
		t.Fatal(err)
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if c.CurrentNode() == 2 {
			c.SleepControl(func() { <-wake })
		}
		return nil, nil, false
	})
	start := time.Now()
	got := silentText(silentBrokers(context.Background(), cl))
	if !strings.HasPrefix(got, "broker 2 (") || strings.Contains(got, ",") {
		t.Errorf("silent: %q, want broker 2 alone", got)
	}
	if took := time.Since(start); took > silentWait+2*time.Second {
		t.Errorf("took %v", took)
	}
}
