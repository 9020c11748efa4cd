package spec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/dbrig/dbrig/loadmodel"
)

// An experiment file describes a whole experiment in YAML: the system
// under test, the data set, the workload, the load model, a matrix of
// values to sweep and how often to repeat. ReadExperiment checks its shape
// (known keys, types) with the position of every value; what the values
// mean (a driver that exists, a recipe option the system supports) is
// checked by package experiment, which reports with Experiment.Errorf so the
// message still points into the file.

// Experiment is one fully expanded experiment: a matrix combination of an
// experiment file, with any --set overrides applied.
type Experiment struct {
	File     string
	Name     string
	Tags     []string
	System   System
	Dataset  Dataset
	Workload Workload
	Load     Load
	Repeat   int          // runs per combination (≥ 1)
	Matrix   []MatrixPick // the values this combination took, in file order
	Scenario []Fault      // faults injected while the measure phase runs
	Verdicts []Verdict    // limits the faults' impact must stay within
	Verify   bool         // read back every acknowledged insert and delete after the run (lost writes)
	// CycleTargets moves each fault on a node to the next node every repetition.
	CycleTargets bool
	// Workers runs each run on this many worker processes whose figures are
	// merged exactly (dbrig run --workers; 0: one process).
	Workers int
	SLA     []SLAExpr // checked on every run (sla.go); the rating's SLA
	Rate    *Rate     // nil: no rate block (sla.go)
	// Kubernetes is where Kubernetes faults act (kubernetes.go; nil: none).
	Kubernetes *Kubernetes
	// Check is how dbrig check gates the runs in CI (check.go; nil: none).
	Check *Check

	pos map[string]Pos // key path → where its value is
	// systemFrom is where this combination's system block was written
	// when a matrix over systems gave it (matrix.system[1]), for errors.
	systemFrom string
}

// System is what is benchmarked and where it runs.
type System struct {
	// Name labels the system in a matrix over systems (matrix: {system:
	// [...]}) and in bench's comparison; "" for the driver's name.
	Name    string
	Driver  string            // the driver (dbrig drivers)
	Version string            // a label stored with the runs (two versions side by side)
	Props   map[string]string // driver properties (for an external system: its endpoints)
	Cluster *Cluster          // nil: embedded, or external endpoints the user runs
}

// Cluster is a local cluster dbrig starts, waits for, measures and stops.
type Cluster struct {
	Recipe    string            // etcd, redis, postgres, …
	Nodes     int               // members (etcd, hazelcast) or 1 + replicas
	Replicas  int               // redis, postgres: replicas of the primary
	Sentinels int               // redis: sentinels (0 = none)
	Binary    string            // server binary to use instead of the one on PATH
	Config    map[string]string // server settings to override
	Keep      bool              // keep data directories after teardown
	Ports     map[string]string // fixed ports by node.name (etcd1.client: 2379); checked by experiment
	CPUs      string            // pin every node to these CPUs ("1", "2-3"); checked by experiment
}

// Dataset is the data the workload runs on.
type Dataset struct {
	Records  int64 // recordcount (0: the workload's)
	Load     bool  // load it (false: it is already there)
	Recreate bool  // drop the data of an earlier load first
	Batch    int   // records per insert batch (0: default)
}

// Workload is what to do: -P files (or built-in names) and properties.
type Workload struct {
	Files []string          // built-in names or property files, in order
	Props map[string]string // win over the files
}

// Load is the load model and the phases as the file declares them: the
// settings a run stores (its Model is "" when the file names none: open
// when a rate is set; its Seed is the file's top-level seed key), the
// operations' timeout and a rate schedule.
type Load struct {
	loadmodel.Load
	Timeout  time.Duration
	Schedule []RateStep // open model: target rate over time (instead of Rate)
}

// RateStep is one stretch of a rate schedule as the file writes it: a
// hold ({rate: R, for: D}) or a linear ramp from the previous rate
// ({ramp_to: R, for: D}, Ramp set), and where it is written.
type RateStep struct {
	loadmodel.RateStep
	Pos Pos
}

// Fault is one entry of a scenario: what to do to which node, and when.
// Times are offsets into the measure phase.
type Fault struct {
	Name   string        // names its events (NAME_start, NAME_end); default fault-N
	Kind   string        // kill, stop, pause
	Target string        // a node name, or a role: leader, follower, primary, replica, member, any
	At     time.Duration // first injection
	For    time.Duration // pause: how long until the node resumes
	Every  time.Duration // recurring: the period (0: once)
	Count  int           // recurring: how many times (default 1)

	FaultNet // network faults and dependent triggers (scenario.go)

	Pos  Pos
	Path string // key path, e.g. scenario[0], for errors
}

// MatrixPick is one axis of the matrix and the value this combination took.
type MatrixPick struct {
	Key   string // the key path, e.g. load.clients; "system" for a matrix over systems
	Value string // as written; a system block's label (its name, driver or recipe)
}

// Pos is a place in an experiment file.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// FileError is a mistake in an experiment file, at a key path.
type FileError struct {
	Pos  Pos
	Path string // e.g. load.clients
	Msg  string // what was expected
}

func (e *FileError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Path, e.Msg)
}

// Errorf reports a problem with the value at key path (as written in the
// file, e.g. "system.cluster.nodes") with its position.
func (e *Experiment) Errorf(path, format string, args ...any) error {
	p, ok := e.pos[path]
	for !ok && strings.Contains(path, ".") {
		path = path[:strings.LastIndex(path, ".")] // the nearest key that was written
		p, ok = e.pos[path]
	}
	if !ok {
		p = Pos{File: e.File}
	}
	if rest, ok := strings.CutPrefix(path, "system"); ok && e.systemFrom != "" && (rest == "" || rest[0] == '.') {
		path = e.systemFrom + rest
	}
	return &FileError{Pos: p, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Position returns where the value at key path was written, if it was.
func (e *Experiment) Position(path string) (Pos, bool) {
	p, ok := e.pos[path]
	return p, ok
}

// MaxFile bounds an experiment file's size.
const maxExperimentFile = 1 << 20

// IsExperimentFile tells whether a command's argument names an experiment
// file (YAML) rather than a property file or a run.
func IsExperimentFile(path string) bool {
	return strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")
}

// ReadExperimentFile reads an experiment file's bytes: a regular file of at
// most 1 MB (ReadRegular).
func ReadExperimentFile(path string) ([]byte, error) {
	b, err := ReadRegular(path, "experiment file", maxExperimentFile)
	if err != nil {
		return nil, fmt.Errorf("experiment file: %w", err)
	}
	return b, nil
}

// ReadExperiment reads an experiment file and returns one Experiment per
// combination of its matrix (one when it has none), with sets applied
// first ("load.duration=5s": key path = YAML value, as --set gives them).
func ReadExperiment(path string, sets []string) ([]Experiment, error) {
	b, err := ReadExperimentFile(path)
	if err != nil {
		return nil, err
	}
	return ParseExperiment(path, b, sets)
}

// ParseExperiment is ReadExperiment on the file's contents; name is used in
// positions.
func ParseExperiment(name string, data []byte, sets []string) ([]Experiment, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FileError{Pos: Pos{File: name}, Msg: "empty file: expected a mapping with at least system and workload"}
	}
	if err := resolveAliases(name, &doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &FileError{Pos: pos(name, root), Msg: "expected a mapping (key: value lines) at the top"}
	}
	axes, err := matrixAxes(name, root)
	if err != nil {
		return nil, err
	}
	// --set wins over the file, the matrix included: setting an axis's key
	// runs that one value.
	type setValue struct {
		key string
		val *yaml.Node
	}
	var under []setValue
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: expected key.path=value", s)
		}
		key := canonical(k)
		if _, ok := schemaAt(key); !ok && key != systemAxis {
			return nil, fmt.Errorf("--set %s: not a key of an experiment file%s", k, suggest(key, schemaPaths()))
		}
		var val yaml.Node
		if err := yaml.Unmarshal([]byte(v), &val); err != nil || len(val.Content) == 0 {
			val = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}}}
		}
		markSet(val.Content[0], "--set "+s)
		setPath(root, key, val.Content[0])
		for i := 0; i < len(axes); i++ {
			if axes[i].key == key {
				axes = append(axes[:i], axes[i+1:]...)
				i--
			} else if strings.HasPrefix(key, axes[i].key+".") {
				under = append(under, setValue{key, val.Content[0]})
			}
		}
	}
	var out []Experiment
	for _, combo := range combinations(axes) {
		tree := clone(root)
		var picks []MatrixPick
		for i, ax := range axes {
			v := ax.values[combo[i]]
			setPath(tree, ax.key, clone(v))
			picks = append(picks, MatrixPick{Key: ax.key, Value: ax.label(combo[i])})
		}
		// A --set below a block the matrix replaces (system.props.x under
		// a matrix over systems) applies to every value of the block.
		for _, s := range under {
			setPath(tree, s.key, clone(s.val))
		}
		e, err := decodeExperiment(name, tree)
		if err != nil {
			return nil, err
		}
		e.Matrix = picks
		for i, ax := range axes {
			if ax.key == systemAxis {
				e.systemFrom = fmt.Sprintf("matrix.system[%d]", combo[i])
			}
		}
		out = append(out, *e)
	}
	return out, nil
}

// aliases are the short matrix and --set keys users write most.
var aliases = map[string]string{
	"clients": "load.clients", "rate": "load.rate", "duration": "load.duration", "warmup": "load.warmup",
	"operations": "load.operations", "model": "load.model", "arrival": "load.arrival",
	"driver": "system.driver", "version": "system.version", "binary": "system.cluster.binary",
	"nodes": "system.cluster.nodes", "records": "dataset.records",
}

func canonical(key string) string {
	if a, ok := aliases[key]; ok {
		return a
	}
	return key
}

type axis struct {
	key    string
	values []*yaml.Node
	labels []string // the values' labels (a matrix over systems); nil: their text
}

func (a axis) label(i int) string {
	if a.labels != nil {
		return a.labels[i]
	}
	return scalarText(a.values[i])
}

// matrixAxes takes the matrix out of root and returns its axes in order.
func matrixAxes(name string, root *yaml.Node) ([]axis, error) {
	var axes []axis
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "matrix" {
			continue
		}
		m := root.Content[i+1]
		root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
		if m.Kind != yaml.MappingNode {
			return nil, &FileError{Pos: pos(name, m), Path: "matrix", Msg: "expected a mapping of key paths to lists of values, e.g. load.clients: [1, 4, 16]"}
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(m.Content); j += 2 {
			k, v := m.Content[j], m.Content[j+1]
			key := canonical(k.Value)
			if _, ok := schemaAt(key); !ok && key != systemAxis {
				return nil, &FileError{Pos: pos(name, k), Path: "matrix." + k.Value, Msg: "not a key of an experiment file" + suggest(key, append(append(schemaPaths(), systemAxis), slices.Sorted(maps.Keys(aliases))...)) + "; " + matrixKeys()}
			}
			if seen[key] {
				return nil, &FileError{Pos: pos(name, k), Path: "matrix." + k.Value, Msg: "given twice"}
			}
			seen[key] = true
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, &FileError{Pos: pos(name, v), Path: "matrix." + k.Value, Msg: "expected a non-empty list of values"}
			}
			ax := axis{key: key, values: v.Content}
			if key == systemAxis {
				labels, err := systemLabels(name, v.Content)
				if err != nil {
					return nil, err
				}
				ax.labels = labels
			}
			for _, other := range axes {
				// A dotted property name is one key (props.etcd and
				// props.etcd.timeout are two properties): no overlap.
				short := shorter(key, other.key)
				if s, ok := schemaAt(short); ok && s != short {
					continue
				}
				if strings.HasPrefix(key, other.key+".") || strings.HasPrefix(other.key, key+".") {
					return nil, &FileError{Pos: pos(name, k), Path: "matrix." + k.Value,
						Msg: fmt.Sprintf("overlaps the axis %s: a value of one would replace the other's (put this key inside each %s value)", other.key, short)}
				}
			}
			axes = append(axes, ax)
		}
		break
	}
	return axes, nil
}

func shorter(a, b string) string {
	if len(a) < len(b) {
		return a
	}
	return b
}

// combinations enumerates the matrix in file order, the last axis fastest.
func combinations(axes []axis) [][]int {
	out := [][]int{make([]int, len(axes))}
	for i := len(axes) - 1; i >= 0; i-- {
		var next [][]int
		for _, c := range out {
			for v := range axes[i].values {
				d := append([]int(nil), c...)
				d[i] = v
				next = append(next, d)
			}
		}
		out = next
	}
	sort.SliceStable(out, func(a, b int) bool {
		for i := range out[a] {
			if out[a][i] != out[b][i] {
				return out[a][i] < out[b][i]
			}
		}
		return false
	})
	return out
}

// CountCombinations returns how many runs a file's matrix and repeat make,
// without decoding each (to refuse a huge sweep before expanding it).
func CountCombinations(path string, sets []string) (int, error) {
	b, err := ReadExperimentFile(path)
	if err != nil {
		return 0, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 || resolveAliases(path, &doc) != nil {
		return 0, nil // ReadExperiment reports it
	}
	axes, err := matrixAxes(path, clone(doc.Content[0]))
	if err != nil {
		return 0, err
	}
	n := 1
	for _, a := range axes {
		set := false
		for _, s := range sets {
			k, _, _ := strings.Cut(s, "=")
			set = set || canonical(k) == a.key
		}
		if !set {
			n *= len(a.values)
		}
	}
	return n, nil
}

func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k)
	}
	return &c
}

// setPath puts v at the dotted key path under a mapping, creating the
// mappings on the way. Property maps have dotted keys of their own
// (workload.props.readproportion, system.props.etcd.endpoints): once a path
// reaches a props, config or ports map (ports: NODE.NAME), the rest is one key.
func setPath(m *yaml.Node, path string, v *yaml.Node) {
	key, rest, more := strings.Cut(path, ".")
	if key == "props" || key == "config" || key == "ports" {
		if more {
			key2 := rest
			setKey(m, key, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, false)
			setKey(child(m, key), key2, v, true)
			return
		}
	}
	if !more {
		setKey(m, key, v, true)
		return
	}
	setKey(m, key, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, false)
	setPath(child(m, key), rest, v)
}

func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey sets key in mapping m to v; when the key exists and replace is
// false it is kept (an existing mapping on the way).
func setKey(m *yaml.Node, key string, v *yaml.Node, replace bool) {
	if m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if replace || m.Content[i+1].Kind != yaml.MappingNode {
				m.Content[i+1] = v
			}
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func scalarText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	b, _ := yaml.Marshal(n)
	return strings.TrimSpace(string(b))
}

func pos(file string, n *yaml.Node) Pos {
	if src, ok := strings.CutPrefix(n.LineComment, setMark); ok {
		return Pos{File: src} // a --set value has no line: name the flag
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

// setMark tags the nodes of a --set value (in LineComment, which nothing
// else reads here), so errors about them name the flag, not FILE:1:1.
const setMark = "\x00set:"

func markSet(n *yaml.Node, src string) {
	n.LineComment = setMark + src
	for _, c := range n.Content {
		markSet(c, src)
	}
}

// yamlError turns the YAML library's syntax error ("yaml: line 3: …") into
// one with the file name in front.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ":"); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, strings.TrimSpace(tail)
			}
		}
	}
	return &FileError{Pos: Pos{File: name, Line: line, Col: 1}, Msg: "malformed YAML: " + msg}
}

// decoder decodes one experiment tree, remembering positions.
type decoder struct {
	file string
	pos  map[string]Pos
}

func decodeExperiment(file string, root *yaml.Node) (*Experiment, error) {
	d := &decoder{file: file, pos: map[string]Pos{}}
	e := &Experiment{File: file, Repeat: 1, Dataset: Dataset{Load: true}, pos: d.pos}
	var haveSystem, haveWorkload bool
	err := d.mapping(root, "", map[string]func(*yaml.Node, string) error{
		"name": d.str(&e.Name),
		"tags": d.strs(&e.Tags),
		"seed": d.int64(&e.Load.Seed, math.MinInt64),
		"system": func(n *yaml.Node, p string) error {
			haveSystem = true
			return d.system(n, p, &e.System)
		},
		"dataset": func(n *yaml.Node, p string) error {
			return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
				"records":  d.int64(&e.Dataset.Records, 1), // 0 would mean "the workload's": say so by leaving it out
				"load":     d.boolean(&e.Dataset.Load),
				"recreate": d.boolean(&e.Dataset.Recreate),
				"batch":    d.int(&e.Dataset.Batch, 1),
			})
		},
		"workload": func(n *yaml.Node, p string) error {
			haveWorkload = true
			return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
				"files": d.strs(&e.Workload.Files),
				"props": d.props(&e.Workload.Props),
			})
		},
		"load":    func(n *yaml.Node, p string) error { return d.load(n, p, &e.Load) },
		"repeat":  d.int(&e.Repeat, 1),
		"verify":  d.boolean(&e.Verify),
		"workers": d.int(&e.Workers, 0),
		"verdict": func(n *yaml.Node, p string) error {
			if n.Kind != yaml.SequenceNode {
				return d.errorf(n, p, "expected a list such as [\"recovery <= 15s\", \"p99_change_pct <= 300\"]")
			}
			for i, vn := range n.Content {
				text, err := d.scalar(vn, fmt.Sprintf("%s[%d]", p, i), "a limit such as \"recovery <= 15s\"")
				if err != nil {
					return err
				}
				v, err := parseVerdict(text, pos(d.file, vn), fmt.Sprintf("%s[%d]", p, i))
				if err != nil {
					return err
				}
				e.Verdicts = append(e.Verdicts, v)
			}
			return nil
		},
		"matrix": func(*yaml.Node, string) error { return nil }, // taken out by matrixAxes
		"scenario": func(n *yaml.Node, p string) error {
			if n.Kind != yaml.SequenceNode {
				return d.errorf(n, p, "expected a list of faults such as {fault: kill, target: leader, at: 10s}")
			}
			for i, fn := range n.Content {
				fp := fmt.Sprintf("%s[%d]", p, i)
				f := Fault{Pos: pos(d.file, fn), Path: fp, Count: 1}
				if err := d.mapping(fn, fp, d.faultFields(&f)); err != nil {
					return err
				}
				if f.Kind == "" || f.Target == "" {
					return d.errorf(fn, fp, "expected fault and target, e.g. {fault: kill, target: leader, at: 10s}")
				}
				if f.Name == "" {
					f.Name = fmt.Sprintf("%s-%s-%d", f.Kind, f.Target, i+1)
				}
				e.Scenario = append(e.Scenario, f)
			}
			return nil
		},
		"cycle_targets": d.boolean(&e.CycleTargets),
		"sla":           d.slaExprs(&e.SLA),
		"rate":          d.rateBlock(&e.Rate),
		"kubernetes":    d.kubernetes(&e.Kubernetes),
		"check":         d.check(&e.Check),
	})
	if err != nil {
		return nil, err
	}
	switch {
	case !haveSystem:
		return nil, &FileError{Pos: pos(file, root), Path: "system", Msg: "missing: expected the system under test (at least system.driver)"}
	case !haveWorkload:
		return nil, &FileError{Pos: pos(file, root), Path: "workload", Msg: "missing: expected workload.files and/or workload.props"}
	case e.System.Driver == "":
		return nil, e.Errorf("system", "missing driver: expected system.driver (see dbrig drivers)")
	case e.Dataset.Recreate && !e.Dataset.Load:
		return nil, e.Errorf("dataset.recreate", "recreating the data means loading it: dataset.load is false")
	}
	return e, nil
}

func (d *decoder) system(n *yaml.Node, p string, s *System) error {
	return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
		"name":    d.str(&s.Name),
		"driver":  d.str(&s.Driver),
		"version": d.str(&s.Version),
		"props":   d.props(&s.Props),
		"cluster": func(n *yaml.Node, p string) error {
			c := &Cluster{}
			s.Cluster = c
			return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
				"recipe":    d.str(&c.Recipe),
				"nodes":     d.int(&c.Nodes, 1),
				"replicas":  d.int(&c.Replicas, 0),
				"sentinels": d.int(&c.Sentinels, 0),
				"binary":    d.str(&c.Binary),
				"config":    d.props(&c.Config),
				"keep":      d.boolean(&c.Keep),
				"ports":     d.props(&c.Ports),
				"cpus":      d.str(&c.CPUs),
			})
		},
	})
}

func (d *decoder) load(n *yaml.Node, p string, l *Load) error {
	return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
		"model":       d.str(&l.Model),
		"clients":     d.int(&l.Clients, 1),
		"rate":        d.float(&l.Rate),
		"arrival":     d.str(&l.Arrival),
		"think":       d.duration(&l.ThinkTime),
		"warmup":      d.duration(&l.Warmup),
		"duration":    d.duration(&l.Duration),
		"operations":  d.int64(&l.Operations, 0),
		"timeout":     d.duration(&l.Timeout),
		"max_backlog": d.int(&l.MaxBacklog, 1),
		"schedule": func(n *yaml.Node, p string) error {
			if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
				return d.errorf(n, p, "expected a list of steps such as {rate: 1000, for: 10s} or {ramp_to: 5000, for: 30s}")
			}
			for i, s := range n.Content {
				step := RateStep{Pos: pos(d.file, s)}
				hold, rampTo := math.NaN(), math.NaN()
				sp := fmt.Sprintf("%s[%d]", p, i)
				if err := d.mapping(s, sp, map[string]func(*yaml.Node, string) error{
					"rate":    d.float(&hold),
					"ramp_to": d.float(&rampTo),
					"for":     d.duration(&step.For),
				}); err != nil {
					return err
				}
				switch {
				case math.IsNaN(hold) == math.IsNaN(rampTo):
					return d.errorf(s, sp, "expected exactly one of rate (hold) or ramp_to (linear ramp)")
				case step.For <= 0:
					return d.errorf(s, sp, "expected for: a duration > 0")
				}
				step.Rate, step.Ramp = hold, !math.IsNaN(rampTo)
				if step.Ramp {
					step.Rate = rampTo
				}
				l.Schedule = append(l.Schedule, step)
			}
			return nil
		},
	})
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) error {
	return &FileError{Pos: pos(d.file, n), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// mapping decodes a mapping node with the given fields; an unknown or
// repeated key is an error at its position.
func (d *decoder) mapping(n *yaml.Node, path string, fields map[string]func(*yaml.Node, string) error) error {
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "expected a mapping (key: value)")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		f, ok := fields[k.Value]
		if !ok {
			names := make([]string, 0, len(fields))
			for name := range fields {
				names = append(names, name)
			}
			sort.Strings(names)
			return d.errorf(k, p, "unknown key (expected one of %s)%s", strings.Join(names, ", "), suggest(k.Value, names))
		}
		if seen[k.Value] {
			return d.errorf(k, p, "given twice")
		}
		seen[k.Value] = true
		d.pos[p] = pos(d.file, v)
		if err := f(v, p); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) scalar(n *yaml.Node, path, want string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errorf(n, path, "expected %s", want)
	}
	return n.Value, nil
}

func (d *decoder) str(dst *string) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "null" {
			*dst = n.Value // "driver: null" names the null driver, not YAML's null
			return nil
		}
		v, err := d.scalar(n, p, "a string")
		*dst = v
		return err
	}
}

func (d *decoder) strs(dst *[]string) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
			*dst = []string{n.Value}
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return d.errorf(n, p, "expected a list of strings")
		}
		*dst = nil
		for _, c := range n.Content {
			v, err := d.scalar(c, p, "a string")
			if err != nil {
				return err
			}
			*dst = append(*dst, v)
		}
		return nil
	}
}

func (d *decoder) int(dst *int, min int) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		var v int64
		if err := d.int64(&v, int64(min))(n, p); err != nil {
			return err
		}
		if v > math.MaxInt32 {
			return d.errorf(n, p, "expected an integer ≤ %d, got %d", math.MaxInt32, v)
		}
		*dst = int(v)
		return nil
	}
}

func (d *decoder) int64(dst *int64, min int64) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		s, err := d.scalar(n, p, "an integer")
		if err != nil {
			return err
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
		if err != nil || n.Tag == "!!str" && s != strings.TrimSpace(s) {
			return d.errorf(n, p, "expected an integer, got %q", s)
		}
		if v < min {
			return d.errorf(n, p, "expected an integer ≥ %d, got %d", min, v)
		}
		*dst = v
		return nil
	}
}

func (d *decoder) float(dst *float64) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		s, err := d.scalar(n, p, "a number")
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return d.errorf(n, p, "expected a number ≥ 0, got %q", s)
		}
		*dst = v
		return nil
	}
}

func (d *decoder) boolean(dst *bool) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		s, err := d.scalar(n, p, "true or false")
		if err != nil {
			return err
		}
		switch strings.ToLower(s) {
		case "true", "yes", "on":
			*dst = true
		case "false", "no", "off":
			*dst = false
		default:
			return d.errorf(n, p, "expected true or false, got %q", s)
		}
		return nil
	}
}

func (d *decoder) duration(dst *time.Duration) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		s, err := d.scalar(n, p, "a duration such as 30s or 1m30s")
		if err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return d.errorf(n, p, "expected a duration such as 30s or 1m30s, got %q", s)
		}
		*dst = v
		return nil
	}
}

// props decodes a mapping of property names to scalar values.
func (d *decoder) props(dst *map[string]string) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		if n.Kind != yaml.MappingNode {
			return d.errorf(n, p, "expected a mapping of property names to values")
		}
		*dst = map[string]string{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := p + "." + k.Value
			val, err := d.scalar(v, kp, "a value (string or number)")
			if err != nil {
				return err
			}
			if _, dup := (*dst)[k.Value]; dup {
				return d.errorf(k, kp, "given twice")
			}
			(*dst)[k.Value] = val
			d.pos[kp] = pos(d.file, v)
		}
		return nil
	}
}

// schemaPaths lists the key paths an experiment file has, for matrix and
// --set checks and suggestions.
func schemaPaths() []string {
	return append([]string{
		"name", "tags", "seed", "repeat",
		"system.name", "system.driver", "system.version", "system.props",
		"system.cluster.recipe", "system.cluster.nodes", "system.cluster.replicas", "system.cluster.sentinels",
		"system.cluster.binary", "system.cluster.config", "system.cluster.keep", "system.cluster.ports", "system.cluster.cpus",
		"dataset.records", "dataset.load", "dataset.recreate", "dataset.batch",
		"workload.files", "workload.props",
		"load.model", "load.clients", "load.rate", "load.arrival", "load.think", "load.warmup",
		"load.duration", "load.operations", "load.timeout", "load.max_backlog", "load.schedule", "scenario", "verdict",
		"workers",
		"sla", "rate.by", "rate.precision", "rate.reset", "rate.sla_duration", "rate.step", "rate.start", "rate.max", "rate.early_stop", "rate.probe", "rate.votes", "rate.min_tail", "rate.warmup", "rate.settle",
		"check", "check.baseline", "check.fail_on", "check.confidence",
	}, kubernetesPaths()...)
}

// schemaAt tells whether path is a key path of the file (property maps take
// any key below them).
func schemaAt(path string) (string, bool) {
	for _, s := range schemaPaths() {
		if path == s || (strings.HasSuffix(s, "props") || strings.HasSuffix(s, "config") || strings.HasSuffix(s, "ports")) && strings.HasPrefix(path, s+".") {
			return s, true
		}
	}
	return "", false
}

// suggest returns ` (did you mean "x"?)` for the closest of names, or "".
func suggest(k string, names []string) string {
	best, bestD := "", len(k)/3+1
	for _, n := range names {
		if d := editDistance(k, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
