package probe

import (
	"bytes"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// BenchmarkScrapeParsers compares, on three real scrapes of a Kafka 4.1.0 broker's JMX exporter,
// the reader the probe uses (textparse, readBroker) with the other library the choice was
// between: common/expfmt's TextParser, which builds every metric family before any can be read.
// The hand-written reader these replaced is BenchmarkReadBroker of the commit before them.
func BenchmarkScrapeParsers(b *testing.B) {
	scrapes := [][]byte{readTestdata(b, "scrape-broker1.txt"), readTestdata(b, "scrape-broker2.txt"), readTestdata(b, "scrape-broker3.txt")}
	b.Run("textparse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range scrapes {
				if _, err := readBroker(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("expfmt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range scrapes {
				if _, err := readBrokerExpfmt(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestReadBrokerExpfmt: the expfmt reader of the benchmark reads what readBroker reads.
func TestReadBrokerExpfmt(t *testing.T) {
	for _, name := range []string{"scrape-broker1.txt", "scrape-broker2.txt", "scrape-broker3.txt", "scrape-a.txt"} {
		want, err := readBroker(readTestdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readBrokerExpfmt(readTestdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if got.v != want.v {
			t.Errorf("%s: expfmt read %v, textparse %v", name, got.v, want.v)
		}
	}
}

// readBrokerExpfmt is readBroker with expfmt, for the benchmark only.
func readBrokerExpfmt(text []byte) (*brokerReading, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	r := newBrokerReading()
	for name, m := range brokerMetrics {
		for _, x := range fams[name].GetMetric() {
			if len(x.GetLabel()) == 0 {
				r.v[m] = Num(x.GetCounter().GetValue() + x.GetGauge().GetValue() + x.GetUntyped().GetValue())
			}
		}
	}
	for name, m := range map[string]metric{wireInName: mWireIn, wireOutName: mWireOut} {
		for _, x := range fams[name].GetMetric() {
			r.add(m, x.GetCounter().GetValue()+x.GetUntyped().GetValue())
		}
	}
	for _, x := range fams["jvm_gc_collection_seconds"].GetMetric() { // a summary: _sum folded in
		r.add(mGC, x.GetSummary().GetSampleSum())
	}
	for _, x := range fams[timeName].GetMetric() {
		var req, q string
		for _, l := range x.GetLabel() {
			switch l.GetName() {
			case "request":
				req = l.GetValue()
			case "quantile":
				q = l.GetValue()
			}
		}
		if k := requestTimeSlot(req, q); k >= 0 {
			r.v[mTimeBase+metric(k)] = Num(x.GetGauge().GetValue() + x.GetUntyped().GetValue())
		}
	}
	return r, nil
}
