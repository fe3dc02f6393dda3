//go:build !integration

package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Bad security options of `cluster up` are refused as bad input before anything starts.
func TestClusterUpSecurityFlags(t *testing.T) {
	t.Setenv("PLIMSOLL_SASL_PASSWORD", "")
	t.Setenv("OTHER_PW", `has"quote`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--sasl-user", "bench"}, "PLIMSOLL_SASL_PASSWORD is empty"},
		{[]string{"--sasl-user", "bench", "--sasl-password-env", "OTHER_PW"}, "password may hold"},
		{[]string{"--tls-client-auth"}, "--tls-client-auth needs --tls"},
		{[]string{"--sasl-user", "b ench", "--sasl-password-env", "PATH"}, "--sasl-user"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		root := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append([]string{"cluster", "up", "--dir", dir}, c.args...))
		err := root.Execute()
		var ce *cliError
		if !errors.As(err, &ce) || ce.code != ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want exit %d mentioning %q", c.args, err, ExitUsage, c.want)
		}
		if _, err := os.Stat(dir + "/cluster.json"); err == nil {
			t.Errorf("%v: a cluster was recorded", c.args)
		}
	}
}
