//go:build !linux

package run

import "time"

const shortSleep = 0 // timers only

func nanosleep(d time.Duration) { time.Sleep(d) }
