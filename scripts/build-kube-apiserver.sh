#!/usr/bin/env bash
# Builds kube-apiserver (and, with --controller-manager, kube-controller-manager) from the
# Kubernetes Go module, for k8s's real-API-server test. Nothing is downloaded but Go modules.
#
#   scripts/build-kube-apiserver.sh [--controller-manager]   # prints the binary directory
#
# The binaries are cached under ~/.cache/dbrig/kube-<version>/ (DBRIG_CACHE overrides
# ~/.cache/dbrig); a second call returns at once. The k8s test finds them there (or through
# DBRIG_KUBE_APISERVER) and skips with this script's name when they are missing.
#
# k8s.io/kubernetes is not meant to be a dependency: its go.mod requires its staging
# modules (k8s.io/api, k8s.io/client-go, ...) at v0.0.0 with replace directives to its own
# tree, which do not apply to a module that requires it. So a throw-away module requires
# it and replaces each staging module with its published v0.MINOR.PATCH twin.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.35.4}"
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
CACHE="${DBRIG_CACHE:-$HOME/.cache/dbrig}"
OUT="$CACHE/kube-$K8S_VERSION"
SRC="$OUT/src"

want=(kube-apiserver)
for arg in "$@"; do
	case "$arg" in
	--controller-manager) want+=(kube-controller-manager) ;;
	-h | --help) sed -n '2,8p' "$0"; exit 0 ;;
	*) echo "build-kube-apiserver.sh: unknown argument $arg" >&2; exit 2 ;;
	esac
done

missing=()
for b in "${want[@]}"; do
	[ -x "$OUT/$b" ] || missing+=("$b")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "$OUT"
	exit 0
fi

command -v go >/dev/null || { echo "build-kube-apiserver.sh: go is not installed" >&2; exit 1; }

staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
	cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
	cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
	kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
	mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller)

mkdir -p "$SRC"
{
	echo "module dbrig.local/kubebuild"
	echo
	echo "go 1.25.0"
	echo
	echo "require k8s.io/kubernetes $K8S_VERSION"
	echo
	echo "replace ("
	for m in "${staging[@]}"; do
		echo "	k8s.io/$m => k8s.io/$m $STAGING_VERSION"
	done
	echo ")"
} >"$SRC/go.mod"
{
	echo "//go:build tools"
	echo
	echo "package kubebuild"
	echo
	for b in "${want[@]}"; do
		echo "import _ \"k8s.io/kubernetes/cmd/$b\""
	done
} >"$SRC/tools.go"

cd "$SRC"
start=$(date +%s)
GOFLAGS=-mod=mod go mod tidy -e >/dev/null
for b in "${missing[@]}"; do
	# nice: the machine is shared; -trimpath, -s -w: smaller, faster to link.
	CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 10 go build -trimpath -ldflags "-s -w" \
		-o "$OUT/$b.tmp" "k8s.io/kubernetes/cmd/$b"
	mv "$OUT/$b.tmp" "$OUT/$b"
done
end=$(date +%s)
echo "build-kube-apiserver.sh: built ${missing[*]} $K8S_VERSION in $((end - start)) s" >&2
echo "$OUT"
