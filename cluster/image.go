package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNoImage is wrapped by the errors of a cluster that cannot keep images
// (a node that keeps its data in memory only) and of an image not taken.
var ErrNoImage = errors.New("no image")

// An image is a copy of every node's data directory, taken with every node
// stopped cleanly, so that it is consistent across the cluster (a primary
// and its replicas, etcd's members and their Raft logs): what a system's
// own offline backup is. SaveImage and RestoreImage stop the nodes, copy,
// and start them again on the same ports, waiting until every stage is
// ready as Up does. Nothing may use the cluster while they run.
//
// `dbrig rate --reset snapshot` restores one before each experiment on a
// system whose driver has no snapshot of its own (driver.Snapshotter).

// CanImage tells whether images work here: every node keeps its data in its
// data directory (NodeSpec.Durable).
func (c *Cluster) CanImage() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.procs) == 0 {
		return fmt.Errorf("cluster: %w: no nodes", ErrNoImage)
	}
	for _, p := range c.procs {
		if !p.spec.Durable || p.spec.DataDir == "" {
			return fmt.Errorf("cluster: %w: %s node %s keeps its data in memory", ErrNoImage, c.system, p.spec.Name)
		}
	}
	return nil
}

// CanImagePlanned is CanImage for nodes not started yet (Plan's), so that
// a cluster that could not keep images is known before it starts.
func CanImagePlanned(system string, nodes []PlannedNode) error {
	if len(nodes) == 0 {
		return fmt.Errorf("cluster: %w: no nodes", ErrNoImage)
	}
	for _, n := range nodes {
		if !n.Durable {
			return fmt.Errorf("cluster: %w: %s node %s keeps its data in memory", ErrNoImage, system, n.Name)
		}
	}
	return nil
}

// imageDir is where image name of node lives.
func (c *Cluster) imageDir(name, node string) string {
	return filepath.Join(c.dir, "images", name, node)
}

// SaveImage takes image name of every node's data, replacing an earlier one.
func (c *Cluster) SaveImage(ctx context.Context, name string) error {
	if err := c.CanImage(); err != nil {
		return err
	}
	if err := checkImageName(name); err != nil {
		return err
	}
	return c.cycle(ctx, "save image "+name, func(ps []*proc) error {
		for _, p := range ps {
			to := c.imageDir(name, p.spec.Name)
			if err := os.RemoveAll(to); err != nil {
				return fmt.Errorf("cluster: image %s: %w", name, err)
			}
			if err := copyTree(p.spec.DataDir, to); err != nil {
				return fmt.Errorf("cluster: image %s of %s: %w", name, p.spec.Name, err)
			}
		}
		return nil
	})
}

// RestoreImage puts image name back as every node's data.
func (c *Cluster) RestoreImage(ctx context.Context, name string) error {
	if err := c.CanImage(); err != nil {
		return err
	}
	if err := checkImageName(name); err != nil {
		return err
	}
	c.mu.Lock()
	for _, p := range c.procs {
		if _, err := os.Stat(c.imageDir(name, p.spec.Name)); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("cluster: %w %q of node %s: %w", ErrNoImage, name, p.spec.Name, err)
		}
	}
	c.mu.Unlock()
	return c.cycle(ctx, "restore image "+name, func(ps []*proc) error {
		for _, p := range ps {
			if err := os.RemoveAll(p.spec.DataDir); err != nil {
				return fmt.Errorf("cluster: restore image %s: %w", name, err)
			}
			if err := copyTree(c.imageDir(name, p.spec.Name), p.spec.DataDir); err != nil {
				return fmt.Errorf("cluster: restore image %s of %s: %w", name, p.spec.Name, err)
			}
		}
		return nil
	})
}

// DropImage removes image name; no image of that name is no error.
func (c *Cluster) DropImage(name string) error {
	if err := checkImageName(name); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(c.dir, "images", name))
}

func checkImageName(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return fmt.Errorf("cluster: image name %q: expected a plain name", name)
	}
	return nil
}

// cycle stops every node (later stages first, as Down does), runs fn on
// the stopped nodes, and starts them again stage by stage on their data
// dirs, each stage ready before the next starts. The nodes keep their
// names, ports and dirs; their PIDs change.
func (c *Cluster) cycle(ctx context.Context, what string, fn func([]*proc) error) error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return errors.New("cluster is going down")
	}
	procs := append([]*proc(nil), c.procs...)
	c.mu.Unlock()
	errs := c.stopAll(ctx, procs)
	if err := errors.Join(errs...); err != nil {
		return err // a node that would not stop: its data is not safe to copy
	}
	ferr := fn(procs)
	// Start again whatever fn did: a cluster left down would fail every
	// later step less clearly than fn's error does.
	c.mu.Lock()
	c.procs = slicesDelete(c.procs, procs)
	c.mu.Unlock()
	for stage := 0; stage <= lastStage(procs); stage++ {
		st := Stage{Name: what}
		if stage < len(c.stages) {
			st = c.stages[stage] // its ready check and timeout
			st.Name = what + ": " + st.Name
			st.Nodes = nil
		}
		var ps []*proc
		for _, p := range procs {
			if p.stage == stage {
				st.StopOneByOne = p.serial
				st.Nodes = append(st.Nodes, p.spec)
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		for _, p := range ps {
			if err := c.spawnNode(ctx, stage, st, p.spec, false); err != nil {
				return errors.Join(ferr, err)
			}
		}
		if err := c.waitStage(ctx, stage, st); err != nil {
			return errors.Join(ferr, err)
		}
	}
	if c.opts.StateFile != "" {
		if err := WriteState(c.opts.StateFile, c.State()); err != nil {
			return errors.Join(ferr, err)
		}
	}
	return ferr
}

// slicesDelete returns all without the procs in drop.
func slicesDelete(all, drop []*proc) []*proc {
	gone := map[*proc]bool{}
	for _, p := range drop {
		gone[p] = true
	}
	var out []*proc
	for _, p := range all {
		if !gone[p] {
			out = append(out, p)
		}
	}
	return out
}

// copyTree copies the directory from to to (which must not exist): files,
// directories and symlinks, with their modes and owners (a PostgreSQL data
// directory must stay the postgres user's, mode 0700). Sockets and other
// special files (a server's Unix socket, gone once it stopped) are skipped.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			if err := os.MkdirAll(dst, mode.Perm()); err != nil {
				return err
			}
			if err := os.Chmod(dst, mode.Perm()); err != nil { // MkdirAll applies the umask
				return err
			}
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
		case mode.IsRegular():
			if err := copyFile(path, dst, mode.Perm()); err != nil {
				return err
			}
		default:
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			return os.Lchown(dst, int(st.Uid), int(st.Gid))
		}
		return nil
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil { // copy_file_range where the kernel can
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(to, perm)
}
