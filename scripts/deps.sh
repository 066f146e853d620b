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
	libbpf-tools
	prometheus curl iproute2
)

# Debian's 6.12 kernels (bookworm ships them, through bookworm-security, as
# linux-image-6.12.N+deb12-amd64 and -rt-amd64): the newest release that
# has both an image and headers, so `make kmod` and `make vm-test` cover
# 6.12 and 6.12-rt next to 6.1 (scripts/kernels.sh resolves the names).
newest_612() { # FLAVOUR (amd64 | rt-amd64): prints the release or nothing
	grep -E "^linux-image-6\.12\.[0-9]+\+deb12-$1\$" <<<"$apt_names" |
	sed 's/^linux-image-//' | sort -V -r |
	while read -r rel; do
		grep -qx "linux-headers-$rel" <<<"$apt_names" && { echo "$rel"; break; }
	done
}
apt_names=$(apt-cache pkgnames linux- 2>/dev/null || true)
if ! grep -q '^linux-image-6\.12\.' <<<"$apt_names" && [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq
	apt_names=$(apt-cache pkgnames linux- 2>/dev/null || true)
fi
for flavour in amd64 rt-amd64; do
	rel=$(newest_612 "$flavour")
	if [ -z "$rel" ]; then
		echo "deps.sh: no linux-image-6.12.*+deb12-$flavour with headers in the apt lists" >&2
		exit 1
	fi
	PACKAGES+=("linux-image-$rel" "linux-headers-$rel")
done

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

# A new 6.12 image brings the matching source (its block/ headers).
case " ${missing[*]:-} " in
*" linux-image-6.12."*) missing+=(linux-source-6.12) ;;
esac

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
