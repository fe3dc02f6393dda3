package arms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/units"
)

// SASLUser is the user an arm with sasl= connects as; its password is made per cluster.
const SASLUser = "plimsoll-ab"

// Java is the java binary the arm's brokers run on: JDK/bin/java, or "java" on PATH. A jdk=
// that names the java binary itself is taken as it is.
func (a Arm) Java() string {
	if a.JDK == "" {
		return "java"
	}
	if fi, err := os.Stat(a.JDK); err == nil && !fi.IsDir() {
		return a.JDK
	}
	return filepath.Join(a.JDK, "bin", "java")
}

// KafkaVersion is the arm's Kafka release, localkafka's default when it sets none.
func (a Arm) KafkaVersion() string {
	if a.Kafka == "" {
		return localkafka.DefaultKafkaVersion
	}
	return a.Kafka
}

// Check verifies, before any cluster starts, that the arm's values can be used: Maven resolves
// its Kafka release (the first time per version this downloads the jars), its JDK's java runs
// and is new enough for that release, and the cluster options it makes are valid. Errors name
// the flag, the entry and the fix.
func (a Arm) Check(ctx context.Context, flag string) error {
	v := a.KafkaVersion()
	if _, err := localkafka.CheckJava(a.Java(), v); err != nil {
		entry := "jdk=" + a.JDK
		if a.JDK == "" {
			entry = "kafka=" + v
		}
		return &Error{flag, entry, fmt.Sprintf("%v; give jdk=HOME of a JDK that runs Kafka %s (this machine's are under /usr/lib/jvm)", err, v)}
	}
	if _, err := localkafka.Resolve(ctx, v); err != nil {
		if errors.Is(err, localkafka.ErrNoSuchKafka) {
			return &Error{flag, "kafka=" + v, fmt.Sprintf("%s (Maven's full output: plimsoll cluster up --kafka-version %s)", firstLine(err.Error()), v)}
		}
		return fmt.Errorf("%s: resolving Kafka %s: %w", flag, v, err)
	}
	if a.NIC > 0 {
		if err := localkafka.CheckNIC(); err != nil {
			return &Error{flag, "nic=" + strings.ReplaceAll(units.FormatBits(a.NIC), " ", ""), err.Error() + "; run as root with iproute2, or leave out nic="}
		}
	}
	o := a.ClusterOptions(os.TempDir(), "check-only")
	if err := o.Validate(); err != nil {
		return &Error{flag, a.String(), err.Error()}
	}
	return nil
}

// ClusterOptions are the options of the arm's local cluster in dir. password is the SASL
// user's password when the arm has sasl= (ignored otherwise).
func (a Arm) ClusterOptions(dir, password string) localkafka.Options {
	o := localkafka.Options{Dir: dir, KafkaVersion: a.Kafka, Java: a.Java(), Brokers: a.Brokers, Heap: a.Heap, NIC: a.NIC}
	if len(a.Broker) > 0 {
		o.ExtraConfig = map[string]string{}
		for k, v := range a.Broker {
			o.ExtraConfig[k] = v
		}
	}
	o.Security.TLS = a.Listener == "ssl"
	if a.SASL != "" {
		o.Security.SASLUser, o.Security.SASLPassword = SASLUser, password
	}
	return o
}

// ListenerName is the local cluster's listener the arm's clients use (localkafka's names):
// "" for PLAINTEXT.
func (a Arm) ListenerName() string {
	switch {
	case a.Listener == "ssl" && a.SASL != "":
		return localkafka.ListenerSASLSSL
	case a.Listener == "ssl":
		return localkafka.ListenerSSL
	case a.SASL != "":
		return localkafka.ListenerSASLPlain
	}
	return ""
}

// ClientArgs are the flags of `plimsoll run` (limit: true for `plimsoll limit`) that give the
// arm's client side: its producer and consumer properties and its message size. They go after
// the command's own flags, so the arm's values win.
func (a Arm) ClientArgs(limit bool) []string {
	var args []string
	for _, p := range []struct {
		flag string
		m    map[string]string
	}{{"--producer-prop", a.Producer}, {"--consumer-prop", a.Consumer}} {
		for _, k := range sortedKeys(p.m) {
			args = append(args, p.flag, k+"="+p.m[k])
		}
	}
	if a.MessageSize > 0 {
		flag := "--message-size"
		if limit {
			flag = "--message-sizes"
		}
		args = append(args, flag, strconv.Itoa(a.MessageSize))
	}
	return args
}

// firstLine is msg up to its first line break or terminal escape (Maven's coloured output).
func firstLine(msg string) string {
	if i := strings.IndexAny(msg, "\n\x1b"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimRight(msg, ": ")
}
