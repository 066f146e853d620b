#!/usr/bin/env bash
# The kernels cfqx.ko supports, by short name, resolved to what is
# installed: the one place that maps "6.1", "6.12" and "6.12-rt" to a
# Debian kernel release (scripts/deps.sh installs them), so `make kmod`,
# the VM harness and the docs agree on what "6.12" means.
#   6.1      linux-image-amd64 (6.1.0-N-amd64), source linux-source-6.1
#   6.12     linux-image-6.12.N+deb12-amd64,    source linux-source-6.12
#   6.12-rt  linux-image-6.12.N+deb12-rt-amd64, source linux-source-6.12
# The newest installed release of each with headers, modules and an image.
# Usage: kernels.sh [NAME...]   (no NAME: all supported kernels)
# Prints one line per kernel: NAME RELEASE SOURCE_TARBALL
set -euo pipefail
SUPPORTED=(6.1 6.12 6.12-rt)
[ $# -gt 0 ] || set -- "${SUPPORTED[@]}"

for name in "$@"; do
	case $name in
	6.1) glob='6.1.0-*-amd64' src=6.1 ;;
	6.12) glob='6.12.*+deb12-amd64' src=6.12 ;;
	6.12-rt) glob='6.12.*+deb12-rt-amd64' src=6.12 ;;
	*)
		echo "kernels.sh: unknown kernel '$name' (supported: ${SUPPORTED[*]})" >&2
		exit 2 ;;
	esac
	rel=
	for d in /lib/modules/$glob; do
		r=${d#/lib/modules/}
		[ -d "/usr/src/linux-headers-$r" ] && [ -r "/boot/vmlinuz-$r" ] || continue
		rel=$(printf '%s\n%s\n' "$rel" "$r" | sort -V | tail -n1)
	done
	if [ -z "$rel" ]; then
		echo "kernels.sh: kernel $name not installed (image, headers, modules; run scripts/deps.sh)" >&2
		exit 1
	fi
	tarball=/usr/src/linux-source-$src.tar.xz
	# The block/ headers must come from the same Debian version as the
	# kernel (an image and its source are built from one package).
	kv=$(dpkg-query -W -f='${Version}' "linux-image-$rel" 2>/dev/null ||
	     dpkg-query -W -f='${Version}' "linux-image-$rel-unsigned" 2>/dev/null || true)
	sv=$(dpkg-query -W -f='${Version}' "linux-source-$src" 2>/dev/null || true)
	if [ -n "$kv" ] && [ -n "$sv" ] && [ "$kv" != "$sv" ]; then
		echo "kernels.sh: warning: $rel is $kv but linux-source-$src is $sv (block/ headers may differ; apt-get install linux-source-$src)" >&2
	fi
	echo "$name $rel $tarball"
done
