#!/usr/bin/env bash
# Installs the Debian packages HardRoCE needs. Idempotent: does nothing when all are there.
# Run as root (the make targets call it; 'sudo make deps' when you are not root).
set -euo pipefail

packages=(
	make gcc g++ python3          # build
	verilator iverilog yosys z3   # RTL simulation, lint, synthesis, formal
	zlib1g-dev                    # Verilator FST tracing
	clang-format cppcheck         # C lint
	linux-libc-dev                # <linux/vfio.h>: the vfio backend of libhroce
	tshark python3-scapy          # independent packet decoders for the tests
	gnuplot-nox                   # hroce-lat's plots
	libibverbs-dev ibverbs-utils perftest  # the verbs provider, and the unmodified programs it runs
	libpci-dev tcl                # firmware/: the flash tool (libpci), the board builds' Tcl under tclsh
	# the Linux Soft-RoCE peer (testbench/interop/): a QEMU guest with rdma_rxe
	qemu-system-x86 busybox-static cpio kmod iproute2
	rdma-core ibverbs-providers rdmacm-utils
)

missing=()
for p in "${packages[@]}"; do
	[[ $p == \#* ]] && continue
	if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "HardRoCE needs these Debian packages: ${missing[*]}" >&2
	echo "Install them as root: sudo make deps   (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "Installing from Debian: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
