package main

import (
	"fmt"
	"strings"
)

// defaultDetect is results/mutants/default-campaign.json's summary: what
// `go run ./cmd/mutants -default-campaign` measured, every planted bug run
// over the default campaign in its seed order to its first controlled
// detection.
type defaultDetect struct {
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Default struct {
		Rows       int      `json:"rows"`
		Found      int      `json:"found"`
		NotFound   []string `json:"not_found"`
		MedianCPUS float64  `json:"median_cpu_s"`
		P90CPUS    float64  `json:"p90_cpu_s"`
		WorstCPUS  float64  `json:"worst_cpu_s"`
		Worst      string   `json:"worst"`
		WholeCPUS  float64  `json:"whole_campaign_cpu_s"`
	} `json:"default_campaign"`
}

// defaultDetection writes the product's speed into results/README.md,
// defaultDetectionRoot into README.md: CPU-seconds to the first detection
// of each planted bug under the default campaign (median, 90th percentile,
// worst), with its source line.
func defaultDetection(b *strings.Builder, root string) error { return detection(b, root, "") }

func defaultDetectionRoot(b *strings.Builder, root string) error {
	return detection(b, root, "results/")
}

// detection writes the figure; links are relative to prefix's folder.
func detection(b *strings.Builder, root, prefix string) error {
	var d defaultDetect
	if err := readJSON(root, "mutants/default-campaign.json", &d); err != nil {
		return err
	}
	s := d.Default
	fmt.Fprintf(b, "- **Bugs found per CPU-second** (the product's speed): over the default campaign, in its seed order, "+
		"**%d of %d** planted bugs are found by the check they name, on a seed the unpatched tree passes; "+
		"CPU-seconds to the first detection: median **%.2f**, 90th percentile **%.2f**, worst **%.1f** (`%s`); "+
		"the %d it misses cost the whole campaign, %.1f CPU-s at `--parallel 1` ([list](%smutants/default-campaign.md)).\n",
		s.Found, s.Rows, s.MedianCPUS, s.P90CPUS, s.WorstCPUS, s.Worst, len(s.NotFound), s.WholeCPUS, prefix)
	source(b, prefix+"mutants/default-campaign.json", code(d.Command), code(d.Commit))
	return nil
}
