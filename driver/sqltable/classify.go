package sqltable

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/dbrig/dbrig/errclass"
)

// NetClass tells the class of the errors every SQL client shares: deadlines
// (timeout) and a server that cannot be reached or went away (unavailable).
// ok is false for anything else, which the driver classifies itself.
func NetClass(err error) (c errclass.Class, ok bool) {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errclass.Timeout, true
	case errors.As(err, &ne) && ne.Timeout():
		return errclass.Timeout, true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, driver.ErrBadConn):
		return errclass.Unavailable, true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return errclass.Unavailable, true
	}
	return "", false
}
