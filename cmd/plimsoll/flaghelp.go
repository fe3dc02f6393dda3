package main

// Flag help: each flag's placeholder and the groups run's and limit's flags are listed in.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagArgs is the placeholder each flag shows in help (--rate RATE), where its Go type
// ("string", "float") would say nothing of what to write.
var flagArgs = map[string]string{
	// the workload (workload.Fields) and its files
	"workload": "FILE", "driver": "FILE", "name": "NAME", "topics": "N", "partitions": "N",
	"replication-factor": "N", "min-insync-replicas": "N", "producers": "N", "rate": "MSGS/S",
	"message-size": "BYTES", "payload": "KIND", "keys": "MODE", "key-count": "N", "consumer-groups": "N",
	"consumers-per-group": "N", "duration": "DURATION", "warmup": "DURATION", "backlog": "BYTES",
	"backlog-drain-ratio": "FRACTION", "producer-prop": "KEY=VALUE", "consumer-prop": "KEY=VALUE",
	"common-prop": "KEY=VALUE", "topic-config": "KEY=VALUE", "producer.config": "FILE", "consumer.config": "FILE",
	// the target
	"bootstrap": "HOST:PORT,...", "tls-ca": "FILE", "tls-cert": "FILE", "tls-key": "FILE",
	"sasl-mechanism": "MECHANISM", "sasl-user": "USER", "sasl-password-env": "VAR", "metrics-url": "ID=URL",
	"cluster-dir": "DIR", "nic": "RATE", "disk-write": "RATE", "disk-read": "RATE",
	// the criteria
	"min-achieved": "FRACTION", "max-lag-growth": "FRACTION", "min-replicated": "FRACTION", "slo-p99": "DURATION", "slo-p99-ms": "MS",
	"min-handler-idle": "FRACTION", "max-isr-share": "FRACTION", "client-max-schedule-delay": "DURATION", "client-max-schedule-delay-ms": "MS",
	"client-max-cpu": "FRACTION", "client-max-late": "DURATION", "client-max-late-ms": "MS", "client-starved-wait": "SECONDS",
	"client-min-wait": "SECONDS", "client-sched-p99": "DURATION", "client-sched-p99-ms": "MS", "max-buffer-full-share": "FRACTION",
	"host-busy": "FRACTION", "host-ours-share": "FRACTION", "host-squeeze-share": "FRACTION", "min-bottleneck-utilisation": "FRACTION",
	"link-drops-per-sec": "N", "link-retrans-per-sec": "N", "client-window-share": "FRACTION",
	"client-full-batch-share": "FRACTION", "fault-max-recovery": "DURATION", "silent-broker": "DURATION", "fault": "SPEC",
	// run, limit, compare, cluster
	"out": "DIR", "topic-prefix": "PREFIX", "tolerance": "FRACTION", "growth": "FACTOR", "min-rate": "MSGS/S", "start-rate": "MSGS/S",
	"max-rate": "MSGS/S", "brokers-down": "N|PERCENT", "threshold": "FRACTION", "alpha": "FRACTION",
	"a": "ARM", "b": "ARM", "kafka-version": "VERSION", "java": "PATH", "heap": "SIZE",
	"broker-config": "KEY=VALUE", "subnet": "CIDR", "dir": "DIR",
	// export
	"format": "FORMAT", "workload-name": "NAME", "driver-name": "NAME",
	// worker
	"run-id": "ID", "image": "IMAGE", "namespace": "NAMESPACE", "secret": "SECRET", "cpu-request": "CPU",
	"cpu-limit": "CPU", "memory-request": "MEMORY", "memory-limit": "MEMORY",
}

// typeArgs names the placeholder of a flag missing from flagArgs by its type.
var typeArgs = map[string]string{"duration": "DURATION", "int": "N", "float64": "NUMBER", "string": "VALUE", "stringArray": "VALUE"}

// placeheld shows arg as its flag's placeholder; everything else is the flag's own value.
type placeheld struct {
	pflag.Value
	arg string
}

func (p placeheld) Type() string { return p.arg }

// typePlaceholders gives every flag of c and its subcommands a placeholder that says what to
// write (RATE, BYTES, DURATION, N, ...), unless the usage names one in backquotes (`DIR`).
func typePlaceholders(c *cobra.Command) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		t := f.Value.Type()
		if t == "bool" {
			return
		}
		if name, _ := pflag.UnquoteUsage(f); name != t && name != typeArgs[t] && name != "float" && name != "strings" {
			return // named in the usage, or a Value whose Type is already a placeholder
		}
		arg, ok := flagArgs[f.Name]
		if !ok {
			if arg, ok = typeArgs[t]; !ok {
				return
			}
		}
		if t == "stringArray" && f.DefValue == "[]" {
			f.DefValue = "" // pflag hides an empty list's default only while it knows the type
		}
		f.Value = placeheld{f.Value, arg}
	})
	for _, sub := range c.Commands() {
		typePlaceholders(sub)
	}
}

// flagGroupKey is the pflag annotation naming a flag's group in help.
const flagGroupKey = "plimsoll_group"

// flagGroups are the help's sections of flags, in order; ungrouped flags follow under "Flags".
var flagGroups = []struct{ id, title string }{
	{"workload", "Workload flags (or --workload FILE)"},
	{"target", "Target flags (where the load goes; without --bootstrap, the local cluster)"},
	{"security", "Security flags (with --bootstrap)"},
	{"criteria", "Criteria flags (the verdict; 0 switches one off)"},
}

// inGroup marks the flags registered on fs until the returned func runs as belonging to group.
func inGroup(fs *pflag.FlagSet, group string) func() {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	return func() {
		fs.VisitAll(func(f *pflag.Flag) {
			if !before[f.Name] {
				_ = fs.SetAnnotation(f.Name, flagGroupKey, []string{group})
			}
		})
	}
}

// groupFlagHelp makes c's help (and its subcommands') list grouped flags under their group's
// title, the rest under "Flags:"; a command without groups reads as cobra's default.
func groupFlagHelp(c *cobra.Command) {
	addTemplateFunc.Do(func() { cobra.AddTemplateFunc("groupedFlagUsages", groupedFlagUsages) })
	const local = "Flags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}"
	c.SetUsageTemplate(strings.Replace(c.UsageTemplate(), local, "{{groupedFlagUsages .LocalFlags | trimTrailingWhitespaces}}", 1))
}

// addTemplateFunc registers the template function once: cobra keeps it in a global map, which
// commands built at the same time (parallel tests) would otherwise write together.
var addTemplateFunc sync.Once

func groupedFlagUsages(fs *pflag.FlagSet) string {
	sets := map[string]*pflag.FlagSet{}
	rest := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.VisitAll(func(f *pflag.Flag) {
		set := rest
		if g := f.Annotations[flagGroupKey]; len(g) > 0 {
			if sets[g[0]] == nil {
				sets[g[0]] = pflag.NewFlagSet(g[0], pflag.ContinueOnError)
			}
			set = sets[g[0]]
		}
		set.AddFlag(f)
	})
	var b strings.Builder
	for _, g := range flagGroups {
		if set := sets[g.id]; set != nil {
			fmt.Fprintf(&b, "%s:\n%s\n", g.title, set.FlagUsages())
		}
	}
	fmt.Fprintf(&b, "Flags:\n%s", rest.FlagUsages())
	return b.String()
}
