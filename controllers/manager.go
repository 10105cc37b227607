package controllers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// ManagerOptions returns opts with what the Sample controller needs from its manager: a cache that
// holds only the ConfigMaps the operator labels (not every ConfigMap in the cluster), and a client
// that reads its own writes. A failed pass is retried within milliseconds of the status it wrote;
// read from a cache that has not yet seen that write, the Sample would look unreported, and its
// status and Warning event would be written again. controller-runtime's read-your-writes
// consistency makes a read from the cache wait until the cache has seen every write this client
// made to that object before.
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
	return opts
}

// NewScheme returns a scheme that knows the built-in kinds and the Sample API, every version of it:
// v1beta1, which the controller reconciles and the hub its conversions go through, and v1alpha1.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(demov1alpha1.AddToScheme(s))
	utilruntime.Must(demov1beta1.AddToScheme(s))
	return s
}
