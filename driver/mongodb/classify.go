package mongodb

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/dbrig/dbrig/errclass"
)

// classify attaches an errclass.Class to an error of the driver, its
// message scrubbed of mongodb.url's password.
func (db *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	return errclass.Wrap(classOf(err), scrubErr(err, db.password))
}

// Server error codes (MongoDB's src/mongo/base/error_codes.yml) that tell
// a class where the driver's own predicates do not.
var (
	unavailableCodes = []int{
		6,     // HostUnreachable
		7,     // HostNotFound
		91,    // ShutdownInProgress
		189,   // PrimarySteppedDown
		9001,  // SocketException
		10107, // NotWritablePrimary
		11600, // InterruptedAtShutdown
		11602, // InterruptedDueToReplStateChange
		13435, // NotPrimaryNoSecondaryOk
		13436, // NotPrimaryOrSecondary
		133,   // FailedToSatisfyReadPreference
	}
	timeoutCodes = []int{
		50,  // MaxTimeMSExpired
		64,  // WriteConcernFailed (wtimeout)
		89,  // NetworkTimeout
		262, // ExceededTimeLimit
	}
	conflictCodes = []int{
		112, // WriteConflict
	}
)

// classOf maps an error of the driver to a class: no server to select is
// unavailable (whatever deadline ended the wait), a duplicate _id a
// conflict, then the driver's timeout and network predicates, then the
// server's error codes and labels.
func classOf(err error) errclass.Class {
	var sse topology.ServerSelectionError
	switch {
	case errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded):
		return errclass.Other // the caller gave up; not the server's fault
	case errors.As(err, &sse), errors.Is(err, mongo.ErrClientDisconnected):
		return errclass.Unavailable
	case mongo.IsDuplicateKeyError(err):
		return errclass.Conflict
	case mongo.IsTimeout(err):
		return errclass.Timeout
	case mongo.IsNetworkError(err):
		return errclass.Unavailable
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range se.ErrorCodes() {
			switch {
			case contains(timeoutCodes, c):
				return errclass.Timeout
			case contains(unavailableCodes, c):
				return errclass.Unavailable
			case contains(conflictCodes, c):
				return errclass.Conflict
			}
		}
		if se.HasErrorLabel("TransientTransactionError") {
			return errclass.Conflict
		}
		if se.HasErrorLabel("RetryableWriteError") {
			return errclass.Unavailable
		}
	}
	return errclass.Other
}

func contains(codes []int, c int) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}
