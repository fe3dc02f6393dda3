// Command plimsoll measures, models and finds the load limits of an Apache Kafka cluster.
//
// See the README for the commands and their exit codes.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

func main() {
	root := newRootCmd()
	err := root.Execute()
	code := exitCode(err, os.Stderr)
	if sig := hub.caught.Load(); sig != nil {
		code = signalExit(*sig) // whatever path the command took after the signal
	}
	os.Exit(code)
}

// exitCode prints err (with its hint, if any) and maps it to the documented exit code.
func exitCode(err error, w *os.File) int {
	if err == nil {
		return ExitOK
	}
	var ce *cliError
	if errors.As(err, &ce) {
		if !ce.silent {
			fmt.Fprintf(w, "plimsoll: %v\n", ce.err)
			if ce.hint != "" {
				fmt.Fprintf(w, "hint: %s\n", ce.hint)
			}
		}
		return ce.code
	}
	fmt.Fprintf(w, "plimsoll: %v\n", err)
	if strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintln(w, "hint: run 'plimsoll --help' for the list of commands")
		return ExitUsage // cobra reports unknown commands as plain errors
	}
	return ExitError
}
