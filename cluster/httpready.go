package cluster

import (
	"context"
	"fmt"
	"net/http"
)

// HTTPStatus is the readiness check of a server whose HTTP endpoint
// answers want once it serves its API (InfluxDB's /ping, VictoriaMetrics'
// /health): any other answer, or none, is "not yet".
func HTTPStatus(ctx context.Context, url string, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		return fmt.Errorf("%s: HTTP %d, want %d", url, resp.StatusCode, want)
	}
	return nil
}
