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

// ErrConfig is wrapped by every error about a Config field.
var ErrConfig = errors.New("invalid probe config")

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
	// as --nic gives it; 0 means unknown (the client host's link speed is read from
	// /sys/class/net when it reports one).
	NICBytesPerSec float64
	// NICByBroker overrides NICBytesPerSec for single brokers (an emulated link shaped slower).
	NICByBroker map[int32]float64
	// DiskWriteBytesPerSec is each broker's disk write capacity (--disk-write); 0 = unknown.
	DiskWriteBytesPerSec float64
	// HandlerPools is how many request-handler pools mark each broker's
	// RequestHandlerAvgIdlePercent meter: 2 on combined broker+controller (KRaft) nodes, 1 on
	// broker-only nodes. 0 means 2 for a local cluster (plimsoll's nodes are combined) and 1
	// otherwise. HandlerPoolsByBroker overrides it per broker id (a local cluster's brokers
	// beyond the third are broker-only nodes: 1).
	HandlerPools         int
	HandlerPoolsByBroker map[int32]int
	// ProcRoot and SysRoot are where /proc and /sys are mounted (for tests). Defaults /proc, /sys.
	ProcRoot string
	SysRoot  string
}

func (c *Config) defaults() error {
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.Interval < 100*time.Millisecond {
		return fmt.Errorf("%w: Interval %v is below 100ms; observe at most ten times a second", ErrConfig, c.Interval)
	}
	if c.ScrapeTimeout == 0 {
		c.ScrapeTimeout = 10 * time.Second
	}
	if c.ScrapeTimeout < c.Interval {
		return fmt.Errorf("%w: ScrapeTimeout %v is shorter than Interval %v; a scrape may span intervals but must be allowed one", ErrConfig, c.ScrapeTimeout, c.Interval)
	}
	if c.NICBytesPerSec < 0 {
		return fmt.Errorf("%w: --nic %v is negative; give a rate such as 1Gbit/s, or leave it out", ErrConfig, c.NICBytesPerSec)
	}
	if c.DiskWriteBytesPerSec < 0 {
		return fmt.Errorf("%w: --disk-write %v is negative; give a rate such as 500MB/s, or leave it out", ErrConfig, c.DiskWriteBytesPerSec)
	}
	if c.HandlerPools < 0 || c.HandlerPools > 2 {
		return fmt.Errorf("%w: HandlerPools %d must be 1 (broker-only nodes) or 2 (combined broker+controller nodes)", ErrConfig, c.HandlerPools)
	}
	if c.HandlerPools == 0 {
		c.HandlerPools = 1
		if c.Target.Local {
			c.HandlerPools = 2
		}
	}
	for id, n := range c.HandlerPoolsByBroker {
		if n < 1 || n > 2 {
			return fmt.Errorf("%w: HandlerPoolsByBroker[%d] = %d must be 1 or 2", ErrConfig, id, n)
		}
	}
	for id, u := range c.Target.MetricsURLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%w: --metrics-url for broker %d is %q; want http://HOST:PORT/metrics", ErrConfig, id, u)
		}
	}
	for id, pid := range c.BrokerPIDs {
		if pid <= 0 {
			return fmt.Errorf("%w: BrokerPIDs[%d] = %d is not a process id", ErrConfig, id, pid)
		}
	}
	if c.ProcRoot == "" {
		c.ProcRoot = "/proc"
	}
	if c.SysRoot == "" {
		c.SysRoot = "/sys"
	}
	return nil
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
	meta     *metaReader
	// metaPending is the metadata request under way, if any.
	metaPending pending[*MetaSample]
	cl          *kgo.Client

	cancel context.CancelFunc
	done   chan struct{}
	stop   sync.Once

	mu     sync.Mutex
	series Series
}

// Start checks the config, takes a first reading of every source (failing when a metrics
// endpoint or the cluster does not answer, so a wrong --metrics-url is caught before a run),
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
	if _, err := os.Stat(cfg.ProcRoot + "/stat"); err == nil {
		p.host = &hostReader{root: cfg.ProcRoot, selfPID: os.Getpid(), brokers: cfg.BrokerPIDs, sched: readSched}
		p.series.NICSpeeds = nicSpeeds(cfg.SysRoot)
	} else {
		p.series.Notes = append(p.series.Notes, "no host observations: "+cfg.ProcRoot+"/stat is not readable (Linux only)")
	}

	// The first reading is the baseline for the first interval's rates; it must succeed for
	// every endpoint, and metadata must answer, or the run would measure nothing.
	bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	first := time.Now()
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range p.scrapers {
		wg.Go(func() {
			r, err := s.scrape(bctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("broker %d: %w", s.id, err))
				return
			}
			p.brPrev[s.id] = r
		})
	}
	wg.Go(func() {
		m := p.meta.read(bctx)
		if m.Err != "" {
			mu.Lock()
			errs = append(errs, fmt.Errorf("%w from %s: %s (check --bootstrap and the TLS/SASL settings)",
				ErrMetadata, strings.Join(cfg.Target.Bootstrap, ","), m.Err))
			mu.Unlock()
		}
	})
	if p.host != nil {
		p.hostPrev = p.host.read(first)
		p.series.Cores = coresOf(p.hostPrev)
	}
	wg.Wait()
	if len(errs) > 0 {
		cl.Close()
		return nil, errors.Join(errs...)
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
			p.mu.Lock()
			p.series.Samples = append(p.series.Samples, s)
			p.mu.Unlock()
			prev = now
		}
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
			res, done := sc.pending.poll(ctx, deadline, func() scrapeResult {
				c, cancel := context.WithTimeout(ctx, p.cfg.ScrapeTimeout)
				defer cancel()
				r, err := sc.scrape(c)
				return scrapeResult{r, err}
			})
			var b *BrokerSample
			switch {
			case !done:
				b = missingBroker(fmt.Sprintf("scrape of %s still running after %v", sc.url, time.Since(sc.pending.started).Round(time.Millisecond)))
			case res.err != nil:
				b = missingBroker(res.err.Error())
			}
			mu.Lock()
			defer mu.Unlock()
			if done && res.err == nil {
				if old := p.brPrev[sc.id]; old != nil {
					b = diffBroker(old, res.r, sc.pools)
				} else {
					b = missingBroker("first reading: rates start with the next")
				}
				p.brPrev[sc.id] = res.r
			}
			s.Brokers[sc.id] = b
		})
	}
	wg.Go(func() {
		m, done := p.metaPending.poll(ctx, deadline, func() *MetaSample {
			c, cancel := context.WithTimeout(ctx, p.cfg.ScrapeTimeout)
			defer cancel()
			return p.meta.read(c)
		})
		if !done {
			m = &MetaSample{Controller: -1, Err: fmt.Sprintf("metadata request still running after %v", time.Since(p.metaPending.started).Round(time.Millisecond))}
		}
		s.Meta = m
	})
	if p.host != nil {
		cur := p.host.read(time.Now())
		s.Host = diffHost(p.hostPrev, cur)
		p.hostPrev = cur
	}
	wg.Wait()
	if ctx.Err() != nil {
		return s, false
	}
	return s, true
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

// Snapshot returns a copy of the samples so far (for a live progress line).
func (p *Probe) Snapshot() *Series {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.series
	s.Samples = slices.Clone(p.series.Samples)
	return &s
}

// Stop ends the observations and returns all samples. It may be called more than once.
func (p *Probe) Stop() *Series {
	p.stop.Do(func() {
		p.cancel()
		<-p.done // an observation under way is dropped, not half-recorded
		p.cl.Close()
	})
	return p.Snapshot()
}
