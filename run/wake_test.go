package run

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// wakeEchoEnv makes the test binary an echo server on loopback (the helper
// process of BenchmarkLoopbackWake): it prints its address and echoes one
// byte per byte until the connection closes.
const wakeEchoEnv = "DBRIG_RUN_WAKE_ECHO"

func TestMain(m *testing.M) {
	if os.Getenv(wakeEchoEnv) == "1" {
		os.Exit(wakeEcho())
	}
	os.Exit(m.Run())
}

func wakeEcho() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(l.Addr())
	c, err := l.Accept()
	if err != nil {
		return 1
	}
	_, _ = io.Copy(c, c)
	return 0
}

// BenchmarkLoopbackWake measures this machine's idle-wake cost: the round
// trip of one byte to an echo server in another process over loopback,
// back to back and paced at 1,000/s (both processes idle between round
// trips, as a database and dbrig are at low rates), the gap either slept
// (nanosleep) or spun through by the client. Paced minus back to back is
// what waking idle CPUs and threads adds to every operation's service time
// at low rates (README, "spinwait"):
//
//	go test -run '^$' -bench LoopbackWake -benchtime 3000x ./run/
func BenchmarkLoopbackWake(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), wakeEchoEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("echo server: %v", err)
	}
	conn, err := net.Dial("tcp", strings.TrimSpace(addr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	cases := []struct {
		name string
		gap  time.Duration
		spin bool
	}{
		{"back-to-back", 0, false},
		{"paced-1ms-sleep", time.Millisecond, false},
		{"paced-1ms-spin", time.Millisecond, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			rtt := make([]time.Duration, 0, b.N)
			buf := []byte{'x'}
			next := time.Now()
			for b.Loop() {
				if c.gap > 0 {
					next = next.Add(c.gap)
					if c.spin {
						for time.Now().Before(next) {
						}
					} else if d := time.Until(next); d > 0 {
						nanosleep(d)
					}
				}
				t := time.Now()
				if _, err := conn.Write(buf); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(conn, buf); err != nil {
					b.Fatal(err)
				}
				rtt = append(rtt, time.Since(t))
			}
			slices.Sort(rtt)
			us := func(q float64) float64 { return float64(rtt[int(q*float64(len(rtt)-1))]) / 1e3 }
			b.ReportMetric(us(0.5), "p50_rtt_µs")
			b.ReportMetric(us(0.99), "p99_rtt_µs")
		})
	}
}
