package deployment

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

var _ = Describe("The operator's metrics endpoint", func() {
	It("answers 401 without a token, 403 to a ServiceAccount without the metrics-reader role, 200 with it", func(ctx SpecContext) {
		By("creating a ServiceAccount that no role is bound to")
		cs, err := kubernetes.NewForConfig(d.Config)
		Expect(err).NotTo(HaveOccurred())
		nobody := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody", Namespace: "default"}}
		Expect(d.Client.Create(ctx, nobody)).To(Succeed())
		tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "nobody",
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(600))}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Expect(d.MetricsStatus(ctx, "")).To(Equal(http.StatusUnauthorized))
		Expect(d.MetricsStatus(ctx, tr.Status.Token)).To(Equal(http.StatusForbidden))
		Expect(d.MetricsStatus(ctx, d.MetricsToken)).To(Equal(http.StatusOK))
	})
})
