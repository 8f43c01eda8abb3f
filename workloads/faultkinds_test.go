package workloads

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// everyFault is a scenario that switches every fault kind on.
func everyFault(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/every-fault.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parseEvery(t *testing.T) *Scenario {
	t.Helper()
	s, err := Parse("every-fault.yaml", []byte(everyFault(t)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFaultKindTableCoversSchema: every field of the faults schema is a
// kind of the table, under its YAML name and with the shape of its Go
// type, and each kind's accessor reaches the field its name says.
func TestFaultKindTableCoversSchema(t *testing.T) {
	shapes := map[reflect.Type]Shape{reflect.TypeFor[Schedule](): ShapeSchedule, reflect.TypeFor[float64](): ShapeRate,
		reflect.TypeFor[Dist](): ShapeDist}
	var fields []string
	ft := reflect.TypeFor[Faults]()
	for i := range ft.NumField() {
		name, _, _ := strings.Cut(ft.Field(i).Tag.Get("yaml"), ",")
		fields = append(fields, name)
		k, ok := FaultKindNamed(name)
		if !ok {
			t.Errorf("faults.%s (%s) is not in the fault-kind table", name, ft.Field(i).Type)
			continue
		}
		if k.Shape != shapes[ft.Field(i).Type] {
			t.Errorf("faults.%s: table shape %s, Go type %s", name, k.Shape, ft.Field(i).Type)
		}
	}
	var names []string
	for _, k := range FaultKinds() {
		names = append(names, k.Field)
	}
	if !slices.Equal(names, fields) {
		t.Errorf("table %v, schema %v (want the same kinds in schema order)", names, fields)
	}
	for _, k := range FaultKinds() {
		f := parseEvery(t).Faults
		for _, o := range FaultKinds() {
			if o.Field != k.Field {
				o.Off(&f)
			}
		}
		if got := f.KindsOn(); !slices.Equal(got, []string{k.Field}) {
			t.Errorf("%s: after switching the others off, on: %v", k.Field, got)
		}
		var top map[string]any
		if err := yaml.Unmarshal((&Scenario{Faults: f}).YAML(), &top); err != nil {
			t.Fatal(err)
		}
		if fs := top["faults"].(map[string]any); len(fs) != 1 || fs[k.Field] == nil {
			t.Errorf("%s: the accessor reaches another field: %v", k.Field, fs)
		}
	}
}

// TestFaultKindValidation: each kind is validated from the table, and a
// bad value names its field.
func TestFaultKindValidation(t *testing.T) {
	bad := map[Shape]string{ShapeSchedule: "{per_hour: -1}", ShapeRate: "1.5", ShapeDist: "{kind: gauss}"}
	for _, k := range FaultKinds() {
		src := strings.Replace(everyFault(t), "faults:\n", "faults:\n  "+k.Field+": "+bad[k.Shape]+"\n", 1)
		src = removeLine(src, "  "+k.Field+": ", 1) // the original line, after the bad one
		_, err := Parse("bad.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "faults."+k.Field) {
			t.Errorf("%s: %s: got %v, want an error naming faults.%s", k.Field, bad[k.Shape], err, k.Field)
		}
	}
}

// TestFaultWindowValidated: a fixed time of any schedule kind at or after
// the end of the fault window (run.duration, 30s in every-fault.yaml),
// which the injector would drop, is an error naming the kind's at entry
// and its line; a time just before the end is accepted.
func TestFaultWindowValidated(t *testing.T) {
	for _, k := range FaultKinds() {
		if k.Shape != ShapeSchedule {
			continue
		}
		for _, tc := range []struct {
			at   string
			want string // "": valid
		}{
			{"[29s]", ""},
			{"[30s]", "faults." + k.Field + ".at[0]: 30s is not before the end of the fault window (run.duration 30s)"},
			{"[1s, 45s]", "faults." + k.Field + ".at[1]: 45s is not before the end of the fault window (run.duration 30s)"},
		} {
			src := strings.Replace(everyFault(t), "faults:\n", "faults:\n  "+k.Field+": {at: "+tc.at+"}\n", 1)
			src = removeLine(src, "  "+k.Field+": ", 1)
			_, err := Parse("late.yaml", []byte(src))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s at %s: %v", k.Field, tc.at, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "late.yaml:11:")):
				t.Errorf("%s at %s: got %v, want late.yaml:11:...: %s", k.Field, tc.at, err, tc.want)
			}
		}
	}
}

// removeLine drops the n-th (from 0) line starting with prefix.
func removeLine(src, prefix string, n int) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			if n == 0 {
				return strings.Join(slices.Delete(lines, i, i+1), "\n")
			}
			n--
		}
	}
	return src
}

// TestFaultKindsReachInjectorOrCluster: every schedule kind has an
// injector thread and action; every rate and distribution kind sets its
// own field of the cluster's configuration, and every fault rate of the
// cluster is reached.
func TestFaultKindsReachInjectorOrCluster(t *testing.T) {
	s := parseEvery(t)
	threads := map[string]bool{}
	for _, k := range FaultKinds() {
		if k.Shape == ShapeSchedule && (k.inject == nil || k.thread == "" || threads[k.thread]) {
			t.Errorf("%s: no injector thread or action, or a shared thread name", k.Field)
		}
		threads[k.thread] = true
	}
	cfg, err := s.clusterConfig(nil, s.Faults)
	if err != nil {
		t.Fatal(err)
	}
	rv := reflect.ValueOf(cfg.Faults)
	for i := range rv.NumField() {
		if rv.Field(i).Float() == 0 {
			t.Errorf("cluster.FaultRates.%s is reached by no fault kind", rv.Type().Field(i).Name)
		}
	}
	if cfg.Workload.StatusSlow == (cluster.Dist{}) {
		t.Error("status_slow does not reach the cluster")
	}
	for _, k := range FaultKinds() { // each rate kind sets its own field
		if k.Shape != ShapeRate {
			continue
		}
		f := s.Faults
		*k.rate(&f) = 0.777
		cfg, _ := s.clusterConfig(nil, f)
		if *k.toRate(&cfg.Faults) != 0.777 {
			t.Errorf("%s: does not reach its cluster rate", k.Field)
		}
	}
}

// TestSwarmTogglesAndScalesEveryKind: over seeds, swarm switches every
// kind the scenario lists both on and off, draws more than one magnitude
// for each, records its choice for every kind, and keeps one kind on.
func TestSwarmTogglesAndScalesEveryKind(t *testing.T) {
	s := parseEvery(t)
	on, off, values := map[string]int{}, map[string]int{}, map[string]map[string]bool{}
	for seed := range uint64(64) {
		f, chosen := SwarmFaults(s.Faults, seed)
		kept := f.KindsOn()
		if len(kept) == 0 {
			t.Errorf("seed %d: every kind off", seed)
		}
		for _, k := range FaultKinds() {
			v, ok := chosen[k.Field]
			if !ok {
				t.Errorf("seed %d: no choice recorded for %s", seed, k.Field)
				continue
			}
			if k.On(&f) != (v != "off") || (v != "off" && v != k.Value(&f)) {
				t.Errorf("seed %d: %s recorded %q, ran %q (on %v)", seed, k.Field, v, k.Value(&f), k.On(&f))
			}
			if v == "off" {
				off[k.Field]++
				continue
			}
			on[k.Field]++
			if values[k.Field] == nil {
				values[k.Field] = map[string]bool{}
			}
			values[k.Field][v] = true
		}
		if _, err := Parse("swarm.yaml", (&Scenario{Name: "x", Cluster: s.Cluster, Checkpoint: s.Checkpoint, Faults: f, Run: s.Run}).YAML()); err != nil {
			t.Errorf("seed %d: the drawn faults do not validate: %v", seed, err)
		}
	}
	for _, k := range FaultKinds() {
		if on[k.Field] == 0 || off[k.Field] == 0 || len(values[k.Field]) < 2 {
			t.Errorf("%s: on %d, off %d, %d magnitudes over 64 seeds", k.Field, on[k.Field], off[k.Field], len(values[k.Field]))
		}
	}
	// the scenario's values are kept where the kind has no swarm range
	f, _ := SwarmFaults(s.Faults, 3)
	if f.SchemaChange.On() && !slices.Equal(f.SchemaChange.At, s.Faults.SchemaChange.At) {
		t.Errorf("fixed times changed: %v", f.SchemaChange.At)
	}
	// and a kind the scenario does not list stays off
	g := s.Faults
	g.TaskError = 0
	for seed := range uint64(16) {
		if f, chosen := SwarmFaults(g, seed); f.TaskError != 0 || chosen["task_error"] != "" {
			t.Errorf("seed %d: swarm switched an unlisted kind on: %v %q", seed, f.TaskError, chosen["task_error"])
		}
	}
}

// TestSwarmRecordedInOutcome: a swarm seed's outcome says what it ran.
func TestSwarmRecordedInOutcome(t *testing.T) {
	s, err := Lookup("swarm")
	if err != nil {
		t.Fatal(err)
	}
	s.Run.Duration, s.Run.Heal = Dur(5e9), Dur(20e9)
	out := Run(s, Options{Seed: 7})
	_, want := SwarmFaults(s.Faults, 7)
	if !reflect.DeepEqual(out.Swarm, want) || len(want) != len(s.Faults.KindsOn()) {
		t.Errorf("outcome swarm %v, want %v", out.Swarm, want)
	}
}

// TestReferenceListsEveryFaultKind: workloads/REFERENCE.md's faults table
// has one row per kind, in table order, with the kind's shape.
func TestReferenceListsEveryFaultKind(t *testing.T) {
	b, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(b), "## `faults`")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var rows []string
	for _, l := range strings.Split(sec, "\n") {
		if f := strings.Split(l, "|"); len(f) > 3 && strings.HasPrefix(strings.TrimSpace(f[1]), "`") {
			rows = append(rows, strings.Trim(strings.TrimSpace(f[1]), "`")+" "+strings.TrimSpace(f[2]))
		}
	}
	var want []string
	for _, k := range FaultKinds() {
		want = append(want, k.Field+" "+k.Shape.String())
	}
	if !slices.Equal(rows, want) {
		t.Errorf("REFERENCE.md faults rows:\n%s\nwant (the fault-kind table):\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}
