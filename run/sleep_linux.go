//go:build linux

package run

import (
	"syscall"
	"time"
)

// shortSleep is the wait below which nanosleep is used instead of a timer.
const shortSleep = time.Millisecond

// nanosleep blocks the thread for d; the runtime hands the P to another
// thread if the sleep holds it up. It first sets the thread's timer slack
// to 1 ns: with Linux's default 50 µs a 100 µs nanosleep returned ~95 µs
// late on the 2-core test machine, with 1 ns ~35–45 µs (the rest is the
// wake-up itself; SpinWait covers it). The slack stays set on that thread,
// which only makes the runtime's own waits there more punctual.
func nanosleep(d time.Duration) {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}

const prSetTimerslack = 29 // PR_SET_TIMERSLACK, linux/prctl.h
