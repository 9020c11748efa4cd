// Package lineproto writes driver.Points as InfluxDB line protocol and
// posts them over HTTP: what the influxdb and victoriametrics drivers share
// (VictoriaMetrics takes line protocol at its /write endpoint).
//
// Lines are appended into a reused buffer, the values' decimal text copied
// as the workload made it: a loader's work and no more (a client library's
// point objects would allocate a map per point).
package lineproto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// Precisions are the timestamp units of line protocol, by the name InfluxDB
// and VictoriaMetrics take in ?precision=, coarsest first.
var Precisions = []struct {
	Name string
	Ns   int64
}{
	{"h", 3600e9}, {"m", 60e9}, {"s", 1e9}, {"ms", 1e6}, {"u", 1e3}, {"n", 1},
}

// Auto is the precision that picks, per request, the coarsest unit that
// keeps every time of the batch exact.
const Auto = "auto"

// PrecisionNames lists what a precision property takes.
func PrecisionNames() []string {
	out := []string{Auto}
	for _, p := range Precisions {
		out = append(out, p.Name)
	}
	return out
}

// Unit returns the nanoseconds of a precision name (0 for Auto).
func Unit(name string) (int64, bool) {
	if name == Auto {
		return 0, true
	}
	for _, p := range Precisions {
		if p.Name == name {
			return p.Ns, true
		}
	}
	return 0, false
}

// Choose returns the precision for pts: unit (ns) when fixed, else the
// coarsest that divides every time.
func Choose(pts []driver.Point, unit int64) (string, int64) {
	if unit > 0 {
		for _, p := range Precisions {
			if p.Ns == unit {
				return p.Name, unit
			}
		}
	}
	for _, p := range Precisions {
		ok := true
		for i := range pts {
			if pts[i].Time%p.Ns != 0 {
				ok = false
				break
			}
		}
		if ok {
			return p.Name, p.Ns
		}
	}
	return "n", 1
}

// Append appends pts as lines, times divided by unit (truncated).
func Append(dst []byte, pts []driver.Point, unit int64) []byte {
	// The points of a batch name the same tag keys and fields over and
	// over: each "key=" is escaped once per call and copied from its first
	// place in dst after that (escaping byte by byte was most of the cost).
	var tags, fields [16]escaped
	for i := range pts {
		p := &pts[i]
		dst = appendEscaped(dst, p.Measurement, false)
		for j, t := range p.Tags {
			dst = append(dst, ',')
			dst = appendKey(dst, &tags, j, t.Key)
			dst = appendEscaped(dst, t.Value, true)
		}
		for j, f := range p.Fields {
			if j == 0 {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, ',')
			}
			dst = appendKey(dst, &fields, j, f.Name)
			dst = append(dst, f.Value...)
		}
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, p.Time/unit, 10)
		dst = append(dst, '\n')
	}
	return dst
}

// escaped is where a key's escaped form and its '=' are in dst.
type escaped struct {
	key      string
	from, to int
}

// appendKey appends key escaped and '=', copied from where it was last
// written when the key at position j of the point is the same as then.
func appendKey(dst []byte, seen *[16]escaped, j int, key string) []byte {
	if j < len(seen) && seen[j].to > 0 && seen[j].key == key {
		return append(dst, dst[seen[j].from:seen[j].to]...)
	}
	from := len(dst)
	dst = append(appendEscaped(dst, key, true), '=')
	if j < len(seen) {
		seen[j] = escaped{key, from, len(dst)}
	}
	return dst
}

// appendEscaped escapes what line protocol requires: commas and spaces
// everywhere, equals signs in tag keys, tag values and field keys.
func appendEscaped(dst []byte, s string, eq bool) []byte {
	// Names and tags rarely need escaping: copied whole up to the first
	// byte that does (a byte-by-byte append was half of Append's cost).
	i := 0
	for i < len(s) {
		if c := s[i]; c == ',' || c == ' ' || c == '\n' || (eq && c == '=') {
			break
		}
		i++
	}
	dst = append(dst, s[:i]...)
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ',' || c == ' ' || (eq && c == '='):
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, ' ') // a newline would end the line
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Post sends body to url with method POST (or GET when body is nil) and
// returns the response body when the status is 2xx; any other outcome is
// an error with a class (errclass).
func Post(ctx context.Context, c *http.Client, url string, body []byte, hdr http.Header) ([]byte, error) {
	method := http.MethodGet
	var rd io.Reader
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, errclass.Wrap(errclass.Other, err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, Classify(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, Classify(err)
	}
	if resp.StatusCode/100 != 2 {
		msg := bytes.TrimSpace(out)
		if len(msg) > 300 {
			msg = msg[:300]
		}
		cl := errclass.Other
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway:
			cl = errclass.Unavailable
		case resp.StatusCode == http.StatusGatewayTimeout || resp.StatusCode == http.StatusRequestTimeout:
			cl = errclass.Timeout
		}
		return nil, errclass.Wrap(cl, fmt.Errorf("%s: HTTP %d: %s", req.URL.Path, resp.StatusCode, msg))
	}
	return out, nil
}

// Classify gives a transport error its class: a deadline is a timeout, a
// refused or reset connection is unavailable.
func Classify(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return errclass.Wrap(errclass.Timeout, err)
	case errors.Is(err, context.Canceled):
		return errclass.Wrap(errclass.Other, err)
	default:
		return errclass.Wrap(errclass.Unavailable, err)
	}
}

// Client is an HTTP client for one server with enough idle connections
// for every client of a run.
func Client(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = conns
	t.MaxIdleConnsPerHost = conns
	return &http.Client{Transport: t}
}
