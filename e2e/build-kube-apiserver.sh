#!/usr/bin/env bash
# Builds a real kube-apiserver and kube-controller-manager from the k8s.io/kubernetes Go module of a
# pinned release.
# k8s.io/kubernetes's go.mod points its staging modules (k8s.io/api, ...) at ./staging/src/...
# with version v0.0.0, which a consumer module cannot resolve. We write a tiny go.mod that requires
# k8s.io/kubernetes and `replace`s every staging module with the published v0.X.Y of the same release.
# Both commands come from that one module: one download, one `go build` of both (they share most
# packages, so the second costs little more than its own controllers and a link).
# The binaries land in a cache outside the repo and are rebuilt only when the pinned version changes.
#
# Usage: build-kube-apiserver.sh [kube-apiserver|kube-controller-manager]...
# Prints the path of each component asked for, one a line (default: kube-apiserver only, as before).
# Whatever is asked, every missing binary of the pair is built, so the module is compiled once.
set -euo pipefail
K8S_VERSION="${K8S_VERSION:-v1.36.3}"
CACHE="${KUBECTL_ARCH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-arch-e2e}"
COMPONENTS=(kube-apiserver kube-controller-manager)
WANT=("$@")
[ ${#WANT[@]} -gt 0 ] || WANT=(kube-apiserver)
for c in "${WANT[@]}"; do
  case "$c" in kube-apiserver | kube-controller-manager) ;; *) echo "unknown component: $c" >&2; exit 2 ;; esac
done
print() { for c in "${WANT[@]}"; do echo "$CACHE/$c-$K8S_VERSION"; done; }
missing() {
  MISSING=()
  for c in "${COMPONENTS[@]}"; do [ -x "$CACHE/$c-$K8S_VERSION" ] || MISSING+=("$c"); done
}
missing
if [ ${#MISSING[@]} -eq 0 ]; then print; exit 0; fi
command -v go >/dev/null || { echo "go is required to build ${MISSING[*]}" >&2; exit 1; }
mkdir -p "$CACHE"
# two test processes asking at once wait for one build instead of racing in the same work dir
exec 9>"$CACHE/.build-$K8S_VERSION.lock"
flock 9
missing
if [ ${#MISSING[@]} -eq 0 ]; then print; exit 0; fi
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
# both commands always in the module graph, so go.mod/go.sum are the same whichever is missing
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
echo "building ${MISSING[*]} $K8S_VERSION (staging $STAGING_VERSION) in $WORK" >&2
go mod tidy >&2
PKGS=()
for c in "${MISSING[@]}"; do PKGS+=("k8s.io/kubernetes/cmd/$c"); done
mkdir -p out
# with several packages, -o names a directory and each command is written under its own name
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR" -o out/ "${PKGS[@]}" >&2
for c in "${MISSING[@]}"; do mv "out/$c" "$CACHE/$c-$K8S_VERSION"; done
print
