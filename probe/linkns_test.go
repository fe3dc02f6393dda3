package probe

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/localkafka/nictest"
	"github.com/vishvananda/netns"
)

// testLink is a shaped veth pair made for a test: namespace plprobe-NAME holds eth0
// (198.19.254.4i+2/30), the probe's namespace holds HostIface (198.19.254.4i+1/30), and both
// ends are shaped to bytesPerSec by tbf, as localkafka shapes a broker's link.
type testLink struct {
	Link
	hostAddr, nsAddr string
}

// makeTestLink creates the pair, removed when the test ends; it skips (or fails, see
// nictest.SkipOrFail) where emulated NICs cannot be made.
func makeTestLink(tb testing.TB, name string, i int, bytesPerSec float64) testLink {
	tb.Helper()
	if err := localkafka.CheckNIC(); err != nil {
		nictest.SkipOrFail(tb, err)
	}
	l := testLink{Link: Link{Netns: "plprobe-" + name, Iface: "eth0", HostIface: fmt.Sprintf("plprobe%dh", i)},
		hostAddr: fmt.Sprintf("198.19.254.%d", 4*i+1), nsAddr: fmt.Sprintf("198.19.254.%d", 4*i+2)}
	del := func() {
		exec.Command("ip", "netns", "del", l.Netns).Run()
		exec.Command("ip", "link", "del", l.HostIface).Run()
	}
	del() // leftovers of a killed test
	tb.Cleanup(del)
	rate := fmt.Sprintf("%dbit", int64(bytesPerSec*8))
	tbf := []string{"root", "tbf", "rate", rate, "burst", "64kb", "latency", "100ms"}
	for _, c := range [][]string{
		{"ip", "netns", "add", l.Netns},
		{"ip", "link", "add", l.HostIface, "type", "veth", "peer", "name", "eth0", "netns", l.Netns},
		{"ip", "addr", "add", l.hostAddr + "/30", "dev", l.HostIface},
		{"ip", "link", "set", l.HostIface, "up"},
		{"ip", "-n", l.Netns, "addr", "add", l.nsAddr + "/30", "dev", "eth0"},
		{"ip", "-n", l.Netns, "link", "set", "eth0", "up"},
		append([]string{"tc", "qdisc", "add", "dev", l.HostIface}, tbf...),
		append([]string{"tc", "-n", l.Netns, "qdisc", "add", "dev", "eth0"}, tbf...),
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			tb.Fatalf("%s: %v: %s", strings.Join(c, " "), err, out)
		}
	}
	return l
}

// flood sends UDP datagrams of 1400 bytes as fast as it can across the link in both
// directions (from the namespace to the host end and back) until ctx ends.
func (l testLink) flood(tb testing.TB, ctx context.Context) *sync.WaitGroup {
	tb.Helper()
	out, err := dialIn(l.Netns, l.hostAddr)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := net.Dial("udp4", l.nsAddr+":9")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	buf := make([]byte, 1400)
	for _, c := range []net.Conn{out, in} {
		wg.Go(func() {
			defer c.Close()
			for ctx.Err() == nil {
				c.Write(buf) // a full queue drops: the point of the flood
			}
		})
	}
	return &wg
}

// dialIn makes a UDP socket inside the namespace ns (a socket keeps the namespace it was made
// in) connected to addr's discard port.
// The thread goes back to the scheduler only if it is back in its own namespace; otherwise it
// ends with the goroutine.
func dialIn(ns, addr string) (net.Conn, error) {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer orig.Close()
	h, err := netns.GetFromName(ns)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer h.Close()
	if err := netns.Set(h); err != nil {
		return nil, err // the thread may be half-switched: it ends with the goroutine
	}
	c, err := net.Dial("udp4", addr+":9")
	if netns.Set(orig) == nil {
		runtime.UnlockOSThread()
	}
	return c, err
}
