package deployment

import (
	"crypto/x509"
	"encoding/pem"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
	demov1beta1 "example.com/operator-demo/api/v1beta1"
	"example.com/operator-demo/scenarios/samples"
)

// certSecret is the name config/default gives the Secret the operator issues its webhook's
// serving certificate into (its namePrefix, operator-demo-).
const certSecret = "operator-demo-webhook-server-cert"

var _ = Describe("The Sample CRD's conversion webhook, served by the deployed operator", func() {
	It("trusts the CA the operator issued its serving certificate from, for the Service the CRD names", func(ctx SpecContext) {
		By("reading the CRD's conversion: its CA is injected by the time the operator is Ready")
		scheme := runtime.NewScheme()
		Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
		admin, err := client.New(d.Config, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(admin.Get(ctx, types.NamespacedName{Name: samples.CRDName}, crd)).To(Succeed())
		Expect(crd.Spec.Conversion).NotTo(BeNil())
		Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.WebhookConverter))
		hook := crd.Spec.Conversion.Webhook
		Expect(hook).NotTo(BeNil())
		Expect(hook.ClientConfig.Service).NotTo(BeNil())
		service := types.NamespacedName{Namespace: hook.ClientConfig.Service.Namespace, Name: hook.ClientConfig.Service.Name}
		Expect(service).To(Equal(d.ConversionService))
		roots := x509.NewCertPool()
		Expect(roots.AppendCertsFromPEM(hook.ClientConfig.CABundle)).To(BeTrue(), "the CRD's caBundle holds no certificate: %q", hook.ClientConfig.CABundle)

		By("verifying the certificate in the operator's Secret against it, for the Service's DNS name")
		secret := &corev1.Secret{}
		Expect(d.Client.Get(ctx, types.NamespacedName{Namespace: d.Namespace, Name: certSecret}, secret)).To(Succeed())
		block, _ := pem.Decode(secret.Data[corev1.TLSCertKey])
		Expect(block).NotTo(BeNil(), "Secret %s holds no certificate in %s", certSecret, corev1.TLSCertKey)
		cert, err := x509.ParseCertificate(block.Bytes)
		Expect(err).NotTo(HaveOccurred())
		_, err = cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: service.Name + "." + service.Namespace + ".svc"})
		Expect(err).NotTo(HaveOccurred())
	})

	It("converts a Sample written as v1alpha1 when it is read as v1beta1, once the webhook answers through its Service", func(ctx SpecContext) {
		sample := samples.New("default", "converted", "hello world")
		Expect(d.Client.Create(ctx, sample)).To(Succeed())
		Eventually(ctx, func() error {
			_, err := samples.Check(ctx, d.Client, sample)
			return err
		}).Should(Succeed())

		By("reading it through v1beta1 at once: no wait for the webhook, which answered before the spec began")
		read := &demov1beta1.Sample{}
		Expect(d.Client.Get(ctx, client.ObjectKeyFromObject(sample), read)).To(Succeed())
		Expect(read.Spec.Data).To(Equal(map[string]string{demov1alpha1.MessageKey: "hello world"}))
	})
})
