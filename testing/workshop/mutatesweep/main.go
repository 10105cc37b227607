// Command mutatesweep is make mutate-sweep (package sweep's breaks) and, with -mutants, make mutate.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"example.com/operator-demo/testing/workshop/mutate/sweeper"
)

func main() {
	breakText := flag.String("break", "", "try only the breaks whose ID (file function operator: was → now) contains this text: a path, say")
	hand := flag.Bool("mutants", false, "make mutate: try the breaks of package mutants, each against the scenario it names")
	scenario := flag.String("scenario", "", "with -mutants: try only the breaks that this scenario (its label) exists to catch")
	mutant := flag.String("mutant", "", "with -mutants: try only the breaks whose description contains this text")
	controlPlane := flag.String("controlplane", "", "with -mutants: the control plane's binaries with kube-controller-manager (make setup-controlplane's directory), for the breaks whose scenario only a local control plane runs")
	harness := flag.Bool("harness", false, "break the harness a team imports, judged by its own tests, instead of the operator")
	since := flag.String("changed-since", "", "try only the breaks on the lines changed since this revision (the work tree counts)")
	reachedBy := flag.String("reached-by", "", "try only the breaks that this spec's run reaches: its package, a space, its full name (./controllers TestDesiredStatus)")
	alone := flag.Bool("alone", false, "with -reached-by: try the spec alone against them, up to the first that fails it, instead of each against every test that reaches it")
	flag.Parse()
	tool, do := "mutate-sweep", func() error {
		sel := sweeper.Selection{Break: *breakText, Since: *since, Alone: *alone}
		if *alone && *reachedBy == "" {
			return errors.New("-alone: which spec? it needs -reached-by")
		}
		if *reachedBy != "" {
			spec, err := sweeper.ParseSpec(*reachedBy)
			if err != nil {
				return fmt.Errorf("-reached-by: %w", err)
			}
			sel.ReachedBy = spec
		}
		return sweeper.Sweep(*harness, sel, os.Stdout)
	}
	if *hand {
		tool, do = "mutate", func() error { return sweeper.Mutate(*scenario, *mutant, *controlPlane) }
	}
	if err := do(); err != nil {
		fmt.Fprintln(os.Stderr, tool+":", err)
		os.Exit(1)
	}
}
