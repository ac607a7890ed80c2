#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs to build, test and run.
# Quiet and quick when everything is already there; otherwise one
# `apt-get update` and one `apt-get install`, as root or through sudo.
set -euo pipefail

packages=(
    # toolchain
    gcc g++ make cmake pkg-config binutils
    # clang and its libFuzzer runtime for the fuzz targets; clang-format for the sources
    clang libclang-rt-14-dev clang-format
    # OpenCL: ICD loader, headers, and PoCL (OpenCL on the CPU)
    ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
    # BLAS: OpenBLAS for the cpu device's matrix products, CLBlast for opencl's
    libopenblas-dev libclblast-dev
    # DLPack's header, for the tensor exchange with other frameworks
    libdlpack-dev
    # MPI for libtessera-mpi (global tensors) and mpirun for its tests
    libopenmpi-dev openmpi-bin
    # topology, NUMA placement, DRM render nodes
    libhwloc-dev libnuma-dev libdrm-dev
    # sd_notify and socket activation; systemd-analyze for the unit files
    libsystemd-dev systemd
    # the tests check that every --json output parses
    jq
    # the check that the daemon's modules call only downward
    python3
    # the tessera Python package (a CPython extension) and its tests, which
    # exchange tensors with NumPy and PyTorch through DLPack
    python3-dev python3-pytest python3-numpy python3-torch
    # lexgrog, which checks that whatis and apropos can index the manual pages
    man-db
    # promtool and the Prometheus server that scrapes `tessera metrics` in a
    # test, and curl, which asks the endpoint and the server
    prometheus curl
    # ncurses for `tessera top` on a terminal, and tmux, the terminal its
    # test drives it in
    libncurses-dev tmux
    # GNU MPFR, the accuracy tests' high-precision reference for the
    # transcendental functions (tests only)
    libmpfr-dev
)

die()
{
    echo "deps.sh: $*" >&2
    exit 1
}

command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script is for Debian 12"

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
    [[ $status == ii* ]] || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "deps.sh: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
    as_root=(env)
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    die "missing packages (${missing[*]}) and not root, with no sudo to install them; run as root: apt-get install ${missing[*]}"
fi

"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -q ||
    die "apt-get update failed"
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" || die "apt-get install failed for: ${missing[*]}"

for pkg in "${missing[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
    [[ $status == ii* ]] || die "package $pkg is still not installed"
done
