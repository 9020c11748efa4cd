package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CPU is one reading of how much CPU time the machine and this process
// have spent since boot, in clock ticks (Linux's USER_HZ, the unit of both
// /proc/stat and /proc/self/stat).
type CPU struct {
	Cores int
	Total float64 // every state of every CPU, idle included
	Busy  float64 // all but idle and iowait; steal counts: the hypervisor gave it to others
	Self  float64 // this process: user + system
}

// ReadCPU reads /proc/stat and /proc/self/stat (Linux).
func ReadCPU() (CPU, error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPU{}, fmt.Errorf("machine load: %w", err)
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return CPU{}, fmt.Errorf("machine load: %w", err)
	}
	return ParseCPU(stat, self)
}

// ParseCPU reads the text of /proc/stat and of /proc/PID/stat.
func ParseCPU(stat, self []byte) (CPU, error) {
	var c CPU
	found := false
	sc := bufio.NewScanner(bytes.NewReader(stat))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || !strings.HasPrefix(f[0], "cpu"):
		case f[0] == "cpu":
			// user nice system idle iowait irq softirq steal (guest and
			// guest_nice are inside user and nice already).
			if len(f) < 5 {
				return c, fmt.Errorf("machine load: /proc/stat: %q: expected at least 4 counters", sc.Text())
			}
			for i := 1; i < len(f) && i <= 8; i++ {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return c, fmt.Errorf("machine load: /proc/stat: counter %d %q: %w", i, f[i], err)
				}
				c.Total += v
				if i != 4 && i != 5 { // idle, iowait
					c.Busy += v
				}
			}
			found = true
		default:
			c.Cores++ // cpu0, cpu1, …
		}
	}
	if !found || c.Cores == 0 {
		return c, fmt.Errorf("machine load: /proc/stat: no cpu lines")
	}
	// The command name (2nd field) is in parentheses and may hold spaces:
	// the fields after the last ')' are state (3), …, utime (14), stime (15).
	i := bytes.LastIndexByte(self, ')')
	if i < 0 {
		return c, fmt.Errorf("machine load: /proc/self/stat: no command name")
	}
	f := strings.Fields(string(self[i+1:]))
	if len(f) < 13 {
		return c, fmt.Errorf("machine load: /proc/self/stat: %d fields after the name, expected at least 13", len(f))
	}
	for _, s := range f[11:13] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return c, fmt.Errorf("machine load: /proc/self/stat: %q: %w", s, err)
		}
		c.Self += v
	}
	return c, nil
}

// Others is the share of the machine (0 … 1: all its cores) that processes
// other than this one kept busy between two readings.
func Others(from, to CPU) float64 {
	total := to.Total - from.Total
	if total <= 0 {
		return 0
	}
	s := (to.Busy - from.Busy - (to.Self - from.Self)) / total
	return min(1, max(0, s))
}
