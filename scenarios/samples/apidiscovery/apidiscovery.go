// Package apidiscovery reads what the API server's discovery says of the Samples: which version it
// stores them in. It is a package of its own so that what imports package samples, the workshop's
// tools among them, does not import the API server's code (k8s.io/apiserver) for one hash.
package apidiscovery

import (
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	endpoints "k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/discovery"

	demov1beta1 "example.com/operator-demo/api/v1beta1"
)

// Samples is what the API server's discovery lists in the Samples' group at version.
func Samples(api discovery.DiscoveryInterface, version string) ([]metav1.APIResource, error) {
	resources, err := api.ServerResourcesForGroupVersion(demov1beta1.GroupVersion.Group + "/" + version)
	if err != nil {
		return nil, err
	}
	return resources.APIResources, nil
}

// StoredAs matches what discovery lists (Samples) when it announces that the API server stores
// Samples as version, by their storageVersionHash. The API server announces it once it has read
// a CRD whose storage version is version, and stores in that version what it writes from then on:
// a rewrite before that stores an object as it was stored.
func StoredAs(version string) types.GomegaMatcher {
	return ContainElement(HaveField("StorageVersionHash", endpoints.StorageVersionHash(demov1beta1.GroupVersion.Group, version, "Sample")))
}
