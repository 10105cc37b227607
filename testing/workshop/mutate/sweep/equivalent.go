package sweep

// Equivalent are the breaks that no behaviour of the operator, or of the harness, can observe, by
// ID, each with the reason. The sweep reports them apart from its score; a break that survives and
// is not listed here fails the sweep. An entry that no break matches any more fails
// TestEveryEquivalentBreakStillExists (make test-workshop).
var Equivalent = map[string]string{
	`controllers/sample_controller.go (package) constant: "sample" → ""`:                                                        "controller-runtime names a controller that Named gives no name after the kind it is For, lowercased: \"sample\", ControllerName itself",
	`controllers/sample_controller.go (package) constant: 8 → 0`:                                                                "a tuning constant: 0 makes controller-runtime run one worker, and every Sample still converges; only the throughput differs, which BENCHMARKS.md measured. Only a spec that compares the workers with the constant itself, a change-detector, could kill it",
	`controllers/sample_status.go (package) constant: "the ConfigMap's name is taken by one this Sample does not control" → ""`: "errConflict's text is shown nowhere: a conflict ends a pass in status and a recheck, never as an error of Reconcile's",
	`controllers/sample_controller.go SampleReconciler.SetupWithManager delete: .Named(ControllerName) → `:                      "controller-runtime names a controller after the kind it is For, lowercased: \"sample\", ControllerName itself; Named keeps the name (the metrics' controller label) from following a rename of the kind",
	`testing/harness/operator/inprocess.go StartManager constant: 50 → 0`:                                                       "the poll's interval: at 0 StartManager looks at its cache and ready check without a pause and returns as soon; only the CPU spent differs",
	`testing/harness/operator/operator.go Operator.Up constant: 50 → 0`:                                                         "the poll's interval: at 0 Up reads the controllers' metrics without a pause and returns as soon; only the CPU spent differs",
	`testing/harness/operator/operator.go Operator.Read constant: "" → "x"`:                                                     "Read asks sum only whether the operator exports its reconciles, never for their total: which samples the total adds up is unused",
	`testing/harness/operator/inprocess.go CountWrites negate: infoErr == nil && info.IsResourceRequest → ||`:                   "a request that NewRequestInfo cannot parse, or that is not of a resource, has no resource, which IsCounted never counts",
	`testing/harness/operator/inprocess.go CountWrites drop error: err → nil`:                                                   "the last return's err is nil: a failed round trip returned above (where dropping it is killed, by the write to a closed port)",
	`testing/harness/cluster/cluster.go ServeWebhooks constant: true → false`:                                                   "ErrorIfPathMissing of the CRDs FindAll has just found, each of them there",
	`testing/harness/cluster/cluster.go ServeWebhooks delete: ErrorIfPathMissing: true → `:                                      "ErrorIfPathMissing of the CRDs FindAll has just found, each of them there",
	`testing/harness/poll/poll.go Until constant: false → true`:                                                                 "apimachinery's wait returns a condition's error whatever it says of done (err != nil || ok): a stopped check ends the poll with its error either way",
	`testing/harness/waits.go settledMatcher.loop delete: if during.Reconciles <= Loop { return "" } → `:                        "an early return: the check below says the same of every count up to Loop (Loop × max(objects, 1) ≥ Loop); it saves a List of the spec's objects per poll, nothing a spec sees",
	`testing/harness/waits.go settledMatcher.loop delete: return "" → `:                                                         "the early return of the line above (the loop's List error returns \"\" too, and a test kills its break): the check below says the same of every count up to Loop",
	`testing/harness/waits.go settledMatcher.loop constant: 1 → 0`:                                                              "past the early return the count is above Loop: with no objects, a threshold of Loop × 0 and of Loop × 1 both find the loop",
}
