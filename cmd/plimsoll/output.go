package main

// --json and --quiet: one meaning on every command that opts in with addOutputFlags.
//
//   --json   stdout holds the command's result as one JSON document and nothing else; what a
//            person reads besides (progress, notes, warnings) goes to stderr.
//   --quiet  stdout holds nothing; stderr holds errors and the lines that begin "warning:" or
//            "note:" (a result that may mislead, a former flag name a script should drop), never
//            progress. The exit code carries the verdict, --out the files.
//
// Both together: the JSON on stdout, stderr as quiet.

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// outputMode is a command's --json and --quiet.
type outputMode struct {
	json, quiet bool
}

// outputAnnotation marks a command that takes --json and --quiet (TestOutputFlags lists them).
const outputAnnotation = "plimsoll_output"

// addOutputFlags gives cmd --json (printing shape, e.g. "result.json's schema (README)") and
// --quiet, and makes its stdout and stderr follow them once its flags are parsed: the command
// keeps writing to cmd.OutOrStdout() and cmd.ErrOrStderr(). It takes cmd's PreRun.
func addOutputFlags(cmd *cobra.Command, shape string) *outputMode {
	o := &outputMode{}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the result as JSON on stdout, nothing else there: "+shape)
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on stdout, and on stderr only errors, warnings and notes (no progress); the exit code says how it went")
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[outputAnnotation] = shape
	cmd.PreRun = func(c *cobra.Command, _ []string) { o.apply(c) }
	return o
}

// apply points the command's stdout and stderr at what the flags allow.
func (o *outputMode) apply(c *cobra.Command) {
	if !o.quiet {
		return
	}
	if !o.json {
		c.SetOut(io.Discard)
	}
	c.SetErr(&quietWriter{w: c.ErrOrStderr()})
}

// printJSON writes v as the command's indented JSON document, whole or not at all.
func printJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// quietWriter passes on the lines that begin with "warning:" or "note:" and drops the rest.
// A line is judged when its newline arrives; a carriage return starts it again.
type quietWriter struct {
	w    io.Writer
	line []byte
}

func (q *quietWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\r' {
			q.line = q.line[:0]
			continue
		}
		q.line = append(q.line, c)
		if c != '\n' {
			continue
		}
		if bytes.HasPrefix(q.line, []byte("warning:")) || bytes.HasPrefix(q.line, []byte("note:")) {
			if _, err := q.w.Write(q.line); err != nil {
				return 0, err
			}
		}
		q.line = q.line[:0]
	}
	return len(p), nil
}
