#!/usr/bin/env bash
# `tessera top` against a private tesserad (one device visible) with 30
# client sessions (top_sessions, session k holding k * 64 KiB), in one of
# two modes:
#   plain  stdout a file or a pipe: --once and -n frames as text with no
#          escape sequence, every session listed in memory order (-o name:
#          in name order), two frames apart by a blank line, lines of at
#          most 80 columns; a restart of the daemon under a running top
#          gives a frame with the status line and then frames with the new
#          sessions; no daemon at the start is exit status 1.
#   tmux   a real terminal: top in a detached tmux session of 80x24, then
#          resized to 50x10: the title (whole at 80, without the parts
#          that do not fit at 50) and the device bars on top, exactly
#          the session rows that fit and a last line "+N more" that counts
#          the others, no line wider than the window (wrapped lines are
#          joined before counting); across a daemon restart (at 50x10, then
#          resized back to 80x24) the red status line and then the new
#          sessions; h shows the keys and a key leaves them; q ends top
#          with status 0, the alternate screen left and the terminal's
#          modes as before.
# Usage: test_top.sh plain|tmux TESSERA TESSERAD TOP_SESSIONS
# Exit 77 (skipped) in tmux mode where tmux is not installed.
set -u
mode=${1:?usage: test_top.sh plain|tmux TESSERA TESSERAD TOP_SESSIONS}
tessera=${2:?}
tesserad=${3:?}
helper=${4:?}
if [[ $mode == tmux ]] && ! command -v tmux >/dev/null 2>&1; then
    echo "skipped: tmux is not installed"
    exit 77
fi
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-top.XXXXXX")
sock=$tmp/tesserad.sock
export TESSERA_SOCKET=$sock
daemon=
holders=()
tmux_cmd=(tmux -L "tessera-top-$$" -f "$tmp/tmux.conf")
cleanup() {
    [[ $mode == tmux ]] && "${tmux_cmd[@]}" kill-server 2>/dev/null
    for p in "${holders[@]}"; do kill "$p"; done
    [[ -n $daemon ]] && kill "$daemon" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# Waits up to $1 tenths of a second for the command after it to succeed.
wait_for() {
    local tenths=$1
    shift
    for _ in $(seq "$tenths"); do
        "$@" && return 0
        sleep 0.1
    done
    "$@"
}

start_daemon() {
    "$tesserad" --foreground --socket "$sock" --visible-devices 0 >>"$tmp/tesserad.log" 2>&1 &
    daemon=$!
    wait_for 300 "$tessera" devices >/dev/null 2>&1 || {
        cat "$tmp/tesserad.log"
        fail "tesserad did not start"
        exit 1
    }
}

stop_daemon() {
    kill "$daemon"
    wait "$daemon"
    daemon=
}

# start_sessions PREFIX: 30 sessions named PREFIX-01..30, held until
# stop_sessions ends their standard input: a fifo whose only writer is a
# sleep of their own (a descriptor of this shell would be inherited by
# every process it starts after, and keep the fifo open).
holder_pid=
start_sessions() {
    mkfifo "$tmp/hold-$1"
    "$helper" 30 "$1" <"$tmp/hold-$1" >"$tmp/ready-$1" 2>&1 &
    holder_pid=$!
    sleep 600 >"$tmp/hold-$1" &
    holders+=($!)
    wait_for 300 grep -q "^ready 30$" "$tmp/ready-$1" || {
        cat "$tmp/ready-$1"
        fail "the 30 sessions $1-NN did not open"
        exit 1
    }
}

stop_sessions() {
    kill "${holders[-1]}"
    unset 'holders[-1]'
    wait "$holder_pid"
}

# Lines of a file wider than $2 columns.
too_wide() {
    awk -v w="$2" 'length($0) > w { print NR ": " length($0) " columns: " $0 }' "$1"
}

# The session rows of a frame (lines after the header up to a blank or
# "+N more" line), their names in order.
session_names() {
    awk '/^ *SID +PID/ { on = 1; next } on && (/^$/ || /^\+[0-9]+ more$/) { exit }
         on { for (k = 1; k <= NF; k++) if ($k ~ /^(worker|again)-[0-9][0-9]$/) print $k }' "$1"
}

run_plain() {
    # No daemon yet: status 1 and the library's message, as every command.
    "$tessera" top --once >"$tmp/none.out" 2>"$tmp/none.err"
    rc=$?
    [[ $rc == 1 ]] || fail "top --once without a daemon: exit $rc, not 1"
    grep -q "^tessera: error: cannot connect to tesserad at $sock" "$tmp/none.err" ||
        fail "top --once without a daemon: $(cat "$tmp/none.err")"

    start_daemon
    start_sessions worker
    "$tessera" top --once >"$tmp/once" 2>"$tmp/once.err"
    rc=$?
    [[ $rc == 0 ]] || fail "top --once: exit $rc: $(cat "$tmp/once.err")"
    grep -q $'\033' "$tmp/once" && fail "top --once wrote an escape sequence"
    grep -Eq ' worker-30 +top_sessions$' "$tmp/once" || fail "top --once: no whole name and command"
    head -n 1 "$tmp/once" | grep -q '^tessera top - [0-9:]* - 30 sessions - sort: memory' ||
        fail "top --once: title '$(head -n 1 "$tmp/once")'"
    sed -n 3p "$tmp/once" | grep -q '^opencl:0 ' || fail "top --once: no opencl:0 on line 3"
    sed -n 4p "$tmp/once" | grep -q '^  mem  \[' || fail "top --once: no memory bar"
    sed -n 5p "$tmp/once" | grep -q '^  busy \[' || fail "top --once: no busy bar"
    grep -q '^  SID     PID USER     DEVICE     ALLOCATED   BUSY NAME          COMMAND$' \
        "$tmp/once" || fail "top --once: the header at 80 columns"
    want=$(for k in $(seq 30 -1 1); do printf 'worker-%02d\n' "$k"; done)
    [[ $(session_names "$tmp/once") == "$want" ]] ||
        fail "top --once: not the 30 sessions largest first: $(session_names "$tmp/once" | tr '\n' ' ')"
    grep -q 'more$' "$tmp/once" && fail "top --once cut the sessions of a plain frame"
    [[ -z $(too_wide "$tmp/once" 80) ]] || fail "top --once: $(too_wide "$tmp/once" 80)"

    "$tessera" top --once -o name >"$tmp/byname"
    [[ $(session_names "$tmp/byname") == "$(sort <<<"$want")" ]] ||
        fail "top -o name: $(session_names "$tmp/byname" | tr '\n' ' ')"

    # -n 2 through a pipe: two frames, a blank line between, then exit 0.
    "$tessera" top -n 2 -d 0.2 | cat >"$tmp/two"
    rc=${PIPESTATUS[0]}
    [[ $rc == 0 ]] || fail "top -n 2: exit $rc"
    [[ $(grep -c '^tessera top - ' "$tmp/two") == 2 ]] || fail "top -n 2: not two frames"
    second=$(grep -n '^tessera top - ' "$tmp/two" | sed -n 2p | cut -d: -f1)
    [[ -n $second && $(sed -n "$((second - 1))p" "$tmp/two") == "" ]] ||
        fail "top -n 2: no blank line before the second frame"
    grep -q $'\033' "$tmp/two" && fail "top -n 2 wrote an escape sequence"

    # A restart under a running top: the status line, then the new sessions.
    "$tessera" top -d 0.2 >"$tmp/running" 2>"$tmp/running.err" &
    top_pid=$!
    wait_for 100 grep -q 'worker-30' "$tmp/running" || fail "the running top shows no session"
    stop_sessions
    stop_daemon
    wait_for 100 grep -q '^tesserad is gone: reconnecting every 0.2 s (' "$tmp/running" ||
        fail "the running top shows no status line: $(tail -n 5 "$tmp/running")"
    grep -q '^tessera: error: ' "$tmp/running.err" || fail "the running top said nothing on stderr"
    start_daemon
    start_sessions again
    wait_for 100 grep -q 'again-30' "$tmp/running" ||
        fail "the running top did not come back: $(tail -n 5 "$tmp/running")"
    kill -INT "$top_pid"
    wait "$top_pid"
    rc=$?
    [[ $rc == 0 ]] || fail "top ended by SIGINT: exit $rc, not 0"
    grep -q $'\033' "$tmp/running" && fail "the running top wrote an escape sequence"
    [[ -z $(too_wide "$tmp/running" 80) ]] || fail "the running top: $(too_wide "$tmp/running" 80)"
}

# The pane as text, wrapped lines joined (-J) so that a wrap shows as a
# line too wide, less the trailing spaces -J keeps; with $1 = -e, with its
# colours.
capture() {
    "${tmux_cmd[@]}" capture-pane -p -J ${1:-} -t top 2>/dev/null | sed 's/ *$//' >"$tmp/pane"
}

pane_has() {
    capture && grep -Eq "$1" "$tmp/pane"
}

# check_screen WIDTH HEIGHT PREFIX: the frame in the pane fits the window.
check_screen() {
    local width=$1 height=$2 prefix=$3 what="${1}x${2}"
    wait_for 100 pane_has '^\+[0-9]+ more$' || fail "$what: no '+N more' line"
    sleep 0.5
    capture
    cp "$tmp/pane" "$tmp/pane-$what"
    [[ -z $(too_wide "$tmp/pane" "$width") ]] || fail "$what: $(too_wide "$tmp/pane" "$width")"
    sed -n 1p "$tmp/pane" | grep -q '^tessera top - [0-9:]* - 30 sessions' ||
        fail "$what: title '$(sed -n 1p "$tmp/pane")'"
    sed -n 3p "$tmp/pane" | grep -q '^opencl:0 ' || fail "$what: no opencl:0 on line 3"
    sed -n 4p "$tmp/pane" | grep -q '^  mem  \[' || fail "$what: no memory bar on line 4"
    sed -n 5p "$tmp/pane" | grep -q '^  busy \[' || fail "$what: no busy bar on line 5"
    header=$(grep -En '^ *SID +PID' "$tmp/pane" | head -n 1 | cut -d: -f1)
    [[ -n $header ]] || {
        fail "$what: no header"
        return
    }
    # Every row below the header is a session but the last, "+N more".
    rows=$((height - header - 1))
    shown=$(session_names "$tmp/pane" | wc -l)
    [[ $shown == "$rows" ]] || fail "$what: $shown session rows, $rows fit"
    last=$(sed -n "${height}p" "$tmp/pane")
    [[ $last == "+$((30 - rows)) more" ]] || fail "$what: line $height is '$last', not '+$((30 - rows)) more'"
    [[ $(sed -n "$((height + 1)),\$p" "$tmp/pane" | tr -d ' \n') == "" ]] ||
        fail "$what: text below line $height"
    first=$(session_names "$tmp/pane" | head -n 1)
    [[ $first == "$prefix-30" ]] || fail "$what: the first row is $first, not the largest, $prefix-30"
}

run_tmux() {
    cat >"$tmp/tmux.conf" <<EOF
set -g status off
set -g default-terminal screen
set -g history-limit 0
EOF
    cat >"$tmp/inner.sh" <<EOF
stty -g >"$tmp/stty.before"
echo "before top"
"$tessera" top -d 0.3
rc=\$?
stty -g >"$tmp/stty.after"
echo "top exited \$rc"
echo \$rc >"$tmp/exit"
sleep 600
EOF
    start_daemon
    start_sessions worker
    "${tmux_cmd[@]}" new-session -d -x 80 -y 24 -s top "bash $tmp/inner.sh" ||
        fail "tmux new-session failed"
    check_screen 80 24 worker
    capture
    grep -q ' NAME  *COMMAND$' "$tmp/pane" || fail "80x24: no NAME and COMMAND columns"
    sed -n 1p "$tmp/pane" |
        grep -Eq '^tessera top - [0-9:]+ - 30 sessions - sort: memory - every 0.3 s - h: help$' ||
        fail "80x24: the title is not whole: '$(sed -n 1p "$tmp/pane")'"

    "${tmux_cmd[@]}" resize-window -t top -x 50 -y 10 || fail "tmux resize-window failed"
    wait_for 100 pane_has '^\+28 more$' || fail "50x10: the frame was not redrawn at 50x10"
    check_screen 50 10 worker
    # Narrow, the title leaves parts out whole (the delay, then the sort
    # order, which no longer fit), never cutting one.
    sed -n 1p "$tmp/pane-50x10" | grep -Eq '^tessera top - [0-9:]+ - 30 sessions - h: help$' ||
        fail "50x10: the title is not cut at its parts: '$(sed -n 1p "$tmp/pane-50x10")'"

    # The daemon gone: the status line, cut at 50 columns, whole at 80.
    stop_sessions
    stop_daemon
    wait_for 100 pane_has '^tesserad is gone: reconnecting every 0.3 s' ||
        fail "50x10: no status line once the daemon was gone: $(cat "$tmp/pane")"
    [[ -z $(too_wide "$tmp/pane" 50) ]] || fail "50x10, daemon gone: $(too_wide "$tmp/pane" 50)"
    "${tmux_cmd[@]}" resize-window -t top -x 80 -y 24 || fail "tmux resize-window failed"
    wait_for 100 pane_has '^tesserad is gone: reconnecting every 0.3 s \(.+\)$' ||
        fail "80x24: no whole status line once the daemon was gone: $(cat "$tmp/pane")"
    capture -e
    grep -a 'tesserad is gone' "$tmp/pane" | grep -Eq $'\033\\[[0-9;]*31[0-9;]*m' ||
        fail "the status line is not red: $(grep -a 'tesserad is gone' "$tmp/pane" | od -c | head)"
    start_daemon
    start_sessions again
    wait_for 100 pane_has 'again-30' || fail "top did not come back after the restart"
    check_screen 80 24 again

    "${tmux_cmd[@]}" send-keys -t top h
    wait_for 50 pane_has '^  q +quit$' || fail "h showed no list of keys"
    "${tmux_cmd[@]}" send-keys -t top x
    wait_for 50 pane_has '^\+[0-9]+ more$' || fail "a key did not leave the help"

    "${tmux_cmd[@]}" send-keys -t top q
    wait_for 100 test -s "$tmp/exit" || fail "q did not end top"
    [[ $(cat "$tmp/exit" 2>/dev/null) == 0 ]] || fail "top exited $(cat "$tmp/exit" 2>/dev/null), not 0"
    cmp -s "$tmp/stty.before" "$tmp/stty.after" ||
        fail "the terminal's modes changed: $(cat "$tmp/stty.before") / $(cat "$tmp/stty.after")"
    capture
    grep -q '^before top$' "$tmp/pane" && grep -q '^top exited 0$' "$tmp/pane" ||
        fail "the terminal was not given back: $(cat "$tmp/pane")"
    grep -q '^tessera top - ' "$tmp/pane" && fail "the frame stayed on the screen after q"
}

case $mode in
plain) run_plain ;;
tmux) run_tmux ;;
*)
    echo "usage: test_top.sh plain|tmux TESSERA TESSERAD TOP_SESSIONS"
    exit 2
    ;;
esac
if [[ $failed != 0 ]]; then
    echo "--- tesserad.log"
    tail -n 30 "$tmp/tesserad.log"
    exit 1
fi
echo "PASS: top $mode"
