#!/usr/bin/env bash
# The README's operations section, step by step, against an installed tree:
#   1. install (`cmake --install`) into a staging prefix;
#   2. the user and group from the installed sysusers.d file (into a
#      scratch root: the machine's own /etc is left alone);
#   3. start tesserad as the installed units describe it: the socket of
#      tesserad.socket (moved under the work directory) is opened by
#      systemd-socket-activate, which starts the service's ExecStart= line,
#      with its Environment= and CacheDirectory=, on the first connection;
#      a notification socket stands in for systemd's and must see READY=1,
#      STATUS= and WATCHDOG=1;
#   4. watch: `tessera devices`, `tessera ps --json` and `tessera top
#      --once` show a client built against the installation with
#      pkg-config, and the memory it holds;
#   5. cap the user's memory in the configuration file and reload with the
#      service's ExecReload= (RELOADING=1, READY=1): a new session is told
#      the cap as the device's memory, an allocation past it is refused
#      with a message naming it, `tessera ps` reports it, and the session
#      that was already running keeps its memory;
#   6. stop: SIGTERM, STOPPING=1, exit status 0.
# systemd itself (PID 1) is the one part not run: the steps it carries out
# are done here the way its documentation describes them.
#   walkthrough.sh BUILD_DIR WORK_DIR
# Environment: CC, CMAKE, TSR_EXTRA_CFLAGS (as install_check.sh). Exit 77
# (skipped) without systemd-socket-activate or without an OpenCL device.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$(cd "${1:?usage: walkthrough.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: walkthrough.sh BUILD_DIR WORK_DIR}
cc=${CC:-cc}
cmake=${CMAKE:-cmake}
extra_cflags=${TSR_EXTRA_CFLAGS:-}

daemon_pid=""
notify_pid=""
declare -a holders=()
cleanup()
{
    local p
    for p in "${holders[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    [[ -z $daemon_pid ]] || kill -KILL "$daemon_pid" 2>/dev/null || true
    [[ -z $notify_pid ]] || kill "$notify_pid" 2>/dev/null || true
}
trap cleanup EXIT

fail()
{
    echo "walkthrough: $*" >&2
    if [[ -f ${work:-}/tesserad.log ]]; then
        echo "---- tesserad's output" >&2
        tail -n 40 "$work/tesserad.log" >&2
    fi
    exit 1
}

step()
{
    printf -- '-- %s\n' "$*"
}

for tool in systemd-socket-activate python3 pkg-config; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool is not installed"
        exit 77
    fi
done

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix

# Waits up to 20 s for a line matching the regular expression in a file.
wait_for_line()
{
    local file=$1 pattern=$2 what=$3
    for _ in $(seq 200); do
        grep -Eq "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "$what: no line matching '$pattern' in ${file#"$work"/}"
}

# The value of KEY= in a unit file (the last one, as systemd takes it).
unit_value()
{
    sed -n "s/^$2=//p" "$1" | tail -n 1
}

# ---- 1. install --------------------------------------------------------
step "1. cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
units=$prefix/lib/systemd/system
service=$units/tesserad.service
socket_unit=$units/tesserad.socket
for f in "$service" "$socket_unit" "$prefix/lib/sysusers.d/tessera.conf" \
    "$prefix/share/doc/tessera/tesserad.conf" "$prefix/bin/tessera" "$prefix/sbin/tesserad"; do
    [[ -f $f ]] || fail "missing from the installation: ${f#"$prefix"/}"
done
tessera=$prefix/bin/tessera

# ---- 2. the user and group ------------------------------------------------
step "2. systemd-sysusers (into a scratch root)"
if command -v systemd-sysusers >/dev/null 2>&1; then
    mkdir -p "$work/root/etc"
    systemd-sysusers --root="$work/root" "$prefix/lib/sysusers.d/tessera.conf" \
        >"$work/sysusers.log" 2>&1 || { cat "$work/sysusers.log"; fail "systemd-sysusers failed"; }
    grep -q '^tessera:' "$work/root/etc/passwd" || fail "no user tessera"
    grep -q '^tessera:' "$work/root/etc/group" || fail "no group tessera"
else
    echo "   (systemd-sysusers is not installed: skipped)"
fi

# ---- 3. start it as systemd would ----------------------------------------------
step "3. start: tesserad.socket, then tesserad.service on the first connection"
listen=$(unit_value "$socket_unit" ListenSequentialPacket)
[[ $listen == /run/tessera/tesserad.sock ]] || fail "tesserad.socket listens on '$listen'"
[[ $(unit_value "$socket_unit" SocketMode) == 0660 ]] || fail "tesserad.socket: SocketMode is not 0660"
[[ $(unit_value "$service" Type) == notify ]] || fail "tesserad.service is not Type=notify"
exec_start=$(unit_value "$service" ExecStart)
exec_reload=$(unit_value "$service" ExecReload)
[[ $exec_start == "$prefix/sbin/tesserad --foreground" ]] ||
    fail "ExecStart= of the installed service is '$exec_start'"
# shellcheck disable=SC2016 # the unit's text, $MAINPID unexpanded
[[ $exec_reload == '/bin/kill -HUP $MAINPID' ]] || fail "ExecReload= is '$exec_reload'"
watchdog_sec=$(unit_value "$service" WatchdogSec)
[[ $watchdog_sec =~ ^[0-9]+$ ]] || fail "WatchdogSec= is '$watchdog_sec'"

# /run/tessera and /var/cache/tessera, under the work directory.
run_dir=$work/run/tessera
cache_dir=$work/var/cache/tessera
mkdir -p "$run_dir" "$cache_dir" "$work/etc/tessera"
sock=$run_dir/tesserad.sock
declare -a env_args=("-E" "CACHE_DIRECTORY=$cache_dir" "-E" "RUNTIME_DIRECTORY=$run_dir")
while IFS= read -r assignment; do
    env_args+=("-E" "${assignment//\/var\/cache\/tessera/$cache_dir}")
done < <(sed -n 's/^Environment=//p' "$service")

# The configuration file of the README: the sample, installed.
conf=$work/etc/tessera/tesserad.conf
install -m644 "$prefix/share/doc/tessera/tesserad.conf" "$conf"

# systemd's notification socket: every datagram, one line per assignment.
notify_sock=$work/notify.sock
notify_log=$work/notify.log
python3 - "$notify_sock" "$notify_log" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        for line in s.recv(4096).decode().splitlines():
            log.write(line + "\n")
EOF
notify_pid=$!
for _ in $(seq 100); do
    [[ -S $notify_sock ]] && break
    sleep 0.05
done
[[ -S $notify_sock ]] || fail "the notification socket did not appear"
: >"$notify_log"

# shellcheck disable=SC2086 # ExecStart= is a command line, split as systemd splits it
systemd-socket-activate --seqpacket -l "$sock" "${env_args[@]}" \
    -E NOTIFY_SOCKET="$notify_sock" -E WATCHDOG_USEC=$((watchdog_sec * 1000000 / 15)) \
    -E TESSERA_KERNEL_CACHE="$cache_dir" \
    $exec_start --config "$conf" >"$work/tesserad.log" 2>&1 &
daemon_pid=$!
# The socket file exists from bind(); a connection before listen() would
# be refused, so wait for systemd-socket-activate's line, which it prints
# once the socket listens.
wait_for_line "$work/tesserad.log" '^Listening on ' "systemd-socket-activate"
[[ -S $sock ]] || fail "the socket $sock did not appear"
chmod 0660 "$sock" || fail "chmod 0660 $sock failed"
[[ -s $notify_log ]] && fail "the service started before anyone connected"
export TESSERA_SOCKET=$sock

# ---- 4. watch ----------------------------------------------------------------
step "4. tessera devices (the first connection starts the service)"
"$tessera" devices >"$work/devices.txt" 2>&1 || { cat "$work/devices.txt"; fail "tessera devices failed"; }
wait_for_line "$notify_log" '^READY=1$' "sd_notify"
wait_for_line "$notify_log" '^STATUS=[0-9]+ opencl devices?, [0-9]+ sessions?$' "sd_notify"
wait_for_line "$notify_log" '^WATCHDOG=1$' "the watchdog"
[[ $(grep -c '^READY=1$' "$notify_log") == 1 ]] || fail "READY=1 more than once"
if ! grep -q 'opencl:0' "$work/devices.txt"; then
    cat "$work/devices.txt"
    echo "skipped: the daemon found no OpenCL device"
    exit 77
fi
cat "$work/devices.txt"

step "   a client built against the installation with pkg-config"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name tessera.pc -path '*/pkgconfig/*' | head -n 1)")
# shellcheck disable=SC2046,SC2086 # pkg-config's flags are word lists
"$cc" -std=c11 $extra_cflags -o "$work/client" "$root/tests/config/walkthrough_client.c" \
    $(pkg-config --cflags --libs tessera) -Wl,-rpath,"$(pkg-config --variable=libdir tessera)" ||
    fail "the client did not build against the installation"

# start_client NAME ARGS...: runs the client, its stdin a FIFO held open
# by this shell (fd 10+k), until its "holding" line.
start_client()
{
    local name=$1
    shift
    mkfifo "$work/$name.in"
    "$work/client" "$@" <"$work/$name.in" >"$work/$name.out" 2>&1 &
    holders+=($!)
    eval "exec {${name}_fd}>\"$work/$name.in\""
    wait_for_line "$work/$name.out" '^(holding|walkthrough_client:)' "client $name"
    grep -q '^holding$' "$work/$name.out" || { cat "$work/$name.out"; fail "client $name failed"; }
}
start_client first 8
first_pid=${holders[0]}

step "   tessera ps --json and tessera top --once"
"$tessera" ps --json >"$work/ps.json" || fail "tessera ps --json failed"
python3 - "$work/ps.json" "$first_pid" <<'EOF' || fail "tessera ps --json does not show the client"
import json, sys
rows = {s["pid"]: s for s in json.load(open(sys.argv[1]))}
s = rows[int(sys.argv[2])]
assert s["memory"] == {"opencl:0": 8 << 20}, s
EOF
"$tessera" top --once >"$work/top.txt" || fail "tessera top --once failed"
if ! grep -q "opencl:0" "$work/top.txt" || ! grep -q "$first_pid" "$work/top.txt"; then
    cat "$work/top.txt"
    fail "tessera top --once does not show the device and the client"
fi
cat "$work/top.txt"

# ---- 5. cap the user's memory -----------------------------------------------
user=$(id -un)
step "5. memory_limit.uid.$user = 64MiB, then ExecReload= (kill -HUP \$MAINPID)"
printf '\nmemory_limit.uid.%s = 64MiB\n' "$user" >>"$conf"
reload=${exec_reload//\$MAINPID/$daemon_pid}
$reload || fail "ExecReload= failed"
wait_for_line "$notify_log" '^RELOADING=1$' "the reload"
for _ in $(seq 200); do
    [[ $(grep -c '^READY=1$' "$notify_log") == 2 ]] && break
    sleep 0.1
done
[[ $(grep -c '^READY=1$' "$notify_log") == 2 ]] || fail "no READY=1 after the reload"

# The first client holds 8 MiB in a 20 MiB segment (the caching
# allocator's unit for blocks over 1 MiB) of the user's 64: a second one is
# told 64 MiB, may take 4 MiB (another 20 MiB segment) and is refused 32
# more.
start_client second 4 32
second_pid=${holders[1]}
grep -qx "total $((64 << 20))" "$work/second.out" ||
    { cat "$work/second.out"; fail "the capped client is not told 64 MiB as the device's memory"; }
grep -q "^refused: .*memory limit of uid $(id -u) ($user) on opencl:0 reached" "$work/second.out" ||
    { cat "$work/second.out"; fail "the allocation past the cap was not refused with the limit's message"; }
sed -n 's/^refused: /   refused: /p' "$work/second.out"
"$tessera" ps --json >"$work/ps2.json" || fail "tessera ps --json failed"
python3 - "$work/ps2.json" "$first_pid" "$second_pid" <<'EOF' || fail "tessera ps does not report the cap"
import json, sys
rows = {s["pid"]: s for s in json.load(open(sys.argv[1]))}
first, second = rows[int(sys.argv[2])], rows[int(sys.argv[3])]
assert first["memory"] == {"opencl:0": 8 << 20}, first
assert second["memory"] == {"opencl:0": 4 << 20}, second
assert second["limit"]["opencl:0"] == 64 << 20, second
EOF

# ---- 6. stop --------------------------------------------------------------------
step "6. stop"
# shellcheck disable=SC2154 # first_fd and second_fd come from start_client's eval
eval "exec ${first_fd}>&- ${second_fd}>&-"
for p in "${holders[@]}"; do
    wait "$p" || fail "a client exited with an error"
done
holders=()
kill -TERM "$daemon_pid"
status=0
wait "$daemon_pid" || status=$?
daemon_pid=""
[[ $status == 0 ]] || fail "tesserad exited with status $status on SIGTERM"
# The listener writes what the daemon sent on its own time: on a loaded
# machine after the daemon has exited.
wait_for_line "$notify_log" '^STOPPING=1$' "the stop"
echo "walkthrough: every step passed"
