//go:build !linux

package node

import (
	"errors"

	"example.com/operator-demo/testing/localcluster"
)

// Cluster is a LocalCluster with a node: a kubelet runs on Linux alone.
type Cluster struct{ *localcluster.LocalCluster }

var errNotLinux = errors.New("the node tier runs a kubelet, on Linux alone; elsewhere make test-e2e E2E_PROVIDER=kind runs the e2e tier, with Docker")

// Start fails: a node needs Linux.
func Start(string, []string) (*Cluster, error) { return nil, errNotLinux }

// Stop fails: there is no node.
func (c *Cluster) Stop() error { return errNotLinux }

// Import fails: there is no node.
func (c *Cluster) Import(string) error { return errNotLinux }

// Logs names none: there is no node.
func (c *Cluster) Logs() []string { return nil }

// Ctr is none: there is no node.
func Ctr() []string { return nil }
