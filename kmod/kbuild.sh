#!/usr/bin/env bash
# Builds cfqx.ko for one supported kernel (kmod/kmod.mk runs it once per
# kernel): kbuild against that kernel's headers plus the block/ headers of
# its linux-source, W=1, out of the source tree, into
# build/kmod/<kernel release>/cfqx.ko.
#
# The build tree build/kmod/<release>/tree mirrors the source tree's kmod/
# (and every directory in KMOD_TREE_DIRS, e.g. sched/) file by file as
# symlinks, so kmod/Kbuild may name objects of sibling directories as
# `cfqx-y += ../sched/foo.o` and each kernel still gets its own objects.
# KMOD_EXTRA_SRCS (C files anywhere in the tree) are linked into the
# mirrored kmod/ and compiled into the module too, their directories on
# the include path.  Kbuild is incremental, so a second run is quick; a
# warning fails the build and removes the objects, so it shows again.
# Usage: kbuild.sh NAME HDRS_DIR   (NAME: 6.1, 6.12, 6.12-rt)
# Environment: ROOT, BUILD, KMOD_TREE_DIRS, KMOD_EXTRA_SRCS, V.
set -euo pipefail
name=$1
hdrs=$2
: "${ROOT:?}" "${BUILD:?}"
read -r _ rel _ < <("$ROOT/scripts/kernels.sh" "$name") || exit 1
kdir=/usr/src/linux-headers-$rel
out=$BUILD/kmod/$rel
tree=$out/tree

# Mirror the sources (only sources: never a stray object of an in-tree
# build), afresh each time so a file dropped from the lists goes too
# (kbuild follows the links: re-linking rebuilds nothing).
mkdir -p "$tree"
find "$tree" -type l -delete
for d in kmod ${KMOD_TREE_DIRS:-}; do
	[ -d "$ROOT/$d" ] || continue
	(cd "$ROOT" && find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild \)) |
	while read -r f; do
		mkdir -p "$tree/$(dirname "$f")"
		ln -sfn "$ROOT/$f" "$tree/$f"
	done
done
extra_objs=
extra_incs=
for f in ${KMOD_EXTRA_SRCS:-}; do
	f=$(realpath "$f")
	ln -sfn "$f" "$tree/kmod/$(basename "$f")"
	extra_objs+=" $(basename "${f%.c}").o"
	extra_incs+=" -I$(dirname "$f")"
done
log=$out/build.log
# A clean environment for kbuild: none of the outer make's flags and
# command-line variables (CC=, OPT=, -j) leak into the kernel build.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$kdir" M="$tree/kmod" W=1 \
	CFQX_INCLUDE="$ROOT/include" CFQX_BLOCK_HDRS="$hdrs" \
	CFQX_EXTRA_OBJS="$extra_objs" CFQX_EXTRA_INCS="$extra_incs" \
	modules > "$log" 2>&1; then
	cat "$log" >&2
	echo "kmod: the build for $name ($rel) failed" >&2
	exit 1
fi
[ "${V:-0}" = 1 ] && cat "$log"
# W=1 must be clean, modpost's WARNINGs (missing exports, namespaces) too.
if grep -E 'warning:|error:|WARNING:' "$log" >&2; then
	find "$tree" -name '*.o' -delete
	rm -f "$out/cfqx.ko"
	echo "kmod: the build for $name ($rel) has warnings (W=1 must be clean)" >&2
	exit 1
fi
# Keep the old file (and its time stamp) when nothing changed.
cmp -s "$tree/kmod/cfqx.ko" "$out/cfqx.ko" || cp "$tree/kmod/cfqx.ko" "$out/cfqx.ko"
