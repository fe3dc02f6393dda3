package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
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

func TestRunFlags(t *testing.T) {
	got := strings.Join(runFlags(localkafka.ListenerStatus{Name: "SASL_SSL", Bootstrap: "h:1,h:2", CAFile: "/d/ca.pem",
		SASLUser: "bench", SASLMechanisms: localkafka.SASLMechanisms}), " ")
	if want := "--bootstrap h:1,h:2 --tls-ca /d/ca.pem --sasl-mechanism scram-sha-512 --sasl-user bench"; got != want {
		t.Errorf("runFlags = %q, want %q", got, want)
	}
	got = strings.Join(runFlags(localkafka.ListenerStatus{Name: "SSL", Bootstrap: "h:1", CAFile: "/d/ca.pem", ClientCert: "/d/c.pem", ClientKey: "/d/k.pem"}), " ")
	if want := "--bootstrap h:1 --tls-ca /d/ca.pem --tls-cert /d/c.pem --tls-key /d/k.pem"; got != want {
		t.Errorf("runFlags = %q, want %q", got, want)
	}
}
