package mongodb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

func props(kv ...string) *spec.Props {
	p := spec.NewProps()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], spec.Source{File: "t.properties", Line: i/2 + 1})
	}
	return p
}

// Bad input is refused before anything connects, naming the property and
// what would be valid; nothing listens at these addresses, so an Open that
// got past the checks would fail otherwise (unavailable), not as bad input.
func TestOpenRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"no host", "mongodb.url", "mongodb:///ycsb", "naming at least one host"},
		{"no host, credentials", "mongodb.url", "mongodb://u:pw@/ycsb", "naming at least one host"},
		{"empty", "mongodb.url", "", "the scheme mongodb://"},
		{"other scheme", "mongodb.url", "postgres://127.0.0.1:1/ycsb", "the scheme mongodb://"},
		{"no scheme", "mongodb.url", "127.0.0.1:27017", "the scheme mongodb://"},
		{"srv without host", "mongodb.url", "mongodb+srv:///ycsb", "naming at least one host"},
		{"bad read preference", "mongodb.url", "mongodb://127.0.0.1:1/ycsb?readPreference=fastest", "mongodb://"},
		{"bad write concern", "mongodb.url", "mongodb://127.0.0.1:1/ycsb?w=1&journal=maybe", "mongodb://"},
		{"bad port", "mongodb.url", "mongodb://127.0.0.1:99999/ycsb", "mongodb://"},
		{"batch size", "mongodb.batchsize", "0", "an integer >= 1"},
		{"upsert", "mongodb.upsert", "yes", "true or false"},
		{"timeout", "mongodb.timeout", "0s", "a duration > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := props("mongodb.url", "mongodb://127.0.0.1:1/ycsb", "mongodb.timeout", "200ms", tc.key, tc.value)
			_, err := Open(context.Background(), driver.Config{Props: p})
			var pe *spec.PropError
			if !errors.As(err, &pe) {
				t.Fatalf("Open: %v, want a *spec.PropError", err)
			}
			if pe.Key != tc.key || !strings.Contains(pe.Want, tc.want) || pe.Src.Line == 0 {
				t.Errorf("error %q: want key %s, %q expected, a file position", err, tc.key, tc.want)
			}
		})
	}
}

// A URL with a password that the parser refuses shows none of it in the
// error, in any of the awkward shapes, raw or escaped.
func TestBadURLShowsNoPassword(t *testing.T) {
	for _, pw := range testenv.Passwords() {
		for _, u := range []string{
			"mongodb://dbrig:" + pw + "@127.0.0.1:1/ycsb?readPreference=fastest",
			"mongodb://dbrig:" + url.PathEscape(pw) + "@127.0.0.1:1/ycsb?readPreference=fastest",
			"mongodb://dbrig:" + pw + "@/ycsb",
		} {
			_, err := Open(context.Background(), driver.Config{Props: props("mongodb.url", u, "mongodb.timeout", "200ms")})
			if err == nil {
				t.Fatalf("%q: no error", u)
			}
			if leak := testenv.Leak(err.Error(), pw); leak != "" {
				t.Errorf("error %q shows %q of the password %q", err, leak, pw)
			}
		}
	}
}

// An unreachable server fails Open within the timeout, classed unavailable,
// and its message shows no password.
func TestOpenUnreachable(t *testing.T) {
	pw := testenv.Passwords()[0]
	u := "mongodb://dbrig:" + url.PathEscape(pw) + "@127.0.0.1:1/ycsb"
	start := time.Now()
	_, err := Open(context.Background(), driver.Config{Props: props("mongodb.url", u, "mongodb.timeout", "300ms")})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if c := errclass.Of(err); c != errclass.Unavailable {
		t.Errorf("class %q, want unavailable: %v", c, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v with a 300ms timeout", d)
	}
	if leak := testenv.Leak(err.Error(), pw); leak != "" {
		t.Errorf("error %q shows %q", err, leak)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url, db string
		pool    bool
	}{
		{"mongodb://127.0.0.1:27017/bench?w=majority&readPreference=secondaryPreferred", "bench", false},
		{"mongodb://127.0.0.1:27017", "ycsb", false},
		{"mongodb://a:1,b:2/?replicaSet=rs0&maxPoolSize=7", "ycsb", true},
		{"mongodb+srv://cluster0.example.net/shop", "shop", false},
	} {
		tr, err := parseURL(props("mongodb.url", tc.url))
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if tr.database != tc.db || tr.poolSet != tc.pool {
			t.Errorf("%s: database %q pool set %v, want %q %v", tc.url, tr.database, tr.poolSet, tc.db, tc.pool)
		}
	}
	if tr, err := parseURL(spec.NewProps()); err != nil || tr.url != defaultURL {
		t.Errorf("no mongodb.url: %+v %v, want YCSB's default %s", tr, err, defaultURL)
	}
}

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want errclass.Class
	}{
		{"duplicate key", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key"}}}, errclass.Conflict},
		{"bulk duplicate key", mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{{WriteError: mongo.WriteError{Code: 11000}}}}, errclass.Conflict},
		{"write conflict", mongo.CommandError{Code: 112, Name: "WriteConflict"}, errclass.Conflict},
		{"deadline", fmt.Errorf("find: %w", context.DeadlineExceeded), errclass.Timeout},
		{"max time", mongo.CommandError{Code: 50, Name: "MaxTimeMSExpired"}, errclass.Timeout},
		{"write concern timeout", mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 64, Name: "WriteConcernFailed"}}, errclass.Timeout},
		{"not primary", mongo.CommandError{Code: 10107, Name: "NotWritablePrimary"}, errclass.Unavailable},
		{"shutting down", mongo.CommandError{Code: 91, Name: "ShutdownInProgress"}, errclass.Unavailable},
		{"network", mongo.CommandError{Labels: []string{"NetworkError"}, Wrapped: io.EOF}, errclass.Unavailable},
		{"no server to select", topology.ServerSelectionError{Wrapped: context.DeadlineExceeded}, errclass.Unavailable},
		{"disconnected", mongo.ErrClientDisconnected, errclass.Unavailable},
		{"canceled", context.Canceled, errclass.Other},
		{"other server error", mongo.CommandError{Code: 2, Name: "BadValue"}, errclass.Other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classOf(tc.err); got != tc.want {
				t.Errorf("classOf(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestScrub(t *testing.T) {
	for _, pw := range testenv.Passwords() {
		msg := "error parsing uri: unescaped @ in " + pw + " and " + url.PathEscape(pw)
		if leak := testenv.Leak(scrub(msg, url.PathEscape(pw)), pw); leak != "" {
			t.Errorf("scrub kept %q of %q", leak, pw)
		}
		err := scrubErr(errclass.Wrap(errclass.Timeout, errors.New(msg)), pw)
		if leak := testenv.Leak(err.Error(), pw); leak != "" || errclass.Of(err) != errclass.Timeout {
			t.Errorf("scrubErr: %q shows %q or lost its class", err, leak)
		}
	}
	if got := scrub("nothing secret", ""); got != "nothing secret" {
		t.Errorf("scrub without a password changed the message: %q", got)
	}
}

// Documents are shaped as YCSB's binding writes them: _id first, then one
// binary field per column in name order; reading one back gives the record.
func TestDocumentShape(t *testing.T) {
	rec := driver.Record{"field1": []byte("b"), "field0": {0, 255}, "field2": {}}
	d := document("user1", rec)
	var keys []string
	for _, e := range d {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, ","); got != "_id,field0,field1,field2" {
		t.Fatalf("document keys %s", got)
	}
	if d[0].Value != "user1" {
		t.Errorf("_id %v", d[0].Value)
	}
	raw, err := bsonMarshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || string(back["field0"]) != "\x00\xff" || string(back["field1"]) != "b" || back["field2"] == nil || len(back["field2"]) != 0 {
		t.Errorf("read back %q", back)
	}
}

func bsonMarshal(d bson.D) (bson.Raw, error) {
	b, err := bson.Marshal(d)
	return bson.Raw(b), err
}
