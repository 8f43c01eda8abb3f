package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Mutant is one planted bug: a patch to core/ (or sim/) and the campaign
// that must find it, read from the header of testdata/mutants/NAME.diff.
//
// The header is the lines before the first "diff --git" line, each
// "# key: value" (git apply skips them):
//
//	# check: generation-justified        the check id expected to fire (required)
//	# scenario: h1-stale-expiry           the embedded scenario that reaches the bug (required)
//	# variants: expiry-fence=none         variants on top of the scenario's (optional, comma-separated)
//	# strategies: random,pct              the strategies to measure (optional; default random,pct)
//	# buggify: on                         run the campaigns with BUGGIFY's core sites (optional; default: the scenario's)
//	# bug: the expiry fence is dropped    one line: the bug class (required)
//	# equivalent-at-boundary: ...         one sentence: why no check can tell the patch apart (optional):
//	                                      the row is marked equivalent, not counted in the score
//
// Blank lines and lines starting with "#" without a known key are comments.
type Mutant struct {
	Name       string            `json:"name"`
	File       string            `json:"file"`
	Check      string            `json:"check"`
	Scenario   string            `json:"scenario"`
	Variants   map[string]string `json:"variants,omitempty"`
	Strategies []string          `json:"strategies"`
	Buggify    string            `json:"buggify,omitempty"` // "on" or "off": simrun's --buggify; "": the scenario's
	Bug        string            `json:"bug"`
	// Equivalent is the header's argument that the patch never changes
	// what reaches a boundary (equivalent-at-boundary): a row not found is
	// then marked equivalent and left out of the score.
	Equivalent string   `json:"equivalent_at_boundary,omitempty"`
	Files      []string `json:"files"` // the paths the patch changes
	Patch      []byte   `json:"-"`
}

// testPackagesAlways are tested on every mutant besides the packages its
// patch touches: the simulation tests, in -short mode.
var testPackagesAlways = []string{"./workloads"}

// TestPackages returns the Go packages the targeted test run covers: the
// directory of every .go file the patch changes, then testPackagesAlways.
func (m *Mutant) TestPackages() []string {
	var out []string
	for _, f := range m.Files {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		if d := "./" + filepath.ToSlash(filepath.Dir(f)); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	for _, d := range testPackagesAlways {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// knownStrategies are the strategies simrun run accepts.
var knownStrategies = []string{"random", "pct"}

// ParseMutant parses one patch file's header and lists the paths it
// changes. Errors name the file and line.
func ParseMutant(path string, data []byte) (*Mutant, error) {
	m := &Mutant{Name: strings.TrimSuffix(filepath.Base(path), ".diff"), File: path, Patch: data}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line, inHeader := 0, true
	seen := map[string]int{}
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "diff --git ") {
			inHeader = false
			f, err := diffPath(text)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			if !slices.Contains(m.Files, f) {
				m.Files = append(m.Files, f)
			}
			continue
		}
		if !inHeader {
			continue
		}
		body, ok := strings.CutPrefix(text, "#")
		if !ok {
			if strings.TrimSpace(text) == "" {
				continue
			}
			return nil, fmt.Errorf("%s:%d: header line %q does not start with '#'", path, line, text)
		}
		key, val, ok := strings.Cut(body, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || strings.ContainsAny(key, " \t") {
			continue // a comment
		}
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: field %q repeated (first on line %d)", path, line, key, prev)
		}
		seen[key] = line
		if val == "" {
			return nil, fmt.Errorf("%s:%d: field %q is empty", path, line, key)
		}
		switch key {
		case "check":
			if strings.ContainsAny(val, " ,") {
				return nil, fmt.Errorf("%s:%d: field check: one check id, got %q", path, line, val)
			}
			m.Check = val
		case "scenario":
			m.Scenario = val
		case "bug":
			m.Bug = val
		case "equivalent-at-boundary":
			m.Equivalent = val
		case "variants":
			m.Variants = map[string]string{}
			for _, kv := range strings.Split(val, ",") {
				k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
				if !ok || k == "" || v == "" {
					return nil, fmt.Errorf("%s:%d: field variants: %q is not key=value", path, line, kv)
				}
				m.Variants[k] = v
			}
		case "strategies":
			for _, s := range strings.Split(val, ",") {
				s = strings.TrimSpace(s)
				if !slices.Contains(knownStrategies, s) {
					return nil, fmt.Errorf("%s:%d: field strategies: unknown strategy %q (want %s)", path, line, s,
						strings.Join(knownStrategies, " or "))
				}
				m.Strategies = append(m.Strategies, s)
			}
		case "buggify":
			if val != "on" && val != "off" {
				return nil, fmt.Errorf("%s:%d: field buggify: want on or off, got %q", path, line, val)
			}
			m.Buggify = val
		default:
			return nil, fmt.Errorf("%s:%d: unknown field %q (want check, scenario, variants, strategies, buggify, bug, equivalent-at-boundary)", path, line, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, f := range []struct{ name, val string }{{"check", m.Check}, {"scenario", m.Scenario}, {"bug", m.Bug}} {
		if f.val == "" {
			return nil, fmt.Errorf("%s: header lacks the field %q", path, f.name)
		}
	}
	if len(m.Files) == 0 {
		return nil, fmt.Errorf("%s: no \"diff --git\" section: not a patch", path)
	}
	if len(m.Strategies) == 0 {
		m.Strategies = slices.Clone(knownStrategies)
	}
	return m, nil
}

// diffPath returns the path of a "diff --git a/X b/X" line.
func diffPath(line string) (string, error) {
	rest := strings.TrimPrefix(line, "diff --git ")
	a, b, ok := strings.Cut(rest, " b/")
	if !ok || !strings.HasPrefix(a, "a/") {
		return "", fmt.Errorf("malformed diff header %q", line)
	}
	if a[2:] != b {
		return "", fmt.Errorf("diff header %q renames a file; a mutant edits files in place", line)
	}
	return b, nil
}

// LoadMutants reads every *.diff of dir, sorted by name.
func LoadMutants(dir string) ([]*Mutant, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.diff"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no *.diff files", dir)
	}
	sort.Strings(paths)
	var out []*Mutant
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		m, err := ParseMutant(p, b)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// VariantArgs renders the variants as sorted simrun flags, then the
// BUGGIFY switch when the header sets it.
func (m *Mutant) VariantArgs() []string {
	var out []string
	for _, k := range slices.Sorted(mapKeys(m.Variants)) {
		out = append(out, "--variant", k+"="+m.Variants[k])
	}
	if m.Buggify != "" {
		out = append(out, "--buggify", m.Buggify)
	}
	return out
}

// VariantText is "k=v,k=v", or "" for the scenario's own variants, then
// "buggify=on|off" when the header sets it.
func (m *Mutant) VariantText() string {
	var parts []string
	for _, k := range slices.Sorted(mapKeys(m.Variants)) {
		parts = append(parts, k+"="+m.Variants[k])
	}
	if m.Buggify != "" {
		parts = append(parts, "buggify="+m.Buggify)
	}
	return strings.Join(parts, ",")
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
