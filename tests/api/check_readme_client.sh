#!/usr/bin/env bash
# check_readme_client.sh README EXAMPLE
# The README shows examples/client.c (and examples/global_add.c): one of
# its ```c blocks must be that file as it stands after its opening comment,
# so that the code users copy is the code CI compiles and runs
# (tests/api/install_check.sh; tests/global's global-example-np4).
set -euo pipefail
readme=${1:?usage: check_readme_client.sh README EXAMPLE}
example=${2:?usage: check_readme_client.sh README EXAMPLE}

want=$(sed '1,/\*\//d' "$example")
n=0
while IFS= read -r -d '' block; do
    n=$((n + 1))
    if [[ $block == "$want" ]]; then
        echo "ok: README's block $n is $(basename "$example")"
        exit 0
    fi
done < <(awk '/^```c$/ { inside = 1; text = ""; next }
              inside && /^```$/ { inside = 0; printf "%s%c", text, 0; next }
              inside { text = text (text == "" ? "" : "\n") $0 }' "$readme")
echo "FAIL: none of the README's $n C blocks is $example after its opening comment"
diff <(echo "$want") <(awk '/^```c$/,/^```$/' "$readme" | grep -v '^```') || true
exit 1
