package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Errors of the transport. Callers tell them apart with errors.Is.
var (
	// ErrMissing: workers did not join before the join deadline.
	ErrMissing = errors.New("workers never joined")
	// ErrRefused: a worker read the plan and refused it (another version: also ErrVersion).
	ErrRefused = errors.New("a worker refused the plan")
	// ErrDuplicate: two workers joined with one index.
	ErrDuplicate = errors.New("two workers with one index")
	// ErrSilent: a worker stopped reporting mid-run; the trial is invalid.
	ErrSilent = errors.New("a worker went silent")
	// ErrLeft: a worker left the run before its end: it said so (interrupted, or its run
	// failed), or its reports ran ahead of the plan (a phase the plan has not reached, a final
	// report before the window's end). The trial is invalid, as with ErrSilent.
	ErrLeft = errors.New("a worker left the run early")
	// ErrNoRun: a worker found no control topic for its run id.
	ErrNoRun = errors.New("no such run")
	// ErrCoordinatorGone: a worker heard nothing from its coordinator for the silence limit,
	// or the coordinator ended the run.
	ErrCoordinatorGone = errors.New("the coordinator is gone")
)

// Lost says whether err is a worker lost mid-run (ErrSilent or ErrLeft): the trial is then
// judged invalid from the seconds merged before it, rather than failed.
func Lost(err error) bool { return errors.Is(err, ErrSilent) || errors.Is(err, ErrLeft) }

// Clock tells the time the transport's deadlines and silences are judged by; tests pass their
// own, so no test waits for a time-out.
type Clock interface{ Now() time.Time }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// WallClock is the clock of real runs.
var WallClock Clock = wallClock{}

// Limits bound every wait of the transport.
type Limits struct {
	// Join: how long the coordinator waits for every worker to join after writing the plan.
	Join time.Duration
	// Silence: a worker with no report for this long (or Lag seconds behind the others), or a
	// coordinator with no heartbeat for this long, is gone.
	Silence time.Duration
	// Lag: a worker whose last report is this many seconds behind another worker's is silent,
	// whatever the clock says.
	Lag int
	// Find: how long a worker waits for its run's control topic to appear.
	Find time.Duration
	// Poll: the longest a single read of a topic waits before the deadlines are checked again.
	Poll time.Duration
	// Beat: how often the coordinator writes a heartbeat to the control topic, from Open to
	// Close (real time: the workers judge its silence on their own clocks).
	Beat time.Duration
}

// limits are l with the plan's silence limit, when it sets one, for silence and for Lag.
func (p Plan) limits(l Limits) Limits {
	if p.Silence > 0 {
		l.Silence = p.Silence
		l.Lag = max(l.Lag, int(p.Silence/time.Second))
	}
	return l
}

// DefaultLimits are the limits of real runs.
var DefaultLimits = Limits{Join: 60 * time.Second, Silence: 5 * time.Second, Lag: 5, Find: 60 * time.Second, Poll: 200 * time.Millisecond, Beat: time.Second}

// Control records carry their kind in the record key.
const (
	keyPlan      = "plan"
	keyHeartbeat = "heartbeat"
	keyEnd       = "end"
)

// poll reads what the client's topic holds within limit: the records, or an error when ctx
// ended or a fetch failed.
func poll(ctx context.Context, cl *kgo.Client, limit time.Duration) ([]*kgo.Record, error) {
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	fs := cl.PollFetches(pctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var errs []error
	fs.EachError(func(topic string, p int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			errs = append(errs, fmt.Errorf("reading %s: %w", topic, err))
		}
	})
	return fs.Records(), errors.Join(errs...)
}

// busMetadataAge is how old kgo may let its view of the topics get before it asks the cluster
// again (kgo.MetadataMinAge), on the clients of a run's and a search's topics. Those topics are
// created moments before others read or write them, and at kgo's default of 5 s a client that
// had looked before a topic existed, or a topic listing answered from kgo's cache, saw it up to
// 5 s late: TestSearchWorkersFollow (followers arriving, workers joining, under a 3 s lead and a
// 10 s join limit) failed 4 runs in 8 so. A refresh is asked for only while a topic is missing.
const busMetadataAge = 250 * time.Millisecond

// busClient is base with the options every client of the bus has, and more.
func busClient(base []kgo.Opt, more ...kgo.Opt) []kgo.Opt {
	return append(append(append([]kgo.Opt{}, base...), kgo.MetadataMinAge(busMetadataAge)), more...)
}

// fromStart is the client options that read topic from its first record, with no group.
func fromStart(base []kgo.Opt, topic string) []kgo.Opt {
	return busClient(base, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
}
