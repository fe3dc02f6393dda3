//go:build !integration

package main

import (
	"strings"
	"testing"
)

// TestRunTopicPrefixRule: run checks --topic-prefix with the one prefix rule
// (topics.CheckPrefix) before it contacts any cluster. "a-" and a 201-character prefix passed
// the flag check run had of its own and failed only inside the load generator; "abc" was
// refused here and accepted there. (--bootstrap names a closed port, in case a prefix ever got
// through: the run then fails to connect rather than start a local cluster.)
func TestRunTopicPrefixRule(t *testing.T) {
	for _, prefix := range []string{"a-", "abc", "plimsoll_x", strings.Repeat("a", 200) + "-", "a b-"} {
		_, stderr, code := runCLI(t, "run", "--bootstrap", "127.0.0.1:1", "--topic-prefix", prefix)
		if code != ExitUsage || !strings.Contains(stderr, "--topic-prefix: invalid topic prefix") {
			t.Errorf("--topic-prefix %q: exit %d, stderr %q; want exit %d naming the rule", prefix, code, stderr, ExitUsage)
		}
	}
}
