package promexport

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// docRow is a row of docs/prometheus.md's metric table: the name and the type.
var docRow = regexp.MustCompile("(?m)^\\| `(plimsoll_[a-z_]+)` \\| (gauge|counter|histogram) \\|")

// TestDocumentedMetrics: docs/prometheus.md lists exactly the metrics the registry serves, with
// their types, and every name follows Prometheus's conventions (a _total counter, a histogram in
// seconds or bytes, no gauge ending in _total).
func TestDocumentedMetrics(t *testing.T) {
	doc, err := os.ReadFile("../docs/prometheus.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for _, m := range docRow.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = m[2]
	}
	e := New()
	if err := e.Register(sampleWatch()); err != nil {
		t.Fatal(err)
	}
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]string{}
	for _, mf := range mfs {
		if name := mf.GetName(); strings.HasPrefix(name, "plimsoll_") {
			served[name] = strings.ToLower(mf.GetType().String())
			checkConvention(t, name, mf.GetType())
		}
	}
	for name, typ := range served {
		if documented[name] != typ {
			t.Errorf("%s is a %s; docs/prometheus.md says %q", name, typ, documented[name])
		}
	}
	for name := range documented {
		if _, ok := served[name]; !ok {
			t.Errorf("docs/prometheus.md lists %s, which the registry does not serve", name)
		}
	}
	if len(served) == 0 {
		t.Fatal("the registry serves no plimsoll_ metric")
	}
}

func checkConvention(t *testing.T, name string, typ dto.MetricType) {
	t.Helper()
	total := strings.HasSuffix(name, "_total")
	switch {
	case typ == dto.MetricType_COUNTER && !total, typ != dto.MetricType_COUNTER && total:
		t.Errorf("%s (%s): only counters, and every counter, end in _total", name, typ)
	case typ == dto.MetricType_HISTOGRAM && !slices.ContainsFunc([]string{"_seconds", "_bytes"}, func(u string) bool { return strings.HasSuffix(name, u) }):
		t.Errorf("%s: a histogram names its base unit", name)
	}
}
