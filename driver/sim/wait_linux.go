package sim

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerfd is a Linux timer file descriptor in non-blocking mode, so that
// os.File reads park the goroutine in the runtime's poller instead of
// blocking a thread.
type timerfd struct {
	f  *os.File
	fd int
}

func newTimerSource() (timerSource, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &timerfd{f: os.NewFile(uintptr(fd), "sim-timerfd"), fd: fd}, nil
}

// arm is called under the clock's mutex and never after close, so fd is
// still ours.
func (t *timerfd) arm(d time.Duration) error {
	// A zero it_value would disarm the timer; a due waiter needs a firing.
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(max(d, 1)))}
	return unix.TimerfdSettime(t.fd, 0, &spec, nil)
}

func (t *timerfd) read() error {
	var b [8]byte // the number of expirations, which we do not need
	_, err := t.f.Read(b[:])
	return err
}

func (t *timerfd) close() error { return t.f.Close() }
