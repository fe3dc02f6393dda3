package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// searchLines is sf as the lines of a results file.
func searchLines(t testing.TB, sf *results.SearchFile) []byte {
	var b bytes.Buffer
	line := func(kind string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := json.Marshal(results.Record{Kind: kind, Schema: results.Schema, Time: sf.Written.Add(1), Data: data})
		b.Write(append(rec, '\n'))
	}
	line(results.KindSearch, sf.Header)
	for _, tr := range sf.Trials {
		line(results.KindTrial, tr)
	}
	for _, p := range sf.Points {
		line(results.KindBoundary, p)
	}
	if sf.Recommendation != nil {
		line(results.KindRecommendation, sf.Recommendation)
	}
	return b.Bytes()
}

// FuzzSearchFile: any results file that loads and validates renders, as HTML and text, without
// an error or a panic, and no text in it can open a tag (everything a user wrote is
// escaped, in the tables and in the SVG legends alike).
func FuzzSearchFile(f *testing.F) {
	// Small seeds: the mutator works byte by byte, and a whole search is tens of kilobytes.
	f.Add(searchLines(f, remoteSearch()))
	bad := remoteSearch()
	bad.Trials[0].Verdict.Bottleneck = "<script>x</script>"
	bad.Points[0].Ceiling.SafeRate, bad.Points[0].Ceiling.UnsafeRate = 1e12, 1e-300
	f.Add(searchLines(f, bad))
	f.Fuzz(func(t *testing.T, in []byte) {
		path := filepath.Join(t.TempDir(), "results.jsonl")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		sf, err := results.LoadSearch(path)
		if err != nil || Validate(sf) != nil {
			return
		}
		var html, text bytes.Buffer
		if err := WriteHTML(&html, sf); err != nil {
			t.Fatalf("WriteHTML of valid results: %v", err)
		}
		if err := Text(&text, sf); err != nil {
			t.Fatalf("Text of valid results: %v", err)
		}
		if strings.Contains(strings.ToLower(html.String()), "<script") {
			t.Fatal("user text reached the page unescaped")
		}
	})
}
