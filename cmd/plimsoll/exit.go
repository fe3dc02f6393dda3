package main

import "fmt"

// Exit codes, documented in the README. A failed verdict has its own code (k6 style), distinct
// from a usage error and from a failure of plimsoll itself.
const (
	ExitOK         = 0   // success
	ExitError      = 1   // plimsoll or the cluster failed (I/O, broker did not start, ...)
	ExitUsage      = 2   // bad input: flags, files, values; nothing was changed
	ExitOverloaded = 3   // the run finished but its verdict was "overloaded"
	ExitInvalid    = 4   // the run finished but its verdict was "invalid" (e.g. client-bound)
	ExitSlower     = 5   // compare found B significantly and practically slower than A
	ExitSIGINT     = 130 // interrupted by SIGINT (Ctrl-C): finished work kept, the run's topics deleted
	ExitSIGTERM    = 143 // interrupted by SIGTERM: the same
)

// cliError carries an exit code and an optional hint to main.
type cliError struct {
	code   int
	err    error
	hint   string
	silent bool // already reported to the user
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usageErr marks err as bad input (exit code 2).
func usageErr(err error) error { return &cliError{code: ExitUsage, err: err} }

// usageErrf formats a bad-input error (exit code 2).
func usageErrf(format string, args ...any) error {
	return &cliError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// withHint wraps err as a runtime failure (exit code 1) with a hint naming the fix.
func withHint(err error, hint string) error {
	return &cliError{code: ExitError, err: err, hint: hint}
}
