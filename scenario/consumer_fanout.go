package scenario

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// dropboxGroups is the consumer groups of Dropbox's published limit (003): 60 MB/s per broker
// held with 5 groups reading, and fell beyond them as the network bound.
const dropboxGroups = 5

func init() {
	register(Scenario{
		Name:  "consumer-fanout",
		Title: "The boundary against consumer groups reading the tail",
		Doc: "The sustainable produce rate with 0 to 8 consumer groups each reading every message from the tail, " +
			"on brokers behind emulated NICs so that the network binds: by a limit search per group count " +
			"(method limit), or by one run per count above the model's predicted boundary, whose carried rate " +
			"is the measure (method runs). Each point is set beside the capacity model's line for the same " +
			"cluster and NIC rate; the verdict's bottleneck and the busiest link's utilisation show where " +
			"network out takes over from network in. Dropbox's 5-group case is named when it is run.",
		Sources: []results.Source{{Seed: "003", Title: "Dropbox: finding Kafka's throughput limit in Dropbox infrastructure (2019)",
			Hardware: "Dropbox's production broker hardware, not published; clients on Spark across US regions"}},
		Params: []Param{
			{Name: "groups", Short: "0,2,4", Full: "0,1,2,3,4,5,6,7,8", Doc: "consumer group counts, each measured on its own"},
			{Name: "method", Short: "runs", Full: "limit", Doc: "limit (a limit search per count) or runs (one run above the model's boundary)"},
			{Name: "above", Short: "1.3", Full: "1.3", Doc: "method runs: the run's rate as a multiple of the model's boundary"},
			{Name: "message-size", Short: "1000", Full: "1000", Doc: "bytes per message"},
			{Name: "nic", Short: "16Mbit/s", Full: "16Mbit/s", Doc: "the emulated NIC rate of the cluster the scenario starts (without --cluster-dir)"},
			{Name: "duration", Short: "5s", Full: "10s", Doc: "each run's or trial's measured window"},
			{Name: "warmup", Short: "3s", Full: "4s", Doc: "each run's or trial's warm-up"},
			{Name: "tolerance", Short: "0.1", Full: "0.05", Doc: "method limit: the search's --tolerance"},
		},
		Load:  true,
		Check: checkFanout,
		Run:   runFanout,
	})
}

func checkFanout(_ context.Context, env *Env, p Params) error {
	groups, err := p.Ints("groups")
	if err != nil {
		return err
	}
	for _, g := range groups {
		if g < 0 {
			return fmt.Errorf("--set groups=%s: want counts of 0 or more", p["groups"])
		}
	}
	if m := p["method"]; m != "runs" && m != "limit" {
		return fmt.Errorf("--set method=%s: want limit or runs", m)
	}
	if _, err := p.Int("message-size"); err != nil {
		return err
	}
	if a, err := p.Float("above"); err != nil || a <= 1 {
		return fmt.Errorf("--set above=%s: want a multiple above 1 of the model's boundary", p["above"])
	}
	for _, name := range []string{"duration", "warmup"} {
		if _, err := p.Duration(name); err != nil {
			return err
		}
	}
	if _, err := p.Float("tolerance"); err != nil {
		return err
	}
	if env.ClusterDir == "" {
		if _, err := units.ParseRate(p["nic"]); err != nil {
			return fmt.Errorf("--set nic=%s: %w", p["nic"], err)
		}
		if err := localkafka.CheckNIC(); err != nil {
			return fmt.Errorf("the network must bind, so the scenario's cluster needs emulated NICs: %w", err)
		}
		return checkDefaultPartitions(env, defaultBrokers)
	}
	st, err := openCluster(env.ClusterDir)
	if err != nil {
		return err
	}
	if st.NIC <= 0 {
		return fmt.Errorf("--cluster-dir %s runs on loopback, where the network never binds: give a cluster started with --nic (plimsoll cluster up --nic 16Mbit/s), or leave --cluster-dir out", env.ClusterDir)
	}
	return checkDefaultPartitions(env, len(st.Brokers))
}

// fanPoint is what one consumer group count measured.
type fanPoint struct {
	groups int
	// rate is the sustainable rate found, msgs/s; bottleneck the verdict's, of the run or of
	// the search's lowest overloaded trial.
	rate       float64
	bottleneck string
	// in, out are the busiest broker's link utilisation (%) in the run; 0 when unknown.
	in, out  float64
	overhead *float64
}

func runFanout(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	var res results.Scenario
	err := onCluster(ctx, env, []string{"--nic", p["nic"]}, func(st *localkafka.State) error {
		groups, _ := p.Ints("groups")
		size, _ := p.Int("message-size")
		c := model.Cluster{Brokers: len(st.Brokers), ReplicationFactor: min(3, len(st.Brokers)), NIC: st.NIC, MaxUtilization: 1}
		res.Config = map[string]string{"kafka": st.KafkaVersion, "brokers": strconv.Itoa(c.Brokers), "cluster": st.Dir,
			"nic": units.FormatBits(st.NIC), "replication factor": strconv.Itoa(c.ReplicationFactor)}
		var pts []fanPoint
		for _, g := range groups {
			if ctx.Err() != nil {
				break
			}
			pt, err := measureFanout(ctx, env, p, st.Dir, c, g, size)
			if err != nil {
				res.Failures = append(res.Failures, err.Error())
				continue
			}
			pts = append(pts, pt)
		}
		res.Charts = fanoutCharts(pts, c, size, groups)
		res.Findings = fanoutFindings(pts, c, size)
		return nil
	})
	return res, err
}

// modelRate is the model's sustainable rate with g groups (0 when it cannot say).
func modelRate(c model.Cluster, g, size int) float64 {
	c.ConsumerGroups = g
	r, err := model.MaxMessagesPerSec(c, model.Message{PayloadBytes: size})
	if err != nil {
		return 0
	}
	return r
}

func modelBottleneck(c model.Cluster, g int) string {
	c.ConsumerGroups = g
	ceil, err := model.MaxProduce(c)
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(ceil.Bottleneck), "_", " ")
}

func measureFanout(ctx context.Context, env *Env, p Params, dir string, c model.Cluster, g, size int) (fanPoint, error) {
	// With --local-workers, N producers and N consumers a group: the rate the links carry to
	// each group is set by the bytes per message and the groups, not by how many clients share it.
	common := append([]string{"--cluster-dir", dir, "--consumer-groups", strconv.Itoa(g), "--slo-p99", "0"},
		env.workerClients("producers", "consumers-per-group")...)
	if p["method"] == "limit" {
		return fanoutSearch(ctx, env, p, g, size, common)
	}
	above, _ := p.Float("above")
	rate := math.Round(above * modelRate(c, g, size))
	t, err := runStep(ctx, env, fmt.Sprintf("groups-%d", g), append(common, "--rate", units.Trim(rate), "--message-size", strconv.Itoa(size),
		"--duration", p["duration"], "--warmup", p["warmup"], "--drain-timeout", "2s")...)
	if err != nil {
		return fanPoint{}, err
	}
	// The rate the cluster carried to every reader: what was produced, or what the slowest
	// share of the groups consumed.
	carried := t.ProducedMsgsPerSec
	if g > 0 {
		carried = min(carried, t.ConsumedMsgsPerSec/float64(g))
	}
	pt := fanPoint{groups: g, rate: carried, bottleneck: t.Verdict.Bottleneck, overhead: t.LinkOverhead}
	pt.in, pt.out = busiestLinks(t)
	return pt, nil
}

// busiestLinks is the highest mean network in and out utilisation (%) over the brokers' rows of a
// run's USE table.
func busiestLinks(t *results.Trial) (in, out float64) {
	if t.USE == nil {
		return 0, 0
	}
	for _, r := range t.USE.Rows {
		if !strings.HasPrefix(r.Entity, "broker ") || r.Utilisation.Unit != "%" {
			continue
		}
		v := r.Utilisation.Mean.Or(0)
		switch r.Resource {
		case "network in":
			in = max(in, v)
		case "network out":
			out = max(out, v)
		}
	}
	return in, out
}

// fanoutSearch runs one limit search for g groups; the point is the geometric middle of the
// ceiling's bracket (its highest ok and lowest overloaded rate), its bottleneck the search's.
func fanoutSearch(ctx context.Context, env *Env, p Params, g, size int, common []string) (fanPoint, error) {
	dir := fmt.Sprintf("groups-%d", g)
	args := append([]string{"limit"}, common...)
	args = append(args, "--message-sizes", strconv.Itoa(size), "--tolerance", p["tolerance"], "--trial-duration", p["duration"],
		"--warmup", p["warmup"], "--growth", "1.25", "--drain-timeout", "10s", "--no-hold", "--no-report")
	if code, err := env.Plimsoll(ctx, dir, args...); err != nil || code != 0 {
		return fanPoint{}, fmt.Errorf("plimsoll limit into %s: exit %d%s", dir, code, stepWhy(err))
	}
	sf, err := results.LoadSearch(filepath.Join(env.Out, dir, "results.jsonl"))
	if err != nil {
		return fanPoint{}, err
	}
	for _, b := range sf.Points {
		if b.Size == size && b.Ceiling.Found() {
			return fanPoint{groups: g, rate: math.Sqrt(b.Ceiling.SafeRate * b.Ceiling.UnsafeRate), bottleneck: b.Ceiling.Bottleneck}, nil
		}
	}
	return fanPoint{}, fmt.Errorf("plimsoll limit into %s: no ceiling bracketed for %d B (see its results.jsonl)", dir, size)
}

// fanoutCharts: the measured rate beside the model's line (and the model with the links'
// framing as measured, when the runs measured it), and the busiest link's utilisation.
func fanoutCharts(pts []fanPoint, c model.Cluster, size int, groups []int) []results.Chart {
	var measured, line, framed, in, out []results.Point
	overhead, n := 0.0, 0
	for _, pt := range pts {
		measured = append(measured, results.Point{X: float64(pt.groups), Y: pt.rate, Note: pt.bottleneck})
		if pt.in > 0 || pt.out > 0 {
			in = append(in, results.Point{X: float64(pt.groups), Y: pt.in})
			out = append(out, results.Point{X: float64(pt.groups), Y: pt.out})
		}
		if pt.overhead != nil {
			overhead, n = overhead+*pt.overhead, n+1
		}
	}
	hi := 0
	for _, g := range groups {
		hi = max(hi, g)
	}
	for g := 0; g <= hi; g++ {
		line = append(line, results.Point{X: float64(g), Y: modelRate(c, g, size), Note: modelBottleneck(c, g)})
		if n > 0 {
			fc := c
			fc.LinkOverhead = overhead / float64(n)
			framed = append(framed, results.Point{X: float64(g), Y: modelRate(fc, g, size)})
		}
	}
	series := []results.Series{{Name: "measured", Kind: results.SeriesMeasured, Points: measured},
		{Name: fmt.Sprintf("model (%d brokers, rf %d, %s NICs used to 100%%)", c.Brokers, c.ReplicationFactor, units.FormatBits(c.NIC)), Kind: results.SeriesModel, Points: line}}
	if n > 0 {
		series = append(series, results.Series{Name: fmt.Sprintf("model with the links' measured framing (%s per record byte)", units.Sig(overhead/float64(n), 3)),
			Kind: results.SeriesModel, Points: framed})
	}
	charts := []results.Chart{{Title: fmt.Sprintf("Sustainable rate of %s messages against consumer groups", units.Size(size)),
		X: "consumer groups", Y: "msgs/s", Series: series}}
	if len(in) > 0 {
		charts = append(charts, results.Chart{Title: "The busiest broker's link, above the boundary", X: "consumer groups", Y: "% of the NIC",
			Series: []results.Series{{Name: "network in", Kind: results.SeriesMeasured, Points: in},
				{Name: "network out", Kind: results.SeriesMeasured, Points: out}}})
	}
	return charts
}

// fanoutFindings: from how many groups network out binds (measured by the verdicts' bottleneck,
// and by the model), the measured rate's worst ratio to the model's, and Dropbox's 5-group case.
func fanoutFindings(pts []fanPoint, c model.Cluster, size int) []results.Finding {
	var out []results.Finding
	if g, ok := outBindsFrom(pts); ok {
		mg := -1
		for m := 0; m <= pts[len(pts)-1].groups && mg < 0; m++ {
			if modelBottleneck(c, m) == "network out" {
				mg = m
			}
		}
		f := results.Finding{Name: "network out binds from", Value: float64(g), Unit: "count",
			Text: fmt.Sprintf("with %d consumer groups or more the busiest broker's out-link was busier than its in-link (or, in a limit search, the verdict's bottleneck was network out)", g)}
		if mg >= 0 {
			f.Model = num(float64(mg))
		}
		out = append(out, f)
	}
	worst, at := 0.0, -1
	for _, pt := range pts {
		if m := modelRate(c, pt.groups, size); m > 0 && (at < 0 || math.Abs(pt.rate/m-1) > math.Abs(worst-1)) {
			worst, at = pt.rate/m, pt.groups
		}
	}
	if at >= 0 {
		out = append(out, results.Finding{Name: "measured / model, furthest apart", Value: worst, Unit: "ratio",
			Text: fmt.Sprintf("at %d consumer groups the measured rate was %s of the model's", at, units.Pct(worst))})
	}
	for _, pt := range pts {
		if pt.groups == dropboxGroups {
			b := float64(c.Brokers)
			out = append(out, results.Finding{Name: "produce per broker with 5 consumer groups", Value: pt.rate * float64(size) / b, Unit: "B/s",
				Model: num(modelRate(c, dropboxGroups, size) * float64(size) / b), Article: num(60e6),
				ArticleNote: "003: Dropbox's limit, 60 MB/s per broker, held with at least 5 consumer groups; beyond 5 the network bound and it fell (hardware not published)",
				Text:        fmt.Sprintf("with %s NICs", units.FormatBits(c.NIC))})
		}
	}
	return out
}

// binding is the network direction that bound a point: the busier of the busiest broker's links
// when the run measured them, else the one the verdict's bottleneck names (a limit search's).
// The links come first because the verdict names a link out of which TCP retransmits, which
// without consumer groups was an out-link at 52-67% while the in-links ran at 86-94%.
func (pt fanPoint) binding() string {
	switch {
	case pt.out > pt.in:
		return "network out"
	case pt.in > pt.out:
		return "network in"
	}
	for _, d := range []string{"network out", "network in"} {
		if strings.Contains(pt.bottleneck, d) {
			return d
		}
	}
	return ""
}

// outBindsFrom is the fewest groups from which network out binds at every measured count.
func outBindsFrom(pts []fanPoint) (int, bool) {
	from, ok := 0, false
	for i := len(pts) - 1; i >= 0; i-- {
		if pts[i].binding() != "network out" {
			break
		}
		from, ok = pts[i].groups, true
	}
	return from, ok
}

func num(v float64) *float64 { return &v }
