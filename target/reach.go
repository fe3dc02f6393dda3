package target

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrUnreachable is wrapped when the cluster did not answer a metadata request in time.
var ErrUnreachable = errors.New("cannot reach the cluster")

// ReachTimeout bounds Reach and Brokers.
const ReachTimeout = 15 * time.Second

// Brokers asks the cluster for its brokers, within ReachTimeout, and returns how many there
// are. It is the first contact a command makes, before anything is created: a refused login or
// an untrusted certificate comes back as ErrAuth or ErrCertificate (see Explain), anything else
// that kept the cluster from answering as ErrUnreachable; a plaintext bootstrap that answers in
// another protocol (an HTTP server) comes back as ErrNotKafka within seconds.
func (t Target) Brokers(ctx context.Context) (int, error) {
	opts, err := t.ClientOpts()
	if err != nil {
		return 0, err
	}
	if t.TLS == nil && len(t.Bootstrap) > 0 {
		if err := sniff(t.Bootstrap[0]); err != nil {
			return 0, err
		}
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	mctx, cancel := context.WithTimeout(ctx, ReachTimeout)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(mctx)
	if err != nil {
		if ex := t.Explain(err); ex != err {
			return 0, ex
		}
		return 0, fmt.Errorf("%w at %s within %s: %w", ErrUnreachable, strings.Join(t.Bootstrap, ","), ReachTimeout, err)
	}
	return len(md.Brokers), nil
}

// Reach checks that the cluster answers, as Brokers does.
func (t Target) Reach(ctx context.Context) error {
	_, err := t.Brokers(ctx)
	return err
}
