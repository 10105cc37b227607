//go:build !race

package controllers

// raceDetector says whether the tests run under the race detector (make test's -race): not here.
const raceDetector = false
