package scenario

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// A failed command fault whose output echoes secrets of the run (a
// declared secret property, a URL's password, a DSN's) is stored and shown
// redacted.
func TestFaultEventsRedacted(t *testing.T) {
	props := spec.NewProps()
	for _, d := range all.Registry() {
		props.Declare(d.Props...)
	}
	src := spec.Source{Flag: "test"}
	props.Set("redis.password", "hunter2!x", src)
	props.Set("pg.url", "postgres://dbrig:pg%40pw@127.0.0.1:5432/dbrig", src)
	props.Set("mysql.dsn", "dbrig:mypw@tcp(127.0.0.1:3306)/dbrig", src)
	props.Set("table", "usertable", src)
	// The command prints the secrets and a URL of its own, then fails.
	cmd, err := inject.NewCommand(`echo "auth hunter2!x failed; pg pg@pw; my mypw; try redis://:other-pw@127.0.0.1:1 usertable"; exit 3`, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []run.Event
	in := newInjector([]Injection{{Name: "leaky", Fault: cmd, Target: "m1"}}, fakeNodes{{Name: "m1", Role: "member", PID: 1 << 22}}, nil,
		Redacting(props, func(ev run.Event) { got = append(got, ev) }))
	done := make(chan struct{})
	go func() { defer close(done); in.Run(context.Background()) }()
	in.MeasureStarted(time.Now())
	<-done
	if len(got) != 1 || !strings.HasPrefix(got[0].Outcome, "failed: ") {
		t.Fatalf("events %+v, want the failed command", got)
	}
	out := got[0].Outcome
	for _, secret := range []string{"hunter2", "pg@pw", "mypw", "other-pw"} {
		if strings.Contains(out, secret) {
			t.Errorf("outcome shows %q: %s", secret, out)
		}
	}
	if !strings.Contains(out, "usertable") || !strings.Contains(out, "REDACTED") {
		t.Errorf("outcome %q: want the output, secrets replaced", out)
	}
}
