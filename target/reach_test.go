package target

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func TestBrokers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := Target{Bootstrap: c.ListenAddrs()}.Brokers(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("Brokers = %d, %v; want 3", n, err)
	}
}

// TestReachUnreachable: a port where nothing answers Kafka is ErrUnreachable, named, in bounded time.
func TestReachUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	err = Target{Bootstrap: []string{addr}}.Reach(ctx)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Reach = %v, want ErrUnreachable naming %s", err, addr)
	}
	if d := time.Since(start); d > ReachTimeout {
		t.Errorf("Reach took %v, more than its bound %v", d, ReachTimeout)
	}
}
