package operator

import (
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// Writes counts the API write requests an operator sends, by resource (with "/" and the
// subresource: "configmaps", "samples/status"): every create, update, patch and delete, from any
// client, that the API server took. Not counted: a write it refused (an error response) or never
// received, which changed nothing; events; leader election's Lease renewals (they go on at rest by
// design); the reviews of authentication.k8s.io and authorization.k8s.io (questions a metrics
// endpoint asks, nothing stored).
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
			if err != nil || resp.StatusCode >= http.StatusBadRequest {
				return resp, err
			}
			info, infoErr := requests.NewRequestInfo(req)
			resource := strings.TrimSuffix(info.Resource+"/"+info.Subresource, "/")
			if infoErr == nil && info.IsResourceRequest && writeVerbs.Has(info.Verb) && IsCounted(info.APIGroup, resource) {
				w.mu.Lock()
				defer w.mu.Unlock()
				if w.byResource == nil {
					w.byResource = map[string]float64{}
				}
				w.byResource[resource]++
			}
			return resp, err
		})
	})
	return cfg
}

// writeVerbs are the API server's verbs of a write: create, update, patch, delete.
var writeVerbs = sets.New("create", "update", "patch", "delete", "deletecollection")

// requests parses an API request as the API server does.
var requests = request.RequestInfoFactory{APIPrefixes: map[string]sets.Empty{"api": {}, "apis": {}}, GrouplessAPIPrefixes: map[string]sets.Empty{"api": {}}}

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
