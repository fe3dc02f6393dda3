package offline

import "testing"

func TestExternalRefs(t *testing.T) {
	// The checker itself must catch what it is for, or a page's check proves nothing.
	for _, s := range []string{
		`<img src="https://example.com/x.png">`,
		`<style>@font-face{src:url(https://fonts.example.org/f.ttf)}</style>`,
		`<link rel="stylesheet" href="//cdn.example.net/a.css">`,
		`<svg xmlns="http://www.w3.org/2000/svg"><a xlink:href="http://evil.example.com/">x</a></svg>`,
		`<script>fetch("x")</script>`,
	} {
		if len(ExternalRefs(s)) == 0 {
			t.Errorf("ExternalRefs(%q) found nothing", s)
		}
	}
	ok := `<svg class="chart" viewBox="0 0 1 1"
	xmlns="http://www.w3.org/2000/svg"
	xmlns:xlink="http://www.w3.org/1999/xlink"><text>10 KB</text></svg>`
	if bad := ExternalRefs(ok); len(bad) != 0 {
		t.Errorf("ExternalRefs flags the SVG namespaces: %q", bad)
	}
}
