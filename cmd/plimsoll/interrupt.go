package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// caught is the first SIGINT or SIGTERM an interruptible context received; main exits with its
// code (130, 143) whatever the command returned.
var caught atomic.Pointer[os.Signal]

// signalCause is the cause of an interruptible context that a signal ended.
type signalCause struct{ sig os.Signal }

func (c *signalCause) Error() string { return "interrupted by " + signalName(c.sig) }

// interruptible returns a context cancelled by Ctrl-C (SIGINT) or SIGTERM, with the signal as
// its cause. After the first signal plimsoll stops listening, so a second one ends the process
// at once (without the clean-up the first one started).
func interruptible() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			if caught.CompareAndSwap(nil, &sig) {
				fmt.Fprintf(os.Stderr, "\nplimsoll: %s: stopping; what finished is kept and the run's topics and groups are deleted (a second one quits at once, leaving them)\n", signalName(sig))
			}
			cancel(&signalCause{sig})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// interruptedBy returns the signal that ended ctx, or nil when none did.
func interruptedBy(ctx context.Context) os.Signal {
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return sc.sig
	}
	return nil
}

// signalExit is the exit code of a command a signal interrupted: 128 + its number, as shells
// report a process a signal ended.
func signalExit(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return ExitSIGTERM
	}
	return ExitSIGINT
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// interruptedErr words an interruption for main: msg says what was kept, hint how to go on.
func interruptedErr(ctx context.Context, msg, hint string) error {
	code := ExitSIGINT
	if sig := interruptedBy(ctx); sig != nil {
		code = signalExit(sig)
	}
	return &cliError{code: code, err: errors.New(msg), hint: hint}
}
