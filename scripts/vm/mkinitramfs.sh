#!/usr/bin/env bash
# Builds the initramfs the cfqx VM tests boot one supported kernel with
# (6.1, 6.12, 6.12-rt: scripts/kernels.sh): busybox, that kernel's
# cfqx.ko (build/kmod/<release>/cfqx.ko), the modules the tests need from
# its /lib/modules/<release> (null_blk + configfs, loop, kyber, bfq; 6.12
# ships them as .ko.xz, so they are decompressed for busybox insmod), fio,
# jq, bpftool and libbpf-tools' biolatency with their shared libraries,
# the test helpers and, when
# other parts built them, the cfqx command, its BPF object and
# test-bpf-accounting.  Usage: mkinitramfs.sh KERNEL OUT.cpio
set -euo pipefail
name=$1
out=$2
root_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=$root_dir/build
read -r _ kver _ < <("$root_dir/scripts/kernels.sh" "$name") || exit 1
moddir=/lib/modules/$kver
ko=$build/kmod/$kver/cfqx.ko
[ -r "$ko" ] || { echo "mkinitramfs: $ko missing (make kmod-$name)" >&2; exit 1; }
mkdir -p "$(dirname "$out")" "$build/vm"
rootfs=$(mktemp -d "$build/vm/rootfs.XXXXXX")
trap 'rm -rf "$rootfs"' EXIT

chmod 755 "$rootfs"
mkdir -p "$rootfs"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt,lib/modules,tests,cfqx/bin}
cp /bin/busybox "$rootfs/bin/busybox"

# Copy an executable and every library it needs, at the same paths.
copy_exe() {
	local exe=$1 dest=${2:-$1} lib
	mkdir -p "$rootfs$(dirname "$dest")"
	cp -L "$exe" "$rootfs$dest"
	ldd "$exe" 2>/dev/null | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' |
	while read -r lib; do
		[ -e "$rootfs$lib" ] && continue
		mkdir -p "$rootfs$(dirname "$lib")"
		cp -L "$lib" "$rootfs$lib"
	done
}

copy_exe "$(command -v fio)" /bin/fio
copy_exe "$(command -v jq)" /bin/jq
copy_exe /usr/local/sbin/bpftool /bin/bpftool
# make bench-sched's cost guest compares cfqx with libbpf-tools' biolatency.
[ -x /usr/sbin/biolatency ] && copy_exe /usr/sbin/biolatency /bin/biolatency
[ -d /lib64 ] && [ ! -e "$rootfs/lib64" ] && mkdir -p "$rootfs/lib64"

# Kernel modules, decompressed, in dependency order; each one's own
# dependencies (modules.dep) must be in the list before it.
mods="configfs null_blk loop kyber-iosched bfq"
for m in $mods; do
	line=$(awk -F: -v m="$m" '{n=$1; sub(/.*\//,"",n); sub(/\.ko.*/,"",n);
		if (n==m) {print; exit}}' "$moddir/modules.dep")
	if [ -z "$line" ]; then
		echo "mkinitramfs: module $m not found in $moddir" >&2
		exit 1
	fi
	path=${line%%:*}
	for dep in ${line#*:}; do
		d=$(basename "$dep"); d=${d%%.ko*}
		[ -e "$rootfs/lib/modules/$d.ko" ] || {
			echo "mkinitramfs: $m needs $d, which is not loaded before it" >&2; exit 1; }
	done
	case $path in
	*.xz) xz -dc "$moddir/$path" > "$rootfs/lib/modules/$m.ko" ;;
	*.zst) zstd -dcq "$moddir/$path" > "$rootfs/lib/modules/$m.ko" ;;
	*) cp "$moddir/$path" "$rootfs/lib/modules/$m.ko" ;;
	esac
done
cp "$ko" "$rootfs/lib/modules/cfqx.ko"

# Test scripts and helpers.
cp "$root_dir"/tests/vm/*.sh "$rootfs/tests/"
mkdir -p "$rootfs/tests/mixes"
cp "$root_dir"/tests/mixes/*.fio "$rootfs/tests/mixes/"
cp "$root_dir/tests/vm/init" "$rootfs/init"
cp "$root_dir/scripts/vm/demo-enforce.sh" "$rootfs/tests/demo.sh"	# make demo
chmod +x "$rootfs/init" "$rootfs"/tests/*.sh
cp "$build/tests/vm/cfqx-vm-attach" "$rootfs/bin/"

# Other parts' artefacts, when built.
[ -x "$build/cfqx" ] && copy_exe "$build/cfqx" /cfqx/bin/cfqx
[ -f "$build/cfqx.bpf.o" ] && cp "$build/cfqx.bpf.o" "$rootfs/cfqx/"
[ -x "$build/tests/test-bpf-accounting" ] &&
	copy_exe "$build/tests/test-bpf-accounting" /cfqx/bin/test-bpf-accounting
echo "$kver" > "$rootfs/etc/kver"
printf 'root:x:0:0:root:/:/bin/sh\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\n' > "$rootfs/etc/group"

(cd "$rootfs" && find . -print0 | cpio --null -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
