package probe

import (
	"errors"
	"fmt"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// qdiscDumper is one network namespace's netlink socket, opened once: each reading is a single
// RTM_GETQDISC dump (github.com/vishvananda/netlink), of which the root qdiscs are kept.
type qdiscDumper struct {
	ns    string // "" for the probe's own namespace
	h     *netlink.Handle
	names map[int]string // ifindex -> interface name
}

// openDumper opens a netlink socket in the named namespace ("" = the probe's own).
func openDumper(ns string) (*qdiscDumper, error) {
	var h *netlink.Handle
	var err error
	if ns == "" {
		h, err = netlink.NewHandle()
	} else {
		var nh netns.NsHandle
		if nh, err = netns.GetFromName(ns); err != nil {
			return nil, err
		}
		h, err = netlink.NewHandleAt(nh)
		nh.Close() // the socket keeps its namespace
	}
	if err != nil {
		return nil, err
	}
	d := &qdiscDumper{ns: ns, h: h}
	if err := d.refreshNames(); err != nil {
		h.Close()
		return nil, err
	}
	return d, nil
}

func (d *qdiscDumper) refreshNames() error {
	ls, err := d.h.LinkList()
	if err != nil {
		return err
	}
	d.names = make(map[int]string, len(ls))
	for _, l := range ls {
		d.names[l.Attrs().Index] = l.Attrs().Name
	}
	return nil
}

// read dumps the namespace's root qdiscs. An interface index not seen before (a new interface)
// refreshes the names once.
func (d *qdiscDumper) read() ([]qdiscReading, error) {
	qs, err := d.h.QdiscList(nil)
	if err != nil {
		return nil, err
	}
	out := make([]qdiscReading, 0, len(qs))
	refreshed := false
	for _, q := range qs {
		a := q.Attrs()
		if a.Parent != netlink.HANDLE_ROOT {
			continue
		}
		name, ok := d.names[a.LinkIndex]
		if !ok && !refreshed {
			refreshed = true
			if d.refreshNames() == nil {
				name, ok = d.names[a.LinkIndex]
			}
		}
		if !ok {
			continue // gone again before its name was read
		}
		out = append(out, qdiscOf(name, q))
	}
	return out, nil
}

func qdiscOf(iface string, q netlink.Qdisc) qdiscReading {
	a := q.Attrs()
	r := qdiscReading{Iface: iface, Kind: q.Type(), Handle: a.Handle}
	if t, ok := q.(*netlink.Tbf); ok {
		r.Rate = t.Rate
	}
	if st := a.Statistics; st != nil {
		if b := st.Basic; b != nil {
			r.Bytes, r.Packets = b.Bytes, b.Packets
		}
		if qu := st.Queue; qu != nil {
			r.Drops, r.Overlimits, r.Requeues = qu.Drops, qu.Overlimits, qu.Requeues
			r.Backlog, r.Qlen = qu.Backlog, qu.Qlen
		}
	}
	return r
}

func (d *qdiscDumper) close() { d.h.Close() }

// linkReader reads the probe's own namespace and each broker link's namespace.
type linkReader struct {
	own     *qdiscDumper
	brokers map[int32]*qdiscDumper
}

// openLinks opens the probe's namespace and each link's; an unknown namespace is a
// *ConfigError for Links.
func openLinks(links map[int32]Link) (*linkReader, error) {
	own, err := openDumper("")
	if err != nil {
		return nil, fmt.Errorf("probe: netlink: %w", err)
	}
	r := &linkReader{own: own, brokers: map[int32]*qdiscDumper{}}
	for id, l := range links {
		d, err := openDumper(l.Netns)
		if err != nil {
			r.close()
			return nil, errors.Join(&ConfigError{Field: "Links", Broker: id, PerBroker: true, Value: l.Netns,
				Want: "an existing network namespace this process may enter (root)"}, err)
		}
		r.brokers[id] = d
	}
	return r, nil
}

// read takes one reading of every namespace; a failed dump leaves that namespace's qdiscs out
// (their values missing) and names the failure.
func (r *linkReader) read(at time.Time) *linkReading {
	lr := &linkReading{At: at, Brokers: make(map[int32][]qdiscReading, len(r.brokers))}
	var err error
	if lr.Host, err = r.own.read(); err != nil {
		lr.Errs = append(lr.Errs, linkErr("", err))
	}
	for id, d := range r.brokers {
		qs, err := d.read()
		if err != nil {
			lr.Errs = append(lr.Errs, linkErr(d.ns, err))
			continue
		}
		lr.Brokers[id] = qs
	}
	return lr
}

func (r *linkReader) close() {
	r.own.close()
	for _, d := range r.brokers {
		d.close()
	}
}
