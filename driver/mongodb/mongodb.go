// Package mongodb benchmarks a server that speaks the MongoDB wire
// protocol through MongoDB's official Go driver
// (go.mongodb.org/mongo-driver/v2): a user's own MongoDB, or the local
// cluster this package starts, FerretDB on PostgreSQL (cluster.go) — the
// MongoDB wire protocol over a different engine, so its numbers say nothing
// of MongoDB's own performance.
//
// Layout, as YCSB's mongodb binding has it: one collection per YCSB table
// (property table, default usertable) in the URL's database (default
// ycsb), one document per record, _id = the key (a string), one field per
// column holding the value as BSON binary. Read is a find by _id with a
// projection of the fields asked for; Scan a find with _id >= startKey
// sorted by _id (bytewise for strings without a collation) and limited;
// Update a $set of the given fields that matches by _id (no match: not
// found, never an upsert); Insert an insertOne, or a replaceOne with upsert
// under mongodb.upsert; Delete a deleteOne. The load inserts with
// InsertMany (unordered, as YCSB's binding does) in batches of
// mongodb.batchsize.
//
// Properties (YCSB's mongodb binding's names):
//
//	mongodb.url        connection string (default mongodb://localhost:27017/ycsb?w=1):
//	                   database in the path, write concern (w=, journal=, wtimeoutMS=)
//	                   and read preference (readPreference=) in the query; checked
//	                   before anything connects; its password is redacted everywhere
//	mongodb.batchsize  documents per InsertMany when loading (default 1000; 1 = one insert each)
//	mongodb.upsert     inserts as replaceOne with upsert (default false)
//	mongodb.timeout    per-operation timeout, also for Open's ping (default 10s)
//
// Example (the ferretdb recipe's URL):
//
//	dbrig run -P workloads/workloada --driver mongodb -p mongodb.url='mongodb://127.0.0.1:27017/ycsb?w=1'
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/drvkit"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is a MongoDB-protocol server seen through one client (its own
// connection pool). Safe for concurrent use.
type DB struct {
	client    *mongo.Client
	db        *mongo.Database
	target    string // mongodb.url, redacted
	password  string // as written in mongodb.url, scrubbed from errors
	timeout   time.Duration
	batchSize int
	upsert    bool

	mu     sync.Mutex
	tables map[string]bool // collections this DB inserted into: Reset drops them
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
	_ driver.Preloaded     = (*DB)(nil)
)

// Open checks the mongodb.* properties, connects, and pings the server,
// so that a wrong address fails here rather than in the first operation.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg driver.Config) (*DB, error) {
	p := cfg.Props
	t, err := parseURL(p)
	if err != nil {
		return nil, err
	}
	db := &DB{target: spec.RedactURL(t.url), password: t.password, tables: map[string]bool{}}
	if db.timeout, err = drvkit.Positive(p, "mongodb.timeout", 10*time.Second); err != nil {
		return nil, err
	}
	bs, err := p.IntMin("mongodb.batchsize", 1000, 1)
	if err != nil {
		return nil, err
	}
	db.batchSize = int(bs)
	if db.upsert, err = p.Bool("mongodb.upsert", false); err != nil {
		return nil, err
	}
	threads, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return nil, err
	}
	// Server selection waits at most one timeout for a reachable server
	// (the driver's default of 30s would outlast a fault's window).
	co := options.Client().ApplyURI(t.url).SetServerSelectionTimeout(db.timeout).SetAppName("dbrig")
	if !t.poolSet && threads > 100 {
		co.SetMaxPoolSize(uint64(threads)) // the driver's default is 100
	}
	client, err := mongo.Connect(co)
	if err != nil {
		return nil, fmt.Errorf("mongodb %s: %w", db.target, db.classify(err))
	}
	db.client, db.db = client, client.Database(t.database)
	pctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	if err := client.Ping(pctx, nil); err != nil {
		client.Disconnect(context.Background())
		return nil, fmt.Errorf("mongodb %s: ping: %w", db.target, db.classify(err))
	}
	return db, nil
}

// Target is mongodb.url without its password.
func (db *DB) Target() string { return db.target }

func (db *DB) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, db.timeout)
}

// projection selects fields (and not _id); nil selects every field.
func projection(fields []string) bson.D {
	if fields == nil {
		return nil
	}
	d := make(bson.D, 0, len(fields)+1)
	d = append(d, bson.E{Key: "_id", Value: 0})
	for _, f := range fields {
		d = append(d, bson.E{Key: f, Value: 1})
	}
	return d
}

// record turns a document into a Record: every field but _id, binary values
// as their bytes, strings (another client's documents) as theirs.
func record(raw bson.Raw) (driver.Record, error) {
	els, err := raw.Elements()
	if err != nil {
		return nil, err
	}
	rec := make(driver.Record, len(els))
	for _, e := range els {
		k := e.Key()
		if k == "_id" {
			continue
		}
		v := e.Value()
		if _, data, ok := v.BinaryOK(); ok {
			rec[k] = slices.Clone(data) // raw belongs to the driver's buffer
			if rec[k] == nil {
				rec[k] = []byte{}
			}
		} else if s, ok := v.StringValueOK(); ok {
			rec[k] = []byte(s)
		} else {
			return nil, fmt.Errorf("field %s is BSON %s, not binary or string", k, v.Type)
		}
	}
	return rec, nil
}

// document is the record as YCSB's binding writes it: _id first, then the
// fields in name order, each value BSON binary.
func document(key string, values driver.Record) bson.D {
	d := make(bson.D, 0, len(values)+1)
	d = append(d, bson.E{Key: "_id", Value: key})
	return append(d, fieldsOf(values)...)
}

func fieldsOf(values driver.Record) bson.D {
	names := make([]string, 0, len(values))
	for f := range values {
		names = append(names, f)
	}
	slices.Sort(names)
	d := make(bson.D, 0, len(names))
	for _, f := range names {
		d = append(d, bson.E{Key: f, Value: bson.Binary{Data: values[f]}})
	}
	return d
}

// Read returns the named fields of one record.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	ctx, cancel := db.op(ctx)
	defer cancel()
	var opts []options.Lister[options.FindOneOptions]
	if fields != nil {
		opts = append(opts, options.FindOne().SetProjection(projection(fields)))
	}
	raw, err := db.db.Collection(table).FindOne(ctx, bson.D{{Key: "_id", Value: key}}, opts...).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("mongodb read %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("mongodb read %s/%s: %w", table, key, db.classify(err))
	}
	rec, err := record(raw)
	if err != nil {
		return nil, fmt.Errorf("mongodb read %s/%s: %w", table, key, err)
	}
	return rec, nil
}

// Scan returns up to n records of table in _id order from startKey on.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	ctx, cancel := db.op(ctx)
	defer cancel()
	// One batch of n: the scan is one round trip, as YCSB's binding's is.
	fo := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(n)).SetBatchSize(int32(min(n, 1<<30)))
	if fields != nil {
		fo.SetProjection(projection(fields))
	}
	cur, err := db.db.Collection(table).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: startKey}}}}, fo)
	if err != nil {
		return nil, fmt.Errorf("mongodb scan %s from %s: %w", table, startKey, db.classify(err))
	}
	defer cur.Close(context.Background())
	recs := make([]driver.Record, 0, n)
	for cur.Next(ctx) {
		rec, err := record(cur.Current)
		if err != nil {
			return nil, fmt.Errorf("mongodb scan %s from %s: %w", table, startKey, err)
		}
		recs = append(recs, rec)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("mongodb scan %s from %s: %w", table, startKey, db.classify(err))
	}
	return recs, nil
}

// Update sets the given fields of an existing record; a missing record is
// not found (never upserted).
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	res, err := db.db.Collection(table).UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$set", Value: fieldsOf(values)}})
	if err != nil {
		return fmt.Errorf("mongodb update %s/%s: %w", table, key, db.classify(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("mongodb update %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

// Insert writes a new record (with mongodb.upsert, replaces one too).
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	db.used(table)
	ctx, cancel := db.op(ctx)
	defer cancel()
	coll := db.db.Collection(table)
	var err error
	if db.upsert {
		_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: key}}, document(key, values), options.Replace().SetUpsert(true))
	} else {
		_, err = coll.InsertOne(ctx, document(key, values))
	}
	if err != nil {
		return fmt.Errorf("mongodb insert %s/%s: %w", table, key, db.classify(err))
	}
	return nil
}

// InsertBatch inserts records with InsertMany (unordered), mongodb.batchsize
// at a time; under mongodb.upsert, with a bulk write of upserting replaces.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("mongodb insert batch: %d keys but %d values", len(keys), len(values))
	}
	if len(keys) == 0 {
		return nil
	}
	if db.batchSize == 1 {
		for i, k := range keys {
			if err := db.Insert(ctx, table, k, values[i]); err != nil {
				return err
			}
		}
		return nil
	}
	db.used(table)
	coll := db.db.Collection(table)
	for start := 0; start < len(keys); start += db.batchSize {
		end := min(start+db.batchSize, len(keys))
		if err := db.insertMany(ctx, coll, keys[start:end], values[start:end]); err != nil {
			return fmt.Errorf("mongodb insert batch %s from %s (%d records): %w", table, keys[start], end-start, db.classify(err))
		}
	}
	return nil
}

func (db *DB) insertMany(ctx context.Context, coll *mongo.Collection, keys []string, values []driver.Record) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	if db.upsert {
		models := make([]mongo.WriteModel, len(keys))
		for i, k := range keys {
			models[i] = mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: k}}).
				SetReplacement(document(k, values[i])).SetUpsert(true)
		}
		_, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
		return err
	}
	docs := make([]any, len(keys))
	for i, k := range keys {
		docs[i] = document(k, values[i])
	}
	_, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	return err
}

// Delete removes one record.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	res, err := db.db.Collection(table).DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	if err != nil {
		return fmt.Errorf("mongodb delete %s/%s: %w", table, key, db.classify(err))
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("mongodb delete %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

func (db *DB) used(table string) {
	db.mu.Lock()
	db.tables[table] = true
	db.mu.Unlock()
}

// Reset implements driver.Resetter: it drops every collection this DB
// inserted into or counted.
func (db *DB) Reset(ctx context.Context) error {
	db.mu.Lock()
	tables := make([]string, 0, len(db.tables))
	for t := range db.tables {
		tables = append(tables, t)
	}
	db.mu.Unlock()
	slices.Sort(tables)
	for _, t := range tables {
		octx, cancel := db.op(ctx)
		err := db.db.Collection(t).Drop(octx)
		cancel()
		if err != nil {
			return fmt.Errorf("mongodb reset %s: %w", t, db.classify(err))
		}
	}
	return nil
}

// Records implements driver.Preloaded: 1 when the collection holds a
// document, else 0.
func (db *DB) Records(ctx context.Context, table string) (int64, error) {
	db.used(table)
	ctx, cancel := db.op(ctx)
	defer cancel()
	err := db.db.Collection(table).FindOne(ctx, bson.D{}, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("mongodb: look for records in %s: %w", table, db.classify(err))
	}
	return 1, nil
}

// ServerVersion is the server's buildInfo version; a FerretDB says so with
// its own version, as it answers with the MongoDB version it emulates.
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	ctx, cancel := db.op(ctx)
	defer cancel()
	var info struct {
		Version         string `bson:"version"`
		FerretDBVersion string `bson:"ferretdbVersion"`
	}
	if err := db.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return "", fmt.Errorf("mongodb buildInfo: %w", db.classify(err))
	}
	if info.FerretDBVersion != "" {
		return fmt.Sprintf("FerretDB %s (MongoDB %s wire protocol)", info.FerretDBVersion, info.Version), nil
	}
	return "MongoDB " + info.Version, nil
}

// Close disconnects the client.
func (db *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	if err := db.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("mongodb close: %w", db.classify(err))
	}
	return nil
}
