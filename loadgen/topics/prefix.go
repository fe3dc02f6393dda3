package topics

import (
	"errors"
	"fmt"
	"regexp"
)

// Errors of the topic set-up. Callers can tell them apart with errors.Is.
var (
	// ErrTopicsExist: topics with the run's prefix already exist; the run refuses to produce
	// into topics it did not create.
	ErrTopicsExist = errors.New("topics with the run's prefix already exist")
	// ErrBadPrefix: the topic prefix breaks the prefix rule (CheckPrefix).
	ErrBadPrefix = errors.New("invalid topic prefix")
	// ErrSetup: the cluster did not get ready (topic creation, leaders, group assignment).
	ErrSetup = errors.New("cluster set-up failed")
)

var legalTopic = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// MaxPrefix is the longest prefix allowed: it leaves room for the run's own suffixes under
// Kafka's 249-character limit on topic names.
const MaxPrefix = 200

// CheckPrefix is the prefix rule: every name plimsoll creates, lists or deletes starts with a
// prefix that passes it. A prefix must be at least 3 characters of a legal topic name (letters,
// digits, '.', '_', '-'), at most MaxPrefix long, and end in '-' or '.', so that it closes a
// namespace of its own: "plimsoll-ab-" cannot take in the names of a run "plimsoll-abc-", as
// "plimsoll-ab" would when its names are listed or deleted by prefix. The default is
// "plimsoll-<run id>-".
func CheckPrefix(prefix string) error {
	switch {
	case len(prefix) < 3:
		return fmt.Errorf("%w %q: use at least 3 characters (default plimsoll-<run id>-)", ErrBadPrefix, prefix)
	case !legalTopic.MatchString(prefix):
		return fmt.Errorf("%w %q: a Kafka topic name may only hold letters, digits, '.', '_' and '-'", ErrBadPrefix, prefix)
	case len(prefix) > MaxPrefix:
		return fmt.Errorf("%w %q: longer than %d characters, leaving no room under Kafka's 249-character limit", ErrBadPrefix, prefix, MaxPrefix)
	case prefix[len(prefix)-1] != '-' && prefix[len(prefix)-1] != '.':
		return fmt.Errorf("%w %q: end it with '-' or '.' so that it cannot take in longer names (default plimsoll-<run id>-)", ErrBadPrefix, prefix)
	}
	return nil
}

// TopicNames returns a run's n topic names: prefix + "t" + zero-padded index.
func TopicNames(prefix string, n int) []string {
	w := len(fmt.Sprint(max(n-1, 0)))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%st%0*d", prefix, w, i)
	}
	return out
}

// GroupNames returns a run's n consumer group names: prefix + "g" + index.
func GroupNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%sg%d", prefix, i)
	}
	return out
}
