package victoriametrics

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Version is the VictoriaMetrics scripts/build-victoriametrics.sh builds
// by default, and whose cached binary the recipe finds without a PATH entry.
const Version = "1.151.0"

// Cluster is the recipe of one VictoriaMetrics single-node server
// ("victoriametrics"): its data under the node's dir, HTTP on 127.0.0.1, a
// retention of 100 years (the workloads write points of 2016, older than
// the default month), no self-scraping, deduplication of points at the
// same millisecond (VictoriaMetrics keeps the bigger value; it replaces
// nothing). Settings are extra flags
// (-name=value), which win over these.
type Cluster struct {
	Binary   string // victoria-metrics' path; default the cached build, then $PATH
	Settings map[string]string
}

func (Cluster) System() string { return "victoriametrics" }

// Describe says what the cluster will be.
func (Cluster) Describe() string { return "victoriametrics, one single-node server" }

// cached is where scripts/build-victoriametrics.sh puts Version.
func cached() string {
	cache := os.Getenv("DBRIG_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "dbrig")
	}
	return filepath.Join(cache, "victoriametrics", Version, "victoria-metrics")
}

func (c Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	bin, err := l.Binary("victoriametrics", c.Binary, "scripts/build-victoriametrics.sh", cached(), "victoria-metrics", "victoria-metrics-prod")
	if err != nil {
		return nil, err
	}
	version := l.Version(bin, "-version")
	const name = "victoriametrics"
	port, err := l.Port(name, "client")
	if err != nil {
		return nil, err
	}
	nd := l.NodeDir(name)
	flags := map[string]string{
		"storageDataPath": filepath.Join(nd, "data"), "httpListenAddr": cluster.HostPort(port),
		"retentionPeriod": "100y", "selfScrapeInterval": "0", "loggerLevel": "WARN",
		"dedup.minScrapeInterval": "1ms", // a point written again is one point (the bigger value)
	}
	for k, v := range c.Settings {
		flags[k] = v
	}
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var args []string
	for _, k := range keys {
		args = append(args, fmt.Sprintf("-%s=%s", k, flags[k]))
	}
	url := "http://" + cluster.HostPort(port)
	ns := &cluster.NodeSpec{
		Name: name, Role: "server", Binary: bin, Version: version, Args: args,
		DataDir: nd, Log: l.LogPath(name), Durable: true, URL: url,
		Ports: map[string]int{"client": port},
	}
	ns.Ready = func(ctx context.Context) error { return cluster.HTTPStatus(ctx, url+"/health", http.StatusOK) }
	return []cluster.Stage{{Name: "server", Nodes: []*cluster.NodeSpec{ns}}}, nil
}

// Props: victoriametrics.url of the server.
func (Cluster) Props(nodes []cluster.Node) map[string]string {
	for _, n := range nodes {
		return map[string]string{"victoriametrics.url": "http://" + cluster.HostPort(n.Ports["client"])}
	}
	return nil
}

// newCluster builds the recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "nodes", "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "the victoriametrics recipe is one single-node server: give binary and config only")
	}
	return Cluster{Binary: c.Binary, Settings: c.Config}, nil
}
