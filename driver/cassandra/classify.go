package cassandra

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbrig/dbrig/errclass"
)

// classify attaches an errclass.Class to an error of the driver or server.
func (db *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	return errclass.Wrap(classOf(err), err)
}

// classOf sorts Cassandra's answers: the replicas did not answer in time
// (read/write timeouts, a lightweight transaction's unknown outcome) is a
// timeout; too few replicas alive for the consistency level (unavailable),
// an overloaded or bootstrapping coordinator, no connection or one that
// closed mid-answer is unavailable.
func classOf(err error) errclass.Class {
	var (
		unavail  *gocql.RequestErrUnavailable
		wto      *gocql.RequestErrWriteTimeout
		rto      *gocql.RequestErrReadTimeout
		casUnk   *gocql.RequestErrCASWriteUnknown
		overload *gocql.RequestErrOverloaded
		boot     *gocql.RequestErrBootstrapping
		op       *net.OpError
	)
	switch {
	case errors.As(err, &wto), errors.As(err, &rto), errors.As(err, &casUnk),
		errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded):
		return errclass.Timeout
	case errors.Is(err, context.Canceled):
		return errclass.Other
	case errors.As(err, &unavail), errors.As(err, &overload), errors.As(err, &boot),
		errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrNoConnectionsStarted), errors.Is(err, gocql.ErrSessionClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &op):
		return errclass.Unavailable
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return errclass.Timeout
	}
	return errclass.Other
}
