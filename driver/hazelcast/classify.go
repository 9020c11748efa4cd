package hazelcast

import (
	"context"
	"errors"
	"net"
	"syscall"

	"github.com/hazelcast/hazelcast-go-client/hzerrors"

	"github.com/dbrig/dbrig/driver/internal/drvkit"
	"github.com/dbrig/dbrig/errclass"
)

// classify attaches an errclass.Class to an error of the Hazelcast client.
// While disconnected the client parks invocations until their deadline, so
// an unreachable cluster shows up as a timeout: drvkit.Classify names the cause.
func (db *DB) classify(err error) error {
	return drvkit.Classify(err, classOf, db.connected, "client disconnected from the cluster")
}

// unavailable are the client's errors for "no member could be reached or the
// member is going away"; the client retries them until the operation's
// deadline, so they surface when the outage outlasts the timeout.
var unavailable = []error{
	hzerrors.ErrClientOffline, hzerrors.ErrClientNotActive, hzerrors.ErrTargetDisconnected,
	hzerrors.ErrIO, hzerrors.ErrRetryableIO, hzerrors.ErrSocket, hzerrors.ErrEOF,
	hzerrors.ErrHazelcastInstanceNotActive, hzerrors.ErrMemberLeft, hzerrors.ErrTargetNotMember,
	hzerrors.ErrCallerNotMember, hzerrors.ErrNoDataMember, hzerrors.ErrHazelcastOverLoad,
	hzerrors.ErrSplitBrainProtection, hzerrors.ErrPartitionMigrating, hzerrors.ErrWrongTarget,
	hzerrors.ErrAddressNotFound, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE,
}

func classOf(err error) errclass.Class {
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, hzerrors.ErrOperationTimeout),
		errors.Is(err, hzerrors.ErrTimeout):
		return errclass.Timeout
	case errors.Is(err, context.Canceled):
		return errclass.Other // the caller gave up; not the server's fault
	case errors.Is(err, hzerrors.ErrConcurrentModification):
		return errclass.Conflict
	}
	for _, u := range unavailable {
		if errors.Is(err, u) {
			return errclass.Unavailable
		}
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return errclass.Unavailable
	}
	return errclass.Other
}
