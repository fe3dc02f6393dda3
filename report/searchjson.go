package report

import (
	"encoding/json"
	"io"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// SearchSchema names the JSON document of `plimsoll limit --json` and `plimsoll report --json`
// on a search's directory.
const SearchSchema = "plimsoll.limit/v1"

// SearchDoc is a limit search's answer for scripts: its settings, its verdict counts, each
// size's boundary and the recommendation, as results.jsonl stores them (schema 2, docs/limit.md);
// the trials themselves stay in results.jsonl.
type SearchDoc struct {
	Schema         string                  `json:"schema"`
	Store          string                  `json:"store"`          // the results.jsonl it was read from
	Page           string                  `json:"page,omitempty"` // index.html, when it was written
	Search         results.Search          `json:"search"`
	Trials         int                     `json:"trials"`
	OK             int                     `json:"ok"`
	Overloaded     int                     `json:"overloaded"`
	Invalid        int                     `json:"invalid"`
	Boundaries     []results.Boundary      `json:"boundaries"`
	Recommendation *results.Recommendation `json:"recommendation"` // null when no size had a safe rate
	Warnings       []string                `json:"warnings,omitempty"`
}

// NewSearchDoc is sf's document; page is the report written beside it, or "".
func NewSearchDoc(sf *results.SearchFile, page string) SearchDoc {
	d := SearchDoc{Schema: SearchSchema, Store: sf.Path, Page: page, Search: sf.Header, Trials: len(sf.Trials),
		Boundaries: sf.Points, Recommendation: sf.Recommendation}
	if d.Boundaries == nil {
		d.Boundaries = []results.Boundary{}
	}
	for _, t := range sf.Trials {
		switch t.Verdict.State {
		case verdict.OK:
			d.OK++
		case verdict.Overloaded:
			d.Overloaded++
		default:
			d.Invalid++
		}
	}
	for _, w := range sf.Warnings {
		d.Warnings = append(d.Warnings, w.String())
	}
	return d
}

// SearchJSON writes sf's document, indented.
func SearchJSON(w io.Writer, sf *results.SearchFile, page string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(NewSearchDoc(sf, page))
}
