package topics

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// DeletePrefixed deletes the topics and consumer groups whose names start with prefix: what an
// interrupted run under that prefix left behind. The prefix must pass CheckPrefix (it ends in
// '-' or '.', so it cannot match the start of a longer name of another run); every name under it
// is then a name plimsoll gave. It returns how many topics and groups it found.
func DeletePrefixed(ctx context.Context, adm *kadm.Client, prefix string) (topics, groups int, err error) {
	if err := CheckPrefix(prefix); err != nil {
		return 0, 0, err
	}
	ts, err := Prefixed(ctx, adm, prefix)
	if err != nil {
		return 0, 0, err
	}
	gl, err := adm.ListGroups(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("listing groups: %w", err)
	}
	gs := withPrefix(gl.Groups(), prefix)
	return len(ts), len(gs), DeleteOwned(ctx, adm, prefix, ts, gs)
}

// Prefixed lists the topics whose names start with prefix, as the broker asked knows them.
func Prefixed(ctx context.Context, adm *kadm.Client, prefix string) ([]string, error) {
	td, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing topics: %w", err)
	}
	return withPrefix(td.Names(), prefix), nil
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
