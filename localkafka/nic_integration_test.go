//go:build integration

package localkafka

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka/nictest"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// eth0Bytes reads the received and transmitted bytes of eth0 in the broker's namespace through
// /proc/PID/net/dev, which shows the network namespace of that process.
func eth0Bytes(t *testing.T, b *Broker) (rx, tx uint64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/dev", b.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || name != "eth0" {
			continue
		}
		f := strings.Fields(rest)
		rx, _ = strconv.ParseUint(f[0], 10, 64)
		tx, _ = strconv.ParseUint(f[8], 10, 64)
		return rx, tx
	}
	t.Fatalf("no eth0 in broker %d's namespace", b.ID)
	return 0, 0
}

func TestEmulatedNICs(t *testing.T) {
	if err := CheckNIC(); err != nil {
		nictest.SkipOrFail(t, err)
	}
	dir := t.TempDir()
	const rate = 2e6 // 16 Mbit/s
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Up(ctx, Options{Dir: dir, NIC: rate, Heap: "512m"})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := newNICNet(dir, "")
	defer func() {
		if _, err := Down(dir, false, 30*time.Second); err != nil {
			t.Error(err)
		}
		if left := n.leftovers(); len(left) > 0 {
			t.Errorf("Down left network pieces behind: %v", left)
		}
	}()
	// 2 bridges, and per broker a namespace and the root ends of its data and management links.
	if got, want := len(n.leftovers()), 2+3*len(c.Brokers); got != want {
		t.Errorf("found %d network pieces, want %d: %v", got, want, n.leftovers())
	}

	// Saturate the brokers' inbound links with acks=1, unthrottled, rf 1: each broker's eth0
	// must receive at most the shaped rate (plus a little for frame overhead and the burst).
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Target().Bootstrap...), kgo.DefaultProduceTopic("plimsoll-it-nic"),
		kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, "plimsoll-it-nic"); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 1000)
	pctx, pcancel := context.WithCancel(ctx)
	go func() {
		for pctx.Err() == nil {
			cl.Produce(pctx, &kgo.Record{Value: payload}, nil)
		}
	}()
	time.Sleep(3 * time.Second) // let the producer fill its buffers and the links
	before := map[int32][2]uint64{}
	for _, b := range c.Brokers {
		rx, tx := eth0Bytes(t, b)
		before[b.ID] = [2]uint64{rx, tx}
	}
	start := time.Now()
	time.Sleep(8 * time.Second)
	elapsed := time.Since(start).Seconds()
	maxIn := 0.0
	for _, b := range c.Brokers {
		rx, _ := eth0Bytes(t, b)
		in := float64(rx-before[b.ID][0]) / elapsed
		t.Logf("broker %d inbound %.0f B/s (link %.0f B/s)", b.ID, in, rate)
		if in > rate*1.03 {
			t.Errorf("broker %d received %.0f B/s over a %.0f B/s link: traffic does not cross the shaped link", b.ID, in, rate)
		}
		maxIn = max(maxIn, in)
	}
	pcancel()
	if maxIn < rate*0.7 {
		t.Errorf("busiest broker received only %.0f B/s of %.0f: the link never filled, the test proves nothing", maxIn, rate)
	}

	// A slower link on one broker shows in its shaping.
	if err := c.Shape(2, rate/2); err != nil {
		t.Fatal(err)
	}
	st, _ := Open(dir)
	if b, _ := st.Broker(2); b.NIC != rate/2 {
		t.Errorf("after Shape, broker 2's recorded NIC is %v", b.NIC)
	}
}
