//go:build !linux

package main

import "errors"

// residentBytes needs Linux's /proc: elsewhere the memory measure says so and is left out.
func residentBytes(int) (float64, error) {
	return 0, errors.New("a process's resident set size is read from /proc, which only Linux has")
}

// procStatus needs Linux's /proc.
func procStatus(_ int, fields ...string) ([]float64, error) {
	return make([]float64, len(fields)), errors.New("a process's status is read from /proc, which only Linux has")
}
