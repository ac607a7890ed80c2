#!/usr/bin/env bash
# The core promises no I/O and no allocation behind the caller's back:
# its object code must not call the allocator, stdio output, or system
# calls. snprintf/vsnprintf into caller or thread-local buffers is fine.
# Usage: check_core_purity.sh PATH-TO-libtessera-core.a
set -u
lib=${1:?usage: check_core_purity.sh LIBRARY}
forbidden='^(malloc|calloc|realloc|free|reallocarray|strdup|strndup|aligned_alloc|posix_memalign|printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|fputc|fwrite|perror|fopen|open|read|write|close|mmap|exit|abort|__assert_fail)$'
undefined=$(nm -u --format=posix "$lib" | awk '{print $1}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$undefined" | grep -E "$forbidden" || true)
if [[ -n $bad ]]; then
    echo "core references forbidden symbols:"
    printf '  %s\n' $bad
    echo "0 passed, 1 failed"
    exit 1
fi
echo "core references $(printf '%s\n' "$undefined" | wc -l) external symbols, none forbidden"
echo "1 passed, 0 failed"
