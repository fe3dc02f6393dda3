package scenario

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"gonum.org/v1/gonum/stat"
)

// heroku is seed 001: Kafka 0.10's 8-byte timestamp cost a third of the throughput of a cluster
// whose NICs ran near saturation.
var heroku = results.Source{Seed: "001", Title: "Heroku: Kafka 0.10's 8-byte timestamp and a 33% throughput drop (2016)",
	Hardware: "not given; a benchmark cluster at rf 3 peaking at 1.5M msgs/s in and out on Kafka 0.9, its NICs just below saturation"}

// herokuRatio is 001's figure: just under 1M msgs/s on 0.10 against 1.5M on 0.9, 8 bytes more
// a message, with the NICs pushed past saturation (dropping packets, retransmitting).
const herokuRatio = 1.0 / 1.5

func init() {
	register(Scenario{
		Name:  "message-overhead",
		Title: "A few bytes per message near NIC saturation",
		Doc: "Searches the sustainable rate of S-byte and S+N-byte messages (default 100 and 108) on a cluster whose emulated NICs " +
			"bind (rf 3, acks=1, no consumers, judged by throughput alone: no latency SLO), each size in both orders and the " +
			"geometric mean of the searches kept, and sets the rate ratio beside the one the model's wire bytes predict and " +
			"Heroku's (001). The first search starts at the model's rate with full TCP segments' framing counted, each later one at " +
			"the boundaries found before it (limit --start-rate).",
		Sources: []results.Source{heroku},
		Params: []Param{
			{Name: "size", Short: "100", Full: "100", Doc: "S, the smaller message, bytes"},
			{Name: "extra", Short: "8", Full: "8", Doc: "N, the bytes added to it (Kafka 0.10's timestamp: 8)"},
			{Name: "repeat", Short: "1", Full: "3", Doc: "limit searches per order (S first, S+N first): each size is searched 2 x repeat times"},
			{Name: "trial", Short: "6s", Full: "20s", Doc: "each trial's measured window"},
			{Name: "warmup", Short: "2s", Full: "5s", Doc: "each trial's warm-up before its window"},
			{Name: "tolerance", Short: "0.01", Full: "0.01", Doc: "each search stops when its ok and overloaded rates are this share apart"},
			{Name: "nic", Short: "16Mbit/s", Full: "16Mbit/s", Doc: "each broker's emulated NIC when the scenario starts its own cluster (with --cluster-dir, that cluster's)"},
		},
		Load:  true,
		Check: checkMessageOverhead,
		Run:   runMessageOverhead,
	})
}

// moConfig is message-overhead's parameters, parsed.
type moConfig struct {
	sizes         [2]int // S, S+N
	repeat        int
	trial, warmup time.Duration
	tolerance     float64
	nic           float64 // bytes/s, for a cluster of its own
}

func moParse(p Params) (moConfig, error) {
	var c moConfig
	size, err := p.Int("size")
	if err != nil {
		return c, err
	}
	extra, err := p.Int("extra")
	if err != nil {
		return c, err
	}
	if size <= 0 || extra <= 0 {
		return c, fmt.Errorf("--set size=%d extra=%d: both must be positive byte counts, e.g. size=100 extra=8", size, extra)
	}
	c.sizes = [2]int{size, size + extra}
	if c.repeat, err = p.Int("repeat"); err == nil && c.repeat < 1 {
		err = fmt.Errorf("--set repeat=%d: give 1 or more searches per order", c.repeat)
	}
	if err != nil {
		return c, err
	}
	if c.trial, err = p.Duration("trial"); err != nil {
		return c, err
	}
	if c.warmup, err = p.Duration("warmup"); err != nil {
		return c, err
	}
	if c.tolerance, err = p.Float("tolerance"); err == nil && !(c.tolerance >= 0.001 && c.tolerance <= 0.5) {
		err = fmt.Errorf("--set tolerance=%v: give a share between 0.001 and 0.5, e.g. 0.01", c.tolerance)
	}
	if err != nil {
		return c, err
	}
	if c.nic, err = units.ParseRate(p["nic"]); err != nil || c.nic <= 0 {
		return c, fmt.Errorf("--set nic=%s: give a positive rate, e.g. 16Mbit/s", p["nic"])
	}
	return c, nil
}

// checkMessageOverhead wants its parameters right, its one producer (no more than one local
// worker), and a network that can bind: the given cluster's emulated NICs, or the means to make
// them (root, ip, tc) for a cluster of its own.
func checkMessageOverhead(_ context.Context, env *Env, p Params) error {
	if _, err := moParse(p); err != nil {
		return err
	}
	if env.LocalWorkers > 1 {
		return fmt.Errorf("--local-workers %d: message-overhead's searches run one producer, whose batches set the wire bytes per message the scenario measures; "+
			"%d workers need %d producers, whose smaller batches would change that figure: leave --local-workers out (or give 1)", env.LocalWorkers, env.LocalWorkers, env.LocalWorkers)
	}
	if env.ClusterDir != "" {
		c, _, err := nicRate(env.ClusterDir)
		if err == nil && len(c.Brokers) < 3 {
			err = fmt.Errorf("the cluster in %s has %d brokers; the experiment runs at replication factor 3: give a cluster of 3 or more", env.ClusterDir, len(c.Brokers))
		}
		return err
	}
	if err := localkafka.CheckNIC(); err != nil {
		return fmt.Errorf("%w; the network binds only behind emulated NICs: run as root with iproute2, or give --cluster-dir of a cluster started with --nic", err)
	}
	return nil
}

// runMessageOverhead runs the searches on the cluster (its own, or the given one) and sets
// their boundaries beside the model's.
func runMessageOverhead(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	cfg, err := moParse(p)
	if err != nil {
		return results.Scenario{}, err
	}
	subnet, err := freeSubnet(env)
	if err != nil {
		return results.Scenario{}, err
	}
	var res results.Scenario
	err = onCluster(ctx, env, []string{"--nic", p["nic"], "--heap", "768m", "--warm-jit", "20s", "--subnet", subnet}, func(st *localkafka.State) error {
		c, nic, err := nicRate(st.Dir)
		if err != nil {
			return err
		}
		m := moPredict(cfg, len(c.Brokers), nic)
		found, failures := moSearches(ctx, env, st.Dir, cfg, m)
		res = moResult(cfg, found, m)
		res.Failures = append(res.Failures, failures...)
		res.Config = map[string]string{"kafka": c.KafkaVersion, "brokers": strconv.Itoa(len(c.Brokers)), "nic": units.Network(nic) + " per direction, each broker",
			"workload": "replication factor 3, no consumer groups, acks=1, linger.ms=5, no keys; judged by throughput (no latency SLO)",
			"search":   fmt.Sprintf("growth 1.1, tolerance %v, %s trials after %s of warm-up, no holds", cfg.tolerance, units.Duration(cfg.trial), units.Duration(cfg.warmup)),
			"cluster":  st.Dir}
		return nil
	})
	if err != nil {
		res.Failures = append(res.Failures, err.Error())
		return res, err
	}
	return res, nil
}

// freeSubnet is a /24 for the emulated NICs of a cluster of the scenario's own ("" with
// --cluster-dir): another cluster on the machine may hold the default one.
func freeSubnet(env *Env) (string, error) {
	if env.ClusterDir != "" {
		return "", nil
	}
	return localkafka.FreeSubnet()
}

// moSearches runs 2 x repeat limit searches, S first then S+N first, and returns each size's
// boundaries; a search that failed or found no bracket is a failure, kept as data. The first
// search starts at the model's rate with full segments' framing counted, each later one at the
// boundaries found so far for its first size (or the framed model's).
func moSearches(ctx context.Context, env *Env, dir string, cfg moConfig, m moModel) (map[int][]float64, []string) {
	found := map[int][]float64{}
	var failures []string
	n := 0
	for r := 0; r < cfg.repeat; r++ {
		for _, order := range [][2]int{cfg.sizes, {cfg.sizes[1], cfg.sizes[0]}} {
			if ctx.Err() != nil {
				return found, append(failures, "interrupted before every search ran")
			}
			n++
			out := fmt.Sprintf("limit-%d", n)
			start := moGeomean(found[order[0]])
			if start == 0 {
				start = m.framed[slices.Index(cfg.sizes[:], order[0])]
			}
			got, err := moSearch(ctx, env, dir, out, order, cfg, start)
			if err != nil {
				failures = append(failures, fmt.Sprintf("search %d (%d B, then %d B): %v", n, order[0], order[1], err))
			}
			for size, b := range got {
				found[size] = append(found[size], b)
			}
		}
	}
	return found, failures
}

// moSearch runs one limit search over the two sizes in order, from start (--start-rate) and
// returns each size's boundary: the geometric middle of its ceiling's ok and
// overloaded rates.
func moSearch(ctx context.Context, env *Env, dir, out string, order [2]int, cfg moConfig, start float64) (map[int]float64, error) {
	args := []string{"limit", "--cluster-dir", dir, "--message-sizes", fmt.Sprintf("%d,%d", order[0], order[1]),
		"--consumer-groups", "0", "--producer-prop", "acks=1", "--producer-prop", "linger.ms=5", "--slo-p99", "0",
		"--tolerance", strconv.FormatFloat(cfg.tolerance, 'g', -1, 64), "--growth", "1.1",
		"--trial-duration", cfg.trial.String(), "--warmup", cfg.warmup.String(), "--drain-timeout", "5s", "--no-hold", "--no-report"}
	args = append(args, "--start-rate", strconv.FormatFloat(math.Round(start), 'f', 0, 64))
	code, err := env.Plimsoll(ctx, out, args...)
	if err != nil {
		return nil, err
	}
	sf, lerr := results.LoadSearch(filepath.Join(env.Out, out, "results.jsonl"))
	if lerr != nil {
		return nil, fmt.Errorf("limit exited %d: %w", code, lerr)
	}
	got := map[int]float64{}
	var errs []error
	for _, rec := range sf.Points {
		c := rec.Ceiling
		if rec.SLO != nil || c.SafeRate <= 0 || c.UnsafeRate <= 0 || c.ClientBound {
			errs = append(errs, fmt.Errorf("%d B: no ceiling bracketed (ok at %s, overloaded at %s msgs/s, client-bound %v) %s",
				rec.Size, units.Count(c.SafeRate), units.Count(c.UnsafeRate), c.ClientBound, rec.Note))
			continue
		}
		got[rec.Size] = math.Sqrt(c.SafeRate * c.UnsafeRate)
	}
	if code != 0 && len(errs) == 0 && len(got) < 2 {
		errs = append(errs, fmt.Errorf("limit exited %d", code))
	}
	return got, errors.Join(errs...)
}

// segmentFraming is what a saturated link carries beyond each TCP payload byte: producers and
// followers then send full segments, each with Ethernet (14), IPv4 (20) and TCP (20, and 12 of
// timestamps) headers around 1,448 bytes of payload (MTU 1500). It puts the first search's
// start near the limit: on 16 Mbit/s links the 100 B boundary was 0.955-0.965 of the model's
// unframed rate (docs/heroku-check.md), 1/(1+66/1448) = 0.956.
const segmentFraming = 66.0 / 1448

// moModel is the model's view of the two sizes: each one's wire bytes and sustainable rate,
// and that rate with full segments' framing counted (where the first search starts).
type moModel struct {
	wire, max, framed [2]float64
}

// moPredict asks the model, as plimsoll model --replication-factor 3 --consumer-groups 0
// --max-utilization 1 --nic would, for each size's wire bytes and the rate its NICs sustain.
func moPredict(cfg moConfig, brokers int, nic float64) moModel {
	var m moModel
	c := model.Cluster{Brokers: brokers, ReplicationFactor: 3, NIC: nic, MaxUtilization: 1}
	framed := c
	framed.LinkOverhead = segmentFraming
	for i, size := range cfg.sizes {
		msg := model.Message{PayloadBytes: size, BatchSize: model.DefaultBatchSize}
		m.wire[i], _ = model.WireBytesPerMessage(msg)
		m.max[i], _ = model.MaxMessagesPerSec(c, msg)
		m.framed[i], _ = model.MaxMessagesPerSec(framed, msg)
	}
	return m
}

// moGeomean is the geometric mean of vs, 0 without any.
func moGeomean(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	return stat.GeometricMean(vs, nil)
}

// moResult sets the boundaries found beside the model's and Heroku's figure.
func moResult(cfg moConfig, found map[int][]float64, m moModel) results.Scenario {
	var res results.Scenario
	each := results.Series{Name: "each search", Kind: results.SeriesMeasured}
	mean := results.Series{Name: "geometric mean", Kind: results.SeriesMeasured}
	mod := results.Series{Name: "model", Kind: results.SeriesModel}
	var gm [2]float64
	for i, size := range cfg.sizes {
		bs := append([]float64(nil), found[size]...)
		sort.Float64s(bs)
		for _, b := range bs {
			each.Points = append(each.Points, results.Point{X: float64(size), Y: b})
		}
		mod.Points = append(mod.Points, results.Point{X: float64(size), Y: m.max[i]})
		gm[i] = moGeomean(bs)
		if gm[i] == 0 {
			continue
		}
		mean.Points = append(mean.Points, results.Point{X: float64(size), Y: gm[i]})
		res.Findings = append(res.Findings, results.Finding{Name: fmt.Sprintf("%s messages: sustainable rate", units.Size(size)),
			Value: gm[i], Unit: "msgs/s", Model: moFloat(m.max[i]),
			Text: fmt.Sprintf("geometric mean of %d searches' boundaries (%s to %s msgs/s); the model's is the NICs' rate over %s on the wire a message",
				len(bs), units.Count(bs[0]), units.Count(bs[len(bs)-1]), units.FracBytes(m.wire[i]))})
	}
	res.Charts = append(res.Charts, results.Chart{Title: "Sustainable rate against message size", X: "bytes per message", Y: "messages/s",
		Series: []results.Series{each, mean, mod}})
	if gm[0] > 0 && gm[1] > 0 {
		res.Findings = append(res.Findings, moRatio(cfg, gm, m))
		res.Charts = append(res.Charts, moRatioChart(cfg, gm[1]/gm[0], m))
	}
	return res
}

func moRatio(cfg moConfig, gm [2]float64, m moModel) results.Finding {
	extra := cfg.sizes[1] - cfg.sizes[0]
	return results.Finding{Name: fmt.Sprintf("rate with %d more bytes, relative", extra), Value: gm[1] / gm[0], Unit: "ratio",
		Model: moFloat(m.wire[0] / m.wire[1]), Article: moFloat(herokuRatio),
		ArticleNote: "001: just under 1M msgs/s on Kafka 0.10 against 1.5M on 0.9 (8 bytes more a message), rf 3, its NICs pushed past saturation into dropped packets and retransmits",
		Text: fmt.Sprintf("%d B over %d B messages; where the NICs bind, the rates should differ as the wire bytes do (the model's ratio); "+
			"Heroku's drop was larger because its NICs went past saturation", cfg.sizes[1], cfg.sizes[0])}
}

func moRatioChart(cfg moConfig, ratio float64, m moModel) results.Chart {
	extra := float64(cfg.sizes[1] - cfg.sizes[0])
	return results.Chart{Title: fmt.Sprintf("Rate relative to %d-byte messages, with bytes added", cfg.sizes[0]), X: "bytes added per message", Y: "rate relative to none added",
		Series: []results.Series{
			{Name: "measured", Kind: results.SeriesMeasured, Points: []results.Point{{X: 0, Y: 1}, {X: extra, Y: ratio}}},
			{Name: "model (wire bytes)", Kind: results.SeriesModel, Points: []results.Point{{X: 0, Y: 1}, {X: extra, Y: m.wire[0] / m.wire[1]}}},
			{Name: "Heroku, Kafka 0.9 to 0.10", Kind: results.SeriesArticle, Source: "001, 1.5M to just under 1M msgs/s",
				Points: []results.Point{{X: 0, Y: 1}, {X: 8, Y: herokuRatio}}},
		}}
}

// moFloat points at a copy of v.
func moFloat(v float64) *float64 { return &v }
