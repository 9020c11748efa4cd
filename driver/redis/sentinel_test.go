package redis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

func TestSentinelProps(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kv         []string
		want       []string
		wantMaster string
		bad        string // the key refused
	}{
		{name: "none", kv: nil, want: nil, wantMaster: DefaultMaster},
		{name: "three", kv: []string{"redis.sentinels", "127.0.0.1:1, 127.0.0.1:2,127.0.0.1:3"},
			want: []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, wantMaster: DefaultMaster},
		{name: "named master", kv: []string{"redis.sentinels", "h:26379", "redis.master", "cache"}, want: []string{"h:26379"}, wantMaster: "cache"},
		{name: "no port", kv: []string{"redis.sentinels", "127.0.0.1"}, bad: "redis.sentinels"},
		{name: "empty entry", kv: []string{"redis.sentinels", "127.0.0.1:1,"}, bad: "redis.sentinels"},
		{name: "empty master", kv: []string{"redis.sentinels", "h:1", "redis.master", " "}, bad: "redis.master"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs, master, err := sentinels(drivertest.Props(tc.kv...))
			if tc.bad != "" {
				var pe *spec.PropError
				if !errors.As(err, &pe) || pe.Key != tc.bad {
					t.Fatalf("err %v, want a PropError on %s", err, tc.bad)
				}
				return
			}
			if err != nil || !slices.Equal(addrs, tc.want) || master != tc.wantMaster {
				t.Fatalf("got %v %q %v, want %v %q", addrs, master, err, tc.want, tc.wantMaster)
			}
		})
	}
}

// Open with sentinels that do not answer fails as unavailable, naming the
// master and the sentinels (no password in the message).
func TestSentinelUnreachable(t *testing.T) {
	_, err := Open(context.Background(), driver.Config{Props: drivertest.Props("redis.sentinels", "127.0.0.1:1", "redis.timeout", "300ms", "redis.password", "s3cret")})
	if err == nil {
		t.Fatal("opened through a sentinel that does not exist")
	}
	if msg := err.Error(); !strings.Contains(msg, "mymaster") || strings.Contains(msg, "s3cret") {
		t.Fatalf("error %q: want the master's name and no password", msg)
	}
}
