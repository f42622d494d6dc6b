package deploy

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// manifests holds every object of deploy/k8s, decoded.
type manifests struct {
	jobs map[string]*batchv1.Job
	pvcs map[string]*corev1.PersistentVolumeClaim
}

// decodeManifests decodes every document of every file under k8s/ with
// Kubernetes' own strict decoding (the API server's strict field
// validation): an unknown or duplicated field, a field in the wrong case,
// or a kind this test does not know is an error naming the file.
func decodeManifests(t *testing.T) manifests {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{batchv1.AddToScheme, corev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	files, err := filepath.Glob(filepath.Join("k8s", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests under k8s/ (%v)", err)
	}
	m := manifests{jobs: map[string]*batchv1.Job{}, pvcs: map[string]*corev1.PersistentVolumeClaim{}}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj, _, err := strict.Decode(doc, nil, nil)
			if err != nil {
				t.Errorf("%s (document %d): %v", file, i+1, err)
				continue
			}
			switch o := obj.(type) {
			case *batchv1.Job:
				m.jobs[o.Name] = o
			case *corev1.PersistentVolumeClaim:
				m.pvcs[o.Name] = o
			default:
				t.Errorf("%s (document %d): a %T this test does not check", file, i+1, obj)
			}
		}
	}
	return m
}

// The strict decoder refuses what a lax one would let through.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := batchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	for name, doc := range map[string]string{
		"unknown field":  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completionsMode: Indexed}\n",
		"wrong case":     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {CompletionMode: Indexed}\n",
		"field repeated": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completions: 1, completions: 2}\n",
	} {
		if _, _, err := strict.Decode([]byte(doc), nil, nil); err == nil || !runtime.IsStrictDecodingError(err) {
			t.Errorf("%s: decoded with %v, want a strict decoding error", name, err)
		}
	}
}

// collectCmd is the collect container's shell command, parsed.
type collectCmd struct {
	script string
	words  []string
	flags  map[string]string // --flag → its value ("" for a boolean)
}

func parseCollectCmd(t *testing.T, c corev1.Container) collectCmd {
	t.Helper()
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("container %s: command %q args %q; want /bin/sh -c SCRIPT (the shard is computed by the shell)", c.Name, c.Command, c.Args)
	}
	cc := collectCmd{script: c.Args[0], words: strings.Fields(c.Args[0]), flags: map[string]string{}}
	for i, w := range cc.words {
		if !strings.HasPrefix(w, "--") {
			continue
		}
		if i+1 < len(cc.words) && !strings.HasPrefix(cc.words[i+1], "--") {
			cc.flags[w] = cc.words[i+1]
		} else {
			cc.flags[w] = ""
		}
	}
	return cc
}

func container(t *testing.T, cs []corev1.Container, name string) corev1.Container {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

// mountFor returns the volume mounted at the longest prefix of path.
func mountFor(c corev1.Container, path string) (corev1.VolumeMount, bool) {
	var best corev1.VolumeMount
	for _, m := range c.VolumeMounts {
		if (path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")) && len(m.MountPath) > len(best.MountPath) {
			best = m
		}
	}
	return best, best.Name != ""
}

func volume(spec corev1.PodSpec, name string) (corev1.Volume, bool) {
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return corev1.Volume{}, false
}

var shardRe = regexp.MustCompile(`^\$\(\(JOB_COMPLETION_INDEX\+1\)\)/([0-9]+)$`)

func TestCollectJob(t *testing.T) {
	m := decodeManifests(t)
	codes := exitCodes(t)
	job := m.jobs["pyharness-collect"]
	if job == nil {
		t.Fatalf("no Job pyharness-collect under k8s/ (jobs: %v)", slices.Collect(maps.Keys(m.jobs)))
	}
	spec := job.Spec.Template.Spec
	collect := container(t, spec.Containers, "collect")
	cmd := parseCollectCmd(t, collect)

	t.Run("indexed, one index per shard", func(t *testing.T) {
		if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
			t.Fatalf("completionMode %v, want Indexed", job.Spec.CompletionMode)
		}
		if job.Spec.Completions == nil {
			t.Fatal("no completions")
		}
		n := int(*job.Spec.Completions)
		m := shardRe.FindStringSubmatch(cmd.flags["--shard"])
		if m == nil {
			t.Fatalf("--shard %q, want $((JOB_COMPLETION_INDEX + 1))/N", cmd.flags["--shard"])
		}
		if shards, _ := strconv.Atoi(m[1]); shards != n {
			t.Errorf("--shard k/%d but completions %d: shards would be lost or run twice", shards, n)
		}
		// The shell's own arithmetic, index by index: shards 1..n, each once.
		for i := range n {
			sh := exec.Command("/bin/sh", "-c", "printf %s "+cmd.flags["--shard"])
			sh.Env = []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}
			got, err := sh.Output()
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("%d/%d", i+1, n); string(got) != want {
				t.Errorf("index %d: --shard %s, want %s", i, got, want)
			}
		}
		if p := job.Spec.Parallelism; p == nil || *p < 1 || int(*p) > n {
			t.Errorf("parallelism %v, want 1..%d", p, n)
		}
	})

	t.Run("a retried pod finishes its shard", func(t *testing.T) {
		if _, ok := cmd.flags["--resume"]; !ok {
			t.Error("no --resume: a retried pod would refuse its half-done shard")
		}
		if !strings.HasPrefix(cmd.script, "exec pyharness collect ") {
			t.Errorf("the script does not exec pyharness collect: the shell would keep SIGTERM from it\n%s", cmd.script)
		}
		if job.Spec.BackoffLimitPerIndex == nil || *job.Spec.BackoffLimitPerIndex < 1 {
			t.Errorf("backoffLimitPerIndex %v: one shard's failures must not use up the others' retries", job.Spec.BackoffLimitPerIndex)
		}
		if spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("restartPolicy %s: podFailurePolicy needs Never", spec.RestartPolicy)
		}
	})

	t.Run("the pod failure policy follows the exit-code table", func(t *testing.T) {
		pfp := job.Spec.PodFailurePolicy
		if pfp == nil {
			t.Fatal("no podFailurePolicy")
		}
		actions := map[int]batchv1.PodFailurePolicyAction{} // the first rule that matches a code wins
		disruption := false
		for i, r := range pfp.Rules {
			if r.OnExitCodes == nil {
				for _, c := range r.OnPodConditions {
					disruption = disruption || (c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore)
				}
				continue
			}
			e := r.OnExitCodes
			if e.ContainerName == nil || *e.ContainerName != "collect" {
				t.Errorf("rule %d: containerName %v; want collect (the sidecar's and init containers' exits are not collect's)", i, e.ContainerName)
			}
			if e.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn {
				t.Errorf("rule %d: operator %s, want In", i, e.Operator)
			}
			if !slices.IsSorted(e.Values) || len(slices.Compact(slices.Clone(e.Values))) != len(e.Values) || slices.Contains(e.Values, 0) {
				t.Errorf("rule %d: values %v; the API wants them sorted, unique and without 0", i, e.Values)
			}
			for _, v := range e.Values {
				if _, seen := actions[int(v)]; !seen {
					actions[int(v)] = r.Action
				}
			}
		}
		for _, tt := range []struct {
			code string
			want []batchv1.PodFailurePolicyAction
			why  string
		}{
			{"exitUsage", []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionFailIndex}, "a configuration error fails the same way on every retry"},
			{"exitIncomplete", []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount}, "--resume redoes the incomplete runs"},
			{"exitPreflight", []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount}, "a server that was not ready may be on the next pod"},
		} {
			code := codes[tt.code]
			if got, ok := actions[code]; !ok || !slices.Contains(tt.want, got) {
				t.Errorf("exit %d (%s): action %q, want one of %v: %s", code, tt.code, got, tt.want, tt.why)
			}
		}
		if !disruption {
			t.Error("no Ignore rule for DisruptionTarget: an evicted or preempted pod would use up its shard's retries")
		}
	})

	t.Run("ollama is a native sidecar with the model pulled before collect", func(t *testing.T) {
		if len(spec.InitContainers) != 2 {
			t.Fatalf("%d init containers, want the ollama sidecar and the pull", len(spec.InitContainers))
		}
		sidecar, pull := spec.InitContainers[0], spec.InitContainers[1]
		if sidecar.RestartPolicy == nil || *sidecar.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			t.Errorf("init container %s: restartPolicy %v, want Always (a native sidecar; an ordinary container never exits and the pod never completes)", sidecar.Name, sidecar.RestartPolicy)
		}
		if sidecar.StartupProbe == nil {
			t.Errorf("sidecar %s has no startupProbe: the pull would start before the server listens", sidecar.Name)
		}
		if slices.ContainsFunc(spec.Containers, func(c corev1.Container) bool { return c.Name != "collect" }) {
			t.Errorf("containers other than collect: %v; every one must exit for the pod to complete", spec.Containers)
		}
		if pull.RestartPolicy != nil {
			t.Errorf("init container %s: restartPolicy %v; the pull must run to its end before collect starts", pull.Name, *pull.RestartPolicy)
		}
		cmdline := append(slices.Clone(pull.Command), pull.Args...)
		if len(cmdline) != 3 || cmdline[0] != "ollama" || cmdline[1] != "pull" {
			t.Fatalf("init container %s runs %q, want ollama pull MODEL", pull.Name, cmdline)
		}
		if want := "ollama:" + cmdline[2]; cmd.flags["--model"] != want {
			t.Errorf("collect --model %q but the pull fetches %q", cmd.flags["--model"], want)
		}
		u, err := url.Parse(cmd.flags["--base-url"])
		if err != nil || u.Hostname() != "127.0.0.1" {
			t.Fatalf("--base-url %q, want the sidecar at 127.0.0.1", cmd.flags["--base-url"])
		}
		if !slices.ContainsFunc(sidecar.Ports, func(p corev1.ContainerPort) bool { return strconv.Itoa(int(p.ContainerPort)) == u.Port() }) {
			t.Errorf("--base-url port %s is not a port of the sidecar (%v)", u.Port(), sidecar.Ports)
		}
	})

	t.Run("every container asks for cpu and memory", func(t *testing.T) {
		for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
					t.Errorf("container %s requests no %s", c.Name, r)
				}
			}
		}
	})

	t.Run("shards write to one ReadWriteMany volume, as the image's user", func(t *testing.T) {
		checkOutVolume(t, m, spec, collect, cmd.flags["--out"])
		mnt, ok := mountFor(collect, cmd.flags["--manifest"])
		if !ok {
			t.Fatalf("--manifest %s is on no volume", cmd.flags["--manifest"])
		}
		if v, _ := volume(spec, mnt.Name); v.ConfigMap == nil {
			t.Errorf("--manifest is on volume %s, not a ConfigMap", mnt.Name)
		}
		checkUser(t, spec, collect)
	})

	t.Run("every flag is one collect has", func(t *testing.T) {
		help, err := goCmd(t, "run", "./cmd/pyharness", "collect", "--help")
		if err != nil {
			t.Fatal(err)
		}
		for f := range cmd.flags {
			if !strings.Contains(help, "      "+f+" ") {
				t.Errorf("pyharness collect has no flag %s", f)
			}
		}
	})
}

// checkOutVolume checks that dir is on a PersistentVolumeClaim of the
// manifests that several nodes may write at once.
func checkOutVolume(t *testing.T, m manifests, spec corev1.PodSpec, c corev1.Container, dir string) {
	t.Helper()
	mnt, ok := mountFor(c, dir)
	if !ok {
		t.Fatalf("%s is on no volume of container %s", dir, c.Name)
	}
	v, _ := volume(spec, mnt.Name)
	if v.PersistentVolumeClaim == nil {
		t.Fatalf("%s is on volume %s, not a PersistentVolumeClaim", dir, mnt.Name)
	}
	pvc := m.pvcs[v.PersistentVolumeClaim.ClaimName]
	if pvc == nil {
		t.Fatalf("claim %s is not among the manifests", v.PersistentVolumeClaim.ClaimName)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("claim %s: access modes %v, want ReadWriteMany (pods on several nodes write it)", pvc.Name, pvc.Spec.AccessModes)
	}
	if mnt.ReadOnly {
		t.Errorf("%s is mounted read-only", dir)
	}
}

// checkUser checks that the container runs as the image's user, not root,
// and that the pod's fsGroup lets that user write the volumes.
func checkUser(t *testing.T, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	uid, _, _ := strings.Cut(imageUser(t, parseDockerfile(t)), ":")
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || fmt.Sprint(*sc.RunAsUser) != uid {
		t.Errorf("container %s: securityContext %+v; want runAsNonRoot and runAsUser %s, the Dockerfile's USER", c.Name, sc, uid)
	}
	if spec.SecurityContext == nil || spec.SecurityContext.FSGroup == nil || fmt.Sprint(*spec.SecurityContext.FSGroup) != uid {
		t.Errorf("pod fsGroup is not %s: the image's user may not write the volume", uid)
	}
}

// The follow-up Job reads what the collect Job wrote.
func TestClassifyJob(t *testing.T) {
	m := decodeManifests(t)
	job, collectJob := m.jobs["pyharness-classify"], m.jobs["pyharness-collect"]
	if job == nil || collectJob == nil {
		t.Fatal("want the Jobs pyharness-classify and pyharness-collect")
	}
	spec := job.Spec.Template.Spec
	c := container(t, spec.Containers, "classify")
	cmd := parseCollectCmd(t, c)
	out := parseCollectCmd(t, container(t, collectJob.Spec.Template.Spec.Containers, "collect")).flags["--out"]
	for _, want := range []string{"pyharness classify --in " + out + " ", "pyharness export --in " + out + " "} {
		if !strings.Contains(cmd.script+" ", want) {
			t.Errorf("the follow-up does not run %q:\n%s", want, cmd.script)
		}
	}
	if c.Image != container(t, collectJob.Spec.Template.Spec.Containers, "collect").Image {
		t.Errorf("image %s differs from the collect Job's", c.Image)
	}
	checkOutVolume(t, m, spec, c, out)
	checkUser(t, spec, c)
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[r]; !ok {
			t.Errorf("classify requests no %s", r)
		}
	}
}
