//go:build linux

package run

import (
	"syscall"
	"time"
)

// shortSleep is the wait below which nanosleep is used instead of a timer.
const shortSleep = time.Millisecond

// nanosleep blocks the thread for d; the runtime hands the P to another
// thread if the sleep holds it up.
func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
