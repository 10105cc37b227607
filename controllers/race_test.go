//go:build race

package controllers

// raceDetector says whether the tests run under the race detector (make test's -race): here, they do.
const raceDetector = true
