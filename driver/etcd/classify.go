package etcd

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/dbrig/dbrig/driver/internal/drvkit"
	"github.com/dbrig/dbrig/errclass"
)

// classify attaches an errclass.Class to an error of the etcd client. The
// client waits for a usable connection until the deadline, so an unreachable
// cluster shows up as DeadlineExceeded: drvkit.Classify names the cause.
func (db *DB) classify(err error) error {
	return drvkit.Classify(err, classOf, db.connected, "no connection to any endpoint")
}

func (db *DB) connected() bool {
	return db.cli.ActiveConnection().GetState() == connectivity.Ready
}

// classOf maps an etcd or gRPC error to a class, by the etcd server error
// where it has one, else by the gRPC status code.
func classOf(err error) errclass.Class {
	switch {
	case errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutWaitAppliedIndex):
		return errclass.Timeout
	case errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrNotCapable),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrStopped), errors.Is(err, rpctypes.ErrTooManyRequests):
		return errclass.Unavailable
	case errors.Is(err, context.DeadlineExceeded):
		return errclass.Timeout
	case errors.Is(err, context.Canceled):
		return errclass.Other // the caller gave up; not the server's fault
	}
	code := codes.Unknown
	var coded interface{ Code() codes.Code } // rpctypes.EtcdError
	if errors.As(err, &coded) {
		code = coded.Code()
	} else if s, ok := status.FromError(err); ok {
		code = s.Code()
		// A server whose own request context expired (a proposal during an
		// election) answers code Unknown with the context's message: the
		// status carries nothing else to tell it by.
		if code == codes.Unknown && s.Message() == context.DeadlineExceeded.Error() {
			return errclass.Timeout
		}
	}
	switch code {
	case codes.DeadlineExceeded:
		return errclass.Timeout
	case codes.Unavailable, codes.Canceled: // Canceled without a canceled context: the connection closed
		return errclass.Unavailable
	case codes.Aborted:
		return errclass.Conflict
	}
	return errclass.Other
}
