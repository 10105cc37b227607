// Package code is toy code for the sweep's tests to break: each function has one break, a
// constant replaced, that a test of code_test.go fails against or none does.
package code

// Greeting is the greeting of name.
func Greeting(name string) string { return "hello, " + name }

// Shout is s, shouted.
func Shout(s string) string { return s + "!" }
