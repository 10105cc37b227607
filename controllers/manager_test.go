package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestTheCacheHoldsOnlyTheOperatorsConfigMaps: the manager's cache selects ConfigMaps by the
// managed-by label, so that the operator holds in memory its own ConfigMaps and no one else's, and
// the selections a caller had already made stay.
func TestTheCacheHoldsOnlyTheOperatorsConfigMaps(t *testing.T) {
	secrets := cache.ByObject{}
	opts := ManagerOptions(ctrl.Options{Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: secrets}}})
	var configMaps *cache.ByObject
	kept := false
	for obj, by := range opts.Cache.ByObject {
		switch obj.(type) {
		case *corev1.ConfigMap:
			configMaps = &by
		case *corev1.Secret:
			kept = true
		}
	}
	if configMaps == nil || configMaps.Label == nil {
		t.Fatalf("the cache selects no ConfigMaps by label: %+v", opts.Cache.ByObject)
	}
	if !configMaps.Label.Matches(labels.Set{ManagedByLabel: ManagedByValue, "team": "a"}) || configMaps.Label.Matches(labels.Set{"team": "a"}) {
		t.Errorf("the cache selects ConfigMaps by %q: want those labelled %s=%s, and only those", configMaps.Label, ManagedByLabel, ManagedByValue)
	}
	if !kept {
		t.Error("the caller's own selection (Secrets) is gone")
	}
	if opts.Client.Cache == nil || opts.Client.Cache.EnableReadYourWritesConsistency == nil || !*opts.Client.Cache.EnableReadYourWritesConsistency {
		t.Error("the client does not read its own writes")
	}
}
