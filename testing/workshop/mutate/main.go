// Command mutate is make mutate: it tries the breaks of package mutants, each against the scenario
// it names. Its packages (mutants, sweep, sweeper, trial) are make mutate-sweep's too.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/operator-demo/testing/workshop/mutate/sweeper"
)

func main() {
	scenario := flag.String("scenario", "", "try only the breaks that this scenario (its label) exists to catch")
	mutant := flag.String("mutant", "", "try only the breaks whose description contains this text")
	controlPlane := flag.String("controlplane", "", "the control plane's binaries with kube-controller-manager (make setup-controlplane's directory), for the breaks whose scenario only a local control plane runs")
	flag.Parse()
	if err := sweeper.Mutate(*scenario, *mutant, *controlPlane); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}
