//go:build !linux

package localcluster

import (
	"errors"
	"time"
)

// RestartAPIServer needs Linux: it finds kube-apiserver through /proc. The API-server restart
// spec runs in the deployment suite of `make test-e2e` on Linux (GitHub Actions' Linux runners,
// or a Linux machine).
func (lc *LocalCluster) RestartAPIServer() (time.Duration, error) {
	return 0, errors.New("restarting kube-apiserver needs Linux (/proc); run the deployment suite with make test-e2e on Linux")
}
