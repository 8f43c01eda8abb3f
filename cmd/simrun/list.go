package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ckptsim/ckptsim/core/variant"
	"github.com/ckptsim/ckptsim/workloads"
)

const listAbout = `Lists the embedded scenarios with their descriptions, the default
campaign, the variant keys with their values (default first) and the
variant profiles with the pairs they expand to.`

func listCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", "", listAbout, stdout, stderr)
	if c := parse(fs, args, stderr); c >= 0 {
		return c
	}
	code := exitPass
	for _, folder := range []string{"scenarios", "hazards"} {
		all, err := workloads.Embedded(folder)
		if err != nil {
			fmt.Fprintf(stderr, "simrun list: %s: %v\n", folder, describe(err))
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s (--scenario NAME):\n", folder)
		for _, s := range all {
			fmt.Fprintf(stdout, "  %s\n%s", s.Name, wrap(s.Description, "      ", 76))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout, "default campaign (simrun with no arguments):")
	for _, c := range workloads.DefaultCampaign {
		note := ""
		if _, err := workloads.Lookup(c.Name); err != nil {
			note = "  (missing: " + describe(err).Error() + ")"
		}
		name := workloads.EntryLabel(c.Name, workloads.VariantString(c.Variants), c.Strategy, c.Buggify)
		fmt.Fprintf(stdout, "  %-50s %3d seeds%s\n", name, c.Seeds, note)
	}
	fmt.Fprintln(stdout, "\nvariants (--variant key=value; the first value is the default):")
	for _, v := range workloads.VariantKeys() {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	fmt.Fprintln(stdout, "\nprofiles (--profile NAME: bundles of variants; --variant wins over them):")
	for _, p := range variant.Profiles() {
		fmt.Fprintf(stdout, "  %s\n%s", p.Name, wrap(p.About, "      ", 76))
		for _, v := range p.Values {
			fmt.Fprintf(stdout, "      %s=%s\n", v.Key, v.Value)
		}
		for _, n := range p.NotModelled {
			fmt.Fprintf(stdout, "%s", wrap("not modelled: "+n, "      ", 76))
		}
	}
	return code
}

// wrap folds text into indented lines of at most width characters.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > width && line != indent {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	if line != indent {
		b.WriteString(line + "\n")
	}
	return b.String()
}
