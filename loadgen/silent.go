package loadgen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// silentWait is how long a broker has to answer an ApiVersions request before it is named as
// silent: a live broker answers in milliseconds, even a busy one well within a second.
const silentWait = 3 * time.Second

// withSilent adds to err the brokers that do not answer at all: a cluster whose metadata still
// lists a paused or hung broker as a leader or a group's coordinator holds a run up until
// plimsoll's own bounds end it, and the bound's message alone would not say why.
func (r *runner) withSilent(ctx context.Context, err error) error {
	silent := silentBrokers(ctx, r.cl)
	if len(silent) == 0 {
		return err
	}
	return fmt.Errorf("%w; %s did not answer within %s (paused, hung or overloaded), though the cluster still lists it: the run cannot go on without it",
		err, silentText(silent), silentWait)
}

// silentText names brokers: "broker 3 (127.0.0.1:9094)", joined by commas.
func silentText(bs []kadm.BrokerDetail) string {
	var names []string
	for _, b := range bs {
		names = append(names, fmt.Sprintf("broker %d (%s:%d)", b.NodeID, b.Host, b.Port))
	}
	return strings.Join(names, ", ")
}

// silentBrokers asks every broker the cluster lists for its API versions, all at once, and
// names those that do not answer within silentWait.
func silentBrokers(ctx context.Context, cl *kgo.Client) []kadm.BrokerDetail {
	if cl == nil {
		return nil
	}
	mctx, cancel := context.WithTimeout(ctx, 2*silentWait)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(mctx)
	if err != nil {
		return nil
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var silent []kadm.BrokerDetail
	for _, b := range md.Brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bctx, cancel := context.WithTimeout(ctx, silentWait)
			defer cancel()
			if _, err := cl.Broker(int(b.NodeID)).Request(bctx, kmsg.NewPtrApiVersionsRequest()); err != nil {
				mu.Lock()
				silent = append(silent, b)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(silent, func(a, b kadm.BrokerDetail) int { return int(a.NodeID - b.NodeID) })
	return silent
}
