package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	"github.com/dbrig/dbrig/inject"
)

// TargetSyntax is what ParseTarget accepts, for messages.
const TargetSyntax = "pod/NAME, statefulset/NAME (sts/NAME), statefulset/NAME:ORDINAL, pods/LABEL-SELECTOR (pods/app=etcd), node/NAME, leader or primary"

// ParseTarget reads a scenario entry's target: pod/etcd-0 (a pod by name),
// statefulset/etcd:1 (its pod of that ordinal; sts/ is short for it),
// statefulset/etcd (every pod of it; for scale, the StatefulSet),
// pods/app=etcd (a label selector), node/worker-1 (cordon, drain) or leader
// (the pod of the system's leader, found when the fault fires: Leader is
// set and Pod left empty; primary is the same). The namespace is not part of it.
func ParseTarget(s string) (Target, error) {
	t := Target{Ordinal: -1}
	if s == "leader" || s == "primary" {
		t.Leader = true
		return t, nil
	}
	kind, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" {
		return Target{}, fmt.Errorf("%w: target %q: expected %s", inject.ErrBadOption, s, TargetSyntax)
	}
	name := func(what, n string) error {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return fmt.Errorf("%w: target %q: %s name %q: %s", inject.ErrBadOption, s, what, n, strings.Join(errs, "; "))
		}
		return nil
	}
	switch kind {
	case "pod":
		t.Pod = rest
		return t, name("pod", rest)
	case "node":
		t.Node = rest
		return t, name("node", rest)
	case "statefulset", "sts":
		sts, ord, hasOrd := strings.Cut(rest, ":")
		if errs := validation.IsDNS1123Label(sts); len(errs) > 0 {
			return Target{}, fmt.Errorf("%w: target %q: statefulset name %q: %s", inject.ErrBadOption, s, sts, strings.Join(errs, "; "))
		}
		t.StatefulSet = sts
		if hasOrd {
			n, err := strconv.Atoi(ord)
			if err != nil || n < 0 || ord != strconv.Itoa(n) {
				return Target{}, fmt.Errorf("%w: target %q: ordinal %q: expected a number ≥ 0 (statefulset/NAME:0 is its first pod)", inject.ErrBadOption, s, ord)
			}
			t.Ordinal = n
		}
		return t, nil
	case "pods":
		sel, err := metav1.ParseToLabelSelector(rest)
		if err != nil {
			return Target{}, fmt.Errorf("%w: target %q: label selector: %w", inject.ErrBadOption, s, err)
		}
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			return Target{}, fmt.Errorf("%w: target %q: an empty label selector would match every pod", inject.ErrBadOption, s)
		}
		t.Selector = rest
		return t, nil
	}
	return Target{}, fmt.Errorf("%w: target %q: unknown kind %q: expected %s", inject.ErrBadOption, s, kind, TargetSyntax)
}

// Member is a system's member as the system describes it (the leader, a
// primary): its name and the URLs or host:port addresses it is reached at.
type Member struct {
	Name  string
	Addrs []string
}

// ErrNoLeaderPod: no pod of the namespace is the member the system named.
var ErrNoLeaderPod = errors.New("no pod is the member the system named")

// hostOf is the host part of a URL or host:port ("" if none).
func hostOf(a string) string {
	if strings.Contains(a, "://") {
		u, err := url.Parse(a)
		if err != nil {
			return ""
		}
		return u.Hostname()
	}
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// PodOf finds the pod that is m, among the namespace's pods (those of
// selector, if given): by name (a StatefulSet's member names its pod), by
// pod IP, or by its stable DNS name (POD.SERVICE…, a StatefulSet's headless
// service) in one of m's addresses.
func PodOf(ctx context.Context, c kubernetes.Interface, ns, selector string, m Member) (corev1.Pod, error) {
	l, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return corev1.Pod{}, fmt.Errorf("kube: list pods %s -l %q: %w", ns, selector, err)
	}
	pods := l.Items
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	var hosts []string
	for _, a := range m.Addrs {
		if h := hostOf(a); h != "" {
			hosts = append(hosts, h)
		}
	}
	match := func(p *corev1.Pod) bool {
		if m.Name != "" && p.Name == m.Name {
			return true
		}
		for _, h := range hosts {
			if p.Status.PodIP != "" && h == p.Status.PodIP {
				return true
			}
			for _, ip := range p.Status.PodIPs {
				if h == ip.IP {
					return true
				}
			}
			first, _, _ := strings.Cut(h, ".")
			if first == p.Name && strings.Contains(h, ".") || h == p.Name {
				return true
			}
		}
		return false
	}
	for i := range pods {
		if pods[i].DeletionTimestamp == nil && match(&pods[i]) {
			return pods[i], nil
		}
	}
	return corev1.Pod{}, fmt.Errorf("%w: %q at %s in namespace %s (matched by pod name, pod IP or POD.SERVICE host)", ErrNoLeaderPod, m.Name, strings.Join(m.Addrs, ", "), ns)
}
