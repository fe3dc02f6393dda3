package launch

import (
	"strconv"
	"strings"
)

// The worker's command line, the contract `plimsoll worker` is to implement. Its inputs are
// those of fleet.Join: the run id and the index given here, the version the worker's own
// binary, the host its host name.
const (
	// Command is the program every shell line and the Job's container run.
	Command = "plimsoll"
	// Subcommand starts a worker.
	Subcommand = "worker"
	// FlagRunID gives the run the worker joins: the id the coordinator printed.
	FlagRunID = "--run-id"
	// FlagSearch, instead of FlagRunID, gives the limit search the worker follows: the search
	// id the coordinator printed; the worker joins each of the search's trials in turn.
	FlagSearch = "--search"
	// FlagIndex gives the worker's index i of N, from 0. Without it, the worker takes IndexEnv.
	FlagIndex = "--index"
	// IndexEnv is where a worker started without FlagIndex finds its index: Kubernetes sets it
	// in each pod of an Indexed Job. With neither, the worker is to refuse to start.
	IndexEnv = "JOB_COMPLETION_INDEX"
)

// Keys of the Kubernetes Secret (Spec.Secret) the Job reads, as Kubernetes' TLS Secrets name
// the certificate and its key.
const (
	SecretCA       = "ca.crt"        // the CA's PEM file (--tls-ca)
	SecretCert     = "tls.crt"       // the client certificate's PEM file (--tls-cert)
	SecretKey      = "tls.key"       // the client key's PEM file (--tls-key)
	SecretPassword = "sasl-password" // the SASL password
)

// MountDir is where the Job mounts the Secret's TLS files in each worker's container.
const MountDir = "/etc/plimsoll/target"

// files are the TLS files' paths a worker is given.
type files struct{ ca, cert, key string }

// hostFiles are the TLS files at the paths the target names, on each worker's host.
func (t Target) hostFiles() files { return files{ca: t.CAFile, cert: t.CertFile, key: t.KeyFile} }

// mountedFiles are the TLS files the target uses, at their paths in the Job's mount.
func (t Target) mountedFiles() files {
	var f files
	if t.CAFile != "" {
		f.ca = MountDir + "/" + SecretCA
	}
	if t.CertFile != "" {
		f.cert, f.key = MountDir+"/"+SecretCert, MountDir+"/"+SecretKey
	}
	return f
}

// Args is worker index's command line after the program name, its TLS files at the paths the
// target names: what a launcher on the worker's host runs.
func Args(runID string, index int, t Target) []string {
	return args(FlagRunID, runID, strconv.Itoa(index), t, t.hostFiles())
}

// args is a worker's command line after the program name, the run (or search) given by
// idFlag; an empty index is left out (the worker reads IndexEnv).
func args(idFlag, id, index string, t Target, f files) []string {
	a := []string{Subcommand, idFlag, id}
	if index != "" {
		a = append(a, FlagIndex, index)
	}
	a = append(a, "--bootstrap", t.Bootstrap)
	if t.usesTLS() {
		a = append(a, "--tls")
	}
	for _, o := range []struct{ flag, path string }{{"--tls-ca", f.ca}, {"--tls-cert", f.cert}, {"--tls-key", f.key}} {
		if o.path != "" {
			a = append(a, o.flag, o.path)
		}
	}
	if t.SASLMechanism != "" {
		a = append(a, "--sasl-mechanism", t.SASLMechanism, "--sasl-user", t.SASLUser, "--sasl-password-env", t.passwordEnv())
	}
	return a
}

// Lines is one shell line per worker, index 0 to N-1, each running Command with Args. A line
// holds no secret: the SASL password is read from the variable the line names, which the
// host's shell or unit must set.
func Lines(s Spec) ([]string, error) {
	if err := s.validateLines(); err != nil {
		return nil, err
	}
	out := make([]string, s.Workers)
	for i := range out {
		out[i] = shellLine(append([]string{Command}, args(s.idFlag(), s.RunID, strconv.Itoa(i), s.Target, s.Target.hostFiles())...))
	}
	return out, nil
}

// shellLine joins words into one line a POSIX shell splits back into the same words.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// quote is w as one shell word: unchanged when every character is one no POSIX shell treats
// specially, otherwise in single quotes, inside which only a single quote needs care (it
// closes the quotes, is escaped, and reopens them).
func quote(w string) string {
	if w != "" && strings.IndexFunc(w, special) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// special reports whether r needs quoting in a shell word.
func special(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./_-", r)
}
