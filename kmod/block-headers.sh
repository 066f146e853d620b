#!/usr/bin/env bash
# Since 5.16 the elevator API headers (block/elevator.h, blk-mq.h,
# blk-mq-sched.h, blk.h and the block-private headers they include) are not
# installed with the kernel headers.  This takes them, at build time, from
# the kernel source tarball matching the kernel (Debian: linux-source-6.1,
# linux-source-6.12) into a build directory, so nothing of the kernel's is
# ever committed.  kmod/kmod.mk keeps one OUTDIR per source version.
# Usage: block-headers.sh SOURCE_TARBALL OUTDIR
set -euo pipefail
tarball=$1
out=${2%/}
if [ ! -r "$tarball" ]; then
	echo "block-headers.sh: $tarball not found (scripts/deps.sh installs it)" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
top=$(tar -tJf "$tarball" 2>/dev/null | head -n1 | cut -d/ -f1) || true
tar -xJf "$tarball" -C "$tmp" --wildcards "$top/block/*.h"
rm -rf "$out"
mkdir -p "$out"
mv "$tmp/$top/block" "$out/block"
echo "$tarball" > "$out/.source"
