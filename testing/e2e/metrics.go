package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scraper reads the operators' metrics endpoints, served with the operator's self-signed
// certificate on loopback, or on kind through a port-forward (a port of its own for each scrape).
// One client for every scrape: its connections to a port are reused.
var scraper = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the operator's self-signed certificate, on loopback
}}

// Scrape reads the metric families at url, with token as bearer (none when empty): the metrics
// endpoint of an operator that runs outside the test process (the e2e tier's), read the way
// Prometheus scrapes it, over HTTP or HTTPS. An operator in the test process is read from
// controller-runtime's registry instead, without a scrape.
func Scrape(ctx context.Context, url, token string) ([]*dto.MetricFamily, error) {
	resp, err := get(ctx, url, token)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	byName, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return slices.Collect(maps.Values(byName)), nil
}

func get(ctx context.Context, url, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return scraper.Do(req)
}
