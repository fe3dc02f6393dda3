package launch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Labels on the Job and its pods.
const (
	LabelRunID     = "plimsoll/run-id"
	labelName      = "app.kubernetes.io/name"
	labelComponent = "app.kubernetes.io/component"
)

// container is the name of the worker's container; volume that of the Secret's volume.
const (
	container = "worker"
	volume    = "target-secret"
)

// Manifest is the Job as YAML, ready for `kubectl apply -f -`.
func Manifest(s Spec) ([]byte, error) {
	j, err := Job(s)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(j)
}

// Job is the Indexed Job that starts the run's N workers, one pod per index. Its backoff limit
// is 0: a worker started again cannot rejoin its run (its index joined already, or the plan's
// start has passed), so one failed pod fails the Job, and Kubernetes stops the other pods.
// Its active deadline is the run's expected duration plus the margin, so that no pod outlives
// its run even when the coordinator dies without a word.
func Job(s Spec) (*batchv1.Job, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	res, err := s.resources()
	if err != nil {
		return nil, err
	}
	n := int32(s.Workers)
	j := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: s.jobName(), Namespace: s.Namespace, Labels: s.labels()},
		Spec: batchv1.JobSpec{
			CompletionMode:          new(batchv1.IndexedCompletion),
			Completions:             new(n),
			Parallelism:             new(n),
			BackoffLimit:            new(int32(0)),
			ActiveDeadlineSeconds:   new(s.deadline()),
			TTLSecondsAfterFinished: new(s.ttl()),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels()},
				Spec:       s.pod(res),
			},
		},
	}
	return j, nil
}

// labels name plimsoll, the workers and the run.
func (s Spec) labels() map[string]string {
	return map[string]string{labelName: "plimsoll", labelComponent: "worker", LabelRunID: s.RunID}
}

// pod is each worker's pod: one container, no retry, no Kubernetes API token (a worker talks
// to Kafka only), the Secret's TLS files mounted when the target uses any.
func (s Spec) pod(res corev1.ResourceRequirements) corev1.PodSpec {
	c := corev1.Container{
		Name:      container,
		Image:     s.Image,
		Command:   []string{Command},
		Args:      args(s.idFlag(), s.RunID, "", s.Target, s.Target.mountedFiles()),
		Resources: res,
	}
	p := corev1.PodSpec{
		RestartPolicy:                corev1.RestartPolicyNever,
		AutomountServiceAccountToken: new(false),
		Containers:                   []corev1.Container{c},
	}
	if s.Target.SASLMechanism != "" {
		p.Containers[0].Env = []corev1.EnvVar{s.passwordVar()}
	}
	if items := s.Target.secretFiles(); len(items) > 0 {
		p.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: volume, MountPath: MountDir, ReadOnly: true}}
		p.Volumes = []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: s.Secret, Items: items},
		}}}
	}
	return p
}

// passwordVar is the SASL password's variable, read from the Secret by Kubernetes.
func (s Spec) passwordVar() corev1.EnvVar {
	return corev1.EnvVar{Name: s.Target.passwordEnv(), ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: s.Secret}, Key: SecretPassword},
	}}
}

// secretFiles are the Secret's keys mounted as files: the TLS files the target uses.
func (t Target) secretFiles() []corev1.KeyToPath {
	var keys []string
	if t.CAFile != "" {
		keys = append(keys, SecretCA)
	}
	if t.CertFile != "" {
		keys = append(keys, SecretCert, SecretKey)
	}
	items := make([]corev1.KeyToPath, len(keys))
	for i, k := range keys {
		items[i] = corev1.KeyToPath{Key: k, Path: k}
	}
	return items
}

// resources are the worker's requests and limits, each quantity parsed; a request above its
// limit is refused, as Kubernetes would.
func (s Spec) resources() (corev1.ResourceRequirements, error) {
	var r corev1.ResourceRequirements
	var err error
	if r.Requests, err = s.Requests.list("requests"); err != nil {
		return r, err
	}
	if r.Limits, err = s.Limits.list("limits"); err != nil {
		return r, err
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, ok := r.Requests[name]
		if lim, limited := r.Limits[name]; ok && limited && req.Cmp(lim) > 0 {
			return r, fmt.Errorf("requests.%s %s is above limits.%s %s: request at most the limit", name, req.String(), name, lim.String())
		}
	}
	return r, nil
}

// list parses the quantities given; nil when none is.
func (r Resources) list(field string) (corev1.ResourceList, error) {
	var l corev1.ResourceList
	for _, q := range []struct {
		name corev1.ResourceName
		val  string
	}{{corev1.ResourceCPU, r.CPU}, {corev1.ResourceMemory, r.Memory}} {
		if q.val == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.val)
		if err != nil {
			return nil, fmt.Errorf("%s.%s %q: %v; give a quantity such as 500m or 2 (CPU), 512Mi or 2Gi (memory)", field, q.name, q.val, err)
		}
		if v.Sign() <= 0 {
			return nil, fmt.Errorf("%s.%s %q: give a positive quantity", field, q.name, q.val)
		}
		if l == nil {
			l = corev1.ResourceList{}
		}
		l[q.name] = v
	}
	return l, nil
}
