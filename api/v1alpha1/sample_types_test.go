package v1alpha1

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestCRDBoundsMatchConstants: the bounds in the kubebuilder markers (which the API server
// enforces, through the generated CRD) are the constants that the controller and tests use, in
// v1alpha1, which the CRD serves beside v1beta1, the version it stores.
func TestCRDBoundsMatchConstants(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "demo.example.com_samples.yaml"))
	if err != nil {
		t.Fatalf("read the generated CRD (make manifests): %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
		return v.Name == GroupVersion.Version
	})
	if i < 0 || !crd.Spec.Versions[i].Served || crd.Spec.Versions[i].Storage {
		t.Fatalf("version %s: found %v, want it served, and not stored", GroupVersion.Version, i >= 0)
	}
	schema := crd.Spec.Versions[i].Schema.OpenAPIV3Schema

	message := schema.Properties["spec"].Properties["message"]
	if message.MaxLength == nil || *message.MaxLength != MaxMessageLength {
		t.Errorf("spec.message maxLength = %v, want MaxMessageLength = %d", message.MaxLength, MaxMessageLength)
	}

	var nameRule string
	for _, rule := range schema.XValidations {
		if strings.Contains(rule.Rule, "self.metadata.name") {
			nameRule = rule.Rule
		}
	}
	if want := "size(self.metadata.name) <= " + strconv.Itoa(MaxNameLength); nameRule != want {
		t.Errorf("name rule %q, want %q (MaxNameLength)", nameRule, want)
	}
	if MaxNameLength+len(ConfigMapSuffix) != 253 {
		t.Errorf("MaxNameLength %d + %q does not make the 253 of a DNS subdomain", MaxNameLength, ConfigMapSuffix)
	}
}
