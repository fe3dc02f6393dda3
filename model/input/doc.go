// Package input reads the inputs of plimsoll's capacity model from command-line flags and from a
// YAML file whose keys are the flag names ("replication-factor: 3", "produce: 300MB/s"), checks
// each value and how they combine, and hands them to package model as its types.
//
// Errors say where the bad value came from ("--produce" or "model.yaml:3: produce") and how to
// fix it; every one wraps ErrInvalid or, for a malformed quantity, units.ErrSyntax.
package input
