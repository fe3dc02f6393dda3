package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// limit --json's document carries the search's boundaries and recommendation as stored, and
// verdict counts that add up to its trials.
func TestSearchJSON(t *testing.T) {
	sf, err := results.LoadSearch("../limit/testdata/search.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := SearchJSON(&b, sf, "out/index.html"); err != nil {
		t.Fatal(err)
	}
	var d SearchDoc
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != SearchSchema || d.Page != "out/index.html" || d.Trials != len(sf.Trials) || d.Trials == 0 ||
		d.OK+d.Overloaded+d.Invalid != d.Trials || d.OK == 0 || d.Overloaded == 0 || d.Invalid == 0 {
		t.Errorf("schema %q, page %q, trials %d (ok %d, overloaded %d, invalid %d), want %d trials of each verdict",
			d.Schema, d.Page, d.Trials, d.OK, d.Overloaded, d.Invalid, len(sf.Trials))
	}
	if len(d.Boundaries) != len(sf.Points) || len(d.Boundaries) != 2 || d.Boundaries[1].Size != 1000 ||
		(d.Recommendation == nil) != (sf.Recommendation == nil) {
		t.Errorf("boundaries %+v, recommendation %v; want the search's two and its recommendation", d.Boundaries, d.Recommendation)
	}
}
