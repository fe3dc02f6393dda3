package promexport

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

const dashboardPath = "../docs/grafana/plimsoll.json"

// brokerScrapes are recorded scrapes of real brokers' JMX exporters, configured by
// localkafka/jmx-rules.yaml (the probe's test data).
var brokerScrapes = []string{"scrape-broker1.txt", "scrape-broker2.txt", "scrape-broker3.txt"}

// series maps each series name a source exposes to its label names and the values each took.
type series map[string]map[string]map[string]bool

func (s series) add(name string, lbls map[string]string) {
	if s[name] == nil {
		s[name] = map[string]map[string]bool{}
	}
	for k, v := range lbls {
		if s[name][k] == nil {
			s[name][k] = map[string]bool{}
		}
		s[name][k][v] = true
	}
}

// plimsollSeries are the series names the Exporter's registry serves (a histogram's as
// _bucket, _sum and _count), with their labels.
func plimsollSeries(t *testing.T) series {
	mfs, err := New().reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	s := series{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			lbls := map[string]string{}
			for _, l := range m.Label {
				lbls[l.GetName()] = l.GetValue()
			}
			if m.Histogram == nil {
				s.add(mf.GetName(), lbls)
				continue
			}
			s.add(mf.GetName()+"_sum", lbls)
			s.add(mf.GetName()+"_count", lbls)
			for _, b := range m.Histogram.Bucket {
				lbls["le"] = strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)
				s.add(mf.GetName()+"_bucket", lbls)
			}
		}
	}
	return s
}

// sampleLine is a sample of the text format: the name, then labels or the value.
var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s`)

// brokerSeries are the series names in the recorded broker scrapes, with their labels.
func brokerSeries(t *testing.T) series {
	s := series{}
	for _, name := range brokerScrapes {
		f, err := os.Open(filepath.Join("..", "probe", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m := sampleLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			lbls, err := parser.NewParser(parser.Options{}).ParseMetric(m[1] + m[2])
			if err != nil {
				t.Fatalf("%s: %q: %v", name, sc.Text(), err)
			}
			l := map[string]string{}
			lbls.Range(func(lb labels.Label) {
				if lb.Name != model.MetricNameLabel {
					l[lb.Name] = lb.Value
				}
			})
			s.add(m[1], l)
		}
		f.Close()
	}
	return s
}

// grafanaVars are Grafana's own variables a query may use, with a value to parse.
var grafanaVars = []string{"$__rate_interval", "1m", "$__interval", "15s", "$__range", "30m"}

// dashboardQueries are the PromQL queries of every panel (rows' nested panels included), by
// panel title, with the variables filled in: Grafana's, and the dashboard's own with their
// current values.
func dashboardQueries(t *testing.T) map[string][]string {
	data, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels     []dashPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name    string `json:"name"`
				Current struct {
					Value string `json:"value"`
				} `json:"current"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	vars := slices.Clone(grafanaVars)
	for _, v := range d.Templating.List {
		vars = append(vars, "${"+v.Name+"}", v.Current.Value, "$"+v.Name, v.Current.Value)
	}
	fill := strings.NewReplacer(vars...)
	out := map[string][]string{}
	var walk func([]dashPanel)
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				out[p.Title] = append(out[p.Title], fill.Replace(tg.Expr))
			}
		}
	}
	walk(d.Panels)
	return out
}

type dashPanel struct {
	Type    string      `json:"type"`
	Title   string      `json:"title"`
	Panels  []dashPanel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// TestDashboardQueries: every query of docs/grafana/plimsoll.json parses as PromQL (with the
// dashboard's variables filled in), and every series it selects is one plimsoll's registry
// serves or one the brokers' JMX exporter served in a recorded scrape, with labels and label
// values those series have (job and instance are Prometheus's). The dashboard charts the load
// beside the brokers' bytes in and out, request handler idle, ISR shrinks and
// under-replication.
func TestDashboardQueries(t *testing.T) {
	ours, brokers := plimsollSeries(t), brokerSeries(t)
	used := map[string]bool{}
	p := parser.NewParser(parser.Options{})
	for title, exprs := range dashboardQueries(t) {
		for _, q := range exprs {
			if strings.Contains(q, "$") {
				t.Errorf("panel %q: %q uses a variable the dashboard does not define", title, q)
				continue
			}
			expr, err := p.ParseExpr(q)
			if err != nil {
				t.Errorf("panel %q: %q is not PromQL: %v", title, q, err)
				continue
			}
			parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
				if vs, ok := n.(*parser.VectorSelector); ok {
					used[vs.Name] = true
					checkSelector(t, title, vs, ours, brokers)
				}
				return nil
			})
		}
	}
	for _, name := range []string{"plimsoll_produced_messages_per_second", "plimsoll_target_messages_per_second", "plimsoll_publish_latency_seconds_bucket",
		"plimsoll_end_to_end_latency_seconds_bucket", "plimsoll_schedule_delay_seconds_bucket", "plimsoll_last_verdict", "plimsoll_client_cpu_ratio",
		"kafka_server_brokertopicmetrics_bytesinpersec_total", "kafka_server_brokertopicmetrics_bytesoutpersec_total",
		"kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count", "kafka_server_replicamanager_isrshrinkspersec_total",
		"kafka_server_replicamanager_underreplicatedpartitions"} {
		if !used[name] {
			t.Errorf("the dashboard does not chart %s", name)
		}
	}
}

// checkSelector checks one selector's name, label names and equality values against the
// series of its source.
func checkSelector(t *testing.T, title string, vs *parser.VectorSelector, ours, brokers series) {
	t.Helper()
	src, ok := ours[vs.Name]
	if !ok {
		if src, ok = brokers[vs.Name]; !ok {
			t.Errorf("panel %q: %s is neither a plimsoll metric nor in the recorded broker scrapes", title, vs.Name)
			return
		}
	}
	for _, m := range vs.LabelMatchers {
		if m.Name == model.MetricNameLabel || m.Name == "job" || m.Name == "instance" {
			continue
		}
		values, ok := src[m.Name]
		switch {
		case m.Type == labels.MatchEqual && m.Value == "":
			// absent label: selects the series without it (a broker-wide total)
		case !ok:
			t.Errorf("panel %q: %s has no label %s", title, vs.Name, m.Name)
		case m.Type == labels.MatchEqual && !values[m.Value]:
			t.Errorf("panel %q: %s{%s} never has the value %q (it has %v)", title, vs.Name, m.Name, m.Value, slices.Sorted(mapKeys(values)))
		}
	}
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
