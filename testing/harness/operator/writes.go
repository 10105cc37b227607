package operator

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// Writes counts the API write requests an operator sends, by resource: every create, update,
// patch and delete, from any client, that the API server took. Not counted: a write it refused
// (an error response) or never received, which changed nothing; events; leader election's Lease
// renewals (they go on at rest by design); the reviews of authentication.k8s.io and
// authorization.k8s.io (questions a metrics endpoint asks, nothing stored).
type Writes struct {
	mu         sync.Mutex
	byResource map[string]float64
}

// Counted is cfg with every write request through it, from any client built from it, counted in w.
func (w *Writes) Counted(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return promhttp.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && resp.StatusCode < http.StatusBadRequest && slices.Contains(writeMethods, req.Method) {
				if group, resource := ResourceOf(req.URL.Path); IsCounted(group, resource) {
					w.mu.Lock()
					defer w.mu.Unlock()
					if w.byResource == nil {
						w.byResource = map[string]float64{}
					}
					w.byResource[resource]++
				}
			}
			return resp, err
		})
	})
	return cfg
}

// writeMethods are the methods that write: create, update, patch, delete.
var writeMethods = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// ByResource is how many writes each resource has had.
func (w *Writes) ByResource() map[string]float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.byResource)
}

// IsCounted says whether a write of resource (with "/" and its subresource, if any) of API group
// counts as a write of the operator's (Writes).
func IsCounted(group, resource string) bool {
	base, _, _ := strings.Cut(resource, "/")
	switch {
	case base == "events", group == "coordination.k8s.io" && base == "leases":
		return false
	case group == "authentication.k8s.io", group == "authorization.k8s.io":
		return false
	}
	return resource != ""
}

// ResourceOf is the API group and the resource (with "/" and its subresource, if any) of an API
// request's path: /api/v1/namespaces/a/configmaps/b is ("", "configmaps"),
// /apis/demo.example.com/v1alpha1/namespaces/a/samples/b/status ("demo.example.com",
// "samples/status"). A path outside the resource API is ("", "").
func ResourceOf(path string) (group, resource string) {
	info, err := requests.NewRequestInfo(&http.Request{URL: &url.URL{Path: path}})
	if err != nil || !info.IsResourceRequest {
		return "", ""
	}
	if info.Subresource != "" {
		return info.APIGroup, info.Resource + "/" + info.Subresource
	}
	return info.APIGroup, info.Resource
}

// requests parses an API path as the API server does.
var requests = request.RequestInfoFactory{APIPrefixes: map[string]sets.Empty{"api": {}, "apis": {}}, GrouplessAPIPrefixes: map[string]sets.Empty{"api": {}}}
