#!/usr/bin/env bash
# Builds a real kube-apiserver from the k8s.io/kubernetes Go module of a pinned release.
# k8s.io/kubernetes's go.mod points its staging modules (k8s.io/api, ...) at ./staging/src/...
# with version v0.0.0, which a consumer module cannot resolve. We write a tiny go.mod that requires
# k8s.io/kubernetes and `replace`s every staging module with the published v0.X.Y of the same release.
# The binary lands in a cache outside the repo and is rebuilt only when the pinned version changes.
set -euo pipefail
K8S_VERSION="${K8S_VERSION:-v1.36.3}"
CACHE="${KUBECTL_ARCH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-arch-e2e}"
OUT="$CACHE/kube-apiserver-$K8S_VERSION"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build kube-apiserver" >&2; exit 1; }
mkdir -p "$CACHE"
WORK="$CACHE/build-$K8S_VERSION"
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[ -f "$gomod" ] || { echo "could not download k8s.io/kubernetes@$K8S_VERSION" >&2; exit 1; }
goline=$(grep -m1 '^go ' "$gomod")
{
  echo "module kubectl-arch-e2e/apiserver"
  echo
  echo "$goline"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  # each `k8s.io/x => ./staging/src/k8s.io/x` becomes `k8s.io/x => k8s.io/x v0.X.Y`
  grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/' "$gomod" \
    | awk -v v="$STAGING_VERSION" '{print "replace " $1 " => " $1 " " v}'
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
echo "building kube-apiserver $K8S_VERSION (staging $STAGING_VERSION) in $WORK" >&2
go mod tidy >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR" -o "$OUT.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
mv "$OUT.tmp" "$OUT"
echo "$OUT"
