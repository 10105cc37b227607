package controllers

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// WritesMetric counts the API write requests the operator sends, by verb ("create", "update",
// "patch", "delete") and resource ("ConfigMap", "Sample/status", ...). At rest it stands still:
// the scenarios and benchmarks read it to prove that a pass with nothing to do writes nothing.
const WritesMetric = "operator_demo_api_writes_total"

var apiWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: WritesMetric,
	Help: "API write requests sent by the operator, by verb and resource.",
}, []string{"verb", "resource"})

func init() {
	metrics.Registry.MustRegister(apiWrites)
}

// ManagerOptions returns opts with what the Sample controller needs from its manager: a cache that
// holds only the ConfigMaps the operator labels (not every ConfigMap in the cluster), and a client
// that counts its writes in WritesMetric and reads its own writes. A failed pass is retried within
// milliseconds of the status it wrote; read from a cache that has not yet seen that write, the
// Sample would look unreported, and its status and Warning event would be written again.
// controller-runtime's read-your-writes consistency makes a read from the cache wait until the
// cache has seen every write this client made to that object before.
func ManagerOptions(opts ctrl.Options) ctrl.Options {
	if opts.Cache.ByObject == nil {
		opts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	opts.Cache.ByObject[&corev1.ConfigMap{}] = cache.ByObject{
		Label: labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue}),
	}
	if opts.Client.Cache == nil {
		opts.Client.Cache = &client.CacheOptions{}
	}
	opts.Client.Cache.EnableReadYourWritesConsistency = ptr.To(true)
	opts.NewClient = newCountingClient
	return opts
}

// newCountingClient is the manager's usual client, with every write counted in WritesMetric.
func newCountingClient(config *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(config, opts)
	if err != nil {
		return nil, err
	}
	return countingWrites(c), nil
}

// countingWrites is c with every write counted in WritesMetric, by verb and by the object's kind
// (with "/" and the subresource, if any; "unknown" for a kind that c's scheme lacks).
func countingWrites(c client.WithWatch) client.WithWatch {
	count := func(verb string, obj client.Object, subresource string) {
		resource := "unknown"
		if gvk, err := apiutil.GVKForObject(obj, c.Scheme()); err == nil {
			resource = gvk.Kind
		}
		if subresource != "" {
			resource += "/" + subresource
		}
		apiWrites.WithLabelValues(verb, resource).Inc()
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count("create", obj, "")
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count("update", obj, "")
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			count("patch", obj, "")
			return c.Patch(ctx, obj, patch, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			count("delete", obj, "")
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count("update", obj, sub)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			count("patch", obj, sub)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
}

// NewScheme returns a scheme that knows the built-in kinds and the Sample API.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(demov1alpha1.AddToScheme(s))
	return s
}
