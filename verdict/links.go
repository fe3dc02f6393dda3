package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/use"
)

// lossyLink is a broker's emulated link that lost data at or above a criterion
// (LinkDropsPerSec, LinkRetransPerSec), worded with its mechanism.
type lossyLink struct {
	// name is "broker N network in|out", as evidence lines and the bottleneck begin.
	name string
	// text says how busy the link was and how it lost data.
	text string
	// drops and retrans are the shaper's drops and TCP's retransmits per second; dropped says
	// the drops reached their criterion.
	drops, retrans float64
	dropped        bool
}

// lossyLinks finds the links whose shaper drops or TCP retransmits per second (the mean over
// the window, from the USE table's errors cells) reach their criterion. They judge nothing
// alone; an overloaded trial names one as its bottleneck, so the order is the order of blame:
// links whose shaper dropped come first, most drops first, then links that only retransmitted,
// most retransmits first. A shaper drops where the link is full; TCP retransmits in the
// namespace of whoever sends into a full link, which is usually another broker's (docs/use.md):
// in TestNICVerdicts/slow-link broker 1 retransmitted 18.8 segments/s at 28% of its link while
// broker 2's full link dropped 6.5 packets/s out and 2.8 in.
func lossyLinks(t *use.Table, c Criteria) []lossyLink {
	if t == nil || (c.LinkDropsPerSec <= 0 && c.LinkRetransPerSec <= 0) {
		return nil
	}
	var out []lossyLink
	for _, r := range t.Rows {
		if !strings.HasPrefix(r.Entity, "broker ") || (r.Resource != "network in" && r.Resource != "network out") {
			continue
		}
		drops, retrans, ok := linkLosses(r.Errors)
		dropped := ok && c.LinkDropsPerSec > 0 && drops >= c.LinkDropsPerSec
		resent := ok && c.LinkRetransPerSec > 0 && retrans >= c.LinkRetransPerSec
		if !dropped && !resent {
			continue
		}
		name := r.Entity + " " + r.Resource
		out = append(out, lossyLink{name: name, text: linkText(name, r, drops, retrans), drops: drops, retrans: retrans, dropped: dropped})
	}
	slices.SortStableFunc(out, blame)
	return out
}

// blame orders two lossy links: the one whose shaper dropped first, then more drops, then more
// retransmits.
func blame(a, b lossyLink) int {
	if a.dropped != b.dropped {
		if a.dropped {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.drops, a.drops), cmp.Compare(b.retrans, a.retrans))
}

// linkLosses reads a link's errors cell: the shaper's drops, alone or as the first part of a
// sum whose second part is TCP's retransmits (use: linkErrors). Other cells are not a link's.
func linkLosses(c use.Cell) (drops, retrans float64, ok bool) {
	switch {
	case c.Blank():
		return 0, 0, false
	case len(c.Parts) == 2:
		return c.Parts[0].Mean.Or(0), c.Parts[1].Mean.Or(0), true
	case c.Metric == "packets dropped by the shaper":
		return c.Mean.Or(0), 0, true
	}
	return 0, 0, false
}

// linkText words a lossy link, e.g. "broker 2 network out: 78% of its NIC, the shaper dropping
// 41 packets/s and TCP retransmitting 35 segments/s".
func linkText(name string, r use.Row, drops, retrans float64) string {
	s := name + ": "
	if u := r.Utilisation; !u.Blank() && u.Unit == use.UnitPct {
		s += fmt.Sprintf("%.0f%% of its NIC, ", float64(u.Mean))
	}
	s += "the shaper dropping " + units.Short(drops) + " packets/s"
	if len(r.Errors.Parts) == 2 {
		s += " and TCP retransmitting " + units.Short(retrans) + " segments/s"
	}
	return s
}

// linkBottleneck is the bottleneck of an overloaded trial given its lossy links (in the order of
// blame). A link whose shaper dropped is a full link, and the cause: the retransmits of other
// links (the senders into it) and a broker the failing criteria name as fetching least (its
// fetches cross the full link) follow from it. So when any link dropped, the bottleneck is a
// dropping link: the one the bottleneck names, else one of the broker the criteria name (broker,
// e.g. "broker 2"), else the first. Otherwise a retransmitting link's mechanism replaces a
// bottleneck that names it. A bottleneck naming another network link is kept: a broker's
// retransmits say that what it sent was lost further on, not that its own link is full (in the
// full message-overhead run a 108 B trial's bottleneck, broker 3's link in at 95%, became its
// link out at 65% for 9.5 retransmits/s with no shaper dropping). Else the first such link
// becomes the bottleneck unless the failing criteria name a broker, when only a link of that
// broker does.
func linkBottleneck(bottleneck string, links []lossyLink, broker string) string {
	if len(links) > 0 && links[0].dropped {
		return droppingLink(bottleneck, links, broker).text
	}
	for _, l := range links {
		if strings.HasPrefix(bottleneck, l.name+":") {
			return l.text
		}
	}
	if namesLink(bottleneck) {
		return bottleneck
	}
	for _, l := range links {
		if broker == "" || strings.HasPrefix(l.name, broker+" ") {
			return l.text
		}
	}
	return bottleneck
}

// droppingLink picks the dropping link to blame: the one bottleneck names, else one of broker's,
// else the first (links[0] dropped).
func droppingLink(bottleneck string, links []lossyLink, broker string) lossyLink {
	for _, l := range links {
		if l.dropped && strings.HasPrefix(bottleneck, l.name+":") {
			return l
		}
	}
	for _, l := range links {
		if l.dropped && broker != "" && strings.HasPrefix(l.name, broker+" ") {
			return l
		}
	}
	return links[0]
}

// namesLink reports whether a bottleneck names a broker's network row, "broker N network in: ..."
// or "broker N network out: ...".
func namesLink(bottleneck string) bool {
	head, _, ok := strings.Cut(bottleneck, ":")
	return ok && strings.HasPrefix(head, "broker ") && (strings.HasSuffix(head, " network in") || strings.HasSuffix(head, " network out"))
}
