#!/usr/bin/env bash
# The ABI fence of libtessera.so:
#   check_symbols.sh LIBRARY SONAME INCLUDE_DIR VERSION_SCRIPT
# - every exported symbol starts with tsr_ and none with tsr__ (internal);
#   the only other dynamic symbols allowed are the version nodes (TESSERA_n);
# - every exported symbol is listed by name in a node of VERSION_SCRIPT
#   (libtessera.sym) and carries that node's version; every name listed
#   there is exported; every node is defined in the library;
# - the SONAME is SONAME;
# - every function the public headers declare with TSR_API is exported.
set -euo pipefail

lib=${1:?usage: check_symbols.sh LIBRARY SONAME INCLUDE_DIR}
want_soname=${2:?}
include_dir=${3:?}
version_script=${4:?}
status=0

exports=$(nm -D --defined-only "$lib")
bad=$(awk '$2 == "A" && $3 ~ /^TESSERA_[0-9.]+$/ { next }
           { name = $NF; sub(/@.*/, "", name) }
           name !~ /^tsr_/ || name ~ /^tsr__/ { print "  " $0 }' <<<"$exports")
if [[ -n $bad ]]; then
    echo "exported symbols outside the public tsr_ namespace:"
    echo "$bad"
    status=1
fi

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [[ $soname != "$want_soname" ]]; then
    echo "SONAME is '${soname}', expected '$want_soname'"
    status=1
fi

exported=$(awk '$2 != "A" { name = $NF; sub(/@.*/, "", name); print name }' <<<"$exports" | sort -u)
declared=$(cat "$include_dir"/tessera/*.h | tr '\n' ' ' |
    grep -oE 'TSR_API[^;{]*[^a-z0-9_]tsr_[a-z0-9_]+ *\(' |
    grep -oE 'tsr_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [[ -n $missing ]]; then
    echo "declared with TSR_API in the public headers but not exported by $lib:"
    sed 's/^/  /' <<<"$missing"
    status=1
fi

# "name node" for every name the version script lists, comments removed.
listed=$(awk '
    { text = text $0 "\n" }
    END {
        while ((i = index(text, "/*")) > 0) {
            j = index(substr(text, i + 2), "*/")
            text = substr(text, 1, i - 1) (j ? substr(text, i + j + 3) : "")
        }
        n = split(text, lines, "\n")
        for (k = 1; k <= n; k++) {
            line = lines[k]
            if (match(line, /^[ \t]*[A-Za-z0-9_.]+[ \t]*\{/)) {
                node = line; sub(/^[ \t]*/, "", node); sub(/[ \t]*\{.*/, "", node)
                print "node " node
            } else if (match(line, /^[ \t]*tsr_[a-z0-9_]+[ \t]*;/)) {
                name = line; gsub(/[ \t;]/, "", name)
                print name " " node
            }
        }
    }' "$version_script")
nodes=$(awk '$1 == "node" { print $2 }' <<<"$listed" | sort -u)
listed=$(awk '$1 != "node"' <<<"$listed" | sort -u)
if grep -qE '^[[:space:]]*[^/*[:space:]][^;]*[*?][^;]*;' <(grep -v 'local:' "$version_script" | grep -vE '^[[:space:]]*\*;'); then
    echo "$version_script exports by wildcard: list every symbol by name"
    status=1
fi
versioned=$(awk '$2 != "A" { name = $NF; ver = name; sub(/@.*/, "", name); sub(/^[^@]*@+/, "", ver)
                             if (ver == $NF) ver = "(none)"; print name " " ver }' <<<"$exports" |
    sort -u)
unlisted=$(comm -23 <(echo "$versioned") <(echo "$listed"))
if [[ -n $unlisted ]]; then
    echo "exported but not listed by name in $version_script (or in another node):"
    sed 's/^/  /' <<<"$unlisted"
    status=1
fi
stale=$(comm -13 <(echo "$versioned") <(echo "$listed"))
if [[ -n $stale ]]; then
    echo "listed in $version_script but not exported:"
    sed 's/^/  /' <<<"$stale"
    status=1
fi
defined=$(awk '$2 == "A" { print $3 }' <<<"$exports" | sort -u)
if [[ "$defined" != "$nodes" ]]; then
    echo "version nodes: $version_script has $(echo $nodes), the library $(echo $defined)"
    status=1
fi

if ((status == 0)); then
    echo "$(wc -l <<<"$exported") symbols exported, all tsr_; SONAME $soname;" \
        "all $(wc -l <<<"$declared") declared functions present"
fi
exit $status
