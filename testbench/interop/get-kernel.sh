#!/usr/bin/env bash
# Fetches Debian bookworm's current kernel (the one linux-image-amd64 depends on) and
# unpacks, without installing anything, what an rxe guest boots from:
#   OUTDIR/vmlinuz
#   OUTDIR/vmlinux                      the same kernel decompressed (a faster boot)
#   OUTDIR/modules/lib/modules/KV/...   only the modules the guest loads, with their
#                                       dependencies, and a modules.dep made for them
#   OUTDIR/modules/modules.load         those modules, one path per line, in load order
#   OUTDIR/kernel.version               "PACKAGE VERSION KV", written last
# Cached: when OUTDIR/kernel.version is there, it does nothing.
#
# usage: get-kernel.sh OUTDIR [PACKAGE.deb]
#   PACKAGE.deb  a kernel image package fetched elsewhere (apt-get download linux-image-...),
#                for a machine that cannot reach Debian
# Needs apt-cache, apt-get, dpkg-deb and depmod (kmod): scripts/install-deps.sh. No root.
set -euo pipefail

# What the guest loads, in this order, each after its own dependencies: the virtio NIC;
# crc32_generic, because rxe computes its ICRC with the kernel's "crc32" hash and fails to
# create a device without it; rxe; and rdma_ucm (with rdma_cm, ib_cm, iw_cm) for rping and
# udaddy.
GUEST_MODULES="virtio_pci virtio_net crc32_generic rdma_rxe rdma_ucm"
DOWNLOAD_ATTEMPTS=3
DOWNLOAD_PAUSE=10

die() {
	echo "get-kernel.sh: $*" >&2
	exit 1
}

# vmlinuz -> vmlinux: the kernel without its self-decompressor, an ELF file that QEMU starts
# at its PVH entry point. Under software emulation, decompressing vmlinuz takes a guest
# about 5 s of its boot. The payload's place is in the boot protocol's setup header:
# setup_sects at 0x1f1, payload_offset and payload_length at 0x248 and 0x24c.
unpack_vmlinux() {
	local setup_sects offset length magic decompress
	setup_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$1")
	read -r offset length < <(od -An -tu4 -j $((0x248)) -N8 "$1")
	offset=$(((${setup_sects:-0} + 1) * 512 + offset))
	magic=$(od -An -tx1 -j "$offset" -N6 "$1" | tr -d ' ')
	case $magic in
	fd377a585a00) decompress=(xz -dc --single-stream) ;;
	1f8b*) decompress=(gzip -dc) ;;
	28b52ffd*) decompress=(zstd -dc) ;;
	*) die "$1: unknown compression of the kernel payload (magic $magic)" ;;
	esac
	# xz stops reading at the end of its stream: the others' SIGPIPE is no error
	tail -c +$((offset + 1)) "$1" | head -c "$length" | "${decompress[@]}" >"$2.tmp" 2>/dev/null ||
		true
	[[ $(head -c 4 "$2.tmp") == $'\x7fELF' ]] || die "$1: its payload is not an ELF kernel"
	mv "$2.tmp" "$2"
}

[[ $# -ge 1 && $# -le 2 ]] || die "usage: get-kernel.sh OUTDIR [PACKAGE.deb]"
out=$1
deb=${2:-}

if [[ -s $out/kernel.version ]]; then
	echo "get-kernel.sh: cached in $out: $(cat "$out/kernel.version")"
	exit 0
fi

for tool in apt-cache apt-get dpkg-deb depmod; do
	command -v "$tool" >/dev/null ||
		die "$tool is missing: run scripts/install-deps.sh as root (make deps)"
done

mkdir -p "$out"
work=$(mktemp -d "$out/.get-kernel.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z $deb ]]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[[ -n $pkg ]] || die "apt-cache does not know linux-image-amd64 or what it depends on:" \
		"run 'apt-get update' as root (or make deps), then retry"
	attempt=1
	# as root, apt would warn that its sandbox user cannot write into $work
	until (cd "$work" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$pkg"); do
		if [[ $attempt -ge $DOWNLOAD_ATTEMPTS ]]; then
			die "could not download $pkg from Debian ($DOWNLOAD_ATTEMPTS attempts)." \
				"Check that the machine reaches the Debian mirror of /etc/apt/sources.list" \
				"(apt-get update as root), or fetch the package where Debian can be reached" \
				"('apt-get download $pkg') and pass it: get-kernel.sh $out ${pkg}_*.deb"
		fi
		echo "get-kernel.sh: download of $pkg failed (attempt $attempt):" \
			"retrying in $DOWNLOAD_PAUSE s" >&2
		sleep "$DOWNLOAD_PAUSE"
		attempt=$((attempt + 1))
	done
	deb=$(ls "$work"/"$pkg"_*.deb)
fi
[[ -f $deb ]] || die "$deb: no such file"
pkg=$(dpkg-deb -f "$deb" Package) || die "$deb is not a Debian package"
version=$(dpkg-deb -f "$deb" Version)
[[ $pkg == linux-image-* ]] || die "$deb holds $pkg, not a linux-image package"

dpkg-deb -x "$deb" "$work/root"
kv=$(ls "$work/root/lib/modules")
[[ $(wc -w <<<"$kv") -eq 1 ]] || die "$deb: expected one kernel in lib/modules, found: $kv"
# Debian's package has no modules.dep (its postinst makes it): make one for the whole tree
depmod -b "$work/root" "$kv"

# "dir/name.ko: deps..." -> each wanted module after its dependencies. modules.dep lists a
# module's dependencies so that the last one is loaded first.
awk -v want="$GUEST_MODULES" '
	function modname(path) {
		sub(/.*\//, "", path)
		sub(/\.ko(\.[a-z]+)?$/, "", path)
		gsub(/-/, "_", path)
		return path
	}
	function emit(path,   n, i, d) {
		if (path in done)
			return
		done[path] = 1
		n = split(deps[path], d, " ")
		for (i = n; i >= 1; i--)
			emit(d[i])
		print path
	}
	{
		path = substr($1, 1, length($1) - 1)
		deps[path] = ""
		for (i = 2; i <= NF; i++)
			deps[path] = deps[path] " " $i
		byname[modname(path)] = path
	}
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) {
			if (!(w[i] in byname)) {
				print "get-kernel.sh: module " w[i] " is not in this kernel" > "/dev/stderr"
				exit 1
			}
			emit(byname[w[i]])
		}
	}' "$work/root/lib/modules/$kv/modules.dep" >"$work/modules.load"

rm -rf "$out/modules" "$out/vmlinuz" "$out/vmlinux"
mods=$out/modules/lib/modules/$kv
while read -r ko; do
	install -D -m 0644 "$work/root/lib/modules/$kv/$ko" "$mods/$ko"
done <"$work/modules.load"
cp "$work/root/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$mods/"
depmod -b "$out/modules" "$kv"
sed "s|^|/lib/modules/$kv/|" "$work/modules.load" >"$out/modules/modules.load"
install -m 0644 "$work/root/boot/vmlinuz-$kv" "$out/vmlinuz"
unpack_vmlinux "$out/vmlinuz" "$out/vmlinux"
echo "$pkg $version $kv" >"$out/kernel.version"
echo "get-kernel.sh: $pkg $version: $out/vmlinuz and $(wc -l <"$out/modules/modules.load")" \
	"modules in $out/modules"
