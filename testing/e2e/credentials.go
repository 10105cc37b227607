package e2e

import (
	"context"
	"fmt"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// metricsReader names the ServiceAccount (and its ClusterRoleBinding) that reads the operator's
// metrics, as a Prometheus would.
const metricsReader = "e2e-metrics-reader"

// Install applies the operator's manifests to the cluster that c and cfg reach as an
// administrator (server-side, as `kubectl apply --server-side`), all but the objects of the kinds
// skip names; creates a ServiceAccount in the operator's namespace bound to its metrics-reader
// role (both as m names them); and returns a config that authenticates as the operator's
// ServiceAccount and a token of that reader, the credentials a Prometheus would scrape with.
func Install(ctx context.Context, c client.Client, cfg *rest.Config, m Manifests, skip ...string) (*rest.Config, string, error) {
	for _, obj := range m.Objects {
		if slices.Contains(skip, obj.GetKind()) {
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), client.FieldOwner("operator-demo-e2e"), client.ForceOwnership); err != nil {
			return nil, "", fmt.Errorf("apply %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
		}
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: metricsReader, Namespace: m.Namespace}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: metricsReader},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: m.MetricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: metricsReader, Namespace: m.Namespace}},
	}
	for _, obj := range []client.Object{sa, binding} {
		if err := client.IgnoreAlreadyExists(c.Create(ctx, obj)); err != nil {
			return nil, "", fmt.Errorf("create %s: %w", obj.GetName(), err)
		}
	}
	metricsToken, err := serviceAccountToken(ctx, c, m.Namespace, metricsReader)
	if err != nil {
		return nil, "", err
	}
	token, err := serviceAccountToken(ctx, c, m.Namespace, m.ServiceAccount)
	if err != nil {
		return nil, "", err
	}
	operatorConfig := rest.AnonymousClientConfig(cfg)
	operatorConfig.BearerToken = token
	return operatorConfig, metricsToken, nil
}

// serviceAccountToken is a token, valid for four hours, of the ServiceAccount namespace/name.
func serviceAccountToken(ctx context.Context, c client.Client, namespace, name string) (string, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(4 * 3600))}}
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// WriteKubeconfig writes a kubeconfig file for cfg: its server, CA and bearer token.
func WriteKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "user"}
	kc.CurrentContext = "local"
	return clientcmd.WriteToFile(*kc, path)
}
