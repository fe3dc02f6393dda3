package main

import (
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
		Example: `  plimsoll cluster up                 # a real 3-broker Kafka 4.1.0 cluster on this machine
  plimsoll model --brokers 3 --replication-factor 3 --produce 100MB/s --nic 1Gbit/s
  plimsoll cluster down`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, mk := range subcommands {
		root.AddCommand(mk())
	}
	markArgErrorsAsUsage(root)
	return root
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
