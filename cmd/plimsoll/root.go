package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// subcommands is filled by init functions in this package, one file per command group, so that
// command files do not need to edit each other.
var subcommands []func() *cobra.Command

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "plimsoll",
		Short: "Measure, model and find the safe load line of an Apache Kafka cluster",
		Long: `plimsoll finds how much load a Kafka cluster can safely take, what gives out first, and
whether a change made it slower. It can start a real local Apache Kafka cluster to try it on.`,
		Example: `  plimsoll model --replication-factor 3 --produce 300MB/s --nic 1Gbit/s   # how many brokers? no cluster needed
  plimsoll cluster up                 # a real 3-broker Kafka 4.1.0 cluster on this machine
  plimsoll run --rate 5000 --message-size 1KiB --duration 60s --out base
  plimsoll limit --out lim1           # the highest load it sustains per message size; lim1/index.html
  plimsoll compare base new           # is new slower than base?
  plimsoll cluster down`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("plimsoll {{.Version}}\n")
	for _, mk := range subcommands {
		root.AddCommand(mk())
	}
	markArgErrorsAsUsage(root)
	noteFormerNames(root)
	registerCompletions(root)
	guardGroups(root)
	typePlaceholders(root)
	groupFlagHelp(root)
	return root
}

// guardGroups makes each command that only groups others (cluster) refuse an unknown
// subcommand with a suggestion and exit 2, as cobra does for the root, instead of printing its
// help and exiting 0; alone, it prints its help.
func guardGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() && !sub.Runnable() {
			sub.Args = unknownSubcommand
			if sub.SuggestionsMinimumDistance <= 0 {
				sub.SuggestionsMinimumDistance = 2 // cobra's default, set only where it suggests itself
			}
			sub.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		guardGroups(sub)
	}
}

func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := fmt.Sprintf("run '%s --help' for the list of commands", cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf("did you mean '%s %s'? (%s)", cmd.CommandPath(), s[0], hint)
	}
	return &cliError{code: ExitUsage, err: fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()), hint: hint}
}

// argsNamed accepts exactly the arguments use names (e.g. "DIR") and, given another number,
// says what they are: what is the sentence after "give", e.g. "a directory written by ...".
func argsNamed(n int, use, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		return fmt.Errorf("%s takes %s, got %d argument(s): give %s, e.g. %s", cmd.CommandPath(), use, len(args), what, strings.TrimSpace(strings.Split(cmd.Example, "\n")[0]))
	}
}

// markArgErrorsAsUsage makes cobra's positional-argument errors exit with ExitUsage, like flag errors.
func markArgErrorsAsUsage(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageErr(err)
			}
			return nil
		}
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	for _, sub := range c.Commands() {
		markArgErrorsAsUsage(sub)
	}
}
