package main

import (
	"fmt"
	"io"
)

const helpAbout = `simrun runs simulated checkpoint scenarios.

usage: simrun [command] [flags]

commands:
%s
With no command, simrun runs: 'simrun' alone runs the default campaign.
'simrun help COMMAND' or 'simrun COMMAND -h' shows a command's flags.
Flags take one or two dashes (-seeds 4, --seeds 4, --seeds=4), before or
after arguments; a scenario name or file may be typed as an argument
instead of --scenario (simrun replay my.yaml --seed 7).

exit codes: 0 pass, 1 safety violation, 2 liveness violation, 3 harness
crash, 4 step budget exhausted or verdict unknown (a checker gave up), 64
usage or scenario error, 130 interrupted; a campaign exits with its worst
seed in that order.
`

func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && !isHelp(args[0]) {
		for _, c := range commands() {
			if c.name == args[0] && c.name != "help" {
				return c.run([]string{"-h"}, stdout, stderr)
			}
		}
		return usagef(stderr, "help", "unknown command %q", args[0])
	}
	list := ""
	for _, c := range commands() {
		list += fmt.Sprintf("  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(stdout, helpAbout, list)
	return exitPass
}
