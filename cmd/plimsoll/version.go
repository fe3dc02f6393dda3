package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func init() {
	subcommands = append(subcommands, func() *cobra.Command {
		return &cobra.Command{
			Use:     "version",
			Short:   "Print plimsoll's version",
			Example: "  plimsoll version",
			Args:    cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				fmt.Fprintf(cmd.OutOrStdout(), "plimsoll %s\n", versionString())
				return nil
			},
		}
	})
}

// versionString is plimsoll's version and what it was built with, for `version` and --version.
func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("%s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
