package k8s

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func testSpec() Spec {
	res, _ := ParseResources("cpu=500m,memory=256Mi")
	return Spec{
		Namespace: "bench", RunID: "r1", Image: "registry.example/dbrig:1", Workers: 4,
		Command: []string{"run", "-P", "workloada", "--driver", "redis"},
		Files:   map[string][]byte{"props": []byte("recordcount=1000\n")},
		Token:   "tok", Store: "postgres://u:secret@db/results",
		WorkerResources: res,
		NodeSelector:    map[string]string{"pool": "load"},
		Tolerations:     []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "load", Effect: corev1.TaintEffectNoSchedule}},
		ConnectTimeout:  90 * time.Second,
	}
}

func envOf(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func TestBuildShapes(t *testing.T) {
	s := testSpec()
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	w := o.Workers
	if w.Spec.CompletionMode == nil || *w.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("workers job completion mode %v, want Indexed", w.Spec.CompletionMode)
	}
	if *w.Spec.Completions != 4 || *w.Spec.Parallelism != 4 || *w.Spec.BackoffLimit != 0 {
		t.Errorf("workers completions/parallelism/backoff %d/%d/%d, want 4/4/0", *w.Spec.Completions, *w.Spec.Parallelism, *w.Spec.BackoffLimit)
	}
	if o.Coordinator.Spec.CompletionMode != nil || *o.Coordinator.Spec.Completions != 1 {
		t.Errorf("coordinator job is not a single non-indexed completion")
	}
	wc := w.Spec.Template.Spec.Containers[0]
	tok := envOf(wc, "DBRIG_TOKEN")
	if tok == nil || tok.Value != "" || tok.ValueFrom == nil || tok.ValueFrom.SecretKeyRef == nil ||
		tok.ValueFrom.SecretKeyRef.Name != "dbrig-r1" || tok.ValueFrom.SecretKeyRef.Key != SecretTokenKey {
		t.Errorf("worker DBRIG_TOKEN = %+v, want from secret dbrig-r1 key token", tok)
	}
	if got, want := strings.Join(wc.Args, " "), "worker --coordinator http://dbrig-r1-coordinator.bench.svc:7070 --connect-timeout 1m30s"; got != want {
		t.Errorf("worker args %q, want %q", got, want)
	}
	for _, a := range wc.Args {
		if strings.Contains(a, "tok") {
			t.Errorf("token on the worker's command line: %q", a)
		}
	}
	cc := o.Coordinator.Spec.Template.Spec.Containers[0]
	args := strings.Join(cc.Args, " ")
	if want := "run -P workloada --driver redis --workers 4 --listen :7070 --spawn=false --connect-timeout 1m30s --store $(DBRIG_STORE)"; args != want {
		t.Errorf("coordinator args %q, want %q", args, want)
	}
	if strings.Contains(args, "secret") {
		t.Errorf("store URL in the pod spec: %q", args)
	}
	if st := envOf(cc, "DBRIG_STORE"); st == nil || st.ValueFrom.SecretKeyRef.Key != SecretStoreKey {
		t.Errorf("coordinator DBRIG_STORE = %+v", st)
	}
	if cc.ReadinessProbe == nil || cc.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("coordinator readiness probe %+v, want GET /healthz", cc.ReadinessProbe)
	}
	if got := o.Service.Spec.Selector[LabelRole]; got != RoleCoordinator || o.Service.Spec.Selector[LabelRun] != "r1" {
		t.Errorf("service selector %v does not select the coordinator of r1", o.Service.Spec.Selector)
	}
	if pl := o.Coordinator.Spec.Template.Labels; pl[LabelRole] != RoleCoordinator || pl[LabelRun] != "r1" {
		t.Errorf("coordinator pod labels %v", pl)
	}
	if q := wc.Resources.Limits.Cpu().String(); q != "500m" {
		t.Errorf("worker cpu limit %s, want 500m", q)
	}
	ps := w.Spec.Template.Spec
	if ps.NodeSelector["pool"] != "load" || len(ps.Tolerations) != 1 || *ps.AutomountServiceAccountToken {
		t.Errorf("worker pod spec: node selector %v, tolerations %v, automount %v", ps.NodeSelector, ps.Tolerations, *ps.AutomountServiceAccountToken)
	}
	if o.ConfigMap.Data["props"] != "recordcount=1000\n" {
		t.Errorf("configmap data %v", o.ConfigMap.Data)
	}
	for _, obj := range o.List() {
		m := obj.(interface{ GetLabels() map[string]string })
		if m.GetLabels()[LabelRun] != "r1" {
			t.Errorf("%T without the run label: %v", obj, m.GetLabels())
		}
	}
	if string(o.Secret.Data[SecretStoreKey]) != s.Store {
		t.Errorf("secret store %q", o.Secret.Data[SecretStoreKey])
	}
}

func TestBuildExistingSecret(t *testing.T) {
	s := testSpec()
	s.Secret, s.Token, s.Store = "mine", "", ""
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if o.Secret != nil || len(o.List()) != 4 {
		t.Errorf("an existing secret was built anyway: %v", o.Secret)
	}
	if ref := envOf(o.Workers.Spec.Template.Spec.Containers[0], "DBRIG_TOKEN").ValueFrom.SecretKeyRef.Name; ref != "mine" {
		t.Errorf("token from secret %q, want mine", ref)
	}
}

func TestCheckRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"namespace", func(s *Spec) { s.Namespace = "Bad_NS" }, "namespace"},
		{"run id", func(s *Spec) { s.RunID = "-x" }, "run id"},
		{"image", func(s *Spec) { s.Image = " " }, "image"},
		{"workers", func(s *Spec) { s.Workers = 0 }, "workers 0"},
		{"command", func(s *Spec) { s.Command = []string{"rm"} }, "coordinator command"},
		{"file name", func(s *Spec) { s.Files = map[string][]byte{"a/b": nil} }, `file "a/b"`},
		{"no store", func(s *Spec) { s.Store = "" }, "results store"},
		{"no token", func(s *Spec) { s.Token = "" }, "token"},
		{"bad secret name", func(s *Spec) { s.Secret = "UPPER" }, "secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testSpec()
			c.edit(&s)
			_, err := Build(s)
			if !errors.Is(err, ErrBadSpec) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Build: %v, want ErrBadSpec naming %q", err, c.want)
			}
		})
	}
}

func TestWriteYAMLDeterministic(t *testing.T) {
	s := testSpec()
	s.Secret, s.Token, s.Store = "dbrig", "", ""
	s.Files = map[string][]byte{"b": []byte("2"), "a": []byte("1"), "c": []byte("3")}
	var first string
	for i := 0; i < 5; i++ {
		o, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteYAML(&b, o.List()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b.String()
		} else if b.String() != first {
			t.Fatalf("manifests differ between two builds:\n%s\n---- vs ----\n%s", first, b.String())
		}
	}
	docs := strings.Split(first, "\n---\n")
	kinds := []string{}
	for _, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("document does not parse: %v\n%s", err, d)
		}
		kinds = append(kinds, m["kind"].(string))
		if _, ok := m["status"]; ok {
			t.Errorf("%s has a status", m["kind"])
		}
	}
	if got := strings.Join(kinds, ","); got != "ConfigMap,Service,Job,Job" {
		t.Errorf("kinds %s", got)
	}
	if strings.Contains(first, "creationTimestamp") {
		t.Errorf("manifests carry creationTimestamp")
	}
	if !strings.Contains(first, "completionMode: Indexed") {
		t.Errorf("no indexed job in:\n%s", first)
	}
}

func TestWriteYAMLRefusesSecretData(t *testing.T) {
	o, err := Build(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteYAML(&b, o.List()); err == nil || strings.Contains(b.String(), "secret@") {
		t.Fatalf("secret printed: err %v\n%s", err, b.String())
	}
}

func TestParseToleration(t *testing.T) {
	cases := []struct {
		in   string
		want corev1.Toleration
		err  bool
	}{
		{"dedicated=load:NoSchedule", corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "load", Effect: corev1.TaintEffectNoSchedule}, false},
		{"spot:NoExecute", corev1.Toleration{Key: "spot", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}, false},
		{"example.com/gpu", corev1.Toleration{Key: "example.com/gpu", Operator: corev1.TolerationOpExists}, false},
		{"k=v:Never", corev1.Toleration{}, true},
		{"=v:NoSchedule", corev1.Toleration{}, true},
		{"k=bad value", corev1.Toleration{}, true},
	}
	for _, c := range cases {
		got, err := ParseToleration(c.in)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("ParseToleration(%q) = %+v, %v; want %+v, err %v", c.in, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, ErrBadSpec) {
			t.Errorf("ParseToleration(%q): %v is not ErrBadSpec", c.in, err)
		}
	}
}

func TestParseResources(t *testing.T) {
	cases := []struct {
		in, cpu, mem string
		err          bool
	}{
		{"cpu=2,memory=1Gi", "2", "1Gi", false},
		{"memory=512Mi", "0", "512Mi", false},
		{"", "0", "0", false},
		{"cpu=lots", "", "", true},
		{"gpu=1", "", "", true},
		{"cpu=-1", "", "", true},
		{"cpu", "", "", true},
	}
	for _, c := range cases {
		r, err := ParseResources(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseResources(%q): err %v, want err %v", c.in, err, c.err)
			continue
		}
		if !c.err && (r.Limits.Cpu().String() != c.cpu || r.Limits.Memory().String() != c.mem || r.Requests.Cpu().String() != c.cpu) {
			t.Errorf("ParseResources(%q) = %v", c.in, r)
		}
	}
}

func TestParseNodeSelector(t *testing.T) {
	if k, v, err := ParseNodeSelector("kubernetes.io/arch=amd64"); err != nil || k != "kubernetes.io/arch" || v != "amd64" {
		t.Errorf("got %q %q %v", k, v, err)
	}
	for _, bad := range []string{"noequals", "=v", "k=v v"} {
		if _, _, err := ParseNodeSelector(bad); !errors.Is(err, ErrBadSpec) {
			t.Errorf("ParseNodeSelector(%q): %v, want ErrBadSpec", bad, err)
		}
	}
}

func FuzzParseToleration(f *testing.F) {
	for _, s := range []string{"a=b:NoSchedule", "a:NoExecute", "a", ":", "=:", "a=b=c:NoSchedule"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tol, err := ParseToleration(s)
		if err != nil {
			return
		}
		if tol.Key == "" || (tol.Operator == corev1.TolerationOpExists && tol.Value != "") {
			t.Fatalf("ParseToleration(%q) accepted %+v", s, tol)
		}
	})
}

func FuzzParseResources(f *testing.F) {
	for _, s := range []string{"cpu=1", "cpu=500m,memory=1Gi", "memory=", ",", "cpu=1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseResources(s)
		if err != nil {
			return
		}
		for _, q := range r.Limits {
			if q.Sign() <= 0 {
				t.Fatalf("ParseResources(%q) accepted a non-positive quantity %v", s, q)
			}
		}
	})
}
