#!/usr/bin/env bash
# The manual pages in docs/man are exactly what the programs' --help texts
# make of them, there are no others, and man-db's indexer (lexgrog, what
# whatis and apropos use) reads every page's NAME line:
#   tessera(1)            tessera help --man
#   tessera-COMMAND(1)    tessera help --man COMMAND, for every command
#                         `tessera --help` lists
#   tesserad(8)           tesserad --help | tessera help --roff tesserad 8
#   tesserad.conf(5)      tesserad --help-config | tessera help --roff tesserad.conf 5
#   tessera-bench(1)      tessera-bench --help | tessera help --roff tessera-bench 1
# Usage: check_man.sh TESSERA TESSERAD TESSERA_BENCH MAN_DIR [--write]
# With --write the pages are rewritten instead (after a --help text
# changed, or with a new release date).
set -euo pipefail
tessera=${1:?usage: check_man.sh TESSERA TESSERAD TESSERA_BENCH MAN_DIR [--write]}
tesserad=${2:?}
bench=${3:?}
man_dir=${4:?}
write=${5:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$tessera" help --man >"$work/tessera.1"
commands=$("$tessera" --help | sed -n '/^COMMANDS$/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
count=0
for c in $commands; do
    "$tessera" help --man "$c" >"$work/tessera-$c.1"
    count=$((count + 1))
done
"$tesserad" --help | "$tessera" help --roff tesserad 8 >"$work/tesserad.8"
"$tesserad" --help-config | "$tessera" help --roff tesserad.conf 5 >"$work/tesserad.conf.5"
"$bench" --help | "$tessera" help --roff tessera-bench 1 >"$work/tessera-bench.1"

if [[ $write == --write ]]; then
    rm -f "$man_dir"/*.[158]
    cp "$work"/* "$man_dir"/
    echo "wrote $(ls "$work" | wc -l) pages into $man_dir"
    exit 0
fi

fails=0
pass=0
((count >= 12)) || { echo "only $count commands in 'tessera --help'"; fails=$((fails + 1)); }
made=$(cd "$work" && ls | sort)
have=$(cd "$man_dir" && ls | sort)
if [[ $made != "$have" ]]; then
    echo "docs/man holds other pages than the programs make:"
    diff <(echo "$have") <(echo "$made") || true
    fails=$((fails + 1))
fi
for page in $made; do
    if ! cmp -s "$work/$page" "$man_dir/$page"; then
        echo "$man_dir/$page differs from what its --help text makes; rewrite the pages with"
        echo "  bash $0 $tessera $tesserad $bench $man_dir --write"
        diff "$man_dir/$page" "$work/$page" | head -20 || true
        fails=$((fails + 1))
        continue
    fi
    grep -q '^\.TH [^ ]* [158] "[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]" "Tessera [0-9.]*" ' "$work/$page" ||
        { echo "$page: no dated, versioned .TH line"; fails=$((fails + 1)); continue; }
    name=${page%.[158]}
    if command -v lexgrog >/dev/null; then
        out=$(lexgrog "$work/$page" 2>&1) || true
        if [[ $out != *": \"$name - "* ]]; then
            echo "lexgrog cannot read the NAME of $page: $out"
            fails=$((fails + 1))
            continue
        fi
    fi
    pass=$((pass + 1))
done
command -v lexgrog >/dev/null || echo "note: lexgrog (man-db) is not installed: NAME lines not checked"
echo "$pass passed, $fails failed"
((fails == 0))
