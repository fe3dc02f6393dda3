package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/workload"
)

// tlsSource is seed 002's encryption experiment: on AWS R6g (Graviton2) with Java 11,
// client-to-broker encryption cost two thirds of the throughput, its CPU profile dominated by
// crypto.
var tlsSource = instaclustr("AWS R5 (Intel) and R6g (Graviton2) brokers, gp3 disks, Java 11 (OpenJDK, Amazon Corretto), client-to-broker encryption")

// instaclustrTLSRatio is 002's figure: turning encryption off on R6g gave 200% more throughput
// (3x), so with TLS it ran at a third of its plaintext rate (Java 11 had no fast AES there).
const instaclustrTLSRatio = 1.0 / 3

// tlsListeners are the listeners tls-cost compares with PLAINTEXT, and the arm of each.
var tlsListeners = map[string]string{"ssl": "listener=ssl", "sasl_ssl": "listener=ssl,sasl=scram-sha-512"}

func init() {
	register(Scenario{
		Name:  "tls-cost",
		Title: "What TLS costs: PLAINTEXT against SSL and SASL_SSL listeners",
		Doc: "Runs the same workload on fresh clusters with a PLAINTEXT listener and with each secure one (compare --a " +
			"listener=plaintext --b listener=ssl, and SASL_SSL with SCRAM), interleaved and repeated, and sets the brokers' " +
			"CPU per message and the throughput side by side: at a fixed rate, and in full mode also the boundary of a limit " +
			"search, beside Instaclustr's (002) throughput with encryption on and off.",
		Sources: []results.Source{tlsSource},
		Params: []Param{
			{Name: "listeners", Short: "ssl", Full: "ssl,sasl_ssl", Doc: "the secure listeners each compared with PLAINTEXT: ssl, sasl_ssl"},
			{Name: "brokers", Short: "1", Full: "1", Doc: "brokers of each arm's cluster: on a host that also runs the generator, more brokers share its cores and saturate it before TLS shows"},
			{Name: "repeat", Short: "1", Full: "4", Doc: "repetitions per arm (fresh clusters, interleaved); compare's rank test needs 4 a side to reach p < 0.05"},
			{Name: "rate", Short: "200", Full: "100", Doc: "the fixed rate, msgs/s, at which CPU per message is measured: keep the host below saturation, where CPU per message stops meaning a cost; short mode's one repetition needs the higher rate for TLS's cost, which grows with the rate, to stand above what differs between two fresh brokers"},
			{Name: "size", Short: "102400", Full: "102400", Doc: "message size, bytes: TLS costs per byte, a broker's other work per request, so large messages show it"},
			{Name: "duration", Short: "6s", Full: "30s", Doc: "each fixed-rate run's measured window"},
			{Name: "warmup", Short: "3s", Full: "5s", Doc: "each run's and limit trial's warm-up"},
			{Name: "warm-jit", Short: "5s", Full: "30s", Doc: "each cluster's JIT warm-up before it is measured (compare --warm-jit)"},
			{Name: "limit", Short: "none", Full: "ssl", Doc: "the listeners whose boundary is also searched against PLAINTEXT's (compare -- limit), comma-separated, or none; SASL's SCRAM works once per connection, so SASL_SSL's data path is SSL's"},
			{Name: "trial", Short: "6s", Full: "20s", Doc: "each limit trial's measured window"},
			{Name: "limit-producers", Short: "4", Full: "4", Doc: "producer clients of each limit trial: one producer's request window (a request in flight per broker) ends a search on one broker short of its boundary"},
			{Name: "tolerance", Short: "0.1", Full: "0.1", Doc: "each limit search stops when its ok and overloaded rates are this share apart"},
			{Name: "nic", Short: "none", Full: "none", Doc: "each arm's cluster behind emulated NICs of this rate, e.g. 1Gbit/s (root; compare's nic=), so that TLS's cost is measured where the network binds; none: loopback"},
		},
		Load:  true,
		Check: checkTLSCost,
		Run:   runTLSCost,
	})
}

// tlsConfig is tls-cost's parameters, parsed.
type tlsConfig struct {
	listeners                     []string
	brokers, repeat, size         int
	limitProducers                int
	rate, tolerance               float64
	duration, warmup, warm, trial time.Duration
	limit                         map[string]bool // listeners whose boundary is searched
	nic                           string          // compare's nic= value; empty: none
}

func tlsParse(p Params) (tlsConfig, error) {
	var c tlsConfig
	for _, l := range strings.Split(p["listeners"], ",") {
		l = strings.ToLower(strings.TrimSpace(l))
		if tlsListeners[l] == "" {
			return c, fmt.Errorf("--set listeners=%s: %q is not one; give ssl, sasl_ssl or both, comma-separated", p["listeners"], l)
		}
		c.listeners = append(c.listeners, l)
	}
	var err error
	for _, n := range []struct {
		name string
		to   *int
	}{{"brokers", &c.brokers}, {"repeat", &c.repeat}, {"size", &c.size}, {"limit-producers", &c.limitProducers}} {
		if *n.to, err = p.Int(n.name); err == nil && *n.to < 1 {
			err = fmt.Errorf("--set %s=%d: give 1 or more", n.name, *n.to)
		}
		if err != nil {
			return c, err
		}
	}
	if c.rate, err = p.Float("rate"); err == nil && !(c.rate > 0) {
		err = fmt.Errorf("--set rate=%s: give a positive rate, msgs/s", p["rate"])
	}
	if err != nil {
		return c, err
	}
	if c.tolerance, err = p.Float("tolerance"); err == nil && !(c.tolerance > 0 && c.tolerance < 1) {
		err = fmt.Errorf("--set tolerance=%s: give a share between 0 and 1, e.g. 0.1", p["tolerance"])
	}
	if err != nil {
		return c, err
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"duration", &c.duration}, {"warmup", &c.warmup}, {"warm-jit", &c.warm}, {"trial", &c.trial}} {
		if *d.to, err = p.Duration(d.name); err != nil {
			return c, err
		}
	}
	if c.limit, err = tlsLimit(p["limit"], c.listeners); err != nil {
		return c, err
	}
	if v := strings.TrimSpace(p["nic"]); v != "none" {
		if r, err := units.ParseRate(v); err != nil || !(r > 0) {
			return c, fmt.Errorf("--set nic=%s: give a rate such as 1Gbit/s, or none", p["nic"])
		}
		c.nic = v
	}
	return c, nil
}

// tlsLimit parses the limit parameter: none, or some of the listeners compared.
func tlsLimit(v string, listeners []string) (map[string]bool, error) {
	out := map[string]bool{}
	if strings.TrimSpace(v) == "none" {
		return out, nil
	}
	for _, l := range strings.Split(v, ",") {
		l = strings.ToLower(strings.TrimSpace(l))
		if !slices.Contains(listeners, l) {
			return nil, fmt.Errorf("--set limit=%s: %q is not among listeners=%s; give some of them, comma-separated, or none", v, l, strings.Join(listeners, ","))
		}
		out[l] = true
	}
	return out, nil
}

// checkTLSCost wants its parameters right and no --cluster-dir: each arm runs on a cluster of
// its own, started with that listener, as compare --a/--b does.
func checkTLSCost(_ context.Context, env *Env, p Params) error {
	cfg, err := tlsParse(p)
	if err != nil {
		return err
	}
	if env.ClusterDir != "" {
		return fmt.Errorf("--cluster-dir %s: tls-cost starts a fresh cluster per arm and repetition, each with its listener (compare --a/--b); leave out --cluster-dir", env.ClusterDir)
	}
	return tlsCheckWorkers(env, cfg)
}

// tlsCheckWorkers: with --local-workers N, N limit producers when a boundary is searched, and N
// partitions per topic. The fixed-rate runs get N producers and N consumers
// (Env.workerClients). A SASL_SSL arm's local workers get its password from the coordinator
// (cmd/plimsoll's localTarget).
func tlsCheckWorkers(env *Env, cfg tlsConfig) error {
	n := env.LocalWorkers
	if n == 0 {
		return nil
	}
	if len(cfg.limit) > 0 {
		if err := checkWorkerShare(env, cfg.limitProducers, "limit producers", fmt.Sprintf("raise --set limit-producers=%d", n)); err != nil {
			return err
		}
	}
	return checkWorkerShare(env, workload.DefaultPartitionsPerBroker*cfg.brokers, "partitions per topic (plimsoll's default, 10 a broker)",
		fmt.Sprintf("raise --set brokers=%d", (n+workload.DefaultPartitionsPerBroker-1)/workload.DefaultPartitionsPerBroker))
}

// tlsArm is the arm spec of a listener ("plaintext" or one of tlsListeners) on this config.
func tlsArm(cfg tlsConfig, listener string) string {
	spec := "listener=plaintext"
	if listener != "plaintext" {
		spec = tlsListeners[listener]
	}
	spec = fmt.Sprintf("%s,brokers=%d,heap=512m", spec, cfg.brokers)
	if cfg.nic != "" {
		spec += ",nic=" + cfg.nic
	}
	return spec
}

// runTLSCost runs, for each secure listener, compare of PLAINTEXT against it at the fixed rate
// and, with limit, over limit searches, and reads compare.json back.
func runTLSCost(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	cfg, err := tlsParse(p)
	if err != nil {
		return results.Scenario{}, err
	}
	t := &tlsTally{}
	for _, l := range cfg.listeners {
		if ctx.Err() != nil {
			break
		}
		run := []string{"run", "--rate", strconv.FormatFloat(cfg.rate, 'f', -1, 64), "--message-size", strconv.Itoa(cfg.size),
			"--duration", cfg.duration.String(), "--warmup", cfg.warmup.String(), "--slo-p99", "0", "--drain-timeout", "10s"}
		run = append(run, env.workerClients("producers", "consumers-per-group")...)
		c, err := tlsCompare(ctx, env, cfg, l, "run-"+l, run)
		t.add(l, "run", c, err)
		if cfg.limit[l] && ctx.Err() == nil {
			lim := []string{"limit", "--message-sizes", strconv.Itoa(cfg.size), "--producers", strconv.Itoa(cfg.limitProducers), "--slo-p99", "0",
				"--tolerance", strconv.FormatFloat(cfg.tolerance, 'f', -1, 64),
				"--trial-duration", cfg.trial.String(), "--warmup", cfg.warmup.String(), "--no-hold", "--no-report"}
			lim = append(lim, env.workerClients("consumers-per-group")...)
			c, err := tlsCompare(ctx, env, cfg, l, "limit-"+l, lim)
			t.add(l, "limit", c, err)
		}
	}
	res := t.result(cfg)
	res.Config = map[string]string{
		"arms":     fmt.Sprintf("%s against %s; %s each, fresh clusters, interleaved", tlsArm(cfg, "plaintext"), strings.Join(cfg.armsOf(), " and "), units.Plural(cfg.repeat, "repetition")),
		"workload": fmt.Sprintf("%s messages at %s msgs/s for %s after %s of warm-up, default topic and clients, no latency SLO", units.Size(cfg.size), units.Count(cfg.rate), units.Duration(cfg.duration), units.Duration(cfg.warmup)),
		"tls":      "the local cluster's own CA and broker certificates; SASL_SSL with SCRAM-SHA-512; replication between brokers stays PLAINTEXT"}
	if len(cfg.limit) > 0 {
		var names []string
		for _, l := range cfg.listeners {
			if cfg.limit[l] {
				names = append(names, tlsNames[l])
			}
		}
		res.Config["limit"] = fmt.Sprintf("the boundary searched against PLAINTEXT's for %s: %s, trials of %s after %s of warm-up, tolerance %s, no latency SLO",
			strings.Join(names, " and "), units.Plural(cfg.limitProducers, "producer"), units.Duration(cfg.trial), units.Duration(cfg.warmup), strconv.FormatFloat(cfg.tolerance, 'f', -1, 64))
	}
	return res, nil
}

func (c tlsConfig) armsOf() []string {
	var out []string
	for _, l := range c.listeners {
		out = append(out, tlsArm(c, l))
	}
	return out
}

// tlsCompare runs one compare --a PLAINTEXT --b listener -- cmd into dir and returns its
// comparison, or an error kept as a failure.
func tlsCompare(ctx context.Context, env *Env, cfg tlsConfig, listener, dir string, cmd []string) (*compare.Comparison, error) {
	args := append([]string{"compare", "--a", tlsArm(cfg, "plaintext"), "--b", tlsArm(cfg, listener), "--repeat", strconv.Itoa(cfg.repeat),
		"--warm-jit", cfg.warm.String(), "--"}, cmd...)
	code, err := env.Plimsoll(ctx, dir, args...)
	if err != nil {
		return nil, err
	}
	data, rerr := os.ReadFile(filepath.Join(env.Out, dir, "compare.json"))
	if rerr != nil {
		return nil, fmt.Errorf("compare exited %d without a comparison (%v); its output is in scenario.log", code, rerr)
	}
	var c compare.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "compare.json"), err)
	}
	return &c, nil
}

// tlsNames are the listeners as Kafka names them, and their place on the charts' x axis.
var (
	tlsNames = map[string]string{"plaintext": "PLAINTEXT", "ssl": "SSL", "sasl_ssl": "SASL_SSL"}
	tlsX     = map[string]float64{"plaintext": 0, "ssl": 1, "sasl_ssl": 2}
)

const tlsAxis = "listener"

// tlsAxisNames name the charts' x values.
var tlsAxisNames = []string{"PLAINTEXT", "SSL", "SASL_SSL"}

// tlsTally gathers each listener's comparisons with PLAINTEXT.
type tlsTally struct {
	runs, limits map[string]*compare.Comparison
	failures     []string
}

func (t *tlsTally) add(listener, kind string, c *compare.Comparison, err error) {
	if err != nil {
		t.failures = append(t.failures, fmt.Sprintf("%s against PLAINTEXT (%s): %v", tlsNames[listener], kind, err))
		return
	}
	if t.runs == nil {
		t.runs, t.limits = map[string]*compare.Comparison{}, map[string]*compare.Comparison{}
	}
	if kind == "run" {
		t.runs[listener] = c
	} else {
		t.limits[listener] = c
	}
}

// tlsCPU is the brokers' CPU per message on each side, summed over the brokers (each one's CPU
// over the produced rate, mean over the repetitions), seconds, each broker's change, and what
// was counted: the first of tlsCPUFigures both sides have.
func tlsCPU(c *compare.Comparison) (a, b float64, changes []string, counted string) {
	for _, f := range tlsCPUFigures {
		if a, b, changes := brokersFigure(c, f.name); a > 0 && b > 0 {
			return a, b, changes, f.counted
		}
	}
	return 0, 0, nil, ""
}

// tlsCPUFigure is a figure of compare's that tls-cost may count as the brokers' CPU per message.
type tlsCPUFigure struct{ name, counted string }

// tlsCPUFigures are the figures tlsCPU counts, the first that both sides have, best first.
//
// The brokers' user CPU less their JIT compiler threads' user CPU: TLS's crypto and SASL are
// user time, while on a kernel without CONFIG_IRQ_TIME_ACCOUNTING the softirq work of moving the
// messages through the emulated links (20 MB/s each way at 200 msgs/s of 100 KiB) is charged as
// system time to whichever process it interrupts, by an amount that differed between two fresh
// brokers as much as TLS's steady cost (a clean run's CPU less JIT read 0.96x). The JIT's
// compilers, in the suite's short mode, took 0.2-1.3 of the 0.5-1.5 cores a fresh broker used,
// by an amount that differed more between two starts than TLS's own cost (TestScenarioTLSCost, 3
// runs). Records from before user time was kept fall back to CPU less JIT, and records from
// before the compilers were read to the whole CPU.
var tlsCPUFigures = []tlsCPUFigure{
	{compare.UserCPUPerMessageLessJIT, "the brokers' user CPU less their JIT compiler threads' (system time left out), over the produced rate, summed over the brokers, mean over the repetitions"},
	{compare.CPUPerMessageLessJIT, "the brokers' CPU less their JIT compiler threads', over the produced rate, summed over the brokers, mean over the repetitions"},
	{"CPU per message", "the brokers' CPU over the produced rate, summed over the brokers, mean over the repetitions"},
}

// brokersFigure sums figure name over the brokers on each side, with each broker's change.
func brokersFigure(c *compare.Comparison, name string) (a, b float64, changes []string) {
	for _, f := range c.Figures {
		if f.Name != name || !strings.HasPrefix(f.Subject, "broker") {
			continue
		}
		a, b = a+f.A, b+f.B
		switch {
		case f.Change != nil && f.P != nil:
			changes = append(changes, fmt.Sprintf("%s %s (p %s)", f.Subject, units.Change(*f.Change), units.P(*f.P)))
		case f.Change != nil:
			changes = append(changes, f.Subject+" "+units.Change(*f.Change))
		}
	}
	return a, b, changes
}

// sharedHost words compare's notes of repetitions that ran beside other processes' work, which
// CPU per message counts; empty when none did.
func sharedHost(c *compare.Comparison) string {
	var locs []string
	for _, n := range c.Notes {
		if n.What == compare.NoteHostShared {
			locs = append(locs, filepath.Base(n.Location))
		}
	}
	if len(locs) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s of %d ran beside other processes' work (more than %s of the host's cores: %s), which this ratio includes: run again on a quiet host",
		units.Plural(len(locs), "repetition"), len(c.A)+len(c.B), units.Pct(compare.MaxOtherShare), strings.Join(locs, ", "))
}

// tlsRate is a comparison's throughput figure: the produced rate of runs, a search's ceiling at
// size (the searches have no latency SLO); nil without one.
func tlsRate(c *compare.Comparison, size int) *compare.Figure {
	for i, f := range c.Figures {
		if f.Throughput && (f.Name == "produced" || f.Size == size && f.Name == "ceiling safe rate") {
			return &c.Figures[i]
		}
	}
	return nil
}

// tlsSeries are the points of tls-cost's charts as they are gathered.
type tlsSeries struct {
	cpu, fixed, bound results.Series
}

// result sets the listeners' figures side by side.
func (t *tlsTally) result(cfg tlsConfig) results.Scenario {
	res := results.Scenario{Failures: t.failures}
	ser := &tlsSeries{cpu: results.Series{Name: "all brokers", Kind: results.SeriesMeasured},
		fixed: results.Series{Name: "at a fixed rate", Kind: results.SeriesMeasured},
		bound: results.Series{Name: "boundary (limit search)", Kind: results.SeriesMeasured}}
	for _, l := range cfg.listeners {
		if c := t.runs[l]; c != nil {
			res.Findings = append(res.Findings, ser.run(cfg, l, c)...)
		}
		if c := t.limits[l]; c != nil {
			res.Findings = append(res.Findings, ser.limit(cfg, l, c)...)
		}
	}
	res.Charts = ser.charts()
	return res
}

// run takes a comparison of runs: the brokers' CPU per message on both sides (PLAINTEXT's the
// first time) and the produced rates.
func (ser *tlsSeries) run(cfg tlsConfig, l string, c *compare.Comparison) []results.Finding {
	var out []results.Finding
	name := tlsNames[l]
	if a, b, changes, counted := tlsCPU(c); a > 0 && b > 0 {
		if len(ser.cpu.Points) == 0 {
			ser.cpu.Points = append(ser.cpu.Points, results.Point{X: 0, Y: a * 1e6})
			out = append(out, results.Finding{Name: "broker CPU per message, PLAINTEXT", Value: a * 1e6, Unit: "µs", Text: counted})
		}
		ser.cpu.Points = append(ser.cpu.Points, results.Point{X: tlsX[l], Y: b * 1e6})
		out = append(out,
			results.Finding{Name: "broker CPU per message, " + name, Value: b * 1e6, Unit: "µs", Text: "each broker's change: " + strings.Join(changes, ", ")},
			results.Finding{Name: "broker CPU per message, " + name + " / PLAINTEXT", Value: b / a, Unit: "ratio",
				Text: fmt.Sprintf("PLAINTEXT's in this comparison: %s µs", units.Short(a*1e6)) + sharedHost(c)})
		out = append(out, tlsSystemToo(c, name)...)
	}
	if f := tlsRate(c, cfg.size); f != nil && f.A > 0 {
		ser.fixed.Points = append(ser.fixed.Points, results.Point{X: tlsX[l], Y: f.B / f.A})
		out = append(out, results.Finding{Name: "produced at a fixed rate, " + name + " / PLAINTEXT", Value: f.B / f.A, Unit: "ratio",
			Text: fmt.Sprintf("%s against %s msgs/s, %s targeted: 1 unless an arm could not keep up", units.Count(f.B), units.Count(f.A), units.Count(cfg.rate))})
	}
	return out
}

// tlsSystemToo is, beside a ratio of user CPU, the same ratio with the system time counted (CPU
// per message less JIT), so that a reader sees what leaving it out changed; nothing when the
// ratio counted is not user CPU's.
func tlsSystemToo(c *compare.Comparison, name string) []results.Finding {
	if u, _, _ := brokersFigure(c, compare.UserCPUPerMessageLessJIT); u <= 0 {
		return nil
	}
	a, b, _ := brokersFigure(c, compare.CPUPerMessageLessJIT)
	if a <= 0 || b <= 0 {
		return nil
	}
	return []results.Finding{{Name: "broker CPU per message with system time, " + name + " / PLAINTEXT", Value: b / a, Unit: "ratio",
		Text: fmt.Sprintf("user and system CPU less JIT, %s µs against PLAINTEXT's %s µs: the kernel's network work charged to the brokers counted too", units.Short(b*1e6), units.Short(a*1e6))}}
}

// limit takes a comparison of limit searches: the boundaries, beside Instaclustr's ratio.
func (ser *tlsSeries) limit(cfg tlsConfig, l string, c *compare.Comparison) []results.Finding {
	f := tlsRate(c, cfg.size)
	if f == nil || f.A <= 0 {
		return nil
	}
	name := tlsNames[l]
	ser.bound.Points = append(ser.bound.Points, results.Point{X: tlsX[l], Y: f.B / f.A})
	return []results.Finding{
		{Name: "boundary, " + name, Value: f.B, Unit: "msgs/s", Text: fmt.Sprintf("PLAINTEXT's in this comparison: %s msgs/s", units.Count(f.A))},
		{Name: "boundary, " + name + " / PLAINTEXT", Value: f.B / f.A, Unit: "ratio", Article: moFloat(instaclustrTLSRatio),
			ArticleNote: "002: R6g (Graviton2) brokers on Java 11, whose crypto lacked the fast AES instructions: encryption off gave 200% more throughput"}}
}

// charts draws CPU per message by listener and the rates relative to PLAINTEXT's.
func (ser *tlsSeries) charts() []results.Chart {
	var out []results.Chart
	for _, s := range []*results.Series{&ser.fixed, &ser.bound} {
		if len(s.Points) > 0 {
			s.Points = append([]results.Point{{X: 0, Y: 1}}, s.Points...)
		}
	}
	if len(ser.cpu.Points) > 0 {
		out = append(out, results.Chart{Title: "Brokers' CPU per message by listener", X: tlsAxis, Y: "µs of broker CPU per message",
			Series: []results.Series{ser.cpu}, XNames: tlsAxisNames})
	}
	if len(ser.fixed.Points)+len(ser.bound.Points) == 0 {
		return out
	}
	rel := results.Chart{Title: "Throughput relative to PLAINTEXT", X: tlsAxis, Y: "rate relative to PLAINTEXT's", Series: []results.Series{ser.fixed}, XNames: tlsAxisNames}
	if len(ser.bound.Points) > 0 {
		rel.Series = append(rel.Series, ser.bound, results.Series{Name: "Instaclustr, R6g on Java 11", Kind: results.SeriesArticle,
			Source: "002, encryption off against on", Points: []results.Point{{X: 0, Y: 1}, {X: 1, Y: instaclustrTLSRatio}}})
	}
	return append(out, rel)
}
