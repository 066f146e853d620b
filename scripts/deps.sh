#!/usr/bin/env bash
# Installs everything cfqx needs to build, test, demo and benchmark on a
# Debian bookworm machine, and mounts the pseudo file systems it uses.
# Idempotent and quick when nothing is missing: apt-get runs only for a
# missing package.  Every make target that needs the system calls it.
set -euo pipefail

PACKAGES=(
	make clang llvm gcc g++ pkg-config
	libbpf-dev bpftool libelf-dev zlib1g-dev
	libcriterion-dev libck-dev libreaderwriterqueue-dev
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	linux-source-6.12
	qemu-system-x86 busybox-static cpio xz-utils kmod
	fio udev util-linux e2fsprogs procps jq gnuplot-nox bpftrace
	prometheus curl iproute2
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done

root=1
[ "$(id -u)" -eq 0 ] || root=0
need_root() {
	echo "deps.sh: $1 needs root; run: sudo make ${MAKECMDGOALS:-test}" >&2
	exit 1
}

if [ ${#missing[@]} -gt 0 ]; then
	[ $root -eq 1 ] || need_root "installing ${missing[*]}"
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A bpftool that can autoattach tracing programs (see scripts/bpftool.sh).
if ! bpftool prog help 2>&1 | grep -q autoattach; then
	[ $root -eq 1 ] || need_root "building bpftool"
	"$(dirname "$0")/bpftool.sh"
fi

for m in "bpf /sys/fs/bpf" "tracefs /sys/kernel/tracing" \
	 "debugfs /sys/kernel/debug"; do
	set -- $m
	mountpoint -q "$2" && continue
	[ $root -eq 1 ] || continue
	mount -t "$1" "$1" "$2" 2>/dev/null ||
		echo "deps.sh: warning: cannot mount $1 on $2" >&2
done
exit 0
