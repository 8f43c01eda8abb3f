package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/ckptsim/ckptsim/workloads"
)

// lookup resolves a scenario name or file; errors name the file, line,
// column and field.
func lookup(ref string) (*workloads.Scenario, error) {
	s, err := workloads.Lookup(ref)
	if err != nil {
		return nil, describe(err)
	}
	return s, nil
}

// lookupAll resolves --scenario values, or the default campaign when none
// is given; it returns every error, not only the first.
func lookupAll(refs []string) ([]*workloads.Scenario, error) {
	campaign := len(refs) == 0
	if campaign {
		for _, c := range workloads.DefaultCampaign {
			refs = append(refs, c.Name)
		}
	}
	var out []*workloads.Scenario
	var errs []error
	for _, r := range refs {
		s, err := lookup(r)
		if err != nil {
			if campaign {
				err = fmt.Errorf("default campaign (workloads.DefaultCampaign): %w", err)
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

var wrongType = regexp.MustCompile(`^cannot unmarshal (\S+) into Go (?:struct field|value) \S* ?of type (\S+)`)

// describe fills in what a workloads.Error leaves out: the field of a
// wrong-typed value (go-yaml names the Go struct instead), with the
// message in scenario words.
func describe(err error) error {
	var e *workloads.Error
	if !errors.As(err, &e) || e.Field != "" || e.Line == 0 {
		return err
	}
	c := *e
	if m := wrongType.FindStringSubmatch(c.Msg); m != nil {
		c.Msg = fmt.Sprintf("wrong type: got %s, want %s", m[1], m[2])
		if src, rerr := os.ReadFile(c.File); rerr == nil {
			c.Field = fieldAtLine(string(src), c.Line)
		}
	}
	return &c
}

// fieldAtLine returns the dotted path of the block-mapping key on a line
// ("cluster.pipelines"), following indentation upwards.
func fieldAtLine(src string, line int) string {
	lines := strings.Split(src, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	var path []string
	indent := len(lines[line-1]) + 1
	for i := line - 1; i >= 0 && indent > 0; i-- {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		in := len(l) - len(t)
		key, _, ok := strings.Cut(t, ":")
		if !ok || in >= indent || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "-") {
			continue
		}
		path = append([]string{strings.TrimSpace(key)}, path...)
		indent = in
	}
	return strings.Join(path, ".")
}

// isScenarioError reports whether err is about scenario input (exit 64).
func isScenarioError(err error) bool { return errors.Is(err, workloads.ErrScenario) }

// fitParallel lowers parallel so that the seeds running at once fit the
// machine's memory (workloads.MachineMemory) by their estimate, saying so
// on stderr; one seed always runs.
func fitParallel(parallel int, scs []*workloads.Scenario, stderr io.Writer) int {
	limit := workloads.MachineMemory
	var est int64
	var name string
	for _, s := range scs {
		if e := s.MemoryEstimate(); e > est {
			est, name = e, s.Name
		}
	}
	if limit <= 0 || est <= 0 || int64(parallel)*est <= limit {
		return parallel
	}
	n := int(max(limit/est, 1))
	fmt.Fprintf(stderr, "simrun: %d seeds at once, not %d: a seed of %s needs an estimated %s, and the machine has %s\n",
		n, parallel, name, workloads.FormatSize(est), workloads.FormatSize(limit))
	return n
}
