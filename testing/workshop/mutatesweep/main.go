// Command mutatesweep is make mutate-sweep (package sweep's breaks) and, with -mutants, make mutate.
package main

import (
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
	harness := flag.Bool("harness", false, "break the harness a team copies, judged by its own tests, instead of the operator")
	since := flag.String("changed-since", "", "try only the breaks on the lines changed since this revision (the work tree counts)")
	flag.Parse()
	tool, do := "mutate-sweep", func() error {
		return sweeper.Sweep(*harness, sweeper.Selection{Break: *breakText, Since: *since}, os.Stdout)
	}
	if *hand {
		tool, do = "mutate", func() error { return sweeper.Mutate(*scenario, *mutant) }
	}
	if err := do(); err != nil {
		fmt.Fprintln(os.Stderr, tool+":", err)
		os.Exit(1)
	}
}
