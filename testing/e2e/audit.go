package e2e

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"sync"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"example.com/operator-demo/testing/harness/operator"
)

// AuditPolicy is the API server's audit policy on the e2e tier's clusters (audit-policy.yaml):
// one line of metadata per write request, nothing else. A local cluster writes it for its API
// server; testing/e2e/kind.sh mounts the file into kind's.
//
//go:embed audit-policy.yaml
var AuditPolicy []byte

// AuditWrites reads the API writes that username sent, by resource (as operator.CountWrites counts
// them: not those the server refused), from the API server's audit log at path (written with
// AuditPolicy): the e2e tier's count of a deployed operator's writes, which the operator itself
// need not export. Each call reads what the log has gained since the last.
func AuditWrites(path, username string) func() (map[string]float64, error) {
	var mu sync.Mutex
	var offset int64
	writes := map[string]float64{}
	return func() (map[string]float64, error) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("read the API server's audit log: %w", err)
		}
		defer func() { _ = f.Close() }()
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			return nil, err
		}
		// One event a line: a line not yet whole is read again next time.
		for events, from := json.NewDecoder(f), offset; ; offset = from + events.InputOffset() {
			var e auditv1.Event
			if err := events.Decode(&e); errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("audit log %s after byte %d: %w", path, offset, err)
			}
			refused := e.ResponseStatus != nil && e.ResponseStatus.Code >= http.StatusBadRequest
			if e.Stage != auditv1.StageResponseComplete || e.User.Username != username || e.ObjectRef == nil || refused {
				continue
			}
			resource := e.ObjectRef.Resource
			if e.ObjectRef.Subresource != "" {
				resource += "/" + e.ObjectRef.Subresource
			}
			if operator.IsCounted(e.ObjectRef.APIGroup, resource) {
				writes[resource]++
			}
		}
		return maps.Clone(writes), nil
	}
}
