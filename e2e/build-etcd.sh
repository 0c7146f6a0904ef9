#!/usr/bin/env bash
# Builds a real etcd server from its Go module (go.etcd.io/etcd/server/v3) at a pinned release, for
# machines without Debian's etcd-server. `go install pkg@version` refuses etcd's go.mod (it has
# replace directives for its sibling modules), so, as for kube-apiserver, a tiny module of ours
# requires it and builds its main package. Cached outside the repo; rebuilt only when the version changes.
set -euo pipefail
ETCD_VERSION="${ETCD_VERSION:-v3.6.7}"
CACHE="${KUBECTL_ARCH_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-arch-e2e}"
OUT="$CACHE/etcd-$ETCD_VERSION"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "no etcd binary: install Debian's etcd-server, set ETCD_BIN, or install Go to build one" >&2; exit 1; }
mkdir -p "$CACHE"
WORK="$CACHE/build-etcd-$ETCD_VERSION"
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
cat > go.mod <<MOD
module kubectl-arch-e2e/etcd

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3/etcdmain"
GO
echo "building etcd $ETCD_VERSION in $WORK" >&2
go mod tidy >&2
CGO_ENABLED=0 go build -trimpath -o "$OUT.tmp" go.etcd.io/etcd/server/v3 >&2
mv "$OUT.tmp" "$OUT"
echo "$OUT"
