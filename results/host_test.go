package results

import (
	"testing"
	"testing/fstest"
)

func TestHostInfoFromProc(t *testing.T) {
	tests := []struct {
		name string
		fs   fstest.MapFS
		want Host
	}{
		{
			name: "x86 debian",
			fs: fstest.MapFS{
				"etc/os-release":            {Data: []byte("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")},
				"proc/sys/kernel/osrelease": {Data: []byte("6.1.0-18-amd64\n")},
				"proc/cpuinfo":              {Data: []byte("processor\t: 0\nmodel name\t: AMD EPYC 7B13\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n")},
				"proc/meminfo":              {Data: []byte("MemTotal:       16314460 kB\nMemFree:         1000 kB\n")},
			},
			want: Host{OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0-18-amd64", CPUModel: "AMD EPYC 7B13", Cores: 2, MemoryBytes: 16314460 * 1024},
		},
		{
			name: "arm without model name",
			fs: fstest.MapFS{
				"proc/cpuinfo": {Data: []byte("processor\t: 0\nBogoMIPS\t: 108.00\nHardware\t: BCM2835\n")},
				"proc/meminfo": {Data: []byte("MemTotal: garbage\n")},
			},
			want: Host{OS: "linux", CPUModel: "BCM2835", Cores: 1},
		},
		{name: "nothing readable", fs: fstest.MapFS{}, want: Host{OS: "linux"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hostInfo(tt.fs, "linux"); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestHostInfoThisMachine(t *testing.T) {
	h := HostInfo()
	if h.Hostname == "" || h.Cores < 1 || h.OS == "" {
		t.Errorf("HostInfo() = %+v: expected a hostname, an OS and at least one core", h)
	}
}
