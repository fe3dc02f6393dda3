package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrConfig is wrapped by every error about a Config field (a *ConfigError).
var ErrConfig = errors.New("invalid probe config")

// ConfigError is a Config value the probe cannot work with. It names the Config field, not
// the command-line flag that may have set it: the command maps one to the other.
type ConfigError struct {
	// Field is the Config field: "Interval", "ScrapeTimeout", "NICBytesPerSec",
	// "DiskWriteBytesPerSec", "HandlerPools", "HandlerPoolsByBroker", "BrokerPIDs",
	// "Target.MetricsURLs" or "Links".
	Field string
	// Broker is the map key of a per-broker field (PerBroker true).
	Broker    int32
	PerBroker bool
	Value     any
	// Want says what would be accepted.
	Want string
}

func (e *ConfigError) Error() string {
	field := e.Field
	if e.PerBroker {
		field = fmt.Sprintf("%s[%d]", e.Field, e.Broker)
	}
	if s, ok := e.Value.(string); ok {
		return fmt.Sprintf("%v: %s %q: want %s", ErrConfig, field, s, e.Want)
	}
	return fmt.Sprintf("%v: %s %v: want %s", ErrConfig, field, e.Value, e.Want)
}

// Unwrap makes errors.Is(err, ErrConfig) hold.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// ErrMetadata is wrapped when Start cannot read the cluster's metadata (unreachable
// bootstrap servers, refused authentication).
var ErrMetadata = errors.New("cluster metadata unavailable")

// Config says what to watch.
type Config struct {
	// Target is the cluster: its bootstrap servers (for metadata) and MetricsURLs (one
	// Prometheus endpoint per broker id; empty means Kafka metadata only).
	Target target.Target
	// Interval between observations. Default 1s; at least 100ms.
	Interval time.Duration
	// ScrapeTimeout bounds each metrics scrape and metadata request (default 10s). Each
	// observation waits for them until 90% of the interval; a slower one is recorded as missing
	// for that interval and its result counts for the next.
	ScrapeTimeout time.Duration
	// BrokerPIDs are the local broker JVMs by broker id, for their CPU time from /proc.
	BrokerPIDs map[int32]int
	// TopicPrefix selects the topics whose partitions the metadata samples describe (the run's
	// own topics). Empty: brokers and controller only.
	TopicPrefix string
	// NICBytesPerSec is each broker's (and the client host's) network capacity per direction,
	// bytes/s; 0 means unknown (the client host's link speed is read from
	// /sys/class/net when it reports one).
	NICBytesPerSec float64
	// NICByBroker overrides NICBytesPerSec for single brokers (an emulated link shaped slower).
	NICByBroker map[int32]float64
	// DiskWriteBytesPerSec is each broker's disk write capacity, bytes/s; 0 = unknown.
	DiskWriteBytesPerSec float64
	// HandlerPools is how many request-handler pools mark each broker's
	// RequestHandlerAvgIdlePercent meter: 2 on combined broker+controller (KRaft) nodes, 1 on
	// broker-only nodes. 0 means 2 for a local cluster (plimsoll's nodes are combined) and 1
	// otherwise. HandlerPoolsByBroker overrides it per broker id (a local cluster's brokers
	// beyond the third are broker-only nodes: 1).
	HandlerPools         int
	HandlerPoolsByBroker map[int32]int
	// Links are the brokers' emulated links by broker id, whose shapers (tbf qdiscs) the probe
	// reads through netlink every interval (HostSample.Links). Start opens each namespace once
	// and fails when one cannot be entered (it needs root).
	Links map[int32]Link
	// Spill bounds the probe's memory over a long run: beyond the latest Spill.Keep samples,
	// each sample is appended to a spill file as it leaves memory (Series.Add). Zero: every
	// sample is held in memory.
	Spill Spill
	// ProcRoot and SysRoot are where /proc and /sys are mounted (for tests). Defaults /proc, /sys.
	ProcRoot string
	SysRoot  string
}

func (c *Config) defaults() error {
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.ScrapeTimeout == 0 {
		c.ScrapeTimeout = 10 * time.Second
	}
	if c.HandlerPools == 0 {
		c.HandlerPools = 1
		if c.Target.Local {
			c.HandlerPools = 2
		}
	}
	if c.ProcRoot == "" {
		c.ProcRoot = "/proc"
	}
	if c.SysRoot == "" {
		c.SysRoot = "/sys"
	}
	return c.check()
}

// check returns the first value the probe cannot work with, as a *ConfigError.
func (c *Config) check() error {
	bad := func(field string, v any, want string) error { return &ConfigError{Field: field, Value: v, Want: want} }
	perBroker := func(field string, id int32, v any, want string) error {
		return &ConfigError{Field: field, Broker: id, PerBroker: true, Value: v, Want: want}
	}
	switch {
	case c.Interval < 100*time.Millisecond:
		return bad("Interval", c.Interval, "at least 100ms: observe at most ten times a second")
	case c.ScrapeTimeout < c.Interval:
		return bad("ScrapeTimeout", c.ScrapeTimeout, fmt.Sprintf("at least Interval (%v): a scrape may span intervals but must be allowed one", c.Interval))
	case c.NICBytesPerSec < 0:
		return bad("NICBytesPerSec", c.NICBytesPerSec, "a capacity above 0, or 0 for unknown")
	case c.DiskWriteBytesPerSec < 0:
		return bad("DiskWriteBytesPerSec", c.DiskWriteBytesPerSec, "a capacity above 0, or 0 for unknown")
	case c.HandlerPools < 1 || c.HandlerPools > 2:
		return bad("HandlerPools", c.HandlerPools, "1 (broker-only nodes) or 2 (combined broker+controller nodes)")
	}
	for id, n := range c.HandlerPoolsByBroker {
		if n < 1 || n > 2 {
			return perBroker("HandlerPoolsByBroker", id, n, "1 or 2")
		}
	}
	for id, u := range c.Target.MetricsURLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return perBroker("Target.MetricsURLs", id, u, "http://HOST:PORT/metrics")
		}
	}
	for id, pid := range c.BrokerPIDs {
		if pid <= 0 {
			return perBroker("BrokerPIDs", id, pid, "a process id")
		}
	}
	return checkLinks(c.Links)
}

func (c *Config) pools(id int32) int {
	if n, ok := c.HandlerPoolsByBroker[id]; ok {
		return n
	}
	return c.HandlerPools
}

// Probe observes a cluster until Stop.
type Probe struct {
	cfg      Config
	host     *hostReader // nil when /proc is not readable (not Linux)
	hostPrev *hostReading
	scrapers []*scraper
	brPrev   map[int32]*brokerReading
	// links reads the qdiscs of the probe's namespace and the brokers' (nil: no netlink).
	links    *linkReader
	linkPrev *linkReading
	meta     *metaReader
	// metaPending is the metadata request under way, if any.
	metaPending pending[*MetaSample]
	cl          *kgo.Client

	cancel context.CancelFunc
	done   chan struct{}
	stop   sync.Once

	mu          sync.Mutex
	series      Series
	spillFailed bool
}

// Start checks the config, takes a first reading of every source (failing when a metrics
// endpoint or the cluster does not answer, so a wrong endpoint is caught before a run),
// and then observes every Interval in a goroutine until Stop or ctx ends.
func Start(ctx context.Context, cfg Config) (*Probe, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	opts, err := cfg.Target.ClientOpts()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("probe: Kafka client: %w", err)
	}
	p := newProbe(cfg, cl)
	if err := p.openLinks(); err != nil {
		cl.Close()
		return nil, err
	}
	first := time.Now()
	if err := p.baseline(ctx, first); err != nil {
		p.close()
		return nil, err
	}
	// The caller's ctx bounds the probe as well as Stop does.
	lctx, lcancel := context.WithCancel(ctx)
	p.cancel = lcancel
	go func() {
		defer close(p.done)
		p.loop(lctx, first)
	}()
	return p, nil
}

// newProbe sets up the sources: a scraper per metrics endpoint, the metadata reader and, where
// /proc is readable, the host.
func newProbe(cfg Config, cl *kgo.Client) *Probe {
	p := &Probe{
		cfg:    cfg,
		brPrev: map[int32]*brokerReading{},
		meta:   &metaReader{cl: cl, prefix: cfg.TopicPrefix},
		cl:     cl,
		done:   make(chan struct{}),
	}
	p.series = Series{
		Interval:             cfg.Interval.Seconds(),
		GOMAXPROCS:           runtime.GOMAXPROCS(0),
		Local:                cfg.Target.Local,
		HandlerPools:         map[int32]int{},
		NICBytesPerSec:       cfg.NICBytesPerSec,
		NICByBroker:          cfg.NICByBroker,
		DiskWriteBytesPerSec: cfg.DiskWriteBytesPerSec,
	}
	// No client timeout: each scrape's context bounds it (longer for the baseline, as a JVM's
	// first scrape after start-up can take over a second).
	hc := &http.Client{}
	for id, u := range cfg.Target.MetricsURLs {
		p.scrapers = append(p.scrapers, &scraper{id: id, url: u, pools: cfg.pools(id), client: hc})
		p.series.HandlerPools[id] = cfg.pools(id)
	}
	slices.SortFunc(p.scrapers, func(a, b *scraper) int { return int(a.id - b.id) })
	if h, err := newHostReader(cfg.ProcRoot, cfg.SysRoot, os.Getpid(), cfg.BrokerPIDs); err == nil && fileExists(cfg.ProcRoot+"/stat") {
		h.sched = readSched
		p.host = h
		p.series.NICSpeeds = nicSpeeds(cfg.SysRoot)
	} else {
		p.series.Notes = append(p.series.Notes, "no host observations: "+cfg.ProcRoot+"/stat is not readable (Linux only)")
	}
	return p
}

// baseline takes the first reading of every source, the baseline for the first interval's
// rates; it must succeed for every endpoint, and metadata must answer, or the run would measure
// nothing.
func (p *Probe) baseline(ctx context.Context, at time.Time) error {
	bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var errs []error
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	var wg sync.WaitGroup
	for _, s := range p.scrapers {
		wg.Go(func() {
			r, err := s.scrape(bctx)
			if err != nil {
				fail(fmt.Errorf("broker %d: %w", s.id, err))
				return
			}
			mu.Lock()
			defer mu.Unlock()
			p.brPrev[s.id] = r
		})
	}
	wg.Go(func() {
		if m := p.meta.read(bctx); m.Err != "" {
			fail(fmt.Errorf("%w from %s: %s", ErrMetadata, strings.Join(p.cfg.Target.Bootstrap, ","), m.Err))
		}
	})
	if p.host != nil {
		p.hostPrev = p.host.read(at)
		p.series.Cores = coresOf(p.hostPrev)
	}
	if p.links != nil {
		p.linkPrev = p.links.read(time.Now())
	}
	wg.Wait()
	return errors.Join(errs...)
}

func coresOf(r *hostReading) int {
	if r != nil && r.stat != nil {
		return r.stat.cores
	}
	return runtime.NumCPU()
}

func (p *Probe) loop(ctx context.Context, prev time.Time) {
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s, ok := p.observe(ctx, prev, now)
			if !ok {
				return
			}
			p.record(s)
			prev = now
		}
	}
}

// record adds a sample to the series (Series.Add). The times lose their monotonic clock
// readings, as a spilled sample's do in its file, so a sample reads the same from memory or from
// the spill. A spill that cannot be written is noted in the series, and its samples are held in
// memory from then on.
func (p *Probe) record(s Sample) {
	s.Start, s.Time = s.Start.Round(0), s.Time.Round(0)
	p.mu.Lock()
	defer p.mu.Unlock()
	sp := p.cfg.Spill
	if p.spillFailed {
		sp = Spill{}
	}
	if err := p.series.Add(s, sp); err != nil {
		p.spillFailed = true
		p.series.Notes = append(p.series.Notes, err.Error()+": the samples from then on were held in memory")
	}
}

// observe reads every source in parallel and returns the interval's sample; false when the
// probe was stopped meanwhile (the partial sample is dropped). It waits until 90% of the
// interval for the scrapes and the metadata request; one that takes longer keeps running (up to
// ScrapeTimeout) and counts for the next interval, while this one records it as missing.
func (p *Probe) observe(ctx context.Context, prev, now time.Time) (Sample, bool) {
	s := Sample{Start: prev, Time: now}
	// From when this observation starts, not from the tick: a starved process may receive the
	// tick late, and the sources still deserve most of an interval.
	deadline := time.Now().Add(p.cfg.Interval * 9 / 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	if len(p.scrapers) > 0 {
		s.Brokers = make(map[int32]*BrokerSample, len(p.scrapers))
	}
	for _, sc := range p.scrapers {
		wg.Go(func() {
			b := p.observeBroker(ctx, sc, deadline, &mu)
			mu.Lock()
			defer mu.Unlock()
			s.Brokers[sc.id] = b
		})
	}
	wg.Go(func() { s.Meta = p.observeMeta(ctx, deadline) })
	if p.host != nil {
		cur := p.host.read(time.Now())
		s.Host = diffHost(p.hostPrev, cur)
		p.hostPrev = cur
		p.observeLinks(s.Host)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return s, false
	}
	return s, true
}

// observeBroker is one broker's sample for the interval: its rates against the previous good
// scrape, or missing with the reason. mu guards brPrev.
func (p *Probe) observeBroker(ctx context.Context, sc *scraper, deadline time.Time, mu *sync.Mutex) *BrokerSample {
	res, done := sc.pending.poll(ctx, deadline, func() scrapeResult {
		c, cancel := context.WithTimeout(ctx, p.cfg.ScrapeTimeout)
		defer cancel()
		r, err := sc.scrape(c)
		return scrapeResult{r, err}
	})
	switch {
	case !done:
		return missingBroker(fmt.Sprintf("scrape of %s still running after %v", sc.url, time.Since(sc.pending.started).Round(time.Millisecond)))
	case res.err != nil:
		return missingBroker(res.err.Error())
	}
	mu.Lock()
	defer mu.Unlock()
	old := p.brPrev[sc.id]
	p.brPrev[sc.id] = res.r
	if old == nil {
		return missingBroker(ErrFirstReading)
	}
	return diffBroker(old, res.r, sc.pools)
}

// ErrFirstReading is a broker sample's Err in the interval of its first reading, which has no
// rates yet: the broker answered, so readers that look for silent brokers skip it.
const ErrFirstReading = "first reading: rates start with the next"

// observeMeta is the interval's metadata, or its error when the request outlasts the deadline.
func (p *Probe) observeMeta(ctx context.Context, deadline time.Time) *MetaSample {
	m, done := p.metaPending.poll(ctx, deadline, func() *MetaSample {
		c, cancel := context.WithTimeout(ctx, p.cfg.ScrapeTimeout)
		defer cancel()
		return p.meta.read(c)
	})
	if !done {
		return &MetaSample{Controller: -1, Err: fmt.Sprintf("metadata request still running after %v", time.Since(p.metaPending.started).Round(time.Millisecond))}
	}
	return m
}

func missingBroker(err string) *BrokerSample {
	b := diffBroker(emptyReading, emptyReading, 1)
	b.Err = err
	return b
}

type scrapeResult struct {
	r   *brokerReading
	err error
}

// pending runs one job at a time. Each observation waits for it until a deadline; a slower
// job keeps running and hands its result to a later observation, so a broker that answers in
// 1.2 s costs one interval's values, not all of them.
type pending[T any] struct {
	ch      chan T
	started time.Time
}

func (f *pending[T]) poll(ctx context.Context, deadline time.Time, job func() T) (T, bool) {
	if f.ch == nil {
		ch := make(chan T, 1)
		f.ch, f.started = ch, time.Now()
		go func() { ch <- job() }()
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case v := <-f.ch:
		f.ch = nil
		return v, true
	case <-t.C:
	case <-ctx.Done():
	}
	var zero T
	return zero, false
}

// emptyReading has every value missing; diffing it with itself gives an all-missing sample.
var emptyReading = func() *brokerReading {
	r := &brokerReading{}
	for i := range r.v {
		r.v[i] = Missing
	}
	return r
}()

// Snapshot returns a copy of the samples so far (for a live progress line); the spilled ones
// are shared, read back from the same file.
func (p *Probe) Snapshot() *Series {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.series
	s.Samples = slices.Clone(p.series.Samples)
	return &s
}

// Take returns the samples observed since the last Take (every sample, the first time) and
// forgets them. A caller that summarises as it goes, as watch does for as long as it runs, keeps
// the probe's memory to the samples of one of its intervals; Snapshot and Stop then hold only
// the samples not yet taken.
func (p *Probe) Take() *Series {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.series
	p.series.Samples, p.series.spilled = nil, spilled{} // the next spill opens a file of its own
	return &s
}

// Stop ends the observations and returns all samples. It may be called more than once.
func (p *Probe) Stop() *Series {
	p.stop.Do(func() {
		p.cancel()
		<-p.done // an observation under way is dropped, not half-recorded
		p.close()
	})
	return p.Snapshot()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// openLinks opens the netlink sockets when the host is observed: the probe's own namespace
// (its interfaces' qdiscs, HostSample.Qdiscs) and each broker link's. Without a socket in its
// own namespace the probe notes it and goes on; a link's namespace that cannot be opened is an
// error, as its figures were asked for.
func (p *Probe) openLinks() error {
	if p.host == nil {
		return nil
	}
	r, err := openLinks(p.cfg.Links)
	switch {
	case errors.Is(err, ErrConfig):
		return err
	case err != nil && len(p.cfg.Links) > 0:
		return err
	case err != nil:
		p.series.Notes = append(p.series.Notes, "no qdisc observations: "+err.Error())
		return nil
	}
	p.links = r
	return nil
}

// observeLinks reads the qdiscs into the interval's host sample.
func (p *Probe) observeLinks(h *HostSample) {
	if p.links == nil {
		return
	}
	cur := p.links.read(time.Now())
	h.Links = diffLinks(p.cfg.Links, p.linkPrev, cur)
	h.Qdiscs = diffHostQdiscs(p.cfg.Links, p.linkPrev, cur)
	h.Errs = append(h.Errs, cur.Errs...)
	p.linkPrev = cur
}

// close releases the Kafka client and the netlink sockets.
func (p *Probe) close() {
	p.cl.Close()
	if p.links != nil {
		p.links.close()
	}
}
