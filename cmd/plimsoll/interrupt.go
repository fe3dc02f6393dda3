package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// signalCause is the cause of an interruptible context that a signal ended.
type signalCause struct{ sig os.Signal }

func (c *signalCause) Error() string { return "interrupted by " + signalName(c.sig) }

// hub is the process's one listener for SIGINT and SIGTERM, from the first interruptible() on.
var hub = newInterrupts(os.Stderr, os.Exit)

var listenOnce sync.Once

// interruptible returns a context cancelled by Ctrl-C (SIGINT) or SIGTERM, with the signal as
// its cause; one made after the first signal is cancelled already. A second signal, or one
// while no interruptible context is live, ends the process at once (without the clean-up the
// first one started) with the signal's exit code and one line naming what that leaves.
func interruptible() (context.Context, context.CancelFunc) {
	listenOnce.Do(hub.listen)
	return hub.context()
}

// interrupts turns signals into cancelled contexts, then into an exit. It keeps listening to
// the end, rather than handing the signals back with signal.Stop: Stop restores what the process
// inherited, and a process started with SIGINT ignored (as a shell without job control starts a
// background command: SigIgn 0x6 in /proc/PID/status) then ignores the second SIGINT, which
// left a scenario's hung clean-up running (issue 17). So one listener for the process, which
// also outlives the nested interruptible contexts of a scenario's steps run in this process.
type interrupts struct {
	mu     sync.Mutex
	caught atomic.Pointer[os.Signal] // the first signal; main exits with its code
	live   map[int]context.CancelCauseFunc
	left   map[int]string // what an unfinished clean-up leaves, by leaving's id
	nextID int
	stderr io.Writer
	exit   func(code int)
}

func newInterrupts(stderr io.Writer, exit func(int)) *interrupts {
	return &interrupts{live: map[int]context.CancelCauseFunc{}, left: map[int]string{}, stderr: stderr, exit: exit}
}

// listen hands every SIGINT and SIGTERM of the process to receive, until the process ends.
func (h *interrupts) listen() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range ch {
			h.receive(sig)
		}
	}()
}

// context is interruptible's context, live until its cancel function is called.
func (h *interrupts) context() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	h.mu.Lock()
	defer h.mu.Unlock()
	if sig := h.caught.Load(); sig != nil {
		cancel(&signalCause{*sig})
		return ctx, func() { cancel(context.Canceled) }
	}
	remove := enter(h, h.live, cancel)
	return ctx, func() {
		remove()
		cancel(context.Canceled)
	}
}

// enter adds v to m (h.live or h.left) under a new id, h.mu held by the caller, and returns the
// function that removes it.
func enter[T any](h *interrupts, m map[int]T, v T) (remove func()) {
	h.nextID++
	id := h.nextID
	m[id] = v
	return func() {
		h.mu.Lock()
		delete(m, id)
		h.mu.Unlock()
	}
}

// receive handles one signal: the first while a context is live cancels every live one; any
// other ends the process.
func (h *interrupts) receive(sig os.Signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.live) == 0 || !h.caught.CompareAndSwap(nil, &sig) {
		fmt.Fprintln(h.stderr, h.quitting(sig))
		h.exit(signalExit(sig))
		return
	}
	fmt.Fprintf(h.stderr, "\nplimsoll: %s: stopping; what finished is kept and the run's topics and groups are deleted (a second one quits at once, leaving them)\n", signalName(sig))
	for _, cancel := range h.live {
		cancel(&signalCause{sig})
	}
}

// quitting is the line printed as a signal ends the process at once.
func (h *interrupts) quitting(sig os.Signal) string {
	line := "plimsoll: " + signalName(sig) + ": quitting at once"
	if h.caught.Load() != nil {
		line = "plimsoll: second " + signalName(sig) + ": quitting at once, without the clean-up the first one started"
	}
	if len(h.left) == 0 {
		return line
	}
	left := slices.Collect(maps.Values(h.left))
	slices.Sort(left)
	return line + "; left behind: " + strings.Join(left, "; ")
}

// leaving notes what the clean-up under way, or to come, would remove (topics under a prefix, a
// cluster it started, and how to remove them by hand); a signal that ends the process at once
// names it. done drops the note once the clean-up has finished.
func (h *interrupts) leaving(what string) (done func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return enter(h, h.left, what)
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
