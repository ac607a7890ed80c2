#!/usr/bin/env bash
# The metrics endpoint as an operator runs it, scraped by a real Prometheus:
# a private tesserad; `tessera metrics --http` behind systemd-socket-activate
# in inetd mode (what tessera-metrics.socket with Accept=yes does) on a free
# loopback port; curl's requests (200 in both formats, HEAD, 404, 405, 400
# from a raw socket); then Debian's prometheus server scraping it every
# second until the target is up, and its query API giving back the
# capacity `tessera devices` reports. Everything listens on 127.0.0.1 and
# stops by itself; the whole test is bounded by CTest's timeout.
# Usage: test_metrics_scrape.sh TESSERA TESSERAD
# Exit 77 (skipped) when prometheus, systemd-socket-activate or curl is
# missing (Debian packages prometheus, systemd, curl).
set -u
tessera=${1:?usage: test_metrics_scrape.sh TESSERA TESSERAD}
tesserad=${2:?usage: test_metrics_scrape.sh TESSERA TESSERAD}
for tool in prometheus systemd-socket-activate curl python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool is not installed"
        exit 77
    fi
done
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-scrape.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# Two free loopback ports (the kernel's choice, released just before use).
read -r port prom_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

"$tesserad" --foreground --socket "$tmp/tesserad.sock" >"$tmp/tesserad.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
    [[ -S $tmp/tesserad.sock ]] && break
    sleep 0.1
done
systemd-socket-activate --inetd -a -l "127.0.0.1:$port" \
    "$tessera" metrics --http --socket "$tmp/tesserad.sock" >"$tmp/activate.log" 2>&1 &
pids+=($!)
url="http://127.0.0.1:$port/metrics"
for _ in $(seq 100); do
    curl -s -o /dev/null "$url" && break
    sleep 0.1
done

# curl: both formats, HEAD, the refusals.
status=$(curl -s -o "$tmp/plain" -w '%{http_code} %{content_type}' "$url")
[[ $status == "200 text/plain; version=0.0.4; charset=utf-8" ]] || fail "GET: $status"
grep -q '^tessera_device_memory_capacity_bytes{device="opencl:0"} [0-9]' "$tmp/plain" ||
    fail "GET: no capacity sample"
status=$(curl -s -o "$tmp/om" -w '%{http_code} %{content_type}' \
    -H 'Accept: application/openmetrics-text;version=1.0.0' "$url")
[[ $status == "200 application/openmetrics-text; version=1.0.0; charset=utf-8" ]] ||
    fail "GET, OpenMetrics: $status"
[[ $(tail -n 1 "$tmp/om") == "# EOF" ]] || fail "OpenMetrics: no # EOF at the end"
status=$(curl -s -I -o "$tmp/head" -w '%{http_code} %{size_download}' "$url")
[[ $status == "200 0" ]] || fail "HEAD: $status"
grep -qi '^content-length: [1-9]' "$tmp/head" || fail "HEAD: no Content-Length"
[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/") == 404 ]] ||
    fail "GET /: not 404"
[[ $(curl -s -o /dev/null -w '%{http_code}' -X POST "$url") == 405 ]] || fail "POST: not 405"
answer=$(python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"GARBAGE\r\n\r\n")
print(s.recv(100).split(b"\r\n")[0].decode())' "$port")
[[ $answer == "HTTP/1.1 400 Bad Request" ]] || fail "garbage: $answer"

# A real Prometheus, scraping every second.
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tessera
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
    --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$prom_port/api/v1"
query() {
    curl -s -G --data-urlencode "query=$1" "$api/query" |
        python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}
up=""
for _ in $(seq 60); do
    up=$(query 'up{job="tessera"}' 2>/dev/null)
    [[ $up == 1 ]] && break
    sleep 1
done
[[ $up == 1 ]] || fail "Prometheus never scraped the endpoint (up is '$up')"
health=$(curl -s "$api/targets" | python3 -c 'import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"][0]
print(t["health"], repr(t["lastError"]))')
[[ $health == "up ''" ]] || fail "the target: $health"
want=$("$tessera" devices --socket "$tmp/tesserad.sock" --query memory_total --csv --no-header \
    --no-units)
got=$(query 'tessera_device_memory_capacity_bytes{device="opencl:0"}')
[[ -n $want && $got == "$want" ]] || fail "capacity: Prometheus has '$got', tessera devices '$want'"
got=$(query 'tessera_device_busy_seconds_total{device="opencl:0"}')
[[ -n $got ]] || fail "no tessera_device_busy_seconds_total in Prometheus"

if [[ $failed != 0 ]]; then
    for f in tesserad.log activate.log prometheus.log; do
        echo "---- $f"
        tail -n 20 "$tmp/$f"
    done
    echo "0 passed, 1 failed"
    exit 1
fi
echo "1 passed, 0 failed"
