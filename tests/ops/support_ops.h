/* The elementwise-op conformance cases (tests/ops/data/<family>.txt, written by
 * gen_ops_cases.py from PyTorch) run on a device through the public API.
 *
 * Each case builds its storages with tsr_tensor_from_data and its operands
 * as tsr_tensor_as_strided views of them, makes one call (add, sub, mul,
 * div in their new / out= / in-place forms, copy_, fill_, to, clone,
 * contiguous) and compares the outcome with PyTorch's: the status and the
 * exact message, or the result's dtype, sizes, strides and every value bit
 * for bit (any NaN matches any NaN), the written storage after the call and
 * every other storage untouched.
 *
 * The same cases run on cpu (tests/ops/test_ops_conformance.c) and on
 * opencl:0 in a real daemon (test_ops_opencl.c), which also compares the
 * two devices' answers with each other. */
#ifndef TESSERA_TESTS_OPS_SUPPORT_OPS_H
#define TESSERA_TESTS_OPS_SUPPORT_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/tessera.h"

/* Where a case's storages live. Rows whose storages are all unmarked put
 * them on `device`; in rows that mark some storages '@' (the mixed-device
 * cases) the marked ones go to `acc` and the others to cpu. */
typedef struct ops_env {
    tsr_client *client; /* NULL when only cpu and meta are used */
    tsr_device device;
    tsr_device acc;
    const char *acc_name; /* what "{acc}" in an expected message stands for */
} ops_env;

/* What one call did, as far as the comparison needs it. */
typedef struct ops_outcome {
    tsr_status status;
    char message[512];
    tsr_dtype dtype;
    int ndim;
    int64_t sizes[TSR_MAX_DIMS];
    int64_t strides[TSR_MAX_DIMS];
    int same;              /* the call returned its input itself: 1, else 0 */
    bool has_values;       /* false on meta */
    unsigned char *values; /* the result's elements, row-major */
    size_t nvalues;        /* bytes */
    bool has_after;        /* the written storage after the call */
    unsigned char *after;
    size_t nafter;
    char trouble[256]; /* a failure of the harness's own steps, "" when none */
} ops_outcome;

void ops_outcome_free(ops_outcome *o);

/* Verdicts of a file's cases. `unavailable` counts the cases that failed
 * with TSR_ERR_NOT_SUPPORTED "kernels on accelerators are not available";
 * `launched_ok` those that passed and had to run a kernel. */
typedef struct ops_stats {
    int cases, passed, failed, unavailable, launched_ok, device_mismatches;
} ops_stats;

/* Runs every case of the file at `path` on `env` and compares it with the
 * file's answers; with `twin` non-NULL, also runs it there and requires
 * the two outcomes to agree bit for bit (rows with '@' storages excepted).
 * Prints the first failures (OPS_MAX_PRINTED, default 30, per file) and a
 * summary line; adds to *stats. OPS_TRACE=1 names each case on stderr
 * before it runs (to find one that hangs); OPS_ONLY=<id> runs that case
 * alone. */
void ops_check_file(const ops_env *env, const ops_env *twin, const char *path, ops_stats *stats);

/* Whether libtessera has every operation the cases call (a library built
 * before they were all implemented lacks some); names the missing ones. */
bool ops_api_complete(void);

#endif /* TESSERA_TESTS_OPS_SUPPORT_OPS_H */
