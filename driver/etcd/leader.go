package etcd

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/driver"
)

// The leader is the member whose id the members name as leader, asked of
// each member's maintenance API (Status). A local cluster's roles
// (Cluster.Resolve) and a Kubernetes fault's target leader (Leader) both
// ask through memberStatus.

// memberStatus asks the member at endpoint ep for its own id and the
// leader it knows (0: none).
func memberStatus(ctx context.Context, cli *clientv3.Client, ep string) (self, leader uint64, err error) {
	st, err := cli.Status(ctx, ep)
	if err != nil {
		return 0, 0, err
	}
	return st.Header.MemberId, st.Leader, nil
}

// Leader implements driver.LeaderFunc: it asks the members at the
// driver's endpoints which one leads, and the member list for its name
// and URLs.
func Leader(ctx context.Context, props map[string]string) (driver.Member, error) {
	var eps []string
	for _, ep := range strings.Split(cmp.Or(props["etcd.endpoints"], "127.0.0.1:2379"), ",") {
		if ep = strings.TrimSpace(ep); ep != "" {
			eps = append(eps, ep)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Context: ctx, Logger: zap.NewNop(),
		Username: props["etcd.username"], Password: props["etcd.password"]})
	if err != nil {
		return driver.Member{}, fmt.Errorf("etcd at %s: %w", strings.Join(eps, ","), err)
	}
	defer cli.Close()
	var leader uint64
	var errs []string
	for _, ep := range eps {
		_, led, err := memberStatus(ctx, cli, ep)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", ep, err))
			continue
		}
		if led != 0 {
			leader = led
			break
		}
		errs = append(errs, ep+": no leader")
	}
	if leader == 0 {
		return driver.Member{}, fmt.Errorf("etcd has no leader now (%s)", strings.Join(errs, "; "))
	}
	ml, err := cli.MemberList(ctx)
	if err != nil {
		return driver.Member{}, fmt.Errorf("etcd member list: %w", err)
	}
	for _, m := range ml.Members {
		if m.ID == leader {
			return driver.Member{Name: m.Name, Addrs: append(append([]string{}, m.PeerURLs...), m.ClientURLs...)}, nil
		}
	}
	return driver.Member{}, fmt.Errorf("etcd leader %x is not in the member list", leader)
}
