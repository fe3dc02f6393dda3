package probe

// Text renders the cell as the table does ("mean / max unit", "-" or "(note)"), for other
// renderers such as the HTML report.
func (c Cell) Text() string { return c.text() }
