#!/usr/bin/env bash
# Builds the initramfs of an rxe guest: static busybox, Debian's rdma-core (libibverbs and
# its rxe provider, the rdma tool), ibverbs-utils, perftest, rdmacm-utils (rping, udaddy),
# the EXTRA_PROGRAMs given (in /usr/bin), every shared library these need (found with ldd),
# the kernel modules of get-kernel.sh, and testbench/interop/guest-init as /init.
#
# usage: build-initramfs.sh OUTDIR [EXTRA_PROGRAM...]
#   -> OUTDIR/initramfs.cpio.gz (and OUTDIR/vmlinuz, OUTDIR/modules: get-kernel.sh OUTDIR)
# Deterministic: the same inputs give the same bytes (sorted, time 0, owner root, gzip -n).
# Cached: it does nothing when none of its inputs changed (OUTDIR/initramfs.inputs).
# Needs the packages of scripts/install-deps.sh. No root.
set -euo pipefail

die() {
	echo "build-initramfs.sh: $*" >&2
	exit 1
}

[[ $# -ge 1 ]] || die "usage: build-initramfs.sh OUTDIR [EXTRA_PROGRAM...]"
out=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

"$here/get-kernel.sh" "$out"

# dlopen()ed by glibc for pthread_exit and pthread_cancel, which no program links: rping
# aborts at its disconnect without it
libgcc_s=/usr/lib/x86_64-linux-gnu/libgcc_s.so.1
busybox=/bin/busybox

# Programs (-> /usr/bin) and other files (-> the same path), from the host's packages
programs=()
for pkg in ibverbs-utils perftest rdmacm-utils; do
	dpkg-query -W "$pkg" >/dev/null 2>&1 ||
		die "$pkg is not installed: run scripts/install-deps.sh as root (make deps)"
	for p in $(dpkg -L "$pkg" | grep '^/usr/bin/.'); do
		# ELF programs only: the guest has no bash for perftest's run_perftest_* scripts
		[[ $(head -c 4 "$p") == $'\x7fELF' ]] && programs+=("$p")
	done
done
for tool in ip rdma; do
	p=$(command -v "$tool") || die "$tool (iproute2) is missing: run scripts/install-deps.sh"
	programs+=("$p")
done
for p in "$@"; do
	[[ -f $p && -x $p ]] || die "extra program $p: not an executable file"
	programs+=("$(readlink -f "$p")")
done
provider=$(dpkg -L ibverbs-providers 2>/dev/null | grep '/librxe-rdmav[0-9]*\.so$') ||
	die "ibverbs-providers has no rxe provider: run scripts/install-deps.sh"
files=("$provider" /etc/libibverbs.d/rxe.driver "$libgcc_s")
[[ -x $busybox ]] && ! ldd "$busybox" >/dev/null 2>&1 ||
	die "$busybox is not a static busybox: install busybox-static (scripts/install-deps.sh)"

# The shared libraries of all of them, each at the path the dynamic loader asks for
libs=()
for f in "${programs[@]}" "$provider"; do
	ldd_out=$(ldd "$f" 2>&1) || die "ldd $f failed: is it a dynamically linked program?"
	grep -q 'not found' <<<"$ldd_out" && die "$f: a library is missing: $ldd_out"
	mapfile -t -O "${#libs[@]}" libs < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' <<<"$ldd_out")
done
mapfile -t libs < <(printf '%s\n' "${libs[@]}" | LC_ALL=C sort -u)

# Cache: every input's content, where it goes, and this script and the init
inputs=$(
	cd "$out" && sha256sum kernel.version modules/modules.load
	sha256sum "$here/build-initramfs.sh" "$here/guest-init" "$busybox" "${files[@]}" "${libs[@]}"
	for p in "${programs[@]}"; do echo "$(sha256sum <"$p" | cut -d' ' -f1) /usr/bin/${p##*/}"; done
)
if [[ -s $out/initramfs.cpio.gz && -s $out/initramfs.inputs ]] &&
	[[ $inputs == "$(cat "$out/initramfs.inputs")" ]]; then
	echo "build-initramfs.sh: cached: $out/initramfs.cpio.gz"
	exit 0
fi

root=$out/rootfs
rm -rf "$root" "$out/initramfs.inputs"
mkdir -p "$root"/{usr/bin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,run,root}
# one bin directory: a merged /usr as on the host, with sbin folded into bin
for d in bin sbin usr/sbin; do ln -s "$([[ $d == usr/* ]] && echo bin || echo usr/bin)" "$root/$d"; done
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

for p in "${programs[@]}"; do
	install -m 0755 "$p" "$root/usr/bin/${p##*/}"
done
for f in "${files[@]}"; do
	install -D -m 0644 "$f" "$root$(readlink -f "$(dirname "$f")")/${f##*/}"
done
for l in "${libs[@]}"; do
	install -D -m 0755 "$l" "$root$(readlink -f "$(dirname "$l")")/${l##*/}"
done
install -m 0755 "$busybox" "$root/usr/bin/busybox"
for applet in $("$busybox" --list); do
	[[ -e $root/usr/bin/$applet ]] || ln -s busybox "$root/usr/bin/$applet"
done

cp -a "$out/modules/lib/modules" "$root/usr/lib/"
install -m 0644 "$out/modules/modules.load" "$root/etc/modules.load"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "127.0.0.1 localhost" >"$root/etc/hosts"
install -m 0755 "$here/guest-init" "$root/init"

find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --reproducible --owner=0:0 --quiet) | gzip -n -6 >"$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
echo "$inputs" >"$out/initramfs.inputs"
echo "build-initramfs.sh: $out/initramfs.cpio.gz: $(du -h "$out/initramfs.cpio.gz" | cut -f1)," \
	"${#programs[@]} programs, ${#libs[@]} libraries, $(du -sh "$root" | cut -f1) unpacked"
