#!/usr/bin/env bash
# Installs a built tree into a staging prefix and builds examples/hello.c
# against it twice, as users do: with pkg-config and with CMake's
# find_package(Tessera). Both programs must run and print the dtype table.
# The README's client (examples/client.c, built with the rest of examples/)
# must fail cleanly where no daemon listens: exit 1, the library's message.
# The Python package, when built, must import from the prefix.
#   install_check.sh BUILD_DIR WORK_DIR
# Environment: CC (default cc), CMAKE (default cmake), TSR_EXTRA_CFLAGS
# (flags the library needs from its users, e.g. the sanitizers).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$(cd "${1:?usage: install_check.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: install_check.sh BUILD_DIR WORK_DIR}
cc=${CC:-cc}
cmake=${CMAKE:-cmake}
extra_cflags=${TSR_EXTRA_CFLAGS:-}

fail()
{
    echo "install check: $*" >&2
    exit 1
}

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix

touch "$work/before-install"
echo "-- cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" ||
    { cat "$work/install.log"; fail "cmake --install failed"; }

# Installing writes into the installation only (and CMake's own
# install_manifest.txt): no install script writes a file of the build tree.
writes=$(grep -h 'file(WRITE' $(find "$build_dir" -name cmake_install.cmake) |
    grep -F "$build_dir" | grep -vF 'CMAKE_INSTALL_MANIFEST' || true)
[[ -z $writes ]] || fail "an install script writes into the build folder: $writes"
if [[ -e $build_dir/systemd ]] && [[ -n $(find "$build_dir/systemd" -newer "$work/before-install") ]]; then
    fail "cmake --install wrote into $build_dir/systemd"
fi

pc=$(find "$prefix" -name tessera.pc -path '*/pkgconfig/*' | head -n 1)
[[ -n $pc ]] || fail "no tessera.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in "$prefix/include/tessera/tessera.h" "$libdir/libtessera.so.0" "$libdir/libtessera.so" \
    "$libdir/cmake/Tessera/TesseraConfig.cmake" "$libdir/cmake/Tessera/TesseraConfigVersion.cmake" \
    "$prefix/bin/tessera" "$prefix/sbin/tesserad"; do
    [[ -e $f ]] || fail "missing from the installation: ${f#"$prefix"/}"
done
# Nothing installed may point back into the source or build tree (the
# staging prefix itself may live inside them).
if cat "$libdir/pkgconfig/"* "$libdir/cmake/Tessera/"* | sed "s|$prefix||g" | grep -qF -e "$root" -e "$build_dir"; then
    fail "installed pkg-config or CMake files refer to $root or $build_dir"
fi

# The library needs no run-time search path; the programs find it beside
# them ($ORIGIN), wherever the tree is installed.
if readelf -d "$libdir/libtessera.so.0" | grep -qE '\((RPATH|RUNPATH)\)'; then
    fail "libtessera carries a run-time search path: $(readelf -d "$libdir/libtessera.so.0" | grep -E 'RPATH|RUNPATH')"
fi
readelf -d "$prefix/bin/tessera" | grep -qF '$ORIGIN/' ||
    fail "bin/tessera finds no library beside it: $(readelf -d "$prefix/bin/tessera" | grep -E 'RPATH|RUNPATH')"

# The global bench suite's ranks, where libtessera-mpi is installed: in
# libexec, finding both libraries from there.
if [[ -e $libdir/libtessera-mpi.so.0 ]]; then
    worker=$prefix/libexec/tessera/tessera-bench-global
    [[ -x $worker ]] || fail "missing from the installation: libexec/tessera/tessera-bench-global"
    [[ ! -x $worker ]] || ! ldd "$worker" | grep -q "not found" ||
        fail "tessera-bench-global does not find its libraries: $(ldd "$worker" | grep 'not found')"
fi

export PKG_CONFIG_PATH=$libdir/pkgconfig
version=$(pkg-config --modversion tessera)
[[ $(pkg-config --variable=prefix tessera) == "$prefix" ]] ||
    fail "tessera.pc names prefix $(pkg-config --variable=prefix tessera), not $prefix"

echo "-- pkg-config tessera $version"
# shellcheck disable=SC2046,SC2086  # the flags are word lists
"$cc" $extra_cflags $(pkg-config --cflags tessera) "$root/examples/hello.c" \
    $(pkg-config --libs tessera) -o "$work/hello-pkgconfig"

echo "-- find_package(Tessera)"
"$cmake" -S "$root/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra_cflags" >"$work/examples.log" ||
    { cat "$work/examples.log"; fail "configuring examples/ with find_package(Tessera) failed"; }
"$cmake" --build "$work/examples" >>"$work/examples.log" ||
    { cat "$work/examples.log"; fail "building examples/ failed"; }

for hello in "$work/hello-pkgconfig" "$work/examples/hello"; do
    out=$(LD_LIBRARY_PATH=$libdir "$hello") || fail "$hello exited with $?"
    grep -q "^tessera $version: 22 dtypes$" <<<"$out" || fail "$hello: unexpected first line: $(head -n 1 <<<"$out")"
    grep -qE '^  float32 +4 +floating' <<<"$out" || fail "$hello: no float32 row in: $out"
    grep -q '^promote_types(int32, float16) = float16$' <<<"$out" || fail "$hello: wrong promotion: $out"
    lib=$(LD_LIBRARY_PATH=$libdir ldd "$hello" | awk '$1 ~ /^libtessera/ { print $3 }')
    [[ $lib == "$libdir"/* ]] || fail "$hello loads libtessera from '$lib', not from $libdir"
    echo "-- $(basename "$(dirname "$hello")")/$(basename "$hello"): ok"
done
client=$work/examples/client
rc=0
LD_LIBRARY_PATH=$libdir TESSERA_SOCKET=$work/no-daemon.sock "$client" >"$work/client.out" \
    2>"$work/client.err" || rc=$?
((rc == 1)) || fail "$client with no daemon exited with $rc, not 1: $(cat "$work/client.err")"
grep -q "^client: .*$work/no-daemon.sock" "$work/client.err" ||
    fail "$client with no daemon did not name the socket: $(cat "$work/client.err")"
echo "-- examples/client with no daemon: $(cat "$work/client.err")"
# The Python package, where the build made one: importable from the
# prefix's dist-packages, finding the installed libtessera by itself.
package=$(find "$prefix" -path '*/dist-packages/tessera/__init__.py' | head -n 1)
if [[ -n $package ]]; then
    out=$(cd "$work" && PYTHONPATH=$(dirname "$(dirname "$package")") /usr/bin/python3 -c \
        'import tessera; print(tessera.__file__, tessera.promote_types(tessera.int32, tessera.float16))') ||
        fail "the installed Python package does not import: $out"
    [[ $out == "$package tessera.float16" ]] || fail "the installed Python package answered: $out"
    echo "-- python3 -c 'import tessera': ok"
fi
echo "install check passed: $prefix"
