package scenario

import (
	"context"
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/localkafka"
)

// clusterSpec is one cluster a partition scenario measures on: a metadata mode and a Kafka
// release, written MODE-VERSION ("kraft-4.1.0", "zookeeper-3.9.1").
type clusterSpec struct {
	Metadata string
	Version  string
}

func (s clusterSpec) String() string { return s.Metadata + "-" + s.Version }

// Label names the spec in a chart: "KRaft 4.1.0", "ZooKeeper 3.9.1".
func (s clusterSpec) Label() string {
	if s.Metadata == localkafka.MetadataZooKeeper {
		return "ZooKeeper " + s.Version
	}
	return "KRaft " + s.Version
}

// parseClusterSpecs reads a comma-separated list of specs (parameter param) and checks each
// against localkafka's rules (no ZooKeeper on Kafka 4), creating nothing.
func parseClusterSpecs(param, v string, brokers int) ([]clusterSpec, error) {
	var out []clusterSpec
	for _, f := range strings.Split(v, ",") {
		mode, version, ok := strings.Cut(strings.TrimSpace(f), "-")
		s := clusterSpec{Metadata: mode, Version: version}
		if !ok || (mode != localkafka.MetadataKRaft && mode != localkafka.MetadataZooKeeper) {
			return nil, fmt.Errorf("--set %s=%s: %q is not MODE-VERSION with MODE kraft or zookeeper, e.g. kraft-4.1.0 or zookeeper-3.9.1", param, v, f)
		}
		o := localkafka.Options{Brokers: brokers, KafkaVersion: version, Metadata: mode}
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("--set %s=%s: %s: %w", param, v, f, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// matches reports whether the running cluster st is of spec s.
func (s clusterSpec) matches(st *localkafka.State) bool {
	return st.Metadata() == s.Metadata && st.KafkaVersion == s.Version
}

// onSpecCluster runs fn on a cluster of spec: env.ClusterDir's when it is of that spec, else one
// started below Out (`plimsoll cluster up --cluster-dir OUT/cluster-SPEC`) and stopped when fn
// returns (onClusterIn).
func onSpecCluster(ctx context.Context, env *Env, spec clusterSpec, upArgs []string, fn func(st *localkafka.State) error) error {
	args := append([]string{"--kafka-version", spec.Version, "--metadata", spec.Metadata}, upArgs...)
	return onClusterIn(ctx, env, "cluster-"+spec.String(), spec.matches, args, fn)
}

// clusterConfig records a cluster in a scenario's configuration, under key's prefix.
func clusterConfig(c map[string]string, key string, st *localkafka.State) {
	c[key+" Kafka version"] = st.KafkaVersion
	c[key+" metadata"] = st.Metadata()
	c[key+" brokers"] = fmt.Sprint(len(st.Brokers))
	c[key+" heap"] = st.Heap
	c[key+" bootstrap"] = st.Bootstrap()
}
