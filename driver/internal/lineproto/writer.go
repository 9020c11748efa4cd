package lineproto

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Writer posts points as line protocol over HTTP, in batches: the part of
// a line-protocol store's driver that its PREFIX.url, PREFIX.precision,
// PREFIX.batchsize, PREFIX.timeout and PREFIX.poolsize properties
// configure. Safe for concurrent use.
type Writer struct {
	HTTP    *http.Client
	Base    string        // PREFIX.url without a trailing slash
	Unit    int64         // write precision in ns; 0: auto
	Batch   int           // points per request at most
	Timeout time.Duration // of one request
	bufs    sync.Pool
}

// NewWriter reads the properties of prefix ("influxdb"); defURL is the
// URL's default (http://127.0.0.1:8086).
func NewWriter(p *spec.Props, prefix, defURL string) (*Writer, error) {
	key := func(name string) string { return prefix + "." + name }
	raw := strings.TrimRight(p.String(key("url"), defURL), "/")
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, p.Errorf(key("url"), "an http:// or https:// URL such as %s", defURL)
	}
	w := &Writer{Base: raw}
	prec, err := p.Choice(key("precision"), PrecisionNames()...)
	if err != nil {
		return nil, err
	}
	w.Unit, _ = Unit(prec)
	b, err := p.IntMin(key("batchsize"), 10000, 1)
	if err != nil || b > 1_000_000 {
		return nil, p.Errorf(key("batchsize"), "an integer in 1..1000000")
	}
	w.Batch = int(b)
	if w.Timeout, err = p.Duration(key("timeout"), 30*time.Second); err != nil {
		return nil, err
	}
	if w.Timeout <= 0 {
		return nil, p.Errorf(key("timeout"), "a duration > 0")
	}
	threads, _ := p.Int("threadcount", 1)
	pool, err := p.IntMin(key("poolsize"), max(threads, 4), 1)
	if err != nil {
		return nil, err
	}
	w.HTTP = Client(int(pool))
	return w, nil
}

// Write posts pts, Batch points a request, each to the URL that write
// gives for the request's precision (the name ?precision= takes).
func (w *Writer) Write(ctx context.Context, pts []driver.Point, write func(prec string) string) error {
	bp, _ := w.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer w.bufs.Put(bp)
	for len(pts) > 0 {
		n := min(len(pts), w.Batch)
		prec, unit := Choose(pts[:n], w.Unit)
		*bp = Append((*bp)[:0], pts[:n], unit)
		ctx, cancel := context.WithTimeout(ctx, w.Timeout)
		_, err := Post(ctx, w.HTTP, write(prec), *bp, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("write %d points: %w", n, err)
		}
		pts = pts[n:]
	}
	return nil
}
