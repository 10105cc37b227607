// Package unit is a unit test that a break made hang, for TestAHangIsAKillByTimeout.
package unit

import "testing"

func TestFinishes(t *testing.T) {}

func TestHangs(t *testing.T) { select {} }
