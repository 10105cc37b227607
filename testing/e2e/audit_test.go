package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAuditWritesCountsWhatTheServerTook: the audit log's writes of the operator's user are
// counted as operator.CountWrites counts them in the test process: a write the API server refused (an
// error response) is not, nor another user's, nor a stage before the response.
func TestAuditWritesCountsWhatTheServerTook(t *testing.T) {
	const user = "system:serviceaccount:demo:manager"
	event := func(stage, username, resource, subresource string, code int) string {
		return `{"stage":"` + stage + `","user":{"username":"` + username + `"},"objectRef":{"apiGroup":"","resource":"` + resource +
			`","subresource":"` + subresource + `"},"responseStatus":{"code":` + strconv.Itoa(code) + `}}`
	}
	log := strings.Join([]string{
		event("ResponseComplete", user, "configmaps", "", 201),
		event("ResponseComplete", user, "configmaps", "", 409), // AlreadyExists
		event("ResponseComplete", user, "configmaps", "", 403), // Forbidden
		event("ResponseComplete", user, "samples", "status", 200),
		event("ResponseComplete", "admin", "configmaps", "", 200),
		event("ResponseStarted", user, "configmaps", "", 200),
	}, "\n") + "\n"
	// The API server is writing the last line yet.
	last := event("ResponseComplete", user, "configmaps", "", 200) + "\n"
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(log+last[:40]), 0o644); err != nil {
		t.Fatal(err)
	}
	writes := AuditWrites(path, user)
	got, err := writes()
	want := map[string]float64{"configmaps": 1, "samples/status": 1}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("AuditWrites = %v, %v; want %v (the refused create and delete not counted)", got, err, want)
	}
	if err := os.WriteFile(path, []byte(log+last), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = writes()
	want["configmaps"]++
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("once the last line is whole, AuditWrites = %v, %v; want %v", got, err, want)
	}
}
