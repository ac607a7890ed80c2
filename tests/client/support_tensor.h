/* Test support for the tensor layer: the known-answer tables of
 * tests/client/data/ (written by gen_tensor_cases.py from PyTorch) checked
 * against tensors on any device, and the helpers they share.
 *
 * Every check takes a tensor_env, the (client, device) the tensors are made
 * on, so the same tables run on cpu and meta here and on opencl in the
 * daemon's integration tests: a test there links support_tensor.c and
 * ../conformance/support_table.c and calls tt_run_tables(&env, dir). Rows
 * that name a device of their own (cpu, cpu:0, meta) keep it. Values are
 * compared only where the env's device has data (not meta). */
#ifndef TESSERA_TESTS_CLIENT_SUPPORT_TENSOR_H
#define TESSERA_TESTS_CLIENT_SUPPORT_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/tessera.h"

typedef struct tensor_env {
    tsr_client *client; /* NULL for cpu and meta */
    tsr_device device;
} tensor_env;

/* Options that put a tensor of `dtype` on env's device. */
tsr_tensor_options tt_options(const tensor_env *env, tsr_dtype dtype);

/* torch.arange(numel, dtype=int64).to(dtype).reshape(sizes) on env's
 * device (through tsr_tensor_from_data). */
tsr_status tt_arange(const tensor_env *env, tsr_dtype dtype, int ndim, const int64_t *sizes,
                     tsr_tensor **out);

/* Applies a view chain ("permute [2,0,1] ; slice 0,1,-,2 ; t", the
 * grammar of views.txt) to `t`. On failure returns the failing step's
 * status with its message set (a malformed chain is reported with
 * table_fail and returns TSR_STATUS_COUNT). */
tsr_status tt_apply_chain(tsr_tensor *t, const char *chain, tsr_tensor **out);

/* The tensor's elements in row-major order converted to int64 (through
 * copy_to_host); *n is the count. Returns false (and reports) when the copy
 * fails or there are more than `max`. */
bool tt_values(const tsr_tensor *t, int64_t *values, int64_t max, int64_t *n);

/* Each table's check; `path` is the table's file. Return the number of
 * rows that failed. */
int tt_check_factories(const tensor_env *env, const char *path);
int tt_check_like(const tensor_env *env, const char *path);
int tt_check_views(const tensor_env *env, const char *path);
int tt_check_fill(const tensor_env *env, const char *path);
int tt_check_dims(const tensor_env *env, const char *path);

/* All of the above on the tables under `data_dir`; the failed rows in all. */
int tt_run_tables(const tensor_env *env, const char *data_dir);

#endif /* TESSERA_TESTS_CLIENT_SUPPORT_TENSOR_H */
