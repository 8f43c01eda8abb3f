// Package deploy holds the campaign manifests for existing engines
// (Kubernetes, GitHub Actions) and the shard script they share with
// 'make campaign'; its test checks that they are wired together.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image        string   `yaml:"image"`
					Command      []string `yaml:"command"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
					PVC  struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readK8s(t *testing.T) map[string]k8sObject {
	t.Helper()
	b, err := os.ReadFile("kubernetes/campaign.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("kubernetes/campaign.yaml: %v", err)
		}
		out[o.Kind+"/"+o.Metadata.Name] = o
	}
	return out
}

// shardCall is the parsed call of shard.sh: shard index expression,
// count, results folder and the run flags.
type shardCall struct {
	index, out string
	n          int
	flags      []string
}

var shardRe = regexp.MustCompile(`(?:ckptsim-shard|deploy/shard\.sh) (\S+) (\d+) (\S+)(.*)`)

func parseShardCall(t *testing.T, where, cmd string) shardCall {
	t.Helper()
	m := shardRe.FindStringSubmatch(cmd)
	if m == nil {
		t.Fatalf("%s: no shard call in %q", where, cmd)
	}
	n, _ := strconv.Atoi(m[2])
	return shardCall{index: m[1], n: n, out: m[3], flags: strings.Fields(m[4])}
}

// fakeSimrun runs shard.sh for every index with a simrun that prints its
// arguments, and returns what each index ran.
func fakeSimrun(t *testing.T, c shardCall, out string) []string {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "simrun")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for i := range c.n {
		cmd := exec.Command("sh", append([]string{"shard.sh", strconv.Itoa(i), strconv.Itoa(c.n), out}, c.flags...)...)
		cmd.Env = append(os.Environ(), "SIMRUN="+fake)
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("shard.sh %d: %v", i, err)
		}
		runs = append(runs, strings.TrimSpace(string(b)))
	}
	return runs
}

// checkShards: shard i of n runs --shard i/n into OUT/shard-i, every index
// once, and the merge glob picks up exactly those folders.
func checkShards(t *testing.T, where string, c shardCall, indexes []int, mergeCmd string) {
	t.Helper()
	if want := seq(c.n); !slices.Equal(indexes, want) {
		t.Errorf("%s: the engine runs shard indexes %v, shard.sh is told n=%d (want %v)", where, indexes, c.n, want)
	}
	if slices.Contains(c.flags, "--shard") || slices.Contains(c.flags, "--out") {
		t.Errorf("%s: --shard and --out are shard.sh's to add, got %v", where, c.flags)
	}
	if !slices.Contains(c.flags, "--scenario") {
		t.Errorf("%s: no --scenario in %v", where, c.flags)
	}
	out := t.TempDir()
	for i, run := range fakeSimrun(t, c, out) {
		want := "run " + strings.Join(c.flags, " ") + " --shard " + strconv.Itoa(i) + "/" + strconv.Itoa(c.n) + " --out " + filepath.Join(out, "shard-"+strconv.Itoa(i))
		if run != want {
			t.Errorf("%s: shard %d ran %q, want %q", where, i, run, want)
		}
		os.MkdirAll(filepath.Join(out, "shard-"+strconv.Itoa(i)), 0o755)
	}
	want := c.out + "/shard-*"
	if !strings.Contains(mergeCmd, "simrun merge "+want+" --out ") {
		t.Errorf("%s: merge %q does not read %s", where, mergeCmd, want)
	}
	matched, _ := filepath.Glob(filepath.Join(out, "shard-*"))
	if len(matched) != c.n {
		t.Errorf("%s: the merge glob matches %d folders, want %d", where, len(matched), c.n)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestKubernetes(t *testing.T) {
	objs := readK8s(t)
	pvc, shards, merge := objs["PersistentVolumeClaim/ckptsim-results"], objs["Job/ckptsim-campaign"], objs["Job/ckptsim-merge"]
	if pvc.Kind == "" || shards.Kind == "" || merge.Kind == "" {
		t.Fatalf("want the PVC ckptsim-results and the Jobs ckptsim-campaign and ckptsim-merge, got %v", slices.Sorted(mapsKeys(objs)))
	}
	s := shards.Spec
	if s.CompletionMode != "Indexed" || s.Completions != s.Parallelism || s.Completions < 1 {
		t.Errorf("shards: completionMode %q, completions %d, parallelism %d; want Indexed and equal counts", s.CompletionMode, s.Completions, s.Parallelism)
	}
	sc, mc := s.Template.Spec.Containers, merge.Spec.Template.Spec.Containers
	if len(sc) != 1 || len(mc) != 1 {
		t.Fatalf("want one container per Job, got %d and %d", len(sc), len(mc))
	}
	if sc[0].Image == "" || sc[0].Image != mc[0].Image {
		t.Errorf("images differ: shards %q, merge %q", sc[0].Image, mc[0].Image)
	}
	for _, j := range []k8sObject{shards, merge} {
		sp := j.Spec.Template.Spec
		if sp.RestartPolicy != "Never" || len(sp.Volumes) != 1 || sp.Volumes[0].PVC.ClaimName != pvc.Metadata.Name ||
			len(sp.Containers[0].VolumeMounts) != 1 || sp.Containers[0].VolumeMounts[0].Name != sp.Volumes[0].Name {
			t.Errorf("%s: restart policy %q and volumes %+v: want Never and the claim %s mounted", j.Metadata.Name, sp.RestartPolicy, sp.Volumes, pvc.Metadata.Name)
		}
	}
	if shards.Metadata.Labels["step"] != "shards" || pvc.Metadata.Labels["step"] != "shards" || merge.Metadata.Labels["step"] != "merge" {
		t.Error("labels step=shards (PVC, shard Job) and step=merge (merge Job) select the two steps in deploy/README.md")
	}
	mount := sc[0].VolumeMounts[0].MountPath
	shellCmd := strings.Join(append(sc[0].Command, sc[0].Args...), " ")
	c := parseShardCall(t, "shards", shellCmd)
	if c.index != `"$JOB_COMPLETION_INDEX"` || c.out != mount || c.n != s.Completions {
		t.Errorf("shards: ckptsim-shard %s %d %s: want \"$JOB_COMPLETION_INDEX\" %d %s", c.index, c.n, c.out, s.Completions, mount)
	}
	mergeCmd := strings.Join(mc[0].Args, " ")
	checkShards(t, "kubernetes", c, seq(s.Completions), mergeCmd)
	if !strings.Contains(mergeCmd, "--out "+mount+"/merged") {
		t.Errorf("merge %q does not write to the volume", mergeCmd)
	}
	df, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go build -trimpath -o /out/simrun ./cmd/simrun", "/out/simrun /usr/local/bin/simrun",
		"deploy/shard.sh /usr/local/bin/ckptsim-shard"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q: the Jobs call simrun and ckptsim-shard from PATH", want)
		}
	}
}

type ghWorkflow struct {
	Jobs map[string]struct {
		Needs    any    `yaml:"needs"`
		If       string `yaml:"if"`
		Strategy struct {
			FailFast *bool `yaml:"fail-fast"`
			Matrix   struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func TestGitHubActions(t *testing.T) {
	b, err := os.ReadFile("github/campaign.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w ghWorkflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("github/campaign.yml: %v", err)
	}
	shard, merge := w.Jobs["shard"], w.Jobs["merge"]
	if ff := shard.Strategy.FailFast; ff == nil || *ff {
		t.Error("shard: fail-fast must be false (one shard's failure must not cancel the others)")
	}
	var call, upload, download, mergeRun string
	for _, s := range shard.Steps {
		if strings.Contains(s.Run, "deploy/shard.sh") {
			call = s.Run
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact") {
			upload = s.With["name"] + " " + s.With["path"]
		}
	}
	for _, s := range merge.Steps {
		if strings.HasPrefix(s.Uses, "actions/download-artifact") {
			download = s.With["pattern"] + " " + s.With["path"]
		}
		if strings.Contains(s.Run, "simrun merge") {
			mergeRun = s.Run
		}
	}
	// the workflow's expressions stand in for the index and the inputs
	call = strings.ReplaceAll(call, "${{ matrix.shard }}", "MATRIX")
	call = regexp.MustCompile(`\$\{\{ inputs\.(\w+) \}\}`).ReplaceAllString(call, "INPUT_$1")
	c := parseShardCall(t, "github shard", call)
	if c.index != "MATRIX" {
		t.Errorf("shard index %q: want ${{ matrix.shard }}", c.index)
	}
	checkShards(t, "github", c, shard.Strategy.Matrix.Shard, mergeRun)
	if want := "shard-${{ matrix.shard }} " + c.out + "/shard-${{ matrix.shard }}"; upload != want {
		t.Errorf("upload %q, want %q", upload, want)
	}
	if want := "shard-* " + c.out; download != want {
		t.Errorf("download %q, want %q (each artifact in its own folder under %s)", download, want, c.out)
	}
	if merge.Needs != "shard" || merge.If != "always()" {
		t.Errorf("merge: needs %v, if %q; want needs shard and if always() (merge what finished)", merge.Needs, merge.If)
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
