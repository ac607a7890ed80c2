#!/usr/bin/env bash
# The ABI fence of libtessera.so:
#   check_symbols.sh LIBRARY SONAME INCLUDE_DIR
# - every exported symbol starts with tsr_ and none with tsr__ (internal);
#   the only other dynamic symbols allowed are the version nodes (TESSERA_n);
# - the SONAME is SONAME;
# - every function the public headers declare with TSR_API is exported.
set -euo pipefail

lib=${1:?usage: check_symbols.sh LIBRARY SONAME INCLUDE_DIR}
want_soname=${2:?}
include_dir=${3:?}
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

if ((status == 0)); then
    echo "$(wc -l <<<"$exported") symbols exported, all tsr_; SONAME $soname;" \
        "all $(wc -l <<<"$declared") declared functions present"
fi
exit $status
