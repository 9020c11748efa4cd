//go:build !linux

package sim

import "errors"

func newTimerSource() (timerSource, error) {
	return nil, errors.ErrUnsupported
}
