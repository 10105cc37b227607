//go:build !linux

package main

import "errors"

// procStatus needs Linux's /proc.
func procStatus(_ int, fields ...string) ([]float64, error) {
	return make([]float64, len(fields)), errors.New("a process's status is read from /proc, which only Linux has")
}
