#!/usr/bin/env bash
# Runs a command the way a new machine of this kind would: in a private mount namespace where what `.ci/run`
# installed for the other suites (Debian's etcd-server, qemu-user-static, the arm64 cross libraries, chromium) is
# hidden by overlayfs whiteouts. Go, kubectl, llvm, git and openssl come with the machine and stay.
#   .ci/without-extras.sh npm test
# Needs root (or sudo) for unshare and mount; checks inside that nothing hidden is still found, else fails.
set -euo pipefail
PKGS=(etcd-server etcd-client qemu-user-static qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross
  libgcc-s1-arm64-cross chromium chromium-common chromium-driver chromium-sandbox)
if [ "${1:-}" != "--inside" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo -E"
  exec $SUDO unshare --mount --propagation private bash "$0" --inside "$@"
fi
shift
# what to hide: the packages' files in the directories a program is looked up in, and the directories that only
# they own (the arm64 sysroot, chromium's tree, qemu's binfmt interpreters)
hide=()
for p in "${PKGS[@]}"; do
  dpkg -L "$p" 2>/dev/null | while read -r f; do
    case "$f" in
      /usr/bin/* | /usr/sbin/* | /bin/* | /sbin/*) [ -e "$f" ] || [ -L "$f" ] && [ ! -d "$f" ] && echo "$f" ;;
    esac
  done
done > /tmp/.hide.$$ || true
while read -r f; do hide+=("$f"); done < /tmp/.hide.$$
rm -f /tmp/.hide.$$
for d in /usr/aarch64-linux-gnu /usr/lib/chromium /usr/libexec/qemu-binfmt; do [ -e "$d" ] && hide+=("$d"); done
for f in /usr/bin/etcd /usr/bin/etcdctl /usr/bin/chromium /usr/bin/chromedriver /usr/bin/qemu-aarch64 /usr/bin/qemu-aarch64-static; do
  [ -e "$f" ] && hide+=("$f")
done

mapfile -t hide < <(printf '%s\n' "${hide[@]}" | sort -u)
work=$(mktemp -d /tmp/without-extras.XXXXXX)
mount -t tmpfs tmpfs "$work"
# one overlay per parent directory, shallowest first (an overlay on /usr, then one on /usr/bin sees through it)
mapfile -t parents < <(for h in "${hide[@]}"; do dirname "$h"; done | sort -u | awk '{ print gsub("/","/"), $0 }' | sort -n | cut -d' ' -f2-)
i=0
for parent in "${parents[@]}"; do
  i=$((i + 1))
  mkdir -p "$work/up$i" "$work/wk$i"
  for h in "${hide[@]}"; do
    [ "$(dirname "$h")" = "$parent" ] && mknod "$work/up$i/$(basename "$h")" c 0 0
  done
  mount -t overlay overlay -o "lowerdir=$parent,upperdir=$work/up$i,workdir=$work/wk$i" "$parent"
done

still=()
for c in etcd qemu-aarch64-static qemu-aarch64 chromium chromedriver; do command -v "$c" >/dev/null 2>&1 && still+=("$c"); done
[ -e /usr/aarch64-linux-gnu ] && still+=(/usr/aarch64-linux-gnu)
if [ "${#still[@]}" -gt 0 ]; then
  echo "without-extras: still visible: ${still[*]}" >&2
  exit 1
fi
echo "without-extras: hidden ${#hide[@]} paths in ${#parents[@]} directories (etcd, qemu, arm64 sysroot, chromium)" >&2
exec "$@"
