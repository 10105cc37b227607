package code

import "testing"

// TestGreetingIsBuilt can never fail: it checks nothing.
func TestGreetingIsBuilt(_ *testing.T) { _ = Greeting("toy") }

// TestGreetingNamesItsName fails against Greeting's break.
func TestGreetingNamesItsName(t *testing.T) {
	if got := Greeting("toy"); got != "hello, toy" {
		t.Errorf("Greeting(toy) = %q", got)
	}
}

// TestShoutIsBuilt, Shout's only test, can never fail: it checks nothing.
func TestShoutIsBuilt(_ *testing.T) { _ = Shout("toy") }
