package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// maxHistoryScan bounds how many earlier runs of a system and workload are
// looked through for comparable ones.
const maxHistoryScan = 1000

// Key is what makes runs comparable: the same system, workload, load model
// (clients and rate included) and matrix values.
type Key struct {
	System, Workload, Model string
	Clients                 int
	Rate                    float64
	Matrix                  string // the run name's key=value words (dbrig bench's label), repetition left out
}

// KeyOf is the configuration of a run.
func KeyOf(r results.RunRow) Key {
	var matrix []string
	for _, w := range strings.Fields(r.Name) {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "rep=") {
			matrix = append(matrix, w)
		}
	}
	return Key{System: r.System, Workload: r.Workload, Model: r.Model, Clients: r.Clients, Rate: r.Rate,
		Matrix: strings.Join(matrix, " ")}
}

// String names the configuration: "sim ycsb/workloada closed/4 @1000/s clients=8".
func (k Key) String() string {
	s := fmt.Sprintf("%s %s %s/%d", k.System, k.Workload, k.Model, k.Clients)
	if k.Rate > 0 {
		s += " @" + strconv.FormatFloat(k.Rate, 'f', -1, 64) + "/s"
	}
	if k.Matrix != "" {
		s += " " + k.Matrix
	}
	return s
}

// Group is the new runs of one configuration and their baseline.
type Group struct {
	Key      Key
	New      []analysis.Run
	Baseline []analysis.Run
	Note     string // why the baseline is what it is, when that is not obvious
}

// Load reads the runs newSel names (a run id or tag:NAME) and their
// baseline from the store, grouped by configuration. Only finished runs are
// checked and compared with; a selector that finds none is an *InputError.
func Load(ctx context.Context, store *results.Store, newSel string, base spec.Baseline) ([]Group, error) {
	sel, err := spec.ParseBaseline(newSel)
	if err != nil || sel.History > 0 {
		return nil, &InputError{Msg: fmt.Sprintf("runs to check %q: expected a run id or tag:NAME", newSel)}
	}
	fresh, err := pick(ctx, store, sel)
	if err != nil {
		return nil, err
	}
	groups := groupRuns(fresh)
	exclude := map[int64]bool{}
	for _, r := range fresh {
		exclude[r.Detail.ID] = true
	}
	switch {
	case base.History > 0:
		for i := range groups {
			if groups[i].Baseline, err = history(ctx, store, groups[i], base.History, exclude); err != nil {
				return nil, err
			}
		}
	default:
		old, err := pick(ctx, store, base)
		if err != nil {
			return nil, err
		}
		old = slices.DeleteFunc(old, func(r analysis.Run) bool { return exclude[r.Detail.ID] })
		if len(old) == 0 {
			return nil, &InputError{Msg: "the baseline holds only the runs being checked"}
		}
		pair(groups, old, base.ID > 0)
	}
	return groups, nil
}

// pick loads the finished run of an id or the finished runs of a tag.
func pick(ctx context.Context, store *results.Store, sel spec.Baseline) ([]analysis.Run, error) {
	if sel.ID > 0 {
		r, err := load(ctx, store, sel.ID)
		if err != nil {
			return nil, err
		}
		if r.Detail.Status != results.StatusDone {
			return nil, &InputError{Msg: fmt.Sprintf("run %d is %s: only finished runs are checked or compared with", sel.ID, r.Detail.DisplayStatus())}
		}
		return []analysis.Run{r}, nil
	}
	rows, err := store.ListRuns(ctx, results.Filter{Tag: sel.Tag, Status: results.StatusDone})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &InputError{Msg: fmt.Sprintf("tag:%s: no finished run has this tag (see dbrig runs list --tag %s)", sel.Tag, sel.Tag)}
	}
	var out []analysis.Run
	for _, row := range rows {
		r, err := load(ctx, store, row.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func load(ctx context.Context, store *results.Store, id int64) (analysis.Run, error) {
	d, err := store.Run(ctx, id)
	if err != nil {
		return analysis.Run{}, err
	}
	ivs, err := store.Intervals(ctx, id)
	if err != nil {
		return analysis.Run{}, err
	}
	return analysis.NewRun(d, ivs), nil
}

// groupRuns groups runs by configuration, in the order first seen.
func groupRuns(runs []analysis.Run) []Group {
	var out []Group
	for _, r := range runs {
		k := KeyOf(r.Detail.RunRow)
		i := slices.IndexFunc(out, func(g Group) bool { return g.Key == k })
		if i < 0 {
			out = append(out, Group{Key: k})
			i = len(out) - 1
		}
		out[i].New = append(out[i].New, r)
	}
	return out
}

// pair gives each group the baseline runs of its configuration. One run
// checked against one named run is compared whatever their configurations
// (the user chose the pair), with a note when they differ.
func pair(groups []Group, old []analysis.Run, named bool) {
	if named && len(groups) == 1 && len(old) == 1 {
		groups[0].Baseline = old
		if k := KeyOf(old[0].Detail.RunRow); k != groups[0].Key {
			groups[0].Note = fmt.Sprintf("baseline run %d is another configuration (%s) than %s", old[0].Detail.ID, k, groups[0].Key)
		}
		return
	}
	for i := range groups {
		for _, r := range old {
			if KeyOf(r.Detail.RunRow) == groups[i].Key {
				groups[i].Baseline = append(groups[i].Baseline, r)
			}
		}
	}
}

// history is the last n finished runs of the group's configuration that
// started before the group's first run.
func history(ctx context.Context, store *results.Store, g Group, n int, exclude map[int64]bool) ([]analysis.Run, error) {
	first := g.New[0].Detail.Start
	for _, r := range g.New {
		if r.Detail.Start.Before(first) {
			first = r.Detail.Start
		}
	}
	rows, err := store.ListRuns(ctx, results.Filter{System: g.Key.System, Workload: g.Key.Workload,
		Status: results.StatusDone, Limit: maxHistoryScan})
	if err != nil {
		return nil, err
	}
	var out []analysis.Run
	for _, row := range rows { // newest first
		if len(out) == n {
			break
		}
		if exclude[row.ID] || !row.Start.Before(first) || KeyOf(row) != g.Key {
			continue
		}
		r, err := load(ctx, store, row.ID)
		if err != nil && !errors.Is(err, results.ErrNoRun) {
			return nil, err
		}
		if err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}
