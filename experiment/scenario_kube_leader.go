package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/inject/kube"
)

// A Kubernetes fault's target leader is the pod of the member the system
// itself names as its leader, asked through the driver's address when the
// fault fires (kube.PodOf maps the member to a pod by name, IP or DNS name).

// leaderDrivers are the drivers leaderFinder can ask.
func leaderDrivers() []string { return []string{"etcd"} }

// leaderFinder asks a system for its leader, through the driver's
// properties (nil: dbrig cannot ask this one).
func leaderFinder(driver string) func(ctx context.Context, props map[string]string) (kube.Member, error) {
	switch driver {
	case "etcd":
		return etcdLeader
	}
	return nil
}

// etcdLeader asks etcd's maintenance API (Status) of the driver's
// endpoints which member leads, and the member list for its name and URLs.
func etcdLeader(ctx context.Context, props map[string]string) (kube.Member, error) {
	var eps []string
	for _, ep := range strings.Split(cmpOr(props["etcd.endpoints"], "127.0.0.1:2379"), ",") {
		if ep = strings.TrimSpace(ep); ep != "" {
			eps = append(eps, ep)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Context: ctx, Logger: zap.NewNop(),
		Username: props["etcd.username"], Password: props["etcd.password"]})
	if err != nil {
		return kube.Member{}, fmt.Errorf("etcd at %s: %w", strings.Join(eps, ","), err)
	}
	defer cli.Close()
	var leader uint64
	var errs []string
	for _, ep := range eps {
		st, err := cli.Status(ctx, ep)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", ep, err))
			continue
		}
		if st.Leader != 0 {
			leader = st.Leader
			break
		}
		errs = append(errs, ep+": no leader")
	}
	if leader == 0 {
		return kube.Member{}, fmt.Errorf("etcd has no leader now (%s)", strings.Join(errs, "; "))
	}
	ml, err := cli.MemberList(ctx)
	if err != nil {
		return kube.Member{}, fmt.Errorf("etcd member list: %w", err)
	}
	for _, m := range ml.Members {
		if m.ID == leader {
			return kube.Member{Name: m.Name, Addrs: append(append([]string{}, m.PeerURLs...), m.ClientURLs...)}, nil
		}
	}
	return kube.Member{}, fmt.Errorf("etcd leader %x is not in the member list", leader)
}
