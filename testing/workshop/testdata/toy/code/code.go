// Package code is toy code for the sweep's tests to break: each function has one break, a
// constant replaced, that a test of code_test.go fails against or none does; and a variable whose
// break fails the package as it starts, before any test runs.
package code

// Greeting is the greeting of name.
func Greeting(name string) string { return "hello, " + name }

// Shout is s, shouted.
func Shout(s string) string { return s + "!" }

// divisor divides itself as the package starts: its break to 0 panics there.
var divisor = 2

var _ = divisor / divisor
