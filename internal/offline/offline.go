// Package offline checks, for tests, that an HTML page plimsoll writes is self-contained: it
// names nothing a browser would fetch (no URL but the SVG namespace declarations, no script,
// link, image, frame, source or CSS url()). The report's tests and the scenarios' golden tests
// share it, so a page is held to one rule wherever it is rendered.
package offline

import (
	"regexp"
	"strings"
)

var (
	anyURL      = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	allowedURLs = map[string]bool{"http://www.w3.org/2000/svg": true, "http://www.w3.org/1999/xlink": true}
	fetchers    = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|<object|<embed|\bsrc\s*=|\bhref\s*=|url\(|@import`)
)

// ExternalRefs lists what in html would make a browser reach outside the file. The SVG
// namespace declarations name a URL but fetch nothing, so exactly those are allowed.
func ExternalRefs(html string) []string {
	var bad []string
	for _, loc := range anyURL.FindAllStringIndex(html, -1) {
		start := loc[0]
		whole := "" // the namespace URL runs to the closing quote
		if end := strings.IndexByte(html[start:], '"'); end > 0 {
			whole = html[start : start+end]
		}
		before := html[:start]
		if allowedURLs[whole] && (strings.HasSuffix(before, `xmlns="`) || strings.HasSuffix(before, `xmlns:xlink="`)) {
			continue
		}
		bad = append(bad, html[loc[0]:loc[1]])
	}
	return append(bad, fetchers.FindAllString(html, -1)...)
}

// URLs lists every URL in s, allowed or not: for a script, which may name none.
func URLs(s string) []string { return anyURL.FindAllString(s, -1) }
