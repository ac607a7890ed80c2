/* The OpenCL generator and the runtime's launches, through the real ICD
 * loader:
 *   1. every key of the conformance set (each arithmetic op x each
 *      compute dtype, with tensor and scalar inputs and a converting
 *      output; copy between every dtype pair; fill of every dtype) has a
 *      source for each walk it can take, and every dtype a generic
 *      program and each dtype a reduction computes in a reduction
 *      program, one kernel each;
 *   2. every one of those keys runs on the first OpenCL device through
 *      opencl/runtime.c on the generic program of its common dtype, and a
 *      sample of them (sampled) on their own programs too, in every walk
 *      of core/kernel.h (rows where every operand steps by one, an input
 *      standing still, transposed and permuted tiles with ragged edges, a
 *      third dimension, more dimensions through `geom`, storage offsets,
 *      zero strides, one element), and leave their output buffers bit for
 *      bit as the cpu's conversions and row loops (kernels/cpu_loops.c)
 *      leave them when called element by element, elements outside the
 *      index space included;
 *   3. float16: every code decodes, and float32 values on both sides of
 *      every rounding boundary encode, as the host routines do, through
 *      copies and through float16 arithmetic that rounds inside, on both
 *      kinds of program;
 *   4. an integer division by zero raises the status flag and leaves
 *      exactly the elements with a zero divisor unwritten, in every walk,
 *      on both kinds of program.
 * Skips (77) when there is no OpenCL platform. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/convert_scalar.h"
#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/launch.h"
#include "opencl/source.h"
#include "opencl/runtime.h"
#include "test.h"

static cl_context ctx;
static cl_device_id dev;
static unsigned caps;

static const tsr_dtype computes[] = {TSR_BOOL,      TSR_UINT8,   TSR_INT8,      TSR_INT16,
                                     TSR_INT32,     TSR_INT64,   TSR_FLOAT16,   TSR_BFLOAT16,
                                     TSR_FLOAT32,   TSR_FLOAT64, TSR_COMPLEX32, TSR_COMPLEX64,
                                     TSR_COMPLEX128};
/* Every operation with two inputs, from the op table. */
#define ARITH_0(ENUM)
#define ARITH_1(ENUM)
#define ARITH_2(ENUM) TSR__KOP_##ENUM,
#define ARITH_3(ENUM)
static const tsr__kernel_op arith[] = {
#define X(ENUM, wire, name, stub, arity, ...) ARITH_##arity(ENUM)
#include "core/ops.def"
#undef X
};
/* Every operation with three inputs. */
#define TERNARY_0(ENUM)
#define TERNARY_1(ENUM)
#define TERNARY_2(ENUM)
#define TERNARY_3(ENUM) TSR__KOP_##ENUM,
static const tsr__kernel_op ternary[] = {
#define X(ENUM, wire, name, stub, arity, ...) TERNARY_##arity(ENUM)
#include "core/ops.def"
#undef X
};

/* ---- keys ------------------------------------------------------------------ */

static bool wanted(const tsr__kernel_key *key)
{
    return tsr__kernel_key_check(key, caps) == TSR_OK;
}

/* The arithmetic keys: tensor inputs; a scalar second input; an int16
 * first input converted in and the result converted to float64. */
static tsr__kernel_key arith_key(tsr__kernel_op op, tsr_dtype common, int variant)
{
    tsr__kernel_key key = {.op = (uint8_t)op,
                           .entry = TSR__KWALK_STRIDED,
                           .common = (uint8_t)common,
                           .noperands = 3,
                           .dtypes = {(uint8_t)common, (uint8_t)common, (uint8_t)common}};
    if (variant == 1)
        key.dtypes[2] = TSR__KEY_SCALAR;
    if (variant == 2)
        key.dtypes[0] = TSR_FLOAT64, key.dtypes[1] = TSR_INT16;
    return key;
}

/* The keys of three inputs: tensors; a bool first input (where's
 * condition) and a scalar third; two scalars (one where the operation
 * takes a value besides) after a uint8 first input and a float64 output. */
static tsr__kernel_key ternary_key(tsr__kernel_op op, tsr_dtype common, int variant)
{
    tsr__kernel_key key = {
        .op = (uint8_t)op,
        .entry = TSR__KWALK_STRIDED,
        .common = (uint8_t)common,
        .noperands = 4,
        .dtypes = {(uint8_t)common, (uint8_t)common, (uint8_t)common, (uint8_t)common}};
    if (variant == 1)
        key.dtypes[1] = TSR_BOOL, key.dtypes[3] = TSR__KEY_SCALAR;
    if (variant == 2)
        key.dtypes[0] = TSR_FLOAT64, key.dtypes[1] = TSR_UINT8, key.dtypes[3] = TSR__KEY_SCALAR;
    if (variant == 2 && tsr__kernel_scalar_max(op) > 1)
        key.dtypes[2] = TSR__KEY_SCALAR;
    return key;
}

static tsr__kernel_key copy_key(tsr_dtype dst, tsr_dtype src)
{
    tsr__kernel_key key = {.op = TSR__KOP_COPY,
                           .entry = TSR__KWALK_STRIDED,
                           .common = (uint8_t)dst,
                           .noperands = 2,
                           .dtypes = {(uint8_t)dst, (uint8_t)src}};
    return key;
}

static tsr__kernel_key fill_key(tsr_dtype d)
{
    tsr__kernel_key key = {.op = TSR__KOP_FILL,
                           .entry = TSR__KWALK_STRIDED,
                           .common = (uint8_t)d,
                           .noperands = 1,
                           .dtypes = {(uint8_t)d}};
    return key;
}

/* ---- sources --------------------------------------------------------------- */

static char one_src[1 << 19]; /* opencl/runtime.c's SOURCE_MAX */

/* Every entry the conformance set's keys can take has a source, and so
 * has the generic program of every dtype: one kernel each. (The programs
 * that run below are also built: the generic ones and the sampled keys'
 * own.) */
static int sources;

static void source_of_key(const tsr__kernel_key *key)
{
    size_t len;
    tsr_status st = tsr__opencl_source(key, caps, one_src, sizeof one_src, &len);
    if (st != TSR_OK)
        fprintf(stderr, "no source for op %d common %d entry %d: %s\n", key->op, key->common,
                key->entry, tsr_last_error());
    ASSERT_OK(st);
    const char *head = st == TSR_OK ? strstr(one_src, "__kernel void tsr_kernel(") : NULL;
    ASSERT_TRUE(head != NULL && strstr(head + 1, "__kernel ") == NULL);
    sources++;
}

static void add_key(const tsr__kernel_key *key)
{
    int entries = 0;
    for (int e = 0; e < TSR__KENTRY_COUNT; e++) {
        tsr__kernel_key with = *key;
        with.entry = (uint8_t)e;
        if (e != TSR__KENTRY_GENERIC && tsr__kernel_key_check(&with, caps) == TSR_OK) {
            source_of_key(&with);
            entries++;
        }
    }
    ASSERT_TRUE(entries >= 1);
}

/* The keys `make` gives for each of `n` operations, every compute dtype
 * and variant, added where the device takes them; returns the refused. */
static int add_op_keys(const tsr__kernel_op *ops, size_t n,
                       tsr__kernel_key (*make)(tsr__kernel_op, tsr_dtype, int))
{
    int refused = 0;
    for (size_t o = 0; o < n; o++)
        for (size_t c = 0; c < TSR__ARRAY_SIZE(computes); c++)
            for (int variant = 0; variant < 3; variant++) {
                tsr__kernel_key key = make(ops[o], computes[c], variant);
                if (wanted(&key))
                    add_key(&key);
                else
                    refused++;
            }
    return refused;
}

static void check_sources(void)
{
    int refused = add_op_keys(arith, TSR__ARRAY_SIZE(arith), arith_key);
    refused += add_op_keys(ternary, TSR__ARRAY_SIZE(ternary), ternary_key);
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        for (int s = 0; s < TSR_DTYPE_COUNT; s++) {
            tsr__kernel_key key = copy_key((tsr_dtype)d, (tsr_dtype)s);
            if (wanted(&key))
                add_key(&key);
        }
        tsr__kernel_key fill = fill_key((tsr_dtype)d);
        ASSERT_TRUE(wanted(&fill));
        add_key(&fill);
        tsr__kernel_key any = tsr__kernel_generic_key((tsr_dtype)d);
        if (wanted(&any))
            source_of_key(&any);
    }
    printf("%d sources (%d keys refused as PyTorch refuses them)\n", sources, refused);
}

/* The reduction programs' keys (core/kernel.h, "A reduction"): one per
 * dtype a reduction computes in, each with a source of one kernel; a
 * reduction's own key names the program's entry and checks its dtypes. */
static void check_reduce_keys(void)
{
    int programs = 0;
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        tsr__kernel_key key = tsr__kernel_reduce_key((tsr_dtype)d);
        ASSERT_EQ(key.entry, TSR__KENTRY_REDUCE);
        bool reduces = d == TSR_BOOL || d == TSR_UINT8 || d == TSR_INT8 || d == TSR_INT16 ||
                       d == TSR_INT32 || d == TSR_INT64 || d == TSR_FLOAT16 || d == TSR_BFLOAT16 ||
                       d == TSR_FLOAT32 || d == TSR_FLOAT64 || d == TSR_COMPLEX32 ||
                       d == TSR_COMPLEX64 || d == TSR_COMPLEX128;
        tsr_status st = tsr__kernel_key_check(&key, TSR__KCAP_FP64);
        ASSERT_EQ(st, reduces ? TSR_OK : TSR_ERR_NOT_SUPPORTED);
        if (st == TSR_OK && tsr__kernel_key_check(&key, caps) == TSR_OK) {
            source_of_key(&key);
            programs++;
        }
    }
    ASSERT_TRUE(programs >= 11);
    ASSERT_EQ(strcmp(tsr__kernel_entry_name(TSR__KENTRY_REDUCE), "reduce"), 0);
    /* sum of a float16 [4, 5] over dim 1 */
    tsr__kernel k = {.op = TSR__KOP_SUM, .common = TSR_FLOAT16, .ndim = 2, .noperands = 2};
    k.sizes[0] = 4;
    k.sizes[1] = 5;
    k.operands[0] = (tsr__kernel_operand){.dtype = TSR_FLOAT16, .strides = {1, 0}};
    k.operands[1] = (tsr__kernel_operand){.dtype = TSR_INT8, .strides = {5, 1}};
    tsr__kernel_key key;
    ASSERT_OK(tsr__kernel_key_of(&k, &key));
    ASSERT_EQ(key.entry, TSR__KENTRY_REDUCE);
    uint64_t outputs = 0, each = 0;
    tsr__kernel_reduce_counts(&k, &outputs, &each);
    ASSERT_TRUE(outputs == 4 && each == 5);
    tsr__kernel_geometry g;
    tsr__kernel_launch_geometry(&k, 2, 0, &g);
    ASSERT_TRUE(g.size[0] == 4 && g.size[1] == 5 && g.block[1] == 1 && g.block[3] == 1);
    ASSERT_TRUE(g.geom_count == 6 && g.geom[0] == 4 && g.geom[1] == 5 && g.geom[2] == 1 &&
                g.geom[3] == 0 && g.geom[4] == 5 && g.geom[5] == 1);
    /* an output of another dtype, a scalar input, an elementwise walk */
    tsr__kernel bad = k;
    bad.operands[0].dtype = TSR_FLOAT32;
    ASSERT_FAIL(tsr__kernel_key_of(&bad, &key), TSR_ERR_INVALID_ARGUMENT, NULL);
    bad = k;
    bad.operands[1].flags = TSR__KOPERAND_SCALAR;
    ASSERT_FAIL(tsr__kernel_key_of(&bad, &key), TSR_ERR_INVALID_ARGUMENT, NULL);
    bad.op = TSR__KOP_ARGMAX;
    bad.operands[1].flags = 0;
    bad.common = bad.operands[1].dtype = TSR_COMPLEX64;
    bad.operands[0].dtype = TSR_INT64;
    ASSERT_FAIL(tsr__kernel_key_of(&bad, &key), TSR_ERR_NOT_SUPPORTED,
                "\"argmax_cpu\" not implemented for 'ComplexFloat'");
    ASSERT_OK(tsr__kernel_key_of(&k, &key));
    key.entry = TSR__KWALK_STRIDED;
    ASSERT_FAIL(tsr__kernel_key_check(&key, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    tsr__kernel_key add = {.op = TSR__KOP_ADD,
                           .entry = TSR__KENTRY_REDUCE,
                           .common = TSR_FLOAT32,
                           .noperands = 3,
                           .dtypes = {TSR_FLOAT32, TSR_FLOAT32, TSR_FLOAT32}};
    ASSERT_FAIL(tsr__kernel_key_check(&add, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
}

/* The GEMM programs' keys (core/kernel.h, "Matrix products"): float16,
 * bfloat16 and the integers the cpu multiplies have one, with one kernel;
 * other dtypes and keys with anything else set are refused. (They are
 * built and run in kernels-opencl-gemm.) */
static void check_gemm_keys(void)
{
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        tsr__kernel_key key = tsr__kernel_gemm_key((tsr_dtype)d);
        ASSERT_EQ(key.entry, TSR__KENTRY_GEMM);
        if (tsr__kernel_gemm_has((tsr_dtype)d)) {
            ASSERT_OK(tsr__kernel_key_check(&key, 0));
            source_of_key(&key);
        } else {
            ASSERT_FAIL(tsr__kernel_key_check(&key, caps), TSR_ERR_NOT_SUPPORTED, NULL);
        }
    }
    ASSERT_TRUE(tsr__kernel_gemm_has(TSR_INT32) && !tsr__kernel_gemm_has(TSR_UINT16) &&
                !tsr__kernel_gemm_has(TSR_FLOAT32) && !tsr__kernel_gemm_has(TSR_BOOL));
    tsr__kernel_key bad = tsr__kernel_gemm_key(TSR_INT32);
    bad.op = TSR__KOP_ADD;
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_EQ(strcmp(tsr__kernel_entry_name(TSR__KENTRY_GEMM), "gemm"), 0);
}

/* The generic programs' keys and launch arguments. */
static void check_generic(void)
{
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        tsr__kernel_key any = tsr__kernel_generic_key((tsr_dtype)d);
        ASSERT_EQ(any.entry, TSR__KENTRY_GENERIC);
        bool fp64 = d == TSR_FLOAT64 || d == TSR_COMPLEX128;
        ASSERT_EQ(tsr__kernel_key_check(&any, TSR__KCAP_FP64), TSR_OK);
        if (fp64)
            ASSERT_FAIL(tsr__kernel_key_check(&any, 0), TSR_ERR_NOT_SUPPORTED, NULL);
        else
            ASSERT_OK(tsr__kernel_key_check(&any, 0));
    }
    /* anything but op 0, no operands and zeros is refused */
    tsr__kernel_key bad = tsr__kernel_generic_key(TSR_FLOAT32);
    bad.op = TSR__KOP_ADD;
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    bad = tsr__kernel_generic_key(TSR_FLOAT32);
    bad.dtypes[1] = TSR_FLOAT32;
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    bad = tsr__kernel_generic_key(TSR_FLOAT32);
    bad.common = TSR_DTYPE_COUNT;
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_EQ(strcmp(tsr__kernel_entry_name(TSR__KENTRY_GENERIC), "generic"), 0);
    /* kind: the operation, the output's dtype, the inputs' (scalar, none) */
    tsr__kernel k = {.op = TSR__KOP_ADD, .common = TSR_FLOAT32, .noperands = 3};
    k.operands[0].dtype = TSR_FLOAT64;
    k.operands[1].dtype = TSR_INT16;
    k.operands[2] = (tsr__kernel_operand){.dtype = TSR_FLOAT32, .flags = TSR__KOPERAND_SCALAR};
    uint32_t kind[4];
    tsr__kernel_generic_kind(&k, kind);
    ASSERT_EQ(kind[0], TSR__KOP_ADD);
    ASSERT_EQ(kind[1], TSR_FLOAT64);
    ASSERT_EQ(kind[2], TSR_INT16 | TSR__KEY_SCALAR << 8 | TSR__KGENERIC_NONE << 16);
    ASSERT_EQ(kind[3], 2);
    k = (tsr__kernel){.op = TSR__KOP_FILL, .common = TSR_BOOL, .noperands = 1};
    tsr__kernel_generic_kind(&k, kind);
    ASSERT_EQ(kind[1], TSR_BOOL);
    ASSERT_EQ(kind[2], 0xfefefeu);
    ASSERT_EQ(kind[3], 1);
    /* three inputs: a bool condition, a scalar, a float16 tensor */
    k = (tsr__kernel){.op = TSR__KOP_WHERE, .common = TSR_FLOAT32, .noperands = 4};
    k.operands[0].dtype = TSR_FLOAT32;
    k.operands[1].dtype = TSR_BOOL;
    k.operands[2] = (tsr__kernel_operand){.dtype = TSR_FLOAT32, .flags = TSR__KOPERAND_SCALAR};
    k.operands[3].dtype = TSR_FLOAT16;
    tsr__kernel_generic_kind(&k, kind);
    ASSERT_EQ(kind[2], TSR_BOOL | TSR__KEY_SCALAR << 8 | (uint32_t)TSR_FLOAT16 << 16);
    ASSERT_EQ(kind[3], 3);
}

/* The keys whose own programs run too, in every walk they have, beside
 * the generic program that runs every key: each operation in float32
 * (every walk, its vector rows and add/sub's alpha loops), then one more
 * dtype class per operation (float16 and bfloat16 with their own
 * conversions, a scalar input in float64, complex64, integer division's
 * zero check, an int16 input converted in and a float64 output out), a
 * copy into and out of each floating family and fills. Building every
 * key's every walk takes PoCL tens of minutes; the generator is one
 * piece of code for all of them, and the generic programs prove each
 * key's element code. */
static bool sampled(const tsr__kernel_key *key)
{
    static const struct {
        uint8_t op, common, variant;
    } arith_sample[] = {
        {TSR__KOP_ADD, TSR_FLOAT32, 0},       {TSR__KOP_SUB, TSR_FLOAT32, 0},
        {TSR__KOP_MUL, TSR_FLOAT32, 0},       {TSR__KOP_DIV, TSR_FLOAT32, 0},
        {TSR__KOP_DIV_TRUNC, TSR_FLOAT32, 0}, {TSR__KOP_DIV_FLOOR, TSR_FLOAT32, 0},
        {TSR__KOP_ADD, TSR_FLOAT16, 0},       {TSR__KOP_SUB, TSR_BFLOAT16, 0},
        {TSR__KOP_MUL, TSR_FLOAT64, 1},       {TSR__KOP_DIV, TSR_COMPLEX64, 0},
        {TSR__KOP_DIV_TRUNC, TSR_INT32, 0},   {TSR__KOP_DIV_FLOOR, TSR_INT64, 1},
        {TSR__KOP_ADD, TSR_FLOAT32, 2},
    };
    static const uint8_t copy_sample[][2] = {
        {TSR_FLOAT32, TSR_FLOAT32},
        {TSR_FLOAT32, TSR_FLOAT16},
        {TSR_FLOAT16, TSR_FLOAT32},
        {TSR_BFLOAT16, TSR_FLOAT64},
        {TSR_INT32, TSR_FLOAT32},
        {TSR_FLOAT32, TSR_INT64},
        {TSR_COMPLEX64, TSR_COMPLEX128},
        {TSR_BOOL, TSR_FLOAT32},
        {TSR_FLOAT8_E4M3FN, TSR_FLOAT32},
        {TSR_UINT8, TSR_BOOL},
        {TSR_FLOAT4_E2M1FN_X2, TSR_FLOAT4_E2M1FN_X2},
    };
    static const uint8_t fill_sample[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_COMPLEX128, TSR_BOOL};
    if (key->op == TSR__KOP_COPY) {
        for (size_t i = 0; i < TSR__ARRAY_SIZE(copy_sample); i++)
            if (key->dtypes[0] == copy_sample[i][0] && key->dtypes[1] == copy_sample[i][1])
                return true;
        return false;
    }
    if (key->op == TSR__KOP_FILL)
        return memchr(fill_sample, key->common, sizeof fill_sample) != NULL;
    if (key->noperands == 4) { /* where in float32 and complex64, every variant */
        for (int v = 0; v < 3; v++)
            for (int c = 0; c < 2; c++) {
                tsr__kernel_key want =
                    ternary_key((tsr__kernel_op)key->op, c ? TSR_COMPLEX64 : TSR_FLOAT32, v);
                if (memcmp(key->dtypes, want.dtypes, sizeof want.dtypes) == 0 &&
                    key->common == want.common)
                    return true;
            }
        return false;
    }
    for (size_t i = 0; i < TSR__ARRAY_SIZE(arith_sample); i++) {
        tsr__kernel_key want =
            arith_key((tsr__kernel_op)arith_sample[i].op, (tsr_dtype)arith_sample[i].common,
                      arith_sample[i].variant);
        if (memcmp(key->dtypes, want.dtypes, sizeof want.dtypes) == 0 && key->op == want.op &&
            key->common == want.common)
            return true;
    }
    return false;
}

/* ---- the runtime ----------------------------------------------------------- */

static tsr__clrt *rt;
static uint32_t units;
/* Launches store around the caches from this many output bytes: both
 * ways are run (0: never, 1: always, where the walk can). */
static uint64_t stream_bytes;

static size_t source_of(const tsr__kernel_key *key, bool fp64, char *buf, size_t cap)
{
    size_t length = 0;
    tsr_status st = tsr__opencl_source(key, fp64 ? TSR__KCAP_FP64 : 0, buf, cap, &length);
    return st == TSR_OK ? length : st == TSR_ERR_BUFFER_TOO_SMALL ? cap : 0;
}

static void open_runtime(cl_platform_id platform)
{
    static tsr__cl_device_info info;
    cl_uint np = 0, nd = 0, cu = 0;
    clGetPlatformIDs(0, NULL, &np);
    cl_platform_id all[16];
    clGetPlatformIDs(np < 16 ? np : 16, all, NULL);
    for (cl_uint k = 0; k < np && k < 16; k++)
        if (all[k] == platform)
            info.platform_index = k;
    cl_device_id ids[16];
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, ids, &nd);
    for (cl_uint k = 0; k < nd && k < 16; k++)
        if (ids[k] == dev)
            info.device_index = k;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof info.name - 1, info.name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof info.vendor - 1, info.vendor, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof info.driver_version - 1, info.driver_version,
                    NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    info.compute_units = cu;
    info.fp64 = caps & TSR__KCAP_FP64;
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    info.host_unified_memory = unified;
    tsr__clrt_config config = {.devices = &info,
                               .count = 1,
                               .cache_dir = NULL,
                               .notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC),
                               .source = source_of};
    ASSERT_OK(tsr__clrt_create(&config, &rt));
    units = tsr__clrt_compute_units(rt, 0);
}

static tsr__clrt_program *program_for(const tsr__kernel_key *key)
{
    tsr__clrt_program *p = tsr__clrt_program_get(rt, 0, key, TSR__BUILD_NOW);
    ASSERT_TRUE(p != NULL);
    while (p && tsr__clrt_program_state(p) == TSR__PROGRAM_PENDING)
        usleep(1000);
    if (p && tsr__clrt_program_state(p) != TSR__PROGRAM_READY) {
        fprintf(stderr, "op %d common %d: %s\n", key->op, key->common, tsr__clrt_program_error(p));
        ASSERT_TRUE(false);
        return NULL;
    }
    return p;
}

typedef struct completion {
    _Atomic int done;
    tsr_status status;
} completion;

static void on_done(void *data, tsr_status status, const char *message)
{
    completion *c = data;
    (void)message;
    c->status = status;
    atomic_store(&c->done, 1);
}

/* Whether launches run on the generic program of their common dtype
 * rather than their key's own. */
static bool generic_mode;

/* Runs `k` over host buffers (one per operand, NULL for a scalar) as the
 * daemon does; returns how it completed. */
static tsr_status launch(const tsr__kernel *k, unsigned char *const *bases, const uint64_t *bytes)
{
    tsr__kernel_key key;
    ASSERT_OK(tsr__kernel_key_of(k, &key));
    tsr__kernel_key any = tsr__kernel_generic_key((tsr_dtype)key.common);
    tsr__clrt_program *p = program_for(generic_mode ? &any : &key);
    if (!p)
        return TSR_ERR_DEVICE;
    tsr__backend_launch l = {.check_status = tsr__kernel_op_has(k->op, TSR__KOPF_ZERO_CHECK)};
    memcpy(l.scalar, k->scalar, sizeof l.scalar);
    memcpy(l.alpha, k->alpha, sizeof l.alpha);
    tsr__kernel_launch_geometry(k, units, stream_bytes, &l.geometry);
    for (uint32_t i = 0; i < k->noperands; i++) {
        if (k->operands[i].flags & TSR__KOPERAND_SCALAR)
            continue;
        uint32_t b = l.nbuffers++;
        ASSERT_OK(tsr__clrt_buffer(rt, 0, bases[i], bytes[i], &l.buffers[b]));
        l.offsets[b] =
            (uint64_t)k->operands[i].offset * tsr_dtype_itemsize((tsr_dtype)k->operands[i].dtype);
        /* what a device with memory of its own copies: the rest of the buffer */
        l.extents[b] = bytes[i] > l.offsets[b] ? bytes[i] - l.offsets[b] : 0;
    }
    uint32_t own = l.nbuffers;
    if (generic_mode) { /* as the daemon pads them: the output's buffer, no span */
        l.generic = true;
        tsr__kernel_generic_kind(k, l.kind);
        for (; l.nbuffers < TSR__KGENERIC_SLOTS; l.nbuffers++)
            l.buffers[l.nbuffers] = l.buffers[0];
    }
    completion c = {.status = TSR_OK};
    atomic_init(&c.done, 0);
    tsr_status st = tsr__clrt_enqueue(rt, 0, p, &l, on_done, &c);
    ASSERT_OK(st);
    while (st == TSR_OK && !atomic_load(&c.done))
        sched_yield();
    for (uint32_t b = 0; b < own; b++)
        tsr__clrt_buffer_release(l.buffers[b]);
    return st == TSR_OK ? c.status : st;
}

/* ---- values ---------------------------------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    return test_next_u64(&rng);
}

/* A NaN of a real IEEE dtype with a random sign and payload, quiet or
 * signalling; false for the others. */
static bool make_nan(tsr_dtype d, unsigned char *p)
{
    uint64_t r = next(), sign = r >> 63;
    int mant = d == TSR_FLOAT16 ? 10 : d == TSR_BFLOAT16 ? 7 : d == TSR_FLOAT32 ? 23 : 52;
    int bits = d == TSR_FLOAT64 ? 64 : d == TSR_FLOAT32 ? 32 : 16;
    if (d != TSR_FLOAT16 && d != TSR_BFLOAT16 && d != TSR_FLOAT32 && d != TSR_FLOAT64)
        return false;
    uint64_t m = r & ((UINT64_C(1) << mant) - 1);
    uint64_t v =
        (sign << (bits - 1)) | (((UINT64_C(1) << (bits - 1 - mant)) - 1) << mant) | (m ? m : 1);
    memcpy(p, &v, (size_t)bits / 8);
    return true;
}

/* Element bits worth testing: random bits (NaNs, infinities, subnormals
 * included), small integers, +-0, +-inf, the smallest subnormals and
 * the float16 overflow edge spelled out, and NaNs of every sign and
 * payload often enough that two of them meet. */
static void fill_values(tsr_dtype d, unsigned char *p, size_t n, bool nonzero)
{
    static const double special[] = {0.0,      -0.0,    1.0 / 0.0, -1.0 / 0.0, 5.9604645e-8,
                                     -1.0e-40, 65504.0, 65520.0,   3.0e38,     -2.5e-310};
    static const int64_t small[] = {-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6};
    size_t w = tsr_dtype_itemsize(d);
    bool floating = tsr_dtype_is_floating_point(d) || tsr_dtype_is_complex(d);
    tsr_dtype part = tsr_dtype_to_real(d);
    /* the small integers and the special values in d, converted once
     * (none where d takes no conversion: float4_e2m1fn_x2 keeps its
     * random bits) */
    unsigned char small_d[TSR__ARRAY_SIZE(small)][16], special_d[TSR__ARRAY_SIZE(special)][16];
    bool has_small =
        tsr_cast_buffer(small, TSR_INT64, small_d, d, TSR__ARRAY_SIZE(small)) == TSR_OK;
    bool has_special = floating && tsr_cast_buffer(special, TSR_FLOAT64, special_d, d,
                                                   TSR__ARRAY_SIZE(special)) == TSR_OK;
    for (size_t i = 0; i < n; i++) {
        uint64_t v[2] = {next(), next()};
        if (i % 3 == 0) { /* small integers keep division interesting */
            if (has_small)
                memcpy(v, small_d[v[0] % TSR__ARRAY_SIZE(small)], w);
        } else if (i % 7 == 1 && floating) {
            if (has_special)
                memcpy(v, special_d[v[0] % TSR__ARRAY_SIZE(special)], w);
        } else if (i % 5 == 2 && floating) {
            size_t half = tsr_dtype_itemsize(part);
            make_nan(part, (unsigned char *)v + (tsr_dtype_is_complex(d) && (v[1] & 1) ? half : 0));
        }
        if (d == TSR_BOOL)
            v[0] &= 1;
        memcpy(p + i * w, v, w);
        if (nonzero && (d == TSR_BOOL || tsr_dtype_is_integral(d))) {
            bool zero = true;
            for (size_t b = 0; b < w; b++)
                zero &= p[i * w + b] == 0;
            if (zero)
                p[i * w] = 1;
        }
    }
}

/* Whether an element of dtype d is a NaN (either part of a complex one):
 * by its bits in the IEEE formats, through float64 in the others. */
static bool is_nan(tsr_dtype d, const unsigned char *x)
{
    if (!tsr_dtype_is_floating_point(d) && !tsr_dtype_is_complex(d))
        return false;
    tsr_dtype part = tsr_dtype_to_real(d);
    size_t w = tsr_dtype_itemsize(part);
    for (int h = 0; h < (tsr_dtype_is_complex(d) ? 2 : 1); h++) {
        uint64_t bits = 0, exp, mant;
        memcpy(&bits, x + h * w, w); /* little-endian, as every dtype */
        switch (part) {
        case TSR_FLOAT16:
            exp = 0x7C00, mant = 0x03FF;
            break;
        case TSR_BFLOAT16:
            exp = 0x7F80, mant = 0x007F;
            break;
        case TSR_FLOAT32:
            exp = 0x7F800000, mant = 0x007FFFFF;
            break;
        case TSR_FLOAT64:
            exp = UINT64_C(0x7FF0000000000000), mant = UINT64_C(0x000FFFFFFFFFFFFF);
            break;
        default: {
            double v;
            tsr_cast_buffer(x + h * w, part, &v, TSR_FLOAT64, 1);
            if (v != v)
                return true;
            continue;
        }
        }
        if ((bits & exp) == exp && (bits & mant) != 0)
            return true;
    }
    return false;
}

/* Equal bits. Two NaNs match where which NaN survives is not defined: in
 * complex arithmetic (docs/semantics.md), also once a complex result is
 * converted to a real dtype, and where both inputs of an operation are
 * NaNs (`loose`): the cpu's loops keep the first input's in some paths
 * and the second's in others (its fused add with alpha, the remainders
 * of its vector loops), and the OpenCL kernels keep the first's. */
static bool same_bits(tsr_dtype d, const unsigned char *x, const unsigned char *y, bool loose)
{
    size_t w = tsr_dtype_itemsize(d);
    if (memcmp(x, y, w) == 0)
        return true;
    if (loose)
        return is_nan(d, x) && is_nan(d, y);
    if (!tsr_dtype_is_complex(d))
        return false;
    tsr_dtype part = tsr_dtype_to_real(d);
    for (size_t h = 0; h < 2; h++)
        if (memcmp(x + h * w / 2, y + h * w / 2, w / 2) != 0 &&
            !(is_nan(part, x + h * w / 2) && is_nan(part, y + h * w / 2)))
            return false;
    return true;
}

/* Compares n elements; `loose` (or NULL) marks those where two NaNs
 * match whatever their bits. */
static int compare(const char *what, tsr_dtype d, const unsigned char *got,
                   const unsigned char *want, size_t n, const bool *loose)
{
    size_t w = tsr_dtype_itemsize(d), bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!same_bits(d, got + i * w, want + i * w, loose && loose[i]) && bad++ < 3) {
            fprintf(stderr, "%s [%zu]: got ", what, i);
            for (size_t b = 0; b < w; b++)
                fprintf(stderr, "%02x", got[i * w + b]);
            fprintf(stderr, " want ");
            for (size_t b = 0; b < w; b++)
                fprintf(stderr, "%02x", want[i * w + b]);
            fprintf(stderr, "\n");
        }
    ASSERT_EQ(bad, 0);
    return bad != 0;
}

/* ---- the cpu's answer, element by element ----------------------------------- */

/* What the cpu device leaves in operand 0's buffer: each element of the
 * index space converted in, computed by the row loop over one element
 * and converted out; an integer division by zero leaves its element.
 * loose[e] (when not NULL) tells the output elements whose operation met
 * two NaNs, or that are complex results converted to a real dtype. */
static void reference(const tsr__kernel *k, unsigned char *const *bases, const uint64_t *bytes,
                      bool *loose)
{
    tsr_dtype common = (tsr_dtype)k->common, out = (tsr_dtype)k->operands[0].dtype;
    tsr__kernel_row row = k->op == TSR__KOP_FILL || k->op == TSR__KOP_COPY
                              ? NULL
                              : tsr__kernel_row_for(k->op, common);
    size_t cw = tsr_dtype_itemsize(common), ow = tsr_dtype_itemsize(out);
    /* Each input's whole buffer converted to the common dtype, and every
     * result converted out, in one call each: a conversion takes each
     * element on its own (as the float16 checks below rely on too), so
     * an element converts as it would alone, at a fraction of the cost
     * of a call per element (under the sanitizers above all). */
    unsigned char *converted[TSR__KERNEL_MAX_OPERANDS] = {NULL};
    for (uint32_t i = 1; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & TSR__KOPERAND_SCALAR)
            continue;
        size_t n = bytes[i] / tsr_dtype_itemsize((tsr_dtype)o->dtype);
        converted[i] = malloc(n * cw);
        ASSERT_TRUE(converted[i] != NULL);
        ASSERT_OK(tsr__kernel_convert(bases[i], (tsr_dtype)o->dtype, converted[i], common, n));
    }
    size_t nout = bytes[0] / ow;
    unsigned char *results = calloc(nout, cw);
    bool *written = calloc(nout, sizeof *written);
    ASSERT_TRUE(results != NULL && written != NULL);
    int64_t idx[TSR_MAX_DIMS] = {0};
    for (;;) {
        int64_t e[TSR__KERNEL_MAX_OPERANDS];
        for (uint32_t i = 0; i < k->noperands; i++) {
            e[i] = k->operands[i].offset;
            for (int d = 0; d < k->ndim; d++)
                e[i] += idx[d] * k->operands[i].strides[d];
        }
        /* a row for each operand slot: gcc's -O2 range check counts the
         * loop's bound, not the three inputs a row takes */
        unsigned char in[TSR__KERNEL_MAX_OPERANDS][16] = {{0}}, res[16] = {0};
        int scalars = 0;
        for (uint32_t i = 1; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
            if (k->operands[i].flags & TSR__KOPERAND_SCALAR)
                memcpy(in[i - 1], scalars++ ? k->alpha : k->scalar, sizeof in[0]);
            else
                memcpy(in[i - 1], converted[i] + e[i] * (int64_t)cw, cw);
        }
        bool write = true;
        if (loose && row)
            loose[e[0]] = (is_nan(common, in[0]) && is_nan(common, in[1])) ||
                          (tsr_dtype_is_complex(common) && !tsr_dtype_is_complex(out));
        if (k->op == TSR__KOP_FILL) {
            memcpy(res, k->scalar, sizeof res);
        } else if (k->op == TSR__KOP_COPY) {
            memcpy(res, in[0], sizeof res);
        } else {
            int64_t step[4] = {(int64_t)cw, (int64_t)cw, (int64_t)cw, (int64_t)cw};
            int bad = 0;
            row(res, in[0], in[1], in[2], 1, step, tsr__kernel_row_alpha(k), &bad);
            write = !bad;
            /* lerp, addcmul and addcdiv fuse and negate: which NaN (and
             * which sign of it) comes out depends on the compiler's fma */
            if (loose && (k->op == TSR__KOP_LERP || tsr__kernel_op_has(k->op, TSR__KOPF_VALUE)))
                loose[e[0]] |= is_nan(common, res);
        }
        if (write) {
            memcpy(results + e[0] * (int64_t)cw, res, cw);
            written[e[0]] = true;
        }
        int d = k->ndim - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < k->sizes[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
    unsigned char *conv = malloc(nout * ow);
    ASSERT_TRUE(conv != NULL);
    ASSERT_OK(tsr__kernel_convert(results, common, conv, out, nout));
    for (size_t i = 0; i < nout; i++)
        if (written[i])
            memcpy(bases[0] + i * ow, conv + i * ow, ow);
    free(conv);
    free(written);
    free(results);
    for (int i = 0; i < TSR__KERNEL_MAX_OPERANDS; i++)
        free(converted[i]);
}

/* ---- layouts ---------------------------------------------------------------- */

/* An index space and where each operand (output, input 1, input 2) keeps
 * it; `walk` is the walk a float32 add with three tensors takes. */
typedef struct layout {
    const char *name;
    int ndim;
    int64_t sizes[6];
    int64_t strides[3][6];
    int64_t offsets[3];
    int walk;
} layout;

static const layout layouts[] = {
    {"contiguous", 1, {1031}, {{1}, {1}, {1}}, {3, 5, 0}, TSR__KWALK_UNIT},
    {"a line split among the units", 1, {5000}, {{1}, {1}, {1}}, {0, 0, 1}, TSR__KWALK_UNIT},
    {"padded rows", 2, {7, 300}, {{300, 1}, {301, 1}, {300, 1}}, {0, 2, 7}, TSR__KWALK_UNIT},
    {"long rows", 2, {3, 9001}, {{9001, 1}, {9001, 1}, {9002, 1}}, {1, 0, 0}, TSR__KWALK_UNIT},
    {"column + row", 2, {37, 53}, {{53, 1}, {1, 0}, {53, 1}}, {1, 4, 2}, TSR__KWALK_BCAST1},
    {"row + column", 2, {29, 61}, {{61, 1}, {61, 1}, {1, 0}}, {0, 3, 5}, TSR__KWALK_BCAST2},
    {"column + long rows",
     2,
     {3, 2500},
     {{2503, 1}, {1, 0}, {2500, 1}},
     {3, 1, 0},
     TSR__KWALK_BCAST1},
    {"long rows + column",
     2,
     {2, 4100},
     {{4100, 1}, {4100, 1}, {1, 0}},
     {7, 0, 2},
     TSR__KWALK_BCAST2},
    {"transposed input", 2, {67, 35}, {{35, 1}, {1, 67}, {35, 1}}, {2, 0, 1}, TSR__KWALK_PACK1},
    {"transposed second input",
     2,
     {150, 70},
     {{70, 1}, {70, 1}, {1, 150}},
     {1, 2, 3},
     TSR__KWALK_PACK2},
    {"channels last",
     3,
     {3, 130, 20},
     {{2600, 20, 1}, {2600, 1, 130}, {0, 20, 1}},
     {0, 5, 1},
     TSR__KWALK_PACK1},
    {"transposed, whole blocks of 8",
     2,
     {256, 64},
     {{64, 1}, {1, 259}, {64, 1}},
     {0, 3, 1},
     TSR__KWALK_PACK1},
    {"transposed output", 2, {33, 70}, {{1, 33}, {70, 1}, {0, 0}}, {0, 1, 6}, TSR__KWALK_STRIDED},
    {"permuted, three dims",
     3,
     {3, 41, 33},
     {{1353, 33, 1}, {1, 99, 3}, {0, 33, 1}},
     {5, 0, 2},
     TSR__KWALK_STRIDED},
    {"rows, three dims",
     3,
     {4, 5, 300},
     {{1500, 300, 1}, {1600, 310, 1}, {0, 300, 1}},
     {0, 9, 0},
     TSR__KWALK_UNIT},
    {"five dims",
     5,
     {2, 3, 2, 5, 7},
     {{210, 70, 35, 7, 1}, {105, 0, 35, 7, 1}, {1, 2, 6, 0, 12}},
     {1, 1, 3},
     TSR__KWALK_STRIDED},
    {"four dims, a column",
     4,
     {3, 2, 4, 50},
     {{400, 200, 50, 1}, {0, 4, 1, 0}, {400, 200, 50, 1}},
     {0, 2, 0},
     TSR__KWALK_BCAST1},
    {"strided line", 1, {777}, {{2}, {3}, {0}}, {1, 0, 4}, TSR__KWALK_STRIDED},
    {"one element", 0, {0}, {{0}, {0}, {0}}, {5, 1, 2}, TSR__KWALK_UNIT},
};

/* A layout's operand for a kernel's: a third input walks as the second. */
static int at_layout(int op)
{
    return op < 3 ? op : 2;
}

/* One past the last element an operand reaches. */
static int64_t span(const layout *y, int op)
{
    op = at_layout(op);
    int64_t last = y->offsets[op];
    for (int d = 0; d < y->ndim; d++)
        last += (y->sizes[d] - 1) * y->strides[op][d];
    return last + 1;
}

static unsigned char *alloc_elements(int64_t n, tsr_dtype d, uint64_t *bytes)
{
    *bytes = ((uint64_t)n * tsr_dtype_itemsize(d) + 4095) & ~(uint64_t)4095;
    unsigned char *p = aligned_alloc(4096, *bytes);
    ASSERT_TRUE(p != NULL);
    return p;
}

/* The kernel of `key` over layout y, with these scalar and alpha bytes. */
static tsr__kernel kernel_for(const tsr__kernel_key *key, const layout *y, const uint8_t *scalar,
                              const uint8_t *alpha)
{
    tsr__kernel k = {
        .op = key->op, .common = key->common, .ndim = y->ndim, .noperands = key->noperands};
    memcpy(k.sizes, y->sizes, sizeof y->sizes);
    memcpy(k.scalar, scalar, sizeof k.scalar);
    memcpy(k.alpha, alpha, sizeof k.alpha);
    for (int i = 0; i < key->noperands; i++) {
        tsr__kernel_operand *o = &k.operands[i];
        if (key->dtypes[i] == TSR__KEY_SCALAR) {
            o->dtype = key->common;
            o->flags = TSR__KOPERAND_SCALAR;
            continue;
        }
        o->dtype = key->dtypes[i];
        o->offset = y->offsets[at_layout(i)];
        memcpy(o->strides, y->strides[at_layout(i)], sizeof y->strides[0]);
    }
    return k;
}

/* Runs `key` over layout y on the device and on the cpu from the same
 * inputs and output (every byte of which starts as 0xA5), and compares
 * the whole output buffers. Returns the device's completion. */
static tsr_status run_layout(const tsr__kernel_key *key, const layout *y, const uint8_t *scalar,
                             const uint8_t *alpha, bool nonzero_divisor)
{
    tsr__kernel k = kernel_for(key, y, scalar, alpha);
    unsigned char *bases[TSR__KERNEL_MAX_OPERANDS] = {NULL};
    uint64_t bytes[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int i = 0; i < key->noperands; i++) {
        if (key->dtypes[i] == TSR__KEY_SCALAR)
            continue;
        tsr_dtype d = (tsr_dtype)key->dtypes[i];
        bases[i] = alloc_elements(span(y, i), d, &bytes[i]);
        if (i == 0)
            memset(bases[i], 0xA5, bytes[i]);
        else
            fill_values(d, bases[i], bytes[i] / tsr_dtype_itemsize(d), nonzero_divisor && i == 2);
    }
    tsr_dtype out = (tsr_dtype)key->dtypes[0];
    unsigned char *want = malloc(bytes[0]);
    memcpy(want, bases[0], bytes[0]);
    tsr_status st = launch(&k, bases, bytes);
    unsigned char *host[TSR__KERNEL_MAX_OPERANDS] = {want, bases[1], bases[2], bases[3]};
    bool *loose = calloc(bytes[0] / tsr_dtype_itemsize(out), sizeof *loose);
    reference(&k, host, bytes, loose);
    char what[160];
    snprintf(what, sizeof what, "%s %s <- %s, %s (%s)",
             tsr__kernel_op_stub((tsr__kernel_op)key->op), tsr_dtype_name(out),
             key->noperands > 1 && key->dtypes[1] != TSR__KEY_SCALAR
                 ? tsr_dtype_name((tsr_dtype)key->dtypes[1])
                 : "scalar",
             key->noperands > 2 && key->dtypes[2] != TSR__KEY_SCALAR
                 ? tsr_dtype_name((tsr_dtype)key->dtypes[2])
                 : "scalar",
             y->name);
    compare(what, out, bases[0], want, bytes[0] / tsr_dtype_itemsize(out), loose);
    free(loose);
    free(want);
    for (int i = 0; i < TSR__KERNEL_MAX_OPERANDS; i++)
        free(bases[i]);
    return st;
}

/* Every layout on the generic program and, for the sampled keys, on
 * their own programs with stores through the caches and around them. */
static void run_all_layouts(const tsr__kernel_key *key, const uint8_t *scalar, const uint8_t *alpha)
{
    bool division = key->op == TSR__KOP_DIV || tsr__kernel_op_has(key->op, TSR__KOPF_ZERO_CHECK);
    generic_mode = true;
    for (size_t y = 0; y < TSR__ARRAY_SIZE(layouts); y++)
        ASSERT_OK(run_layout(key, &layouts[y], scalar, alpha, division));
    generic_mode = false;
    for (int streams = 0; streams < 2 && sampled(key); streams++) {
        stream_bytes = (uint64_t)streams;
        for (size_t y = 0; y < TSR__ARRAY_SIZE(layouts); y++)
            ASSERT_OK(run_layout(key, &layouts[y], scalar, alpha, division));
    }
    stream_bytes = 0;
}

/* alpha = `value` (sub: its negation, as the planner stores it) in the
 * common dtype, and a scalar worth dividing by. */
static void arith_constants(tsr__kernel_op op, tsr_dtype d, int64_t value, uint8_t alpha[16],
                            uint8_t scalar[16])
{
    uint8_t element[16] = {0};
    int64_t a = tsr__kernel_op_has(op, TSR__KOPF_NEGATE_ALPHA) ? -value : value, three = -3;
    tsr_cast_buffer(&a, TSR_INT64, element, d == TSR_BOOL ? TSR_INT64 : d, 1);
    tsr__kernel_alpha_from_element(d, element, alpha);
    if (d == TSR_BOOL)
        alpha[0] = 1;
    memset(scalar, 0, 16);
    tsr_cast_buffer(&three, TSR_INT64, scalar, d, 1);
    if (d == TSR_BOOL)
        scalar[0] = 1;
}

/* Every key `make` gives for the operations in every layout; add and sub
 * also with alpha 1 and -1, which have loops of their own in the
 * floating dtypes; an operation of three inputs with a second scalar
 * value, which travels in alpha's bytes. */
static void run_op_keys(const tsr__kernel_op *ops, size_t n,
                        tsr__kernel_key (*make)(tsr__kernel_op, tsr_dtype, int))
{
    for (size_t o = 0; o < n; o++)
        for (size_t c = 0; c < TSR__ARRAY_SIZE(computes); c++)
            for (int variant = 0; variant < 3; variant++) {
                tsr__kernel_key key = make(ops[o], computes[c], variant);
                if (!wanted(&key))
                    continue;
                static const int64_t alphas[] = {2, 1, -1};
                bool adds = tsr__kernel_op_has(ops[o], TSR__KOPF_ALPHA);
                for (int v = 0; v < (adds && computes[c] != TSR_BOOL ? 3 : 1); v++) {
                    uint8_t alpha[16], scalar[16];
                    arith_constants(ops[o], computes[c], alphas[v], alpha, scalar);
                    if (key.noperands == 4) {
                        int64_t seven = 7;
                        memset(alpha, 0, sizeof alpha);
                        tsr_cast_buffer(&seven, TSR_INT64, alpha, computes[c], 1);
                    }
                    run_all_layouts(&key, scalar, alpha);
                }
            }
}

static void run_arith(void)
{
    run_op_keys(arith, TSR__ARRAY_SIZE(arith), arith_key);
    run_op_keys(ternary, TSR__ARRAY_SIZE(ternary), ternary_key);
}

static void run_copies_and_fills(void)
{
    uint8_t none[16] = {0};
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        for (int s = 0; s < TSR_DTYPE_COUNT; s++) {
            tsr__kernel_key key = copy_key((tsr_dtype)d, (tsr_dtype)s);
            if (wanted(&key))
                run_all_layouts(&key, none, none);
        }
        tsr__kernel_key fill = fill_key((tsr_dtype)d);
        uint8_t value[16];
        for (int b = 0; b < 16; b++)
            value[b] = (uint8_t)(0x3C + 7 * b);
        run_all_layouts(&fill, value, none);
    }
}

/* A packed walk over more blocks than one piece of a launch holds
 * (TSR__KERNEL_PIECE_ELEMENTS, core/kernel.h): 9 x 120 blocks of 64 x 64,
 * in pieces of eight rows of blocks and one, which must still cover every
 * block once (the blocks run in bands of eight rows). Alpha 1 takes the
 * vector rows when the launch streams, 2 the element function's. */
static void run_pieces(void)
{
    static const layout pieced = {"transposed, in pieces",          2,         {576, 7680},
                                  {{7680, 1}, {1, 576}, {7680, 1}}, {0, 0, 0}, TSR__KWALK_PACK1};
    tsr__kernel_key key = arith_key(TSR__KOP_ADD, TSR_FLOAT32, 0);
    generic_mode = false;
    for (int64_t a = 1; a <= 2; a++) {
        uint8_t alpha[16], scalar[16];
        arith_constants(TSR__KOP_ADD, TSR_FLOAT32, a, alpha, scalar);
        tsr__kernel k = kernel_for(&key, &pieced, scalar, alpha);
        tsr__kernel_geometry g;
        tsr__kernel_launch_geometry(&k, units, 0, &g);
        ASSERT_EQ(g.block[2], TSR__KWALK_PACK1);
        ASSERT_UEQ(g.pieces, 2);
        for (int streams = 0; streams < 2; streams++) {
            stream_bytes = (uint64_t)streams;
            ASSERT_OK(run_layout(&key, &pieced, scalar, alpha, false));
        }
    }
    stream_bytes = 0;
}

/* The walks a float32 add takes over the layouts, and the blocks stay
 * inside the index space. */
static void check_walks(void)
{
    tsr__kernel_key key = arith_key(TSR__KOP_ADD, TSR_FLOAT32, 0);
    uint8_t none[16] = {0};
    for (size_t y = 0; y < TSR__ARRAY_SIZE(layouts); y++) {
        tsr__kernel k = kernel_for(&key, &layouts[y], none, none);
        tsr__kernel_geometry g;
        tsr__kernel_launch_geometry(&k, 2, 0, &g);
        ASSERT_EQ(g.block[2], layouts[y].walk);
        /* around the caches where the rows go in chunks or packed, when
         * they are large: every walk but the strided one */
        tsr__kernel_geometry s;
        tsr__kernel_launch_geometry(&k, 2, 1, &s);
        bool chunks = layouts[y].walk != TSR__KWALK_STRIDED;
        ASSERT_EQ(s.block[2], layouts[y].walk | (chunks ? TSR__KBLOCK_STREAM : 0));
        tsr__kernel_launch_geometry(&k, 2, 1u << 30, &s);
        ASSERT_EQ(s.block[2], layouts[y].walk);
        ASSERT_EQ(g.nstorage, 3);
        ASSERT_TRUE(g.block[0] >= 1 && g.block[1] >= 1);
        ASSERT_TRUE(g.global[0] * g.block[0] >= g.size[0]);
        ASSERT_TRUE((g.global[0] - 1) * g.block[0] < g.size[0]);
        ASSERT_TRUE(g.global[1] * g.block[1] >= g.size[1]);
        ASSERT_TRUE((g.global[1] - 1) * g.block[1] < g.size[1]);
        ASSERT_EQ(g.global[2], g.size[2]);
        ASSERT_EQ(g.block[3], layouts[y].ndim > 2 ? layouts[y].ndim - 2 : 0);
        if (g.block[2] == TSR__KWALK_PACK1 || g.block[2] == TSR__KWALK_PACK2) {
            ASSERT_TRUE(g.block[0] <= TSR__KPACK_X);
            ASSERT_TRUE(g.block[0] * g.block[1] * 4 <= TSR__KPACK_BYTES);
        }
        ASSERT_EQ(g.geom_count, layouts[y].ndim > 3 ? (layouts[y].ndim - 2) * 4 : 0);
    }
    /* a scalar second input: input 1 standing still is walk 1 */
    tsr__kernel_key scalar = arith_key(TSR__KOP_ADD, TSR_FLOAT32, 1);
    tsr__kernel k = kernel_for(&scalar, &layouts[4], none, none);
    tsr__kernel_geometry g;
    tsr__kernel_launch_geometry(&k, 2, 0, &g);
    ASSERT_EQ(g.nstorage, 2);
    ASSERT_EQ(g.block[2], TSR__KWALK_BCAST1);
    /* a large contiguous launch: long rows, several items per unit */
    tsr__kernel big = {
        .op = TSR__KOP_ADD, .common = TSR_FLOAT32, .ndim = 1, .noperands = 3, .sizes = {1 << 26}};
    for (int i = 0; i < 3; i++)
        big.operands[i] = (tsr__kernel_operand){.dtype = TSR_FLOAT32, .strides = {1}};
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[0], 16384);
    ASSERT_EQ(g.global[0], (1 << 26) / 16384);
    ASSERT_EQ(g.local[0] * g.local[1] * g.local[2], 1);
    /* float16 add/sub: alpha 1 and -1 have loops of their own */
    big.common = TSR_FLOAT16;
    for (int i = 0; i < 3; i++)
        big.operands[i].dtype = TSR_FLOAT16;
    float one = 1.0f, minus = -1.0f, two = 2.0f;
    memcpy(big.alpha, &one, 4);
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[2], TSR__KWALK_UNIT | TSR__KBLOCK_ALPHA_ONE);
    memcpy(big.alpha, &minus, 4);
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[2], TSR__KWALK_UNIT | TSR__KBLOCK_ALPHA_MINUS_ONE);
    memcpy(big.alpha, &two, 4);
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[2], TSR__KWALK_UNIT);
    /* and so do bfloat16's (alpha as float32 bits) */
    big.common = TSR_BFLOAT16;
    for (int i = 0; i < 3; i++)
        big.operands[i].dtype = TSR_BFLOAT16;
    memcpy(big.alpha, &minus, 4);
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[2], TSR__KWALK_UNIT | TSR__KBLOCK_ALPHA_MINUS_ONE);
    /* an integer add has no alpha loops, whatever alpha holds */
    big.common = TSR_INT32;
    for (int i = 0; i < 3; i++)
        big.operands[i].dtype = TSR_INT32;
    int64_t ione = 1;
    memcpy(big.alpha, &ione, 8);
    tsr__kernel_launch_geometry(&big, 16, 0, &g);
    ASSERT_EQ(g.block[2], TSR__KWALK_UNIT);
}

/* Which walks a program has loops of its own for (the others take the
 * scalar loop): every walk its operands allow, none for an integer
 * division, and for float16/bfloat16/float32/float64 add/sub a UNIT
 * loop each for alpha 1 and -1. */
static void check_loops(void)
{
    static const struct {
        tsr__kernel_key key;
        const char *has; /* the cases: unit, bcast1, bcast2, pack1, pack2, alpha 1, alpha -1 */
    } cases[] = {
        {{.op = TSR__KOP_ADD,
          .common = TSR_FLOAT32,
          .noperands = 3,
          .dtypes = {TSR_FLOAT32, TSR_FLOAT32, TSR_FLOAT32}},
         "yyyyyyy"},
        {{.op = TSR__KOP_SUB,
          .common = TSR_FLOAT16,
          .noperands = 3,
          .dtypes = {TSR_FLOAT16, TSR_FLOAT16, TSR_FLOAT16}},
         "yyyyyyy"},
        {{.op = TSR__KOP_ADD,
          .common = TSR_BFLOAT16,
          .noperands = 3,
          .dtypes = {TSR_BFLOAT16, TSR_BFLOAT16, TSR_BFLOAT16}},
         "yyyyyyy"},
        {{.op = TSR__KOP_ADD,
          .common = TSR_COMPLEX64,
          .noperands = 3,
          .dtypes = {TSR_COMPLEX64, TSR_COMPLEX64, TSR_COMPLEX64}},
         "yyyyynn"},
        {{.op = TSR__KOP_MUL,
          .common = TSR_INT32,
          .noperands = 3,
          .dtypes = {TSR_INT32, TSR_INT32, TSR__KEY_SCALAR}},
         "yynynnn"},
        {{.op = TSR__KOP_DIV_FLOOR,
          .common = TSR_INT32,
          .noperands = 3,
          .dtypes = {TSR_INT32, TSR_INT32, TSR_INT32}},
         "nnnnnnn"},
        {{.op = TSR__KOP_DIV_FLOOR,
          .common = TSR_FLOAT32,
          .noperands = 3,
          .dtypes = {TSR_FLOAT32, TSR_FLOAT32, TSR_FLOAT32}},
         "yyyyynn"},
        {{.op = TSR__KOP_COPY,
          .common = TSR_FLOAT32,
          .noperands = 2,
          .dtypes = {TSR_FLOAT32, TSR_FLOAT16}},
         "yynynnn"},
        {{.op = TSR__KOP_FILL, .common = TSR_COMPLEX64, .noperands = 1, .dtypes = {TSR_COMPLEX64}},
         "ynnnnnn"},
    };
    /* the walk each letter asks for (block.z), and the entry that has it */
    static const struct {
        uint32_t block_z;
        int entry;
    } loops[] = {{TSR__KWALK_UNIT, TSR__KWALK_UNIT},
                 {TSR__KWALK_BCAST1, TSR__KWALK_BCAST1},
                 {TSR__KWALK_BCAST2, TSR__KWALK_BCAST2},
                 {TSR__KWALK_PACK1, TSR__KWALK_PACK1},
                 {TSR__KWALK_PACK2, TSR__KWALK_PACK2},
                 {TSR__KWALK_UNIT | TSR__KBLOCK_ALPHA_ONE, TSR__KENTRY_UNIT_PLUS},
                 {TSR__KWALK_UNIT | TSR__KBLOCK_ALPHA_MINUS_ONE, TSR__KENTRY_UNIT_MINUS}};
    for (size_t c = 0; c < TSR__ARRAY_SIZE(cases); c++) {
        tsr__kernel_key key = cases[c].key;
        size_t len;
        key.entry = TSR__KWALK_STRIDED;
        ASSERT_OK(tsr__opencl_source(&key, caps, one_src, sizeof one_src, &len));
        ASSERT_EQ(tsr__kernel_entry(&key, TSR__KWALK_STRIDED), TSR__KWALK_STRIDED);
        ASSERT_EQ(tsr__kernel_entry(&key, TSR__KWALK_STRIDED | TSR__KBLOCK_STREAM),
                  TSR__KWALK_STRIDED);
        for (size_t e = 0; e < TSR__ARRAY_SIZE(loops); e++) {
            bool want = cases[c].has[e] == 'y';
            key.entry = (uint8_t)loops[e].entry;
            tsr_status st = tsr__opencl_source(&key, caps, one_src, sizeof one_src, &len);
            const char *head = st == TSR_OK ? strstr(one_src, "__kernel void tsr_kernel(") : NULL;
            bool one_kernel = head && !strstr(head + 1, "__kernel ");
            int entry = tsr__kernel_entry(&key, loops[e].block_z);
            int streamed = tsr__kernel_entry(&key, loops[e].block_z | TSR__KBLOCK_STREAM);
            int expect = want ? loops[e].entry
                         : loops[e].entry >= TSR__KENTRY_UNIT_PLUS && cases[c].has[0] == 'y'
                             ? TSR__KWALK_UNIT
                             : TSR__KWALK_STRIDED;
            if ((st == TSR_OK) != want || (want && !one_kernel) || entry != expect ||
                streamed != entry) {
                fprintf(stderr, "case %zu: loop %zu: status %d, entry %d\n", c, e, st, entry);
                ASSERT_TRUE(false);
            }
            if (!want)
                ASSERT_FAIL(st, TSR_ERR_INVALID_ARGUMENT, NULL);
        }
    }
    tsr__kernel_key bad = cases[0].key;
    bad.entry = TSR__KENTRY_COUNT;
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_EQ(strcmp(tsr__kernel_entry_name(TSR__KWALK_STRIDED), "strided"), 0);
    ASSERT_EQ(strcmp(tsr__kernel_entry_name(TSR__KENTRY_UNIT_MINUS), "unit, alpha -1"), 0);
    ASSERT_TRUE(tsr__kernel_entry_name(TSR__KENTRY_COUNT) == NULL);
    ASSERT_TRUE(tsr__kernel_entry_name(-1) == NULL);
}

/* ---- float16 ---------------------------------------------------------------- */

static tsr__kernel line(tsr__kernel_op op, tsr_dtype out, tsr_dtype in, int64_t n)
{
    tsr__kernel k = {.op = op, .common = out, .ndim = 1, .noperands = 2, .sizes = {n}};
    k.operands[0] = (tsr__kernel_operand){.dtype = out, .strides = {1}};
    k.operands[1] = (tsr__kernel_operand){.dtype = in, .strides = {1}};
    return k;
}

/* Every float16 code decoded; float32 values on both sides of every
 * float16 rounding boundary (each pattern of the 19 bits that survive,
 * with the 13 dropped bits just below, at and just above half, and at
 * the extremes) encoded, through copies; and float16 add with alpha 3,
 * which rounds alpha * b to float16 inside, over every code as b. */
static void run_float16(void)
{
    int64_t n = 1 << 16;
    uint64_t bytes[3] = {0, 0, 0};
    uint16_t *codes = (uint16_t *)alloc_elements(n, TSR_FLOAT16, &bytes[1]);
    for (int64_t i = 0; i < n; i++)
        codes[i] = (uint16_t)i;
    uint32_t *got = (uint32_t *)alloc_elements(n, TSR_FLOAT32, &bytes[0]);
    uint32_t *want = malloc((size_t)n * 4);
    tsr__kernel k = line(TSR__KOP_COPY, TSR_FLOAT32, TSR_FLOAT16, n);
    unsigned char *bases[3] = {(unsigned char *)got, (unsigned char *)codes, NULL};
    ASSERT_OK(launch(&k, bases, bytes));
    ASSERT_OK(tsr__kernel_convert(codes, TSR_FLOAT16, want, TSR_FLOAT32, (size_t)n));
    compare("float32 <- float16, every code", TSR_FLOAT32, (unsigned char *)got,
            (unsigned char *)want, (size_t)n, NULL);
    free(codes);
    free(got);
    free(want);

    static const uint32_t low[] = {0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x0AAA};
    int64_t m = (int64_t)TSR__ARRAY_SIZE(low) << 19;
    uint32_t *f = (uint32_t *)alloc_elements(m, TSR_FLOAT32, &bytes[1]);
    for (int64_t i = 0; i < m; i++)
        f[i] = (uint32_t)(i / (int64_t)TSR__ARRAY_SIZE(low)) << 13 |
               low[i % (int64_t)TSR__ARRAY_SIZE(low)];
    uint16_t *h = (uint16_t *)alloc_elements(m, TSR_FLOAT16, &bytes[0]);
    uint16_t *hw = malloc((size_t)m * 2);
    k = line(TSR__KOP_COPY, TSR_FLOAT16, TSR_FLOAT32, m);
    bases[0] = (unsigned char *)h;
    bases[1] = (unsigned char *)f;
    ASSERT_OK(launch(&k, bases, bytes));
    ASSERT_OK(tsr__kernel_convert(f, TSR_FLOAT32, hw, TSR_FLOAT16, (size_t)m));
    compare("float16 <- float32, rounding boundaries", TSR_FLOAT16, (unsigned char *)h,
            (unsigned char *)hw, (size_t)m, NULL);
    free(f);
    free(h);
    free(hw);

    /* a + 3 * b over every b, a from every rounding boundary's neighbours */
    uint16_t *a = (uint16_t *)alloc_elements(n, TSR_FLOAT16, &bytes[1]);
    uint16_t *b = (uint16_t *)alloc_elements(n, TSR_FLOAT16, &bytes[2]);
    uint16_t *r = (uint16_t *)alloc_elements(n, TSR_FLOAT16, &bytes[0]);
    uint16_t *rw = malloc((size_t)n * 2);
    for (int64_t i = 0; i < n; i++) {
        a[i] = (uint16_t)(next() & 0xFFFF);
        if (i % 5 == 0) /* NaN a, to meet every b */
            a[i] = (uint16_t)(0x7C01 | (next() & 0x83FF));
        b[i] = (uint16_t)i;
    }
    /* which NaN survives two is not defined (same_bits) */
    bool *both = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
        both[i] = is_nan(TSR_FLOAT16, (unsigned char *)(a + i)) &&
                  is_nan(TSR_FLOAT16, (unsigned char *)(b + i));
    for (int pass = 0; pass < 3; pass++) {
        float three = pass == 0 ? 3.0f : pass == 1 ? 1.0f : -1.0f;
        k = (tsr__kernel){
            .op = TSR__KOP_ADD, .common = TSR_FLOAT16, .ndim = 1, .noperands = 3, .sizes = {n}};
        for (int i = 0; i < 3; i++)
            k.operands[i] = (tsr__kernel_operand){.dtype = TSR_FLOAT16, .strides = {1}};
        memcpy(k.alpha, &three, sizeof three);
        unsigned char *ab[3] = {(unsigned char *)r, (unsigned char *)a, (unsigned char *)b};
        ASSERT_OK(launch(&k, ab, bytes));
        int64_t st[4] = {2, 2, 2, 0};
        int bad = 0;
        tsr__kernel_row_for(TSR__KOP_ADD, TSR_FLOAT16)((unsigned char *)rw, (unsigned char *)a,
                                                       (unsigned char *)b, NULL, n, st, k.alpha,
                                                       &bad);
        compare("float16 add", TSR_FLOAT16, (unsigned char *)r, (unsigned char *)rw, (size_t)n,
                both);
    }
    free(both);
    free(a);
    free(b);
    free(r);
    free(rw);
}

/* ---- integer division by zero ------------------------------------------------ */

/* A zero divisor among others, in a contiguous, a standing-still and a
 * transposed walk: the flag goes up, the elements with a zero divisor
 * keep what they held and every other one is written. */
static void run_zero_division(void)
{
    tsr__kernel_key key = arith_key(TSR__KOP_DIV_FLOOR, TSR_INT32, 0);
    static const size_t picks[] = {0, 4, 6};
    for (size_t w = 0; w < TSR__ARRAY_SIZE(picks); w++) {
        const layout *y = &layouts[picks[w]];
        tsr__kernel k = kernel_for(&key, y, (uint8_t[16]){0}, (uint8_t[16]){0});
        unsigned char *bases[3];
        uint64_t bytes[3];
        for (int i = 0; i < 3; i++)
            bases[i] = alloc_elements(span(y, i), TSR_INT32, &bytes[i]);
        memset(bases[0], 0xA5, bytes[0]);
        fill_values(TSR_INT32, bases[1], bytes[1] / 4, false);
        fill_values(TSR_INT32, bases[2], bytes[2] / 4, true);
        int32_t *divisor = (int32_t *)bases[2];
        for (int64_t i = y->offsets[2]; i < span(y, 2); i += 17)
            divisor[i] = 0;
        unsigned char *want = malloc(bytes[0]);
        memcpy(want, bases[0], bytes[0]);
        ASSERT_EQ(launch(&k, bases, bytes), TSR_ERR_RUNTIME);
        unsigned char *host[3] = {want, bases[1], bases[2]};
        reference(&k, host, bytes, NULL);
        compare("div_floor int32 with zero divisors", TSR_INT32, bases[0], want, bytes[0] / 4,
                NULL);
        free(want);
        for (int i = 0; i < 3; i++)
            free(bases[i]);
    }
}

int main(void)
{
    cl_platform_id platform;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0)
        TEST_SKIP("no OpenCL platform");
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        TEST_SKIP("no OpenCL device");
    char ext[4096] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    caps = strstr(ext, "cl_khr_fp64") ? TSR__KCAP_FP64 : 0;
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ASSERT_EQ(err, CL_SUCCESS);

    /* a key the device cannot build is refused with a reason */
    tsr__kernel_key f64 = {.op = TSR__KOP_ADD,
                           .common = TSR_FLOAT64,
                           .noperands = 3,
                           .dtypes = {TSR_FLOAT64, TSR_FLOAT64, TSR_FLOAT64}};
    ASSERT_FAIL(tsr__kernel_key_check(&f64, 0), TSR_ERR_NOT_SUPPORTED, NULL);
    tsr__kernel_key bad = {.op = TSR__KOP_DIV_TRUNC, .common = TSR_BOOL, .noperands = 3};
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_NOT_SUPPORTED,
                "\"div_trunc_cpu\" not implemented for 'Bool'");
    tsr__kernel_key unused = f64;
    unused.dtypes[3] = TSR_FLOAT64; /* past noperands */
    ASSERT_FAIL(tsr__kernel_key_check(&unused, caps), TSR_ERR_INVALID_ARGUMENT, NULL);
    char name[TSR__OPENCL_NAME_MAX];
    ASSERT_OK(tsr__opencl_cache_name(&f64, "x", 1, name, sizeof name));
    ASSERT_EQ(strncmp(name, "tsr-0300", 8), 0);

    check_walks();
    check_loops();
    check_generic();
    check_reduce_keys();
    check_gemm_keys();
    check_sources();
    open_runtime(platform);
    for (int mode = 0; mode < 2; mode++) {
        generic_mode = mode == 1;
        run_float16();
        run_zero_division();
    }
    run_pieces();
    run_arith();
    run_copies_and_fills();
    tsr__clrt_destroy(rt);
    clReleaseContext(ctx);
    TEST_DONE();
}
