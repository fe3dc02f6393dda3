// Package launch writes what a launcher needs to start a run's N workers (docs/workers.md,
// "Launching workers"): a Kubernetes Indexed Job built from Kubernetes' own API types, and the
// same workers as plain shell lines for ssh or systemd.
//
// A Spec names the run, N, the image, the target the workers reach (the flags `plimsoll run`
// takes: --bootstrap, --tls, --tls-ca, --tls-cert, --tls-key, --sasl-mechanism, --sasl-user,
// --sasl-password-env), the Kubernetes Secret holding that target's secrets, each worker's
// resources and the run's expected duration. Validate refuses a bad Spec naming the field and
// the fix. Job builds the batch/v1 Job (completion mode Indexed, parallelism and completions N,
// backoff limit 0, restart policy Never, an active deadline of the run's duration plus a
// margin, so that no worker outlives its run); Manifest writes it as YAML. Lines writes one
// shell line per index.
//
// Both follow one worker command line, the contract `plimsoll worker` is to implement (Args):
//
//	plimsoll worker --run-id ID [--index I] --bootstrap HOST:PORT,... [target flags]
//
// In the Job, --index is left out: the worker takes its index from JOB_COMPLETION_INDEX, which
// Kubernetes sets in each pod of an Indexed Job. Secrets never appear in what this package
// writes: the Job mounts the TLS files from the named Secret and passes the SASL password as
// an environment variable read from it; a shell line names only the variable holding the
// password.
//
// Only this package and the command that prints its output import Kubernetes' modules.
package launch
