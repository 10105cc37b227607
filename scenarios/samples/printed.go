package samples

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	demov1alpha1 "example.com/operator-demo/api/v1alpha1"
)

// Printed is what `kubectl get samples` prints for sample, column by column: the API server's
// own table for it (the CRD's printer columns), without the columns kept for `-o wide`.
func Printed(ctx context.Context, cfg *rest.Config, sample *demov1alpha1.Sample) (map[string]string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("/apis/%s/namespaces/%s/samples/%s", demov1alpha1.GroupVersion, sample.Namespace, sample.Name)
	// What kubectl asks for: the server-side table, not the object.
	body, err := dc.RESTClient().Get().AbsPath(url).SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("GET %s as a table: %w", url, err)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		return nil, fmt.Errorf("GET %s as a table: %w", url, err)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
		return nil, fmt.Errorf("GET %s as a table: %d rows, want 1 with a cell per column", url, len(table.Rows))
	}
	printed := map[string]string{}
	for i, column := range table.ColumnDefinitions {
		if column.Priority == 0 {
			printed[column.Name] = fmt.Sprint(table.Rows[0].Cells[i])
		}
	}
	return printed, nil
}
