package workloads

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/goccy/go-yaml"

	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// Hazard is one row of the hazard catalog (workloads/hazards/catalog.yaml,
// whose header describes each field). The Go field names are the JSON
// names of results/hazards.json's "Hazard" objects: keep them.
type Hazard struct {
	ID    string `yaml:"id"`
	Title string `yaml:"title"`
	// Scenario is an embedded scenario of workloads/hazards ("": the row
	// has no run-time scenario, and Detector and Test say how it is
	// prevented).
	Scenario string            `yaml:"scenario,omitempty"`
	Bug      map[string]string `yaml:"variant,omitempty"` // the variants that reintroduce it
	Fixed    map[string]string `yaml:"fixed,omitempty"`   // the fixed design's variants (nil: defaults)
	// Checks are the ids of the checks (workloads/oracle) whose firing
	// counts as finding the hazard; a seed that fails otherwise (another
	// check, a crash, a budget) is not a detection.
	Checks   []string `yaml:"checks,omitempty"`
	Detector string   `yaml:"detector,omitempty"`
	Test     string   `yaml:"test,omitempty"`
	Pending  string   `yaml:"pending,omitempty"` // why the row is not measured yet
	Window   string   `yaml:"window,omitempty"`  // the race window that matters, if one is counted
	Note     string   `yaml:"note,omitempty"`
	// Amended is a change made to the committed catalog after the run its
	// header names, printed before the details; dropped when the catalog
	// is run again.
	Amended string `yaml:"amended,omitempty"`
}

// hazardFile is the catalog file's shape.
type hazardFile struct {
	Hazards []Hazard `yaml:"hazards"`
}

// HazardCatalog returns the embedded hazard catalog, decoded strictly and
// checked (ParseHazards).
func HazardCatalog() ([]Hazard, error) {
	b, err := embedded.ReadFile(hazardCatalogFile)
	if err != nil {
		return nil, err
	}
	return ParseHazards("embedded:workloads/"+hazardCatalogFile, b)
}

// ParseHazards decodes a hazard catalog strictly (an unknown field is an
// error naming its file, line and field) and checks each row: a unique id
// H<n>, a title, an embedded hazard scenario with the variants that
// reintroduce the hazard and the checks that find it (or, without a
// scenario, a detector and a test), variants the core knows, registered
// check ids and a race window workloads/cluster counts.
func ParseHazards(file string, src []byte) ([]Hazard, error) {
	var f hazardFile
	if err := yaml.UnmarshalWithOptions(src, &f, yaml.Strict()); err != nil {
		return nil, decodeError(file, src, err)
	}
	if len(f.Hazards) == 0 {
		return nil, &Error{File: file, Field: "hazards", Msg: "no rows"}
	}
	seen := map[string]bool{}
	for i, h := range f.Hazards {
		c := hazardChecker{file: file, src: src, path: fmt.Sprintf("$.hazards[%d]", i)}
		if err := c.check(h, seen); err != nil {
			return nil, err
		}
		seen[h.ID] = true
	}
	return f.Hazards, nil
}

var hazardID = regexp.MustCompile(`^H[1-9][0-9]*$`)

// hazardChecker checks one row, its errors placed at the row's fields.
type hazardChecker struct {
	file string
	src  []byte
	path string // the row's YAML path
}

func (c hazardChecker) errorf(field, format string, args ...any) error {
	path := c.path
	if field != "" {
		path += "." + field
	}
	line, col := positionIn(c.src, path)
	return &Error{File: c.file, Line: line, Col: col, Field: path[2:], Msg: fmt.Sprintf(format, args...)}
}

func (c hazardChecker) check(h Hazard, seen map[string]bool) error {
	switch {
	case !hazardID.MatchString(h.ID):
		return c.errorf("id", "%q is not an id H<n>", h.ID)
	case seen[h.ID]:
		return c.errorf("id", "%s is listed twice", h.ID)
	case h.Title == "":
		return c.errorf("", "%s has no title", h.ID)
	case h.Scenario == "" && (h.Detector == "" || h.Test == ""):
		return c.errorf("", "%s has no scenario: it needs a detector and a test that say how it is prevented", h.ID)
	case h.Scenario == "" && (len(h.Bug) > 0 || len(h.Fixed) > 0 || len(h.Checks) > 0 || h.Window != ""):
		return c.errorf("", "%s has no scenario for its variant, fixed, checks or window", h.ID)
	case h.Scenario == "":
		return nil
	case len(h.Bug) == 0:
		return c.errorf("", "%s has no variant that reintroduces it", h.ID)
	case len(h.Checks) == 0:
		return c.errorf("", "%s names no check that finds it", h.ID)
	}
	if names, _ := scenarioFiles("hazards"); !slices.Contains(names, "hazards/"+h.Scenario+".yaml") {
		return c.errorf("scenario", "no scenario %q in workloads/hazards", h.Scenario)
	}
	if _, err := Lookup("hazards/" + h.Scenario); err != nil {
		return c.errorf("scenario", "%v", err)
	}
	for _, vs := range []struct {
		field string
		m     map[string]string
	}{{"variant", h.Bug}, {"fixed", h.Fixed}} {
		keys := make([]string, 0, len(vs.m))
		for k := range vs.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := CheckVariant(k, vs.m[k]); err != nil {
				return c.errorf(vs.field+"."+k, "%v", err)
			}
		}
	}
	for i, id := range h.Checks {
		if _, ok := oracle.Lookup(id); !ok {
			return c.errorf(fmt.Sprintf("checks[%d]", i), "no check %q (workloads/oracle/CHECKS.md)", id)
		}
	}
	if h.Window != "" && !slices.Contains(cluster.WindowNames, h.Window) {
		return c.errorf("window", "no race window %q (want one of %v)", h.Window, cluster.WindowNames)
	}
	return nil
}
