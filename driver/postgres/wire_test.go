package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// wire is the floor under every PostgreSQL client library in Go: one
// connection (authenticated and with floorSQL prepared by pgconn, then
// hijacked), and per read one write of Bind+Execute+Sync built by hand and
// reads until ReadyForQuery, the row's bytes left in the read buffer. What a
// client costs above it is the library's; what it costs is Go's runtime and
// the kernel's.
type wire struct {
	conn net.Conn
	out  []byte
	in   []byte
}

func dialWire(ctx context.Context, url string) (*wire, error) {
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := c.Prepare(ctx, "floor", floorSQL, nil); err != nil {
		c.Close(ctx)
		return nil, err
	}
	h, err := c.Hijack()
	if err != nil {
		c.Close(ctx)
		return nil, err
	}
	return &wire{conn: h.Conn, in: make([]byte, 0, 16<<10)}, nil
}

// read runs the prepared read of key: Bind (text key, all results binary),
// Execute, Sync in one write; then reads until ReadyForQuery and checks that
// one row (DataRow) came back.
func (w *wire) read(key string) error {
	b := w.out[:0]
	b = append(b, 'B', 0, 0, 0, 0)
	b = append(b, 0)                // unnamed portal
	b = append(b, "floor"...)       // statement
	b = append(b, 0, 0, 0)          // no parameter formats (text)
	b = append(b, 0, 1, 0, 0, 0, 0) // one parameter, its length below
	binary.BigEndian.PutUint32(b[len(b)-4:], uint32(len(key)))
	b = append(b, key...)
	b = append(b, 0, 1, 0, 1) // one result format: binary
	binary.BigEndian.PutUint32(b[1:5], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // Execute unnamed portal, no row limit
	b = append(b, 'S', 0, 0, 0, 4)                // Sync
	w.out = b
	if _, err := w.conn.Write(b); err != nil {
		return err
	}
	in := w.in[:0]
	rows := 0
	for off := 0; ; {
		for len(in)-off < 5 || len(in)-off < 1+int(binary.BigEndian.Uint32(in[off+1:])) {
			if len(in) == cap(in) {
				in = append(in, make([]byte, cap(in))...)[:len(in)]
			}
			k, err := w.conn.Read(in[len(in):cap(in)])
			if err != nil {
				return err
			}
			in = in[:len(in)+k]
		}
		typ, size := in[off], 1+int(binary.BigEndian.Uint32(in[off+1:]))
		switch typ {
		case 'D':
			rows++
		case 'E':
			return fmt.Errorf("key %s: server error %q", key, in[off+5:off+size])
		case 'Z':
			w.in = in
			if rows != 1 {
				return fmt.Errorf("key %s: %d rows", key, rows)
			}
			return nil
		}
		off += size
	}
}

func (w *wire) close() { w.conn.Close() }
