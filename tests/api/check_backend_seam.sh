#!/usr/bin/env bash
# Where OpenCL's names reach past opencl/: the daemon, the protocol, the
# public headers, libclient and the CLI speak of devices in backend-neutral
# terms, with OpenCL behind the daemon's backend interface. `allowed`
# below lists each file that names OpenCL's types, constants or headers,
# its own device type literal or the registry's OpenCL member, with how
# many lines do (one DLPack table now); a file that gains one is a leak past
# the backend interface. The test fails when a file not listed gains one,
# or when a count moves either way (a smaller count is progress: lower it
# here), so the list always says exactly what is left. Two files name
# OpenCL by right: the public list of device types
# (include/tessera/device.h) and the list of backends built into the
# daemon (daemon/backends.def); libclient/dlpack.c's table of DLPack's
# device types names the public type once, as DLPack itself does.
#   check_backend_seam.sh SOURCE_DIR
set -euo pipefail
root=$1
cd "$root"

allowed="
libclient/dlpack.c 1
"
pattern='\bcl_[a-z_0-9]+\b|\bCL_[A-Z_0-9]+\b|<CL/|#include "opencl/|TSR_DEVICE_OPENCL|(\.|->)cl\b|\bcl_buffer\b'

# (grep -v finds nothing when no file is left: not a failure)
actual=$(grep -rcE "$pattern" daemon libclient include cli core/protocol.h core/protocol.c |
    { grep -v ':0$' || true; } | { grep -v -e '^include/tessera/device.h:' -e '^daemon/backends.def:' || true; } |
    tr ':' ' ' | sort)
expected=$(printf '%s\n' "$allowed" | sed '/^$/d' | sort)
if [[ "$actual" != "$expected" ]]; then
    echo "OpenCL names outside opencl/ changed (file, lines):"
    diff <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") || true
    echo "(< the list in $0, > the tree; a new file or more lines is a leak past the backend"
    echo " interface, fewer lines is progress to record in the list)"
    exit 1
fi
total=$(printf '%s\n' "$actual" | awk '{n += $2} END {print n + 0}')
files=$(printf '%s\n' "$actual" | sed '/^$/d' | wc -l)
echo "OpenCL names outside opencl/: $total lines in $files files, as listed"
