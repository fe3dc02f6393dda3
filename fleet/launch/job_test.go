package launch

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/internal/golden"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"
)

// secured is a run of 20 workers against a cluster reached over mutual TLS and SASL.
func secured() Spec {
	return Spec{
		RunID:     "20261127t040000-ab12",
		Workers:   20,
		Image:     "registry.example.com/plimsoll:v1.0.0",
		Namespace: "load",
		Target: Target{
			Bootstrap: "broker1:9093,broker2:9093,broker3:9093",
			CAFile:    "/etc/kafka/ca.pem", CertFile: "/etc/kafka/client.pem", KeyFile: "/etc/kafka/client-key.pem",
			SASLMechanism: "SCRAM-SHA-512", SASLUser: "loadtest",
		},
		Secret:   "kafka-load-client",
		Requests: Resources{CPU: "2", Memory: "2Gi"},
		Limits:   Resources{CPU: "2", Memory: "2Gi"},
		Duration: 40 * time.Minute,
	}
}

// plain is a run of 3 workers against a PLAINTEXT cluster, with no resources given.
func plain() Spec {
	return Spec{
		RunID:    "20261127t040000-cd34",
		Workers:  3,
		Image:    "plimsoll:dev",
		Target:   Target{Bootstrap: "kafka.kafka.svc:9092"},
		Duration: 90 * time.Second,
		Margin:   30 * time.Second,
		TTL:      10 * time.Minute,
	}
}

// strictDecode decodes a manifest as kubectl's server would: through a scheme knowing
// batch/v1, strictly, so an unknown or duplicated field is an error.
func strictDecode(t *testing.T, b []byte) (*batchv1.Job, error) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := batchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	obj, gvk, err := s.Decode(b, nil, nil)
	if err != nil {
		return nil, err
	}
	j, ok := obj.(*batchv1.Job)
	if !ok || gvk.Kind != "Job" || gvk.GroupVersion() != batchv1.SchemeGroupVersion {
		t.Fatalf("decoded a %T of %v, not a batch/v1 Job", obj, gvk)
	}
	return j, nil
}

func TestManifestRoundTrip(t *testing.T) {
	for name, s := range map[string]Spec{"secured": secured(), "plain": plain()} {
		t.Run(name, func(t *testing.T) {
			built, err := Job(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Manifest(s)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".golden.yaml"), b)
			got, err := strictDecode(t, b)
			if err != nil {
				t.Fatalf("strict decoding of the manifest: %v", err)
			}
			if !equality.Semantic.DeepEqual(got, built) {
				t.Fatalf("decoded Job differs from the built one:\n got %+v\nwant %+v", got, built)
			}
			var viaYAML batchv1.Job
			if err := yaml.UnmarshalStrict(b, &viaYAML); err != nil {
				t.Fatalf("yaml.UnmarshalStrict: %v", err)
			}
			again, err := yaml.Marshal(&viaYAML)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("the decoded Job marshals differently:\n%s", again)
			}
		})
	}
}

// TestStrictDecodeRefuses shows the decoder the round trip uses is strict: a misspelt field
// and a duplicated one are errors, not dropped.
func TestStrictDecodeRefuses(t *testing.T) {
	b, err := Manifest(plain())
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"unknown":   strings.Replace(string(b), "  backoffLimit: 0\n", "  backoffLimit: 0\n  backofLimit: 3\n", 1),
		"duplicate": strings.Replace(string(b), "  backoffLimit: 0\n", "  backoffLimit: 0\n  backoffLimit: 3\n", 1),
	} {
		if bad == string(b) {
			t.Fatalf("%s: the manifest has no backoffLimit line to edit", name)
		}
		if _, err := strictDecode(t, []byte(bad)); err == nil {
			t.Errorf("%s field: strict decoding accepted it", name)
		}
	}
}

// TestJobShape checks what the design rests on, beyond the golden file.
func TestJobShape(t *testing.T) {
	j, err := Job(secured())
	if err != nil {
		t.Fatal(err)
	}
	js := j.Spec
	if *js.CompletionMode != batchv1.IndexedCompletion || *js.Completions != 20 || *js.Parallelism != 20 || *js.BackoffLimit != 0 {
		t.Errorf("job spec: mode %s, completions %d, parallelism %d, backoff %d", *js.CompletionMode, *js.Completions, *js.Parallelism, *js.BackoffLimit)
	}
	if want := int64((40*time.Minute + DefaultMargin) / time.Second); *js.ActiveDeadlineSeconds != want {
		t.Errorf("active deadline %d s, want %d (duration and default margin)", *js.ActiveDeadlineSeconds, want)
	}
	c := js.Template.Spec.Containers[0]
	if strings.Contains(strings.Join(c.Args, " "), FlagIndex) {
		t.Errorf("container args %q: the index must come from %s", c.Args, IndexEnv)
	}
	if c.Env[0].Value != "" || c.Env[0].ValueFrom.SecretKeyRef.Name != "kafka-load-client" {
		t.Errorf("password variable %+v: it must come from the Secret", c.Env[0])
	}
	for _, l := range []map[string]string{j.Labels, js.Template.Labels} {
		if l[LabelRunID] != "20261127t040000-ab12" {
			t.Errorf("labels %v: no run id", l)
		}
	}
}

func TestDeadlineRoundsUp(t *testing.T) {
	s := plain()
	s.Duration, s.Margin = 1500*time.Millisecond, time.Millisecond
	if got := s.deadline(); got != 2 {
		t.Errorf("deadline of 1.501 s: %d s, want 2", got)
	}
}
