package promexport

import (
	"context"
	"sync"
)

// scrapes numbers the scrapes as they begin and remembers the highest one that has ended, so
// that a command can wait, before it exits, for one scrape that began after its last figures.
type scrapes struct {
	mu           sync.Mutex
	begun, ended uint64
	changed      chan struct{} // closed and replaced when a scrape ends
}

func newScrapes() scrapes { return scrapes{changed: make(chan struct{})} }

func (s *scrapes) begin() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begun++
	return s.begun
}

func (s *scrapes) end(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = max(s.ended, n)
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitScrape waits until a scrape that began after the call has been served, or ctx ends; it
// reports whether one was. A command calls it after its last figures (e.g. with a timeout of
// the scrape interval) so that Prometheus gets them before the endpoint goes away.
func (e *Exporter) WaitScrape(ctx context.Context) bool {
	if e == nil {
		return false
	}
	s := &e.scrapes
	s.mu.Lock()
	after := s.begun
	s.mu.Unlock()
	for {
		s.mu.Lock()
		done, changed := s.ended > after, s.changed
		s.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
