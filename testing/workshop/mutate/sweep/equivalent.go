package sweep

// Equivalent are the breaks that no behaviour of the operator can observe, by ID, each with the
// reason. The sweep reports them apart from its score; a break that survives and is not listed
// here fails the sweep, and so does an entry that no break matches any more.
var Equivalent = map[string]string{
	`controllers/manager.go (package) delete: Help: "API write requests sent by the operator, by verb and resource." → `: "a metric's help text: shown to whoever reads /metrics, read by no behaviour",
	`controllers/manager.go (package) constant: "API write requests sent by the operator, by verb and resource." → ""`:   "a metric's help text: shown to whoever reads /metrics, read by no behaviour",
}
