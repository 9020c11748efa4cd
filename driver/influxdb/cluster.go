package influxdb

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of one InfluxDB 1.x server ("influxdb") from
// Debian's influxdb package: influxd with a config file of its own (meta,
// data and WAL under its data dir, HTTP and RPC on 127.0.0.1, no usage
// reporting). Settings are extra lines of the config's [data] section
// (key = TOML value, e.g. cache-max-memory-size = "1g").
type Cluster struct {
	Binary   string // influxd's path; default influxd on $PATH
	Settings map[string]string
}

func (Cluster) System() string { return "influxdb" }

// Describe says what the cluster will be.
func (Cluster) Describe() string { return "influxdb, one server" }

func (c Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	bin, err := l.Binary("influxdb", c.Binary, "apt-get install influxdb", "influxd")
	if err != nil {
		return nil, err
	}
	version := strings.TrimPrefix(l.Version(bin, "version"), "InfluxDB ") // "v1.6.7~rc0 (git: ...)"
	version, _, _ = strings.Cut(version, " ")
	const name = "influxdb"
	hp, err := l.Port(name, "client")
	if err != nil {
		return nil, err
	}
	rp, err := l.Port(name, "rpc")
	if err != nil {
		return nil, err
	}
	nd := l.NodeDir(name)
	conf := filepath.Join(nd, "influxdb.conf")
	var extra strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c.Settings)) {
		fmt.Fprintf(&extra, "  %s = %s\n", k, c.Settings[k])
	}
	url := "http://" + cluster.HostPort(hp)
	ns := &cluster.NodeSpec{
		Name: name, Role: "server", Binary: bin, Version: version, Args: []string{"-config", conf},
		DataDir: nd, Log: l.LogPath(name), Durable: true, URL: url,
		Ports: map[string]int{"client": hp, "rpc": rp},
		Files: map[string]string{conf: fmt.Sprintf(`reporting-disabled = true
bind-address = %q
[meta]
  dir = %q
[data]
  dir = %q
  wal-dir = %q
  query-log-enabled = false
%s[http]
  enabled = true
  bind-address = %q
  log-enabled = false
[monitor]
  store-enabled = false
`, cluster.HostPort(rp), filepath.Join(nd, "meta"), filepath.Join(nd, "data"), filepath.Join(nd, "wal"),
			extra.String(), cluster.HostPort(hp))},
	}
	ns.Ready = func(ctx context.Context) error { return cluster.HTTPStatus(ctx, url+"/ping", http.StatusNoContent) }
	return []cluster.Stage{{Name: "server", Nodes: []*cluster.NodeSpec{ns}}}, nil
}

// Props: influxdb.url of the server.
func (Cluster) Props(nodes []cluster.Node) map[string]string {
	for _, n := range nodes {
		return map[string]string{"influxdb.url": "http://" + cluster.HostPort(n.Ports["client"])}
	}
	return nil
}

// newCluster builds the recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "nodes", "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "the influxdb recipe is one server (InfluxDB 1.x open source does not cluster): give binary and config only")
	}
	return Cluster{Binary: c.Binary, Settings: c.Config}, nil
}
