package workloads

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

//go:embed scenarios/*.yaml hazards/*.yaml
var embedded embed.FS

// Embedded returns the built-in scenarios of a folder ("scenarios" or
// "hazards"), sorted by name.
func Embedded(folder string) ([]*Scenario, error) {
	names, err := fs.Glob(embedded, folder+"/*.yaml")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []*Scenario
	for _, n := range names {
		b, err := embedded.ReadFile(n)
		if err != nil {
			return nil, err
		}
		s, err := Parse("embedded:"+n, b)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Lookup returns an embedded scenario by name ("smoke", "hazards/h1") or
// loads a file path.
func Lookup(ref string) (*Scenario, error) {
	if strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml") {
		if _, err := os.Stat(ref); err == nil {
			return LoadFile(ref)
		}
	}
	// Parse only the file that matches, so that one broken embedded file
	// does not break every lookup.
	for _, folder := range []string{"scenarios", "hazards"} {
		names, _ := fs.Glob(embedded, folder+"/*.yaml")
		slices.Sort(names)
		for _, n := range names {
			base := strings.TrimSuffix(path.Base(n), ".yaml")
			if ref != base && ref != folder+"/"+base && ref != path.Base(n) {
				continue
			}
			b, err := embedded.ReadFile(n)
			if err != nil {
				return nil, err
			}
			return Parse("embedded:"+n, b)
		}
	}
	if _, err := os.Stat(ref); err == nil {
		return LoadFile(ref)
	}
	return nil, &Error{File: ref, Msg: fmt.Sprintf("no embedded scenario or file named %q (see simrun list)", ref)}
}

// DefaultCampaign is the mix that simrun runs with no arguments: each
// scenario with its share of seeds.
var DefaultCampaign = []struct {
	Name  string
	Seeds int
}{
	{"smoke", 200}, {"failovers", 30}, {"expiries", 20}, {"savepoint-storm", 6}, {"saturation", 6}, {"swarm", 150},
	{"watermarks", 20}, {"double-failure", 10}, {"idle-close", 6}, {"idle-close-late", 10},
}
