package limit

import "time"

// ETA estimates how long a search has left. The search is deterministic given its trials'
// outcomes, and Progress.About counts the trials its plan still holds (the current size's
// bracket or bisection bound, a typical count for each size to come); each trial left is taken
// to last as long as the trials run so far did on average, wall clock: warm-up, settling, the
// window and the drain, holds included. Trials reused on resume took no time here and are not
// counted. Feed it every Progress the search reports, in order.
type ETA struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	started time.Time     // when the running trial was reported, zero between trials
	ran     int           // trials timed
	took    time.Duration // their wall time together
}

// Observe takes one progress report: a trial starting, or finished.
func (e *ETA) Observe(p Progress) {
	now := e.now()
	switch {
	case !p.Done:
		e.started = now
	case !p.Reused && !e.started.IsZero():
		e.ran++
		e.took += now.Sub(e.started)
		e.started = time.Time{}
	}
}

// Left is the time the search has left after the trial p reports (finished or running); false
// until a trial has been timed.
func (e *ETA) Left(p Progress) (time.Duration, bool) {
	if e.ran == 0 {
		return 0, false
	}
	mean := e.took / time.Duration(e.ran)
	left := time.Duration(max(p.About-p.Trial, 0)) * mean
	if !p.Done && !e.started.IsZero() {
		left += max(mean-e.now().Sub(e.started), 0) // what the running trial has left
	}
	return left, true
}

func (e *ETA) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}
