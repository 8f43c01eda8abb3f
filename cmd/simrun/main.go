// Command simrun runs simulated checkpoint scenarios: campaigns of many
// seeds in parallel (run), one seed with its readable trace (replay), the
// reduction of a failing seed to a smaller scenario (shrink), a listing of
// the built-in scenarios and variants (list), several designs side by side
// (compare) and the merge of a sharded campaign's results folders (merge).
// A campaign with --out appends each seed to results.jsonl as it finishes
// and can be continued with run --resume DIR.
//
// Exit codes: 0 pass, 1 safety violation, 2 liveness violation, 3 harness
// crash, 4 step budget exhausted or a checker's verdict unknown, 64 usage
// or scenario error, 130
// interrupted with nothing failed. A campaign exits with its worst seed in
// the order 1, 2, 3, 4, 0.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one simrun subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run a campaign of seeds (the default command)", runCmd},
		{"replay", "run one seed with its readable trace", replayCmd},
		{"shrink", "reduce a failing seed to a smaller scenario", shrinkCmd},
		{"list", "list the built-in scenarios and the variant keys", listCmd},
		{"compare", "run one scenario on several variants side by side", compareCmd},
		{"merge", "combine the results folders of a sharded campaign", mergeCmd},
		{"help", "show usage of simrun or of one command", helpCmd},
	}
}

func main() { os.Exit(simrun(os.Args[1:], os.Stdout, os.Stderr)) }

// simrun dispatches to a command; a first argument that is a flag, or no
// argument at all, means run.
func simrun(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "-help" && args[0] != "--help" {
		return runCmd(args, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	if isHelp(args[0]) {
		return helpCmd(nil, stdout, stderr)
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q (see simrun help)\n", args[0])
	return exitUsage
}

func isHelp(s string) bool { return s == "-h" || s == "-help" || s == "--help" }
