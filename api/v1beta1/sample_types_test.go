package v1beta1

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestCRDBoundsMatchConstants: the bounds of spec.data in the kubebuilder markers (which the API
// server enforces, through the generated CRD) are the constants that the tests use, in v1beta1,
// which the CRD serves and stores, with the status subresource.
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
	if i < 0 || !crd.Spec.Versions[i].Served || !crd.Spec.Versions[i].Storage || crd.Spec.Versions[i].Subresources == nil || crd.Spec.Versions[i].Subresources.Status == nil {
		t.Fatalf("version %s: found %v, want it served and stored, with its status subresource", GroupVersion.Version, i >= 0)
	}
	data := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"].Properties["data"]
	if data.MaxProperties == nil || *data.MaxProperties != MaxDataKeys {
		t.Errorf("spec.data maxProperties = %v, want MaxDataKeys = %d", data.MaxProperties, MaxDataKeys)
	}
	for _, want := range []string{
		"size(k) <= " + strconv.Itoa(MaxDataKeyLength),
		"size(self[k]) <= " + strconv.Itoa(MaxDataValueLength),
		".sum() <= " + strconv.Itoa(MaxDataBytes),
	} {
		// The bound whole: "<= 1" is not "<= 1048576".
		bound := regexp.MustCompile(regexp.QuoteMeta(want) + `\b`)
		if !slices.ContainsFunc(data.XValidations, func(r apiextensionsv1.ValidationRule) bool { return bound.MatchString(r.Rule) }) {
			t.Errorf("no rule of spec.data holds %q: %v", want, data.XValidations)
		}
	}
}
