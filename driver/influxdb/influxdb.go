// Package influxdb benchmarks InfluxDB 1.x through its HTTP API: points
// written as line protocol (POST /write, split into influxdb.batchsize
// lines), queries in InfluxQL (/query, epoch=ns). It is a time-series store
// only (driver.Points, driver.PointDeleter): the record operations of the
// key-value workloads fail with a clear error.
//
// No client library: influxdb1-client's point objects allocate a tag map
// per point and format the values again; lines are appended here into a
// reused buffer (driver/internal/lineproto), and InfluxQL answers are
// plain JSON.
//
// The workload's table is not used: points live in database influxdb.db,
// retention policy influxdb.rp, measurement as the point names it.
//
// Example:
//
//	dbrig run -P devops --driver influxdb -p influxdb.url=http://127.0.0.1:8086 --duration 60s
package influxdb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/lineproto"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is an InfluxDB server seen through HTTP. Safe for concurrent use.
type DB struct {
	*lineproto.Writer // influxdb.url, precision, batchsize, timeout, poolsize
	db, rp            string
	user, pwd         string
}

var (
	_ driver.DB           = (*DB)(nil)
	_ driver.Points       = (*DB)(nil)
	_ driver.PointDeleter = (*DB)(nil)
	_ driver.Resetter     = (*DB)(nil)
	_ driver.Versioner    = (*DB)(nil)
	_ driver.Describer    = (*DB)(nil)
)

// errNoRecords is what the key-value operations return.
var errNoRecords = errclass.Wrap(errclass.Other, fmt.Errorf("influxdb keeps time series only: run a time-series workload (tsworkloada, devops)"))

// Open reads the influxdb.* properties, creates the database (and the
// retention policy when influxdb.rp.duration is set) and checks the server.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	d, err := fromProps(cfg.Props)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	stmt := "CREATE DATABASE " + ident(d.db)
	if dur := strings.TrimSpace(cfg.Props.String("influxdb.rp.duration", "")); dur != "" {
		if d.rp == "" {
			return nil, cfg.Props.Errorf("influxdb.rp", "a retention policy name (influxdb.rp.duration is set)")
		}
		stmt += fmt.Sprintf("; CREATE RETENTION POLICY %s ON %s DURATION %s REPLICATION 1", ident(d.rp), ident(d.db), dur)
		stmt += fmt.Sprintf("; ALTER RETENTION POLICY %s ON %s DURATION %s", ident(d.rp), ident(d.db), dur)
	}
	if _, err := d.query(ctx, stmt, true); err != nil {
		return nil, fmt.Errorf("influxdb: open %s: %w", d.Base, err)
	}
	return d, nil
}

func fromProps(p *spec.Props) (*DB, error) {
	w, err := lineproto.NewWriter(p, "influxdb", "http://127.0.0.1:8086")
	if err != nil {
		return nil, err
	}
	d := &DB{Writer: w, db: p.String("influxdb.db", "dbrig"), rp: p.String("influxdb.rp", ""),
		user: p.String("influxdb.username", ""), pwd: p.String("influxdb.password", "")}
	if d.db == "" {
		return nil, p.Errorf("influxdb.db", "a database name")
	}
	return d, nil
}

func (d *DB) auth(v url.Values) {
	if d.user != "" {
		v.Set("u", d.user)
		v.Set("p", d.pwd)
	}
}

// WritePoints posts pts as line protocol, influxdb.batchsize lines a request.
func (d *DB) WritePoints(ctx context.Context, _ string, pts []driver.Point) error {
	err := d.Write(ctx, pts, func(prec string) string {
		v := url.Values{"db": {d.db}, "precision": {prec}}
		if d.rp != "" {
			v.Set("rp", d.rp)
		}
		d.auth(v)
		return d.Base + "/write?" + v.Encode()
	})
	if err != nil {
		return fmt.Errorf("influxdb: %w", err)
	}
	return nil
}

// QueryPoints answers q with one InfluxQL statement.
func (d *DB) QueryPoints(ctx context.Context, _ string, q driver.Query) ([]driver.Series, error) {
	stmt, err := selectStmt(d.from(q.Measurement), q)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	res, err := d.query(ctx, stmt, false)
	if err != nil {
		return nil, fmt.Errorf("influxdb: %w", err)
	}
	return toSeries(res, q)
}

// DeletePoints deletes the points of q's series in [q.From, q.To].
func (d *DB) DeletePoints(ctx context.Context, _ string, q driver.Query) error {
	var stmts []string
	for _, s := range q.Series {
		stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE %s AND time >= %d AND time <= %d",
			ident(q.Measurement), seriesCond(s), q.From, q.To))
	}
	if len(stmts) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	_, err := d.query(ctx, strings.Join(stmts, "; "), true)
	return err
}

func (d *DB) from(m string) string {
	rp := ""
	if d.rp != "" {
		rp = ident(d.rp)
	}
	return ident(d.db) + "." + rp + "." + ident(m)
}

// Reset drops the database and creates it again.
func (d *DB) Reset(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	_, err := d.query(ctx, "DROP DATABASE "+ident(d.db)+"; CREATE DATABASE "+ident(d.db), true)
	return err
}

// ServerVersion is the X-Influxdb-Version header of /ping.
func (d *DB) ServerVersion(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.Base+"/ping", nil)
	if err != nil {
		return "", err
	}
	resp, err := d.HTTP.Do(req)
	if err != nil {
		return "", lineproto.Classify(err)
	}
	resp.Body.Close()
	return "InfluxDB " + resp.Header.Get("X-Influxdb-Version"), nil
}

// Target is influxdb.url and the database.
func (d *DB) Target() string { return d.Base + "/" + d.db }

func (d *DB) Read(context.Context, string, string, []string) (driver.Record, error) {
	return nil, errNoRecords
}
func (d *DB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, errNoRecords
}
func (d *DB) Update(context.Context, string, string, driver.Record) error { return errNoRecords }
func (d *DB) Insert(context.Context, string, string, driver.Record) error { return errNoRecords }
func (d *DB) Delete(context.Context, string, string) error                { return errNoRecords }

// Close closes idle connections.
func (d *DB) Close() error {
	d.HTTP.CloseIdleConnections()
	return nil
}

var _ driver.Footprint = (*DB)(nil)

// DiskBytes sums the diskBytes of the database's shards (TSM files and
// WAL) from SHOW STATS.
func (d *DB) DiskBytes(ctx context.Context, _ string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	r, err := d.query(ctx, "SHOW STATS", false)
	if err != nil {
		return 0, fmt.Errorf("influxdb: SHOW STATS: %w", err)
	}
	var sum int64
	for _, res := range r.Results {
		for _, s := range res.Series {
			if s.Tags["database"] != d.db || (d.rp != "" && s.Tags["retentionPolicy"] != d.rp) {
				continue
			}
			for i, c := range s.Columns {
				if c != "diskBytes" || len(s.Values) == 0 || i >= len(s.Values[0]) {
					continue
				}
				if n, ok := s.Values[0][i].(json.Number); ok {
					v, _ := n.Int64()
					if s.Name == "shard" { // its diskBytes are the filestore's and the WAL's
						sum += v
					}
				}
			}
		}
	}
	return sum, nil
}
