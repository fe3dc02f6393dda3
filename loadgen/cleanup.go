package loadgen

import (
	"context"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DeletePrefixed deletes, on the target cluster, the topics and consumer groups an interrupted
// run under prefix left behind (topics.DeletePrefixed), within 20 s, and returns how many of each
// it found.
func DeletePrefixed(ctx context.Context, t target.Target, prefix string) (nTopics, nGroups int, err error) {
	if err := topics.CheckPrefix(prefix); err != nil {
		return 0, 0, err
	}
	opts, err := t.ClientOpts()
	if err != nil {
		return 0, 0, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return topics.DeletePrefixed(tctx, kadm.NewClient(cl), prefix)
}
