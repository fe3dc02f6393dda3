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
		var om *outputMode
		cmd := &cobra.Command{
			Use:     "version",
			Short:   "Print plimsoll's version",
			Example: "  plimsoll version\n  plimsoll version --json",
			Args:    cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if om.json {
					return printJSON(cmd.OutOrStdout(), versionInfo())
				}
				fmt.Fprintf(cmd.OutOrStdout(), "plimsoll %s\n", versionString())
				return nil
			},
		}
		om = addOutputFlags(cmd, `{"version", "go", "os", "arch"}`)
		return cmd
	})
}

// buildInfo is `plimsoll version --json`.
type buildInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func versionInfo() buildInfo {
	return buildInfo{Version: plimsollVersion(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// plimsollVersion is the version set at build time, else the module's, else "dev".
func plimsollVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

// versionString is plimsoll's version and what it was built with, for `version` and --version.
func versionString() string {
	v := versionInfo()
	return fmt.Sprintf("%s (%s, %s/%s)", v.Version, v.Go, v.OS, v.Arch)
}
