package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// manifests is what install learned from config/default as rendered.
type manifests struct {
	// serviceAccount is the one the Deployment's Pods run as.
	serviceAccount string
	deployment     *unstructured.Unstructured
}

// install renders kustomizeDir with kubectl's built-in kustomize and creates every object except
// the CRDs (the control plane installed them) and the Deployment (the operator runs as a local
// process, under the Deployment's ServiceAccount).
func install(ctx context.Context, c client.Client, kubectl, kustomizeDir string) (manifests, error) {
	var out manifests
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", kustomizeDir)
	cmd.Stderr = &stderr
	rendered, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("kubectl kustomize %s: %w: %s", kustomizeDir, err, stderr.String())
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return out, fmt.Errorf("decode %s: %w", kustomizeDir, err)
		}
		switch obj.GetKind() {
		case "", "CustomResourceDefinition":
			continue
		case "Deployment":
			sa, _, _ := unstructured.NestedString(obj.Object, "spec", "template", "spec", "serviceAccountName")
			out.serviceAccount, out.deployment = sa, obj
			continue
		}
		if err := c.Create(ctx, obj); err != nil {
			return out, fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	if out.serviceAccount == "" {
		return out, fmt.Errorf("%s renders no Deployment with a serviceAccountName", kustomizeDir)
	}
	return out, nil
}
