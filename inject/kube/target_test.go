package kube

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/dbrig/dbrig/inject"
)

func TestParseTarget(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Target
		bad  string // part of the error; "" = accepted
	}{
		{in: "pod/etcd-0", want: Target{Pod: "etcd-0", Ordinal: -1}},
		{in: "statefulset/etcd:1", want: Target{StatefulSet: "etcd", Ordinal: 1}},
		{in: "sts/etcd:0", want: Target{StatefulSet: "etcd", Ordinal: 0}},
		{in: "statefulset/etcd", want: Target{StatefulSet: "etcd", Ordinal: -1}},
		{in: "pods/app=etcd", want: Target{Selector: "app=etcd", Ordinal: -1}},
		{in: "pods/app=etcd,tier in (db)", want: Target{Selector: "app=etcd,tier in (db)", Ordinal: -1}},
		{in: "node/worker-1", want: Target{Node: "worker-1", Ordinal: -1}},
		{in: "leader", want: Target{Leader: true, Ordinal: -1}},
		{in: "primary", want: Target{Leader: true, Ordinal: -1}},
		{in: "etcd-0", bad: "expected pod/NAME"},
		{in: "pod/", bad: "expected pod/NAME"},
		{in: "pod/Etcd_0", bad: "pod name"},
		{in: "statefulset/etcd:x", bad: "ordinal"},
		{in: "statefulset/etcd:-1", bad: "ordinal"},
		{in: "statefulset/etcd:01", bad: "ordinal"},
		{in: "sts/a.b:1", bad: "statefulset name"},
		{in: "pods/app in (", bad: "label selector"},
		{in: "pods/,", bad: ""},
		{in: "deployment/x", bad: "unknown kind"},
	} {
		got, err := ParseTarget(c.in)
		switch {
		case c.bad == "" && c.in == "pods/,":
			if err == nil {
				t.Errorf("%q: accepted an empty selector", c.in)
			}
		case c.bad != "":
			if err == nil || !strings.Contains(err.Error(), c.bad) || !errors.Is(err, inject.ErrBadOption) {
				t.Errorf("%q: error %v, want one with %q", c.in, err, c.bad)
			}
		case err != nil:
			t.Errorf("%q: %v", c.in, err)
		case got != c.want:
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"pod/etcd-0", "statefulset/etcd:1", "pods/app=etcd", "node/n1", "leader", "sts/x:", "pods/a in (b,c)", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			if !errors.Is(err, inject.ErrBadOption) {
				t.Fatalf("%q: error not ErrBadOption: %v", s, err)
			}
			return
		}
		n := 0
		for _, set := range []bool{tg.Pod != "", tg.StatefulSet != "", tg.Selector != "", tg.Node != "", tg.Leader} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%q: parsed to %+v: names %d things", s, tg, n)
		}
		if tg.Ordinal < -1 || (tg.Ordinal >= 0 && tg.StatefulSet == "") {
			t.Fatalf("%q: ordinal %d", s, tg.Ordinal)
		}
		tg.Namespace = "ns"
		if tg.Node == "" && !tg.Leader {
			if err := tg.Check(true); err != nil {
				t.Fatalf("%q: parsed %+v but Check refuses: %v", s, tg, err)
			}
		}
	})
}

func TestPodOf(t *testing.T) {
	mk := func(name, ip string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "db", Labels: labels}, Status: corev1.PodStatus{PodIP: ip}}
	}
	l := map[string]string{"app": "etcd"}
	c := fake.NewClientset(mk("etcd-0", "10.0.0.10", l), mk("etcd-1", "10.0.0.11", l), mk("etcd-2", "10.0.0.12", l),
		mk("client", "10.0.0.20", map[string]string{"app": "client"}))
	for _, tc := range []struct {
		m    Member
		sel  string
		want string
	}{
		{Member{Name: "etcd-1"}, "", "etcd-1"},
		{Member{Name: "default", Addrs: []string{"http://10.0.0.12:2380"}}, "", "etcd-2"},
		{Member{Name: "m", Addrs: []string{"10.0.0.10:2379"}}, "app=etcd", "etcd-0"},
		{Member{Name: "m", Addrs: []string{"http://etcd-1.etcd.db.svc.cluster.local:2379"}}, "", "etcd-1"},
		{Member{Name: "m", Addrs: []string{"10.0.0.20:2379"}}, "app=etcd", ""}, // not of the selector
		{Member{Name: "etcd-9", Addrs: []string{"http://10.9.9.9:2380"}}, "", ""},
	} {
		p, err := PodOf(context.Background(), c, "db", tc.sel, tc.m)
		if tc.want == "" {
			if !errors.Is(err, ErrNoLeaderPod) {
				t.Errorf("%+v: got %s, %v; want ErrNoLeaderPod", tc.m, p.Name, err)
			}
			continue
		}
		if err != nil || p.Name != tc.want {
			t.Errorf("%+v: got %q, %v; want %s", tc.m, p.Name, err, tc.want)
		}
	}
}
