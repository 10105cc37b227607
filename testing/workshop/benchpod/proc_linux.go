package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procStatus reads fields of a process's /proc status (each in kB there), in bytes.
func procStatus(pid int, fields ...string) ([]float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return make([]float64, len(fields)), err
	}
	values := make([]float64, len(fields))
	found := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, _ := strings.Cut(line, ":")
		for i, f := range fields {
			if name == f {
				kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
				if err != nil {
					return values, fmt.Errorf("/proc/%d/status %s: %w", pid, f, err)
				}
				values[i] = kb * 1024
				found++
			}
		}
	}
	if found != len(fields) {
		return values, fmt.Errorf("/proc/%d/status lacks some of %v", pid, fields)
	}
	return values, nil
}
