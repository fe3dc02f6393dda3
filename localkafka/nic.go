package localkafka

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/netip"
	"os"
	"os/exec"
	"strings"
)

// ErrNoNIC means emulated NICs cannot be made on this machine (not root, or no ip/tc).
var ErrNoNIC = errors.New("emulated NICs unavailable")

// ErrSubnetUsed means the emulated NICs' subnet is held by something else on this machine.
var ErrSubnetUsed = errors.New("subnet in use")

// DefaultSubnet is the private /24 the emulated NICs use: 198.18.0.0/15 is reserved for network
// benchmarking (RFC 2544), so it collides with no real network. The management network (metrics,
// unshaped) is the next /24.
const DefaultSubnet = "198.18.76.0/24"

// Emulated NIC layout, per cluster (names derive from the cluster directory, so a crashed
// cluster's leftovers are found again by the next `up` or `down` on the same directory):
//
//	root namespace: bridge plXXXXd (data, .1) and plXXXXm (management, .1)
//	per broker i:   namespace plimsoll-XXXX-bI with eth0 (data, .10+i, shaped both ways by tbf)
//	                and mgmt0 (management, .10+i, unshaped: the metrics agent binds here, so
//	                scrapes do not cross the shaped link and skew it)
//
// The data link is shaped on both ends: the namespace side's egress is the broker's outbound
// traffic, the root side's egress is its inbound traffic (full duplex, like a real NIC).
type nicNet struct {
	tag        string
	data, mgmt netip.Prefix
}

func newNICNet(dir, subnet string) (nicNet, error) {
	if subnet == "" {
		subnet = DefaultSubnet
	}
	p, err := netip.ParsePrefix(subnet)
	if err != nil || !p.Addr().Is4() || p.Bits() != 24 {
		return nicNet{}, fmt.Errorf("--subnet %q: give an IPv4 /24 used only for plimsoll's namespaces, e.g. %s", subnet, DefaultSubnet)
	}
	p = p.Masked()
	a := p.Addr().As4()
	if a[2] == 255 {
		return nicNet{}, fmt.Errorf("--subnet %s: the next /24 is needed for the management network; pick another", subnet)
	}
	a[2]++
	h := fnv.New32a()
	h.Write([]byte(dir))
	return nicNet{tag: fmt.Sprintf("%04x", h.Sum32()&0xffff), data: p, mgmt: netip.PrefixFrom(netip.AddrFrom4(a), 24)}, nil
}

func (n nicNet) host(p netip.Prefix, i int) string {
	a := p.Addr().As4()
	a[3] = byte(i)
	return netip.AddrFrom4(a).String()
}

func (n nicNet) bridge(kind string) string         { return "pl" + n.tag + kind }
func (n nicNet) veth(kind string, id int32) string { return fmt.Sprintf("pl%s%s%d", n.tag, kind, id) }
func (n nicNet) netns(id int32) string             { return fmt.Sprintf("plimsoll-%s-b%d", n.tag, id) }

// CheckNIC tells whether emulated NICs can be made here, naming what is missing.
func CheckNIC() error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces and tc need CAP_NET_ADMIN: run as root)")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (install iproute2)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s; without --nic the cluster runs on loopback", ErrNoNIC, strings.Join(missing, ", "))
	}
	return nil
}

// run executes one ip/tc command, returning its output in the error.
func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// tbfArgs shapes a link to bytesPerSec with the burst and latency measured to behave here.
func tbfArgs(op, dev string, bytesPerSec float64) []string {
	bits := int64(math.Round(bytesPerSec * 8))
	return []string{"qdisc", op, "dev", dev, "root", "tbf", "rate", fmt.Sprintf("%dbit", bits), "burst", "64kb", "latency", "100ms"}
}

// setup makes the bridges, namespaces and links for brokers and assigns their addresses.
func (n nicNet) setup(c *State, log io.Writer) error {
	n.teardown() // leftovers of a crashed cluster in the same directory
	if err := n.claimGateways(log); err != nil {
		return err
	}
	steps := [][]string{
		{"ip", "link", "add", n.bridge("d"), "type", "bridge"},
		{"ip", "link", "add", n.bridge("m"), "type", "bridge"},
		{"ip", "addr", "add", n.host(n.data, 1) + "/24", "dev", n.bridge("d")},
		{"ip", "addr", "add", n.host(n.mgmt, 1) + "/24", "dev", n.bridge("m")},
		{"ip", "link", "set", n.bridge("d"), "up"},
		{"ip", "link", "set", n.bridge("m"), "up"},
	}
	for _, b := range c.Brokers {
		ns := n.netns(b.ID)
		b.Netns, b.HostIface = ns, n.veth("d", b.ID)
		b.Host, b.MgmtHost = n.host(n.data, 10+int(b.ID)), n.host(n.mgmt, 10+int(b.ID))
		steps = append(steps,
			[]string{"ip", "netns", "add", ns},
			[]string{"ip", "-n", ns, "link", "set", "lo", "up"},
			[]string{"ip", "link", "add", n.veth("d", b.ID), "type", "veth", "peer", "name", "eth0", "netns", ns},
			[]string{"ip", "link", "add", n.veth("m", b.ID), "type", "veth", "peer", "name", "mgmt0", "netns", ns},
			[]string{"ip", "link", "set", n.veth("d", b.ID), "master", n.bridge("d"), "up"},
			[]string{"ip", "link", "set", n.veth("m", b.ID), "master", n.bridge("m"), "up"},
			[]string{"ip", "-n", ns, "addr", "add", b.Host + "/24", "dev", "eth0"},
			[]string{"ip", "-n", ns, "addr", "add", b.MgmtHost + "/24", "dev", "mgmt0"},
			[]string{"ip", "-n", ns, "link", "set", "eth0", "up"},
			[]string{"ip", "-n", ns, "link", "set", "mgmt0", "up"},
		)
	}
	for _, s := range steps {
		if err := run(s[0], s[1:]...); err != nil {
			n.teardown()
			return fmt.Errorf("making emulated NICs: %w", err)
		}
	}
	for _, b := range c.Brokers {
		if err := n.shape(b, c.NIC); err != nil {
			n.teardown()
			return err
		}
	}
	return nil
}

// claimGateways makes sure this cluster's two gateway addresses are free. One held by the NICs of
// another plimsoll cluster with no process left in any of its namespaces (a cluster killed before
// its `down`, whose directory may be gone) is reclaimed, saying so on log; one held by a live
// cluster or by anything else is an error naming the interface.
func (n nicNet) claimGateways(log io.Writer) error {
	out, err := exec.Command("ip", "-o", "addr", "show").Output()
	if err != nil {
		return nil // the steps below will fail with ip's own words
	}
	for _, gw := range []string{n.host(n.data, 1), n.host(n.mgmt, 1)} {
		iface := gatewayHolder(string(out), gw)
		if iface == "" {
			continue
		}
		tag, ours := nicTag(iface)
		if !ours {
			return fmt.Errorf("%w: %s is already used on this machine by %s, which plimsoll did not make", ErrSubnetUsed, gw, iface)
		}
		other := nicNet{tag: tag}
		if pids := other.pids(); len(pids) > 0 {
			return fmt.Errorf("%w: %s is already used by another running cluster's emulated NICs (bridge %s, broker pids %s)", ErrSubnetUsed, gw, iface, strings.Join(pids, " "))
		}
		fmt.Fprintf(log, "reclaiming %s from bridge %s: no process is left in its cluster's namespaces (a cluster killed before its `down`)\n", gw, iface)
		other.teardown()
	}
	return nil
}

// gatewayHolder names the interface that holds addr in `ip -o addr show` output, or "".
func gatewayHolder(ipAddrOut, addr string) string {
	for _, line := range strings.Split(ipAddrOut, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "inet" && strings.HasPrefix(f[3], addr+"/") {
			return f[1]
		}
	}
	return ""
}

// nicTag gives the cluster tag of one of plimsoll's bridges (plXXXXd or plXXXXm).
func nicTag(iface string) (string, bool) {
	if len(iface) != 7 || !strings.HasPrefix(iface, "pl") || (iface[6] != 'd' && iface[6] != 'm') {
		return "", false
	}
	for _, r := range iface[2:6] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return "", false
		}
	}
	return iface[2:6], true
}

// pids lists the processes living in this cluster's broker namespaces.
func (n nicNet) pids() []string {
	var pids []string
	for _, ns := range n.namespaces() {
		if p, err := exec.Command("ip", "netns", "pids", ns).Output(); err == nil {
			pids = append(pids, strings.Fields(string(p))...)
		}
	}
	return pids
}

// namespaces lists this cluster's broker namespaces that exist now.
func (n nicNet) namespaces() []string {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil
	}
	var found []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "plimsoll-"+n.tag+"-") {
			found = append(found, f[0])
		}
	}
	return found
}

// shape sets (or changes) the broker's data link to bytesPerSec in each direction.
func (n nicNet) shape(b *Broker, bytesPerSec float64) error {
	op := "replace"
	if err := run("tc", tbfArgs(op, b.HostIface, bytesPerSec)...); err != nil {
		return fmt.Errorf("shaping broker %d inbound: %w", b.ID, err)
	}
	if err := run("tc", append([]string{"-n", b.Netns}, tbfArgs(op, "eth0", bytesPerSec)...)...); err != nil {
		return fmt.Errorf("shaping broker %d outbound: %w", b.ID, err)
	}
	b.NIC = bytesPerSec
	return nil
}

// teardown removes every namespace and bridge of this cluster, ignoring what is already gone.
// Deleting a namespace deletes the veth pairs with an end in it.
func (n nicNet) teardown() {
	for _, ns := range n.namespaces() {
		exec.Command("ip", "netns", "del", ns).Run()
	}
	if out, err := exec.Command("ip", "-o", "link", "show").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			name := strings.SplitN(strings.TrimSuffix(f[1], ":"), "@", 2)[0]
			if strings.HasPrefix(name, "pl"+n.tag) {
				exec.Command("ip", "link", "del", name).Run()
			}
		}
	}
}

// Leftovers lists the namespaces and links of this cluster's emulated NICs that exist now.
func (c *State) Leftovers() []string {
	n, err := newNICNet(c.Dir, c.Subnet)
	if err != nil {
		return nil
	}
	return n.leftovers()
}

func (n nicNet) leftovers() []string {
	var found []string
	for _, ns := range n.namespaces() {
		found = append(found, "netns "+ns)
	}
	if out, err := exec.Command("ip", "-o", "link", "show").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[1], "pl"+n.tag) {
				found = append(found, "link "+strings.TrimSuffix(f[1], ":"))
			}
		}
	}
	return found
}

// Shape changes one broker's emulated NIC rate at run time (a slow broker).
func (c *State) Shape(id int32, bytesPerSec float64) error {
	b, err := c.Broker(id)
	if err != nil {
		return err
	}
	if b.Netns == "" {
		return fmt.Errorf("broker %d has no emulated NIC: start the cluster with `plimsoll cluster up --nic RATE`", id)
	}
	if bytesPerSec <= 0 {
		return fmt.Errorf("RATE must be positive, e.g. 8Mbit/s")
	}
	n, err := newNICNet(c.Dir, c.Subnet)
	if err != nil {
		return err
	}
	if err := n.shape(b, bytesPerSec); err != nil {
		return err
	}
	return c.save()
}

// FreeSubnet is a /24 for emulated NICs (its next /24 for management) whose gateways no
// interface of this machine holds: DefaultSubnet when it is free, else the next free pair in
// 198.18.0.0/15. The A/B driver uses it so its clusters never collide with one already running.
func FreeSubnet() (string, error) {
	out, err := exec.Command("ip", "-o", "addr", "show").Output()
	if err != nil {
		return "", fmt.Errorf("%w: listing addresses (ip -o addr show): %v", ErrNoNIC, err)
	}
	if s := freeSubnet(string(out)); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("%w: every /24 pair of 198.18.0.0/15 is in use", ErrNoNIC)
}

// freeSubnet picks the subnet from `ip -o addr show` output; "" when none is free.
func freeSubnet(addrs string) string {
	for i := 0; i < 256; i++ {
		third := (76 + 2*i) % 256
		if third == 255 {
			continue
		}
		data, mgmt := fmt.Sprintf("198.18.%d.1/", third), fmt.Sprintf("198.18.%d.1/", third+1)
		if !strings.Contains(addrs, " "+data) && !strings.Contains(addrs, " "+mgmt) {
			return fmt.Sprintf("198.18.%d.0/24", third)
		}
	}
	return ""
}

// Cut takes one broker's emulated data link down at the bridge, as if its cable were pulled:
// its connections stay open but nothing crosses until Reconnect. The management link (metrics)
// stays up, and the link's shapers stay configured.
func (c *State) Cut(id int32) error { return c.setLink(id, "down") }

// Reconnect brings a cut broker's data link up again.
func (c *State) Reconnect(id int32) error { return c.setLink(id, "up") }

func (c *State) setLink(id int32, state string) error {
	b, err := c.Broker(id)
	if err != nil {
		return err
	}
	if b.Netns == "" || b.HostIface == "" {
		return fmt.Errorf("broker %d has no emulated NIC: start the cluster with `plimsoll cluster up --nic RATE`", id)
	}
	if err := run("ip", "link", "set", b.HostIface, state); err != nil {
		return fmt.Errorf("setting broker %d's link %s: %w", id, state, err)
	}
	return nil
}
