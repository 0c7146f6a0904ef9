#!/usr/bin/env bash
# Builds the real K3s helm-controller (github.com/k3s-io/helm-controller, the one K3s and RKE2 embed) from its Go
# module at a pinned release, for the real-cluster suite: it runs against the real kube-apiserver and creates the
# helm-install Jobs whose failures the retry-loop check judges. Cached outside the repo like kube-apiserver; a first
# build takes about two minutes. Prints the binary's path.
set -euo pipefail
HC_VERSION="${HC_VERSION:-v0.17.9}"
CACHE="${KUBECTL_ARCH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-arch-e2e}"
OUT="$CACHE/helm-controller-$HC_VERSION"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build helm-controller" >&2; exit 1; }
mkdir -p "$CACHE"
exec 9>"$CACHE/.build-helm-controller-$HC_VERSION.lock"
flock 9
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
WORK="$CACHE/build-helm-controller-$HC_VERSION"
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
echo "building helm-controller $HC_VERSION in $WORK" >&2
# go install of a module version builds it with its own go.mod (no replace directives to honour)
GOFLAGS=-mod=mod GOBIN="$WORK/bin" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "github.com/k3s-io/helm-controller@$HC_VERSION" >&2
mv "$WORK/bin/helm-controller" "$OUT"
rm -rf "$WORK"
echo "$OUT"
