package experiment

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/etcd"
	"github.com/dbrig/dbrig/inject/kube"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

// TestKubeLeaderEtcd asks a real three-member etcd cluster (started by
// dbrig's cluster code) for its leader the way target: leader does, checks
// the answer against the cluster's own view, and lets a pod-delete on
// target leader delete the pod of that member (pods named after the
// members, as a StatefulSet's are) and no other.
func TestKubeLeaderEtcd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, etcd.Cluster{}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })

	m, err := leaderFinder("etcd")(ctx, c.Props())
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Resolve(ctx, "leader")
	if err != nil || len(nodes) != 1 {
		t.Fatalf("cluster's leader: %v, %v", nodes, err)
	}
	if m.Name != nodes[0].Name || len(m.Addrs) == 0 {
		t.Fatalf("etcd says the leader is %+v, the cluster says %s", m, nodes[0].Name)
	}
	t.Logf("leader %s at %v", m.Name, m.Addrs)

	var objs []corev1.Pod
	for _, n := range c.Nodes() {
		objs = append(objs, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Namespace: "db", Labels: map[string]string{"app": "etcd"}}})
	}
	fc := fake.NewClientset(&objs[0], &objs[1], &objs[2])
	env := &kubeEnv{driver: "etcd", props: c.Props(), c: fc, ns: "db", sec: spec.Kubernetes{Namespace: "db"}}
	tg, err := kube.ParseTarget("leader")
	if err != nil {
		t.Fatal(err)
	}
	f := &kubeFault{env: env, kind: "pod-delete", opts: kube.Options{Target: tg, Wait: time.Second}, name: "lead"}
	var notes []string
	if err := f.Inject(ctx, noting(&notes)); err != nil {
		t.Fatal(err)
	}
	l, err := fc.CoreV1().Pods("db").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Items {
		if p.Name == m.Name {
			t.Errorf("the leader's pod %s is still there", p.Name)
		}
	}
	if len(l.Items) != 2 {
		t.Errorf("%d pods left of 3, want 2 (only the leader's deleted); notes %q", len(l.Items), notes)
	}
}

// TestKubePrimaryRedisPostgres asks the real Redis and PostgreSQL test
// servers (single primaries) for their primary through the driver's
// properties, and maps the answer to the pod with that IP.
func TestKubePrimaryRedisPostgres(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		driver string
		props  map[string]string
	}{
		{"redis", map[string]string{"redis.addr": testenv.Need(t, "DBRIG_REDIS_ADDR"), "redis.password": os.Getenv("DBRIG_REDIS_PASSWORD")}},
		{"postgres", map[string]string{"pg.url": testenv.Need(t, "DBRIG_PG_URL")}},
	} {
		m, err := leaderFinder(tc.driver)(ctx, tc.props)
		if err != nil {
			t.Fatalf("%s: %v", tc.driver, err)
		}
		t.Logf("%s: %+v", tc.driver, m)
		fc := fake.NewClientset(
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "db"}, Status: corev1.PodStatus{PodIP: "10.0.0.9"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "primary-0", Namespace: "db"}, Status: corev1.PodStatus{PodIP: "127.0.0.1"}})
		p, err := kube.PodOf(ctx, fc, "db", "", m)
		if err != nil || p.Name != "primary-0" {
			t.Errorf("%s: primary %+v → pod %q, %v; want primary-0 (IP 127.0.0.1)", tc.driver, m, p.Name, err)
		}
	}
}
