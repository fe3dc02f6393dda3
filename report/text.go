package report

import (
	"bufio"
	"fmt"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"io"
	"strings"
	"unicode/utf8"
)

// textWidth is where Text wraps sentences; tables are as wide as they need.
const textWidth = 100

// Text writes the report of a limit search for a terminal: the answer, the boundary table,
// latency and CPU at the boundary, the trial table, the configuration and notes. Columns are
// fixed-width and aligned (numbers to the right), so the output also diffs well.
func Text(w io.Writer, sf *results.SearchFile) error {
	if err := Validate(sf); err != nil {
		return err
	}
	v := newView(sf)
	pg := textPage(v)
	bw := bufio.NewWriter(w)
	bw.WriteString(pg)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing text: %w", err)
	}
	return nil
}

func textPage(v *view) string {
	tp := &textWriter{}
	pg := tables(v) // the same figures as the HTML
	tp.answer(v)
	tp.boundary(v, pg)
	tp.latency(pg)
	tp.cpu(pg)
	tp.trials(pg)
	tp.kvs("Configuration", v.Config)
	tp.kvs("Environment", pg.Env)
	if len(v.Notes) > 0 {
		tp.heading("Notes")
		for _, n := range v.Notes {
			tp.para("- ", n)
		}
	}
	return tp.b.String()
}

// textWriter builds the text page section by section.
type textWriter struct{ b strings.Builder }

// para writes s wrapped at textWidth, the first line after prefix, the others indented as far.
func (tp *textWriter) para(prefix, s string) {
	for i, l := range wrap(s, textWidth-len(prefix)) {
		if i == 0 {
			tp.b.WriteString(prefix)
		} else {
			tp.b.WriteString(strings.Repeat(" ", len(prefix)))
		}
		tp.b.WriteString(l + "\n")
	}
}

func (tp *textWriter) heading(s string) { tp.b.WriteString("\n" + s + "\n") }

// answer is the title, when and how the results were made, the headline, the recommendation,
// the other sizes and the warnings.
func (tp *textWriter) answer(v *view) {
	tp.b.WriteString(v.Title + "\n")
	meta := "Results of " + when(v.Generated)
	if v.Command != "" {
		meta += " by " + v.Command
	}
	tp.para("", meta)
	tp.b.WriteString("\n")
	tp.para("", v.Headline)
	if v.Recommend != "" {
		tp.para("", v.Recommend)
	}
	if len(v.Others) > 0 {
		tp.b.WriteString("At the other sizes:\n")
		for _, o := range v.Others {
			tp.para("  ", o)
		}
	}
	for _, w := range v.Warnings {
		tp.para("! ", w)
	}
}

func (tp *textWriter) boundary(v *view, pg *page) {
	tp.heading("Boundary")
	if len(pg.Rows) == 0 {
		tp.b.WriteString("No boundary point yet.\n")
		return
	}
	hasModel := len(v.ModelPts) > 0
	bt := &textTable{}
	if pg.HasSLO {
		bt.head("size>", "within SLO msgs/s>", "MB/s>", "SLO missed at>", "ceiling msgs/s>", "overloaded at>")
	} else {
		bt.head("size>", "sustained msgs/s>", "MB/s>", "overloaded at>")
	}
	if hasModel {
		bt.head("model ceiling>", "ceiling/model>")
	}
	if pg.HasSLOFit {
		bt.head("predicted SLO>", "SLO/predicted>")
	}
	bt.head("bottleneck", "trials>", "status")
	var notes []string
	for i, r := range pg.Rows {
		cells := []string{r.Size, r.Safe, r.SafeMB, r.Unsafe}
		if pg.HasSLO {
			cells = append(cells, r.Ceil, r.CeilUnsafe)
		}
		if hasModel {
			cells = append(cells, r.Model, r.Ratio)
		}
		if pg.HasSLOFit {
			cells = append(cells, r.SLOPred, r.SLORatio)
		}
		bt.row(append(cells, r.Bottleneck, fmt.Sprint(r.Trials), r.Status)...)
		if r.Note != "" {
			notes = append(notes, units.Size(v.Points[i].Size)+": "+r.Note)
		}
		if r.ModelNote != "" {
			notes = append(notes, units.Size(v.Points[i].Size)+": the model ceiling "+r.ModelNote)
		}
	}
	bt.write(&tp.b)
	for _, n := range notes {
		tp.para("  * ", n)
	}
}

func (tp *textWriter) latency(pg *page) {
	if len(pg.Latency) == 0 {
		return
	}
	tp.heading("Latency at the boundary (ms, from the intended send time)")
	lt := &textTable{}
	lt.head("size>", "msgs/s>", "latency", "p50>", "p90>", "p99>", "p99.9>", "max>")
	for _, r := range pg.Latency {
		size, rate := r.Size, r.Rate
		if !r.First {
			size, rate = "", ""
		}
		lt.row(size, rate, r.Kind, r.P50, r.P90, r.P99, r.P999, r.Max)
	}
	lt.write(&tp.b)
}

func (tp *textWriter) cpu(pg *page) {
	c := pg.CPU
	if c == nil {
		return
	}
	tp.heading("How the CPU was shared")
	ct := &textTable{}
	ct.head("process")
	for _, col := range c.Columns {
		ct.head(col + ">")
	}
	for _, r := range c.Rows {
		ct.row(append([]string{r.Who}, r.Cells...)...)
	}
	ct.write(&tp.b)
	tp.para("", c.Summary)
}

func (tp *textWriter) trials(pg *page) {
	tp.heading("Trials")
	if len(pg.TrialRows) == 0 {
		tp.b.WriteString("No trial recorded.\n")
		return
	}
	tt := &textTable{}
	tt.head("#>", "size>", "target msgs/s>", "achieved msgs/s>", "MB/s>", "verdict", "pub p99>", "e2e p99>", "bottleneck", "")
	for _, r := range pg.TrialRows {
		tt.row(fmt.Sprint(r.N), r.Size, r.Target, r.Achieved, r.AchievedMB, r.State, r.PubP99, r.E2EP99, r.Bottleneck, r.Mark)
	}
	tt.write(&tp.b)
}

func (tp *textWriter) kvs(title string, rows []kv) {
	if len(rows) == 0 {
		return
	}
	tp.heading(title)
	t := &textTable{}
	for _, e := range rows {
		t.row(e.Key, e.Value)
	}
	t.write(&tp.b)
}

// textTable is a fixed-width table. A header ending in ">" marks a right-aligned column.
type textTable struct {
	heads []string
	right []bool
	rows  [][]string
}

func (t *textTable) head(hs ...string) {
	for _, h := range hs {
		r := strings.HasSuffix(h, ">")
		t.heads = append(t.heads, strings.TrimSuffix(h, ">"))
		t.right = append(t.right, r)
	}
}

func (t *textTable) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *textTable) write(b *strings.Builder) {
	n := len(t.heads)
	for _, r := range t.rows {
		n = max(n, len(r))
	}
	width := make([]int, n)
	all := t.rows
	if len(t.heads) > 0 {
		all = append([][]string{t.heads}, t.rows...)
	}
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range all {
		var line strings.Builder
		for i := 0; i < n; i++ {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// wrap splits s into lines of at most width runes, at spaces (a longer word gets its own line).
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && utf8.RuneCountInString(cur.String())+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
