#!/usr/bin/env bash
# Tests build_go_main (lib.sh) without the network: a Go module proxy in a
# directory (GOPROXY=file://…) serves a tiny module, which is built, found
# again without a build, and refused when its check fails.
#   bash scripts/lib_test.sh
source "$(dirname "$0")/lib.sh"
command -v go >/dev/null || { log "SKIPPED: no go"; exit 0; }
command -v python3 >/dev/null || { log "SKIPPED: no python3 (writes the module zip)"; exit 0; }

t=$(mktemp -d)
trap 'chmod -R u+w "$t"; rm -rf "$t"' EXIT # the module cache is read-only
mod=example.com/hello
proxy=$t/proxy/$mod/@v
mkdir -p "$proxy"
printf 'module %s\n\ngo 1.21\n' "$mod" >"$proxy/v1.2.3.mod"
printf '{"Version":"v1.2.3","Time":"2024-01-01T00:00:00Z"}\n' >"$proxy/v1.2.3.info"
printf 'v1.2.3\n' >"$proxy/list"
python3 - "$proxy/v1.2.3.zip" "$mod@v1.2.3" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr(sys.argv[2] + "/go.mod", "module example.com/hello\n\ngo 1.21\n")
    z.writestr(sys.argv[2] + "/main.go", 'package main\n\nimport "fmt"\n\nvar version = "dev"\n\nfunc main() { fmt.Println("hello", version) }\n')
PY
export GOPROXY=file://$t/proxy GOSUMDB=off GOFLAGS=-mod=mod GOPATH=$t/gopath GOCACHE=${GOCACHE:-$(go env GOCACHE)}

says() { [ "$("$1" 2>/dev/null)" = "hello 1.2.3" ]; }
out=$t/cache/hello/1.2.3/hello
got=$(build_go_main hello 1.2.3 "$mod" "$out" says -ldflags "-X main.version=1.2.3")
[ "$got" = "$out" ] && says "$out" || die "built: printed $got, $out says $("$out" 2>&1)"
# A binary that fails its check is not kept, and the call fails.
never() { false; }
if (build_go_main hello 1.2.3 "$mod" "$t/other/hello" never) 2>"$t/log"; then
	die "a binary that fails its check was accepted"
fi
grep -q "is not hello 1.2.3" "$t/log" || die "no check failure: $(cat "$t/log")"
[ ! -e "$t/other/hello" ] || die "a binary that fails its check was kept"
# A second call finds it: no fetch (the proxy is gone).
rm -rf "$t/proxy"
got=$(build_go_main hello 1.2.3 "$mod" "$out" says 2>"$t/log")
[ "$got" = "$out" ] && grep -q "already built" "$t/log" || die "second call: printed $got; $(cat "$t/log")"
log "build_go_main: ok"
