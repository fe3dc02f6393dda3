package localkafka

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzNewNICNet: --subnet never panics; an accepted subnet is an IPv4 /24 with the next /24 for
// management, and a refusal names --subnet.
func FuzzNewNICNet(f *testing.F) {
	for _, s := range []string{"", "198.18.76.0/24", "198.18.76.7/24", "10.0.255.0/24", "198.18.0.0/16", "::1/24", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, subnet string) {
		n, err := newNICNet("/d", subnet)
		if err != nil {
			if !strings.Contains(err.Error(), "--subnet") {
				t.Fatalf("newNICNet(%q) error %v does not name --subnet", subnet, err)
			}
			return
		}
		d, m := n.data.Addr().As4(), n.mgmt.Addr().As4()
		if n.data.Bits() != 24 || n.mgmt.Bits() != 24 || n.data != n.data.Masked() || d[0] != m[0] || d[1] != m[1] || m[2] != d[2]+1 || len(n.tag) != 4 {
			t.Fatalf("newNICNet(%q) = %+v", subnet, n)
		}
		if _, err := netip.ParsePrefix(n.data.String()); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzFreeSubnet: any `ip -o addr show` text gives "" or a /24 of 198.18.0.0/15 whose gateway,
// and its management /24's, appear on no interface in the text.
func FuzzFreeSubnet(f *testing.F) {
	f.Add("1: lo    inet 127.0.0.1/8 scope host lo\n")
	f.Add("5: plb    inet 198.18.76.1/24 scope global plb\n6: plm    inet 198.18.77.1/24 scope global plm\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, addrs string) {
		s := freeSubnet(addrs)
		if s == "" {
			return
		}
		p, err := netip.ParsePrefix(s)
		if err != nil || p.Bits() != 24 || !netip.MustParsePrefix("198.18.0.0/15").Contains(p.Addr()) {
			t.Fatalf("freeSubnet = %q", s)
		}
		n, err := newNICNet("/d", s)
		if err != nil {
			t.Fatalf("freeSubnet = %q, which --subnet refuses: %v", s, err)
		}
		for _, gw := range []netip.Prefix{n.data, n.mgmt} {
			if strings.Contains(addrs, " "+gw.Addr().Next().String()+"/") {
				t.Fatalf("freeSubnet = %q, but %s is in use:\n%s", s, gw.Addr().Next(), addrs)
			}
		}
	})
}

// FuzzOpen: any cluster.json opens or is refused as damaged, naming the file; never a panic.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"dir":"/c","cluster_id":"x","kafka_version":"4.1.0","brokers":[{"id":1,"host":"127.0.0.1","port":9092,"pid":1}]}`))
	f.Add([]byte(`{"brokers":[null]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cluster.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Open(dir)
		if err != nil {
			if !strings.Contains(err.Error(), "cluster.json is damaged") {
				t.Fatalf("Open: %v", err)
			}
			return
		}
		c.Status() // what `cluster status` shows of it
	})
}
