package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// An experiment file may say how `dbrig check --file FILE` gates its runs
// in CI (docs/reference/check.md):
//
//	check:
//	  baseline: history:5               # a run id, tag:NAME or history:N
//	  fail_on: ["throughput<-5%", "READ.p99>+10%"]
//	  confidence: 95%                   # or 0.95
//
// `check: ["throughput<-5%"]` is short for a fail_on list alone.

// Check is an experiment file's check block.
type Check struct {
	Baseline   string // "" (the command's --baseline), a run id, tag:NAME or history:N
	FailOn     []CheckRule
	Confidence float64 // 0: the command's default
}

// CheckRule is one threshold of the CI gate, e.g. "READ.p99>+10%": the
// run fails the gate when the change of the metric from the baseline is
// significant and beyond the threshold in the rule's direction.
type CheckRule struct {
	Text   string
	Op     string  // the operation ("" for OVERALL, the whole run)
	Metric string  // one of CheckMetrics
	Less   bool    // "<": fails below Pct (a drop); ">": above it (a rise)
	Pct    float64 // the threshold as a fraction of the baseline: -0.05 for -5%
	Pos    Pos     // where Text is in a file (zero for a flag)
	Path   string  // check.fail_on[0]
}

// CheckMetrics are the metrics a check rule may name: what every second of
// a run stores (so that the gate can test the change for significance).
var CheckMetrics = []string{"throughput", "errors", "mean", "p50", "p95", "p99", "max"}

// CheckRuleError is a malformed rule; Col is the 1-based column in the
// rule's text where the problem is.
type CheckRuleError struct {
	Col int
	Msg string
}

func (e *CheckRuleError) Error() string { return e.Msg }

// ParseCheckRule parses "[OP.]METRIC<PCT%" or "[OP.]METRIC>PCT%" (<= and >=
// read the same), e.g. "throughput<-5%" or "READ.p99>+10%".
func ParseCheckRule(text string) (CheckRule, error) {
	r := CheckRule{Text: text}
	bad := func(col int, format string, args ...any) (CheckRule, error) {
		return CheckRule{}, &CheckRuleError{Col: col, Msg: fmt.Sprintf("%q: ", text) + fmt.Sprintf(format, args...)}
	}
	i := strings.IndexAny(text, "<>")
	if i < 0 {
		return bad(1, `expected [OPERATION.]METRIC<PERCENT or >PERCENT, e.g. "throughput<-5%%" or "READ.p99>+10%%"`)
	}
	r.Less = text[i] == '<'
	name := strings.TrimSpace(text[:i])
	j := i + 1
	if j < len(text) && text[j] == '=' {
		j++
	}
	if dot := strings.LastIndex(name, "."); dot >= 0 {
		r.Op, name = name[:dot], name[dot+1:]
		if r.Op == "" {
			return bad(1, "expected an operation before the dot, e.g. READ.p99")
		}
	}
	if !knownCheckMetric(name) {
		return bad(1, "unknown metric %q: expected one of %s", name, strings.Join(CheckMetrics, ", "))
	}
	r.Metric = name
	num := strings.TrimSpace(text[j:])
	col := j + 1 + len(text[j:]) - len(strings.TrimLeft(text[j:], " "))
	v, ok := strings.CutSuffix(num, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if !ok || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return bad(col, "expected a change in percent of the baseline such as -5%% or +10%%, got %q", num)
	}
	r.Pct = f / 100
	if r.Pct <= -1 {
		return bad(col, "a figure cannot drop by %s or more", num)
	}
	return r, nil
}

func knownCheckMetric(name string) bool {
	for _, m := range CheckMetrics {
		if m == name {
			return true
		}
	}
	return false
}

// Baseline is what runs are checked against: one run, the runs with a tag,
// or the last History comparable runs before them.
type Baseline struct {
	ID      int64
	Tag     string
	History int
}

// ParseBaseline parses a run id, tag:NAME or history:N.
func ParseBaseline(text string) (Baseline, error) {
	const want = "expected a run id, tag:NAME or history:N"
	switch {
	case strings.HasPrefix(text, "tag:"):
		if t := strings.TrimPrefix(text, "tag:"); t != "" {
			return Baseline{Tag: t}, nil
		}
	case strings.HasPrefix(text, "history:"):
		n, err := strconv.Atoi(strings.TrimPrefix(text, "history:"))
		if err == nil && n >= 1 {
			return Baseline{History: n}, nil
		}
		return Baseline{}, fmt.Errorf("%q: %s (N ≥ 1)", text, want)
	default:
		if id, err := strconv.ParseInt(text, 10, 64); err == nil && id > 0 {
			return Baseline{ID: id}, nil
		}
	}
	return Baseline{}, fmt.Errorf("%q: %s", text, want)
}

// ParseConfidence reads a confidence level as "95%" or "0.95"; it must lie
// between 50 % and 99.9 %.
func ParseConfidence(text string) (float64, error) {
	s, pct := strings.CutSuffix(strings.TrimSpace(text), "%")
	v, err := strconv.ParseFloat(s, 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0.5 && v <= 0.999) {
		return 0, fmt.Errorf("%q: expected a confidence level between 50%% and 99.9%%, e.g. 95%% or 0.95", text)
	}
	return v, nil
}

func (d *decoder) check(dst **Check) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		c := &Check{}
		*dst = c
		if n.Kind == yaml.SequenceNode || n.Kind == yaml.ScalarNode {
			return d.checkRules(n, p, &c.FailOn)
		}
		return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
			"baseline": func(n *yaml.Node, p string) error {
				text, err := d.scalar(n, p, "a run id, tag:NAME or history:N")
				if err == nil {
					_, err = ParseBaseline(text)
				}
				if err != nil {
					return d.errorf(n, p, "%s", strings.TrimPrefix(err.Error(), "expected "))
				}
				c.Baseline = text
				return nil
			},
			"fail_on": func(n *yaml.Node, p string) error { return d.checkRules(n, p, &c.FailOn) },
			"confidence": func(n *yaml.Node, p string) error {
				text, err := d.scalar(n, p, "a confidence level such as 95%")
				if err == nil {
					c.Confidence, err = ParseConfidence(text)
				}
				if err != nil {
					return d.errorf(n, p, "%s", err.Error())
				}
				return nil
			},
		})
	}
}

// checkRules reads one rule or a list of them; a malformed rule is an error
// at its line and the column of the problem.
func (d *decoder) checkRules(n *yaml.Node, p string, dst *[]CheckRule) error {
	one := func(n *yaml.Node, p string) error {
		text, err := d.scalar(n, p, `a threshold such as "throughput<-5%" or "READ.p99>+10%"`)
		if err != nil {
			return err
		}
		at := pos(d.file, n)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			at.Col++ // the text starts after the quote
		}
		r, err := ParseCheckRule(text)
		if re, ok := err.(*CheckRuleError); ok {
			if at.Line > 0 {
				at.Col += re.Col - 1
			}
			return &FileError{Pos: at, Path: p, Msg: re.Msg}
		}
		r.Pos, r.Path = at, p
		*dst = append(*dst, r)
		return nil
	}
	*dst = nil
	if n.Kind == yaml.ScalarNode {
		return one(n, p)
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return d.errorf(n, p, `expected a list of thresholds such as ["throughput<-5%%", "READ.p99>+10%%"]`)
	}
	for i, c := range n.Content {
		if err := one(c, fmt.Sprintf("%s[%d]", p, i)); err != nil {
			return err
		}
	}
	return nil
}
