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
# Usage: build-kube-apiserver.sh [--only] [kube-apiserver|kube-controller-manager]...
# Prints the path of each component asked for, one a line (default: kube-apiserver only, as before).
# Whatever is asked, every missing binary of the pair is built, so the module is compiled once; with --only, only
# the ones asked for (the extra versions the difference tests run need no controller manager).
set -euo pipefail
K8S_VERSION="${K8S_VERSION:-v1.36.3}"
CACHE="${KUBECTL_ARCH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-arch-e2e}"
COMPONENTS=(kube-apiserver kube-controller-manager)
ONLY=0
if [ "${1:-}" = --only ]; then ONLY=1; shift; fi
WANT=("$@")
[ ${#WANT[@]} -gt 0 ] || WANT=(kube-apiserver)
for c in "${WANT[@]}"; do
  case "$c" in kube-apiserver | kube-controller-manager) ;; *) echo "unknown component: $c" >&2; exit 2 ;; esac
done
[ "$ONLY" = 0 ] || COMPONENTS=("${WANT[@]}")
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
# proxy.golang.org withholds the zip of a few staging modules of some releases (403 "This module version is not
# available": k8s.io/controller-manager, cluster-bootstrap, kube-proxy… v0.25.16): such a module is taken at the newest
# patch of the same minor whose zip it serves, and the build says so
for _ in 1 2 3 4 5 6 7 8 9 10; do
  if go mod tidy 2> tidy.err; then cat tidy.err >&2; break; fi
  withheld=$(grep -oE 'k8s\.io/[a-z0-9-]+@v0\.[0-9]+\.[0-9]+: reading https://[^ ]*\.zip: 403' tidy.err | cut -d: -f1 | sort -u)
  [ -n "$withheld" ] || { cat tidy.err >&2; exit 1; }
  for mv in $withheld; do
    m=${mv%@*}; v=${mv#*@}; p=${v##*.}; found=""
    while [ "$p" -gt 0 ]; do
      p=$((p - 1))
      if go mod download "$m@${v%.*}.$p" 2>/dev/null; then found="${v%.*}.$p"; break; fi
    done
    [ -n "$found" ] || { cat tidy.err >&2; echo "no patch of $m ${v%.*}.x is served" >&2; exit 1; }
    echo "$m $v is withheld by the module proxy (403): using $found" >&2
    sed -i "s#^replace $m => $m .*#replace $m => $m $found#" go.mod
  done
done
PKGS=()
for c in "${MISSING[@]}"; do PKGS+=("k8s.io/kubernetes/cmd/$c"); done
mkdir -p out
# with several packages, -o names a directory and each command is written under its own name
# releases before v1.27 carry dependencies that reach into the runtime with go:linkname, which Go 1.23+ refuses to
# link unless told (-checklinkname=0)
LINKNAME=""
[ "$MINOR" -ge 27 ] || LINKNAME="-checklinkname=0"
# the version /version reports: component-base's, and client-go's, which the API servers of older releases (v1.24, v1.25)
# answer /version from (without it they say v0.0.0-master)
VERSION_FLAGS=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  VERSION_FLAGS="$VERSION_FLAGS -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
done
CGO_ENABLED=0 go build -trimpath -ldflags "$LINKNAME -s -w$VERSION_FLAGS" -o out/ "${PKGS[@]}" >&2
for c in "${MISSING[@]}"; do mv "out/$c" "$CACHE/$c-$K8S_VERSION"; done
print
