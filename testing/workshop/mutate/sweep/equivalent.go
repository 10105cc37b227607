package sweep

// Equivalent are the breaks that no behaviour of the operator can observe, by ID, each with the
// reason. The sweep reports them apart from its score; a break that survives and is not listed
// here fails the sweep, and so does an entry that no break matches any more.
var Equivalent = map[string]string{
	`controllers/sample_controller.go (package) constant: "sample" → ""`:                                                        "controller-runtime names a controller that Named gives no name after the kind it is For, lowercased: \"sample\", ControllerName itself",
	`controllers/sample_controller.go (package) constant: 8 → 0`:                                                                "a tuning constant: 0 makes controller-runtime run one worker, and every Sample still converges; only the throughput differs, which BENCHMARKS.md measured. Only a spec that compares the workers with the constant itself, a change-detector, could kill it",
	`controllers/sample_status.go (package) constant: "the ConfigMap's name is taken by one this Sample does not control" → ""`: "errConflict's text is shown nowhere: a conflict ends a pass in status and a recheck, never as an error of Reconcile's",
	`controllers/sample_controller.go SampleReconciler.SetupWithManager delete: .Named(ControllerName) → `:                      "controller-runtime names a controller after the kind it is For, lowercased: \"sample\", ControllerName itself; Named keeps the name (the metrics' controller label) from following a rename of the kind",
	`testing/harness/poll/poll.go Until constant: false → true`:                                                                 "apimachinery's wait returns a condition's error whatever it says of done (err != nil || ok): a stopped check ends the poll with its error either way",
	`testing/harness/waits.go settledMatcher.loop delete: if during.Reconciles <= Loop { return "" } → `:                        "an early return: the check below says the same of every count up to Loop (Loop × max(objects, 1) ≥ Loop); it saves a List of the spec's objects per poll, nothing a spec sees",
	`testing/harness/waits.go settledMatcher.loop delete: return "" → `:                                                         "the early return of the line above (the loop's List error returns \"\" too, and a test kills its break): the check below says the same of every count up to Loop",
	`testing/harness/waits.go settledMatcher.loop constant: 1 → 0`:                                                              "past the early return the count is above Loop: with no objects, a threshold of Loop × 0 and of Loop × 1 both find the loop",
}
