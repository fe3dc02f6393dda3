package main

// Shell completion (plimsoll completion bash|zsh|fish, cobra's): the values of flags that take
// one of a fixed list, Kafka property names and their enum values, files and directories.

import (
	"strings"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fixedChoices are the values of flags that take one of a list.
var fixedChoices = map[string][]string{
	"keys":           {"none", "round-robin", "random"},
	"payload":        {"random", "random:", "text", "file:"},
	"sasl-mechanism": {"plain", "scram-sha-256", "scram-sha-512"},
	"record-format":  {"v0", "v1", "v2"},
}

// propRoles are the flags that take KEY=VALUE Kafka properties, and whose properties.
var propRoles = map[string]kafkaprops.Role{"producer-prop": kafkaprops.RoleProducer, "consumer-prop": kafkaprops.RoleConsumer,
	"common-prop": kafkaprops.RoleCommon, "topic-config": kafkaprops.RoleTopic}

// fileFlags complete to files with these extensions (none: any file); dirFlags to directories.
var (
	fileFlags = map[string][]string{"workload": {"yaml", "yml"}, "driver": {"yaml", "yml"}, "file": {"yaml", "yml"},
		"producer.config": {"properties"}, "consumer.config": {"properties"}, "tls-ca": {"pem"}, "tls-cert": {"pem"}, "tls-key": {"pem"}}
	dirFlags = map[string]bool{"out": true, "cluster-dir": true, "against": true, "calibration": true}
)

// registerCompletions gives every flag of c and its subcommands that has known values their
// completion; each flag where it is defined (a persistent flag on its own command).
func registerCompletions(c *cobra.Command) {
	own := func(f *pflag.Flag) {
		switch {
		case fixedChoices[f.Name] != nil:
			_ = c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(fixedChoices[f.Name], cobra.ShellCompDirectiveNoFileComp))
		case propRoles[f.Name] != 0:
			_ = c.RegisterFlagCompletionFunc(f.Name, propCompletion(propRoles[f.Name]))
		case fileFlags[f.Name] != nil:
			_ = c.MarkFlagFilename(f.Name, fileFlags[f.Name]...)
		case dirFlags[f.Name]:
			_ = c.MarkFlagDirname(f.Name)
		}
	}
	c.LocalNonPersistentFlags().VisitAll(own)
	c.PersistentFlags().VisitAll(own)
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// propCompletion completes a Kafka property of role: its name and "=", then, for a property
// with a fixed set of values (compression.type, acks), NAME=VALUE.
func propCompletion(role kafkaprops.Role) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		name, _, valued := strings.Cut(toComplete, "=")
		for _, d := range kafkaprops.Defs(role) {
			switch {
			case !valued && strings.HasPrefix(d.Name, name):
				out = append(out, cobra.CompletionWithDesc(d.Name+"=", d.Doc))
			case valued && d.Name == name:
				for _, v := range d.Values {
					out = append(out, d.Name+"="+v)
				}
			}
		}
		if valued {
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}
