package promexport

import (
	"errors"
	"net"
	"testing"
)

// FuzzListenAddr: ListenAddr never panics; its errors wrap ErrAddress, and what it accepts is a
// host:port whose host is an IP address and whose port is a number, loopback whenever the input
// named no host or localhost.
func FuzzListenAddr(f *testing.F) {
	for _, s := range []string{":9465", "9465", "localhost:1", "0.0.0.0:9465", "[::1]:0", "host:9465", "[fe80::1%eth0]:9465", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ListenAddr(s)
		if err != nil {
			if !errors.Is(err, ErrAddress) {
				t.Fatalf("ListenAddr(%q) error %v does not wrap ErrAddress", s, err)
			}
			return
		}
		host, port, err := net.SplitHostPort(out)
		ip := net.ParseIP(host)
		if err != nil || ip == nil || port == "" {
			t.Fatalf("ListenAddr(%q) = %q", s, out)
		}
		if h, _, err := net.SplitHostPort(s); (err != nil || h == "" || h == "localhost") && !ip.IsLoopback() {
			t.Fatalf("ListenAddr(%q) = %q: not loopback", s, out)
		}
	})
}
