package results

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// StatusAbandoned is stored for a run left "running" by a process that is
// provably gone (killed, crashed): see markAbandoned.
const StatusAbandoned = "abandoned"

// process identifies a process across PID reuse: its PID and start time,
// within one boot and PID namespace.
type process struct {
	PID   int
	Start uint64 // clock ticks after boot (/proc/PID/stat field 22)
	Boot  string // /proc/sys/kernel/random/boot_id
	PIDNS string // readlink /proc/self/ns/pid: PIDs of another container mean nothing here
}

// thisProcess is the calling process; ok is false without /proc.
func thisProcess() (process, bool) {
	p := process{PID: os.Getpid()}
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return p, false
	}
	p.Boot = strings.TrimSpace(string(b))
	if p.PIDNS, err = os.Readlink("/proc/self/ns/pid"); err != nil {
		return p, false
	}
	if p.Start, err = startTicks(p.PID); err != nil {
		return p, false
	}
	return p, true
}

// startTicks reads a process's start time from /proc/PID/stat (fs.ErrNotExist
// when there is no such process; a zombie counts as gone).
func startTicks(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	if f[0] == "Z" || f[0] == "X" {
		return 0, fs.ErrNotExist
	}
	return strconv.ParseUint(f[19], 10, 64) // field 22; f[0] is field 3
}

// goneHere tells whether p, recorded on this boot and PID namespace, no
// longer runs. Anything else (another machine, boot or container) cannot be
// proven and is not gone.
func (p process) goneHere(here process) bool {
	if p.PID <= 0 || p.Boot != here.Boot || p.PIDNS != here.PIDNS || p.Boot == "" {
		return false
	}
	start, err := startTicks(p.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && p.Start != 0 && start != p.Start
}

// recordOwner stores which process records run id.
func recordOwner(ctx context.Context, t *txn, id int64) error {
	p, ok := thisProcess()
	if !ok {
		return nil
	}
	return t.exec(ctx, `UPDATE runs SET owner_pid = ?, owner_start = ?, owner_boot = ?, owner_pidns = ? WHERE id = ?`,
		p.PID, int64(p.Start), p.Boot, p.PIDNS, id)
}

// markAbandoned finishes, as abandoned, the runs still "running" whose
// recording process is provably gone (same boot and PID namespace, no
// process with that PID and start time): a dbrig killed by SIGKILL or the
// OOM killer never finishes its run. It returns the ids marked. Called by
// Open; a store that cannot be written (read-only) is left as it is.
func (s *Store) markAbandoned(ctx context.Context) ([]int64, error) {
	here, ok := thisProcess()
	if !ok {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT id, owner_pid, owner_start FROM runs
		WHERE status = ? AND owner_boot = ? AND owner_pidns = ?`, StatusRunning, here.Boot, here.PIDNS)
	if err != nil {
		return nil, err
	}
	var dead []process
	var ids []int64
	for rows.Next() {
		var id, pid, start int64
		if err := rows.Scan(&id, &pid, &start); err != nil {
			rows.Close()
			return nil, err
		}
		p := process{PID: int(pid), Start: uint64(start), Boot: here.Boot, PIDNS: here.PIDNS}
		if p.goneHere(here) {
			dead, ids = append(dead, p), append(ids, id)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	var marked []int64
	for i, id := range ids {
		msg := fmt.Sprintf("abandoned: its dbrig (pid %d) ended without finishing it (killed?)", dead[i].PID)
		res, err := s.exec(ctx, `UPDATE runs SET status = ?, message = ?, ended_at = updated_at WHERE id = ? AND status = ?`,
			StatusAbandoned, msg, id, StatusRunning)
		if err != nil {
			return marked, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			marked = append(marked, id)
		}
	}
	return marked, nil
}

// sweepTimeout bounds markAbandoned at Open: a busy store must not delay it.
const sweepTimeout = 5 * time.Second
