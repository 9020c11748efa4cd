package redis

import (
	"strings"
	"testing"
)

func TestRoleOf(t *testing.T) {
	for _, tc := range []struct {
		info, want, bad string
	}{
		{info: "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n", want: "r:6379"},
		{info: "# Replication\r\nrole:slave\r\nmaster_host:10.0.0.5\r\nmaster_port:6380\r\n", want: "10.0.0.5:6380"},
		{info: "role:slave\r\n", bad: "names no master"},
		{info: "", bad: "role"},
	} {
		m, err := roleOf("r:6379", tc.info)
		switch {
		case tc.bad != "":
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: %+v, %v; want an error with %q", tc.info, m, err, tc.bad)
			}
		case err != nil || len(m.Addrs) != 1 || m.Addrs[0] != tc.want:
			t.Errorf("%q: %+v, %v; want %s", tc.info, m, err, tc.want)
		}
	}
}
