/* The OpenCL runtime's matrix products (opencl/runtime.c, tsr__clrt_gemm)
 * on the first OpenCL device against a reference computed here in double
 * precision, through CLBlast and the GEMM program and, where the device is
 * the host's CPU in host-unified memory (PoCL's), also through the native
 * kernel that runs the cpu's own products (kernels/gemm.c):
 *   - float32, float64 (where the device has it), complex64, complex128;
 *   - float16 and bfloat16 (widened to float32 on the device, Sgemm, C
 *     rounded once) and uint8, int8, int16, int32, int64 (the GEMM
 *     program's own product, wrapping as the cpu's: exact);
 *   - A and B as they lie and transposed (CLBlast's transpose flags), a
 *     batch of one and of three (the strided-batched call), rows padded
 *     (leading dimensions past the row) and operands at an offset;
 *   - beta 0 over a C full of NaN (C is not read), and beta 0.5;
 *   - C's padding, which is no element of C, left as it was;
 *   - the device's memory as its own (launches copy in and out, and with
 *     staged copies) for float32, float16 and int8, besides the host's
 *     shared memory;
 *   - a dtype the cpu computes no product in (uint16): TSR_ERR_NOT_SUPPORTED.
 * Where the native kernels run, launches do too (tsr__clrt_host_enqueue):
 * an add with a transposed input, a uint8 add of two pieces enqueued one
 * by one, and a max with a dim (values and positions), every operand in
 * a buffer of its own at an offset, give the bits of the cpu's own walk
 * (kernels/cpu_exec.h) over copies of the same memory.
 * Results are not bit-identical to any other library's: CLBlast sums in
 * an order of its own; the bound is a few units of the dtype's rounding
 * per term. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "kernels/cpu_exec.h"
#include "kernels/hugemem.h"
#include "kernels/launch.h"
#include "opencl/runtime.h"
#include "opencl/source.h"
#include "test.h"

static cl_device_id dev;
static bool has_fp64;
static tsr__clrt *rt;
static bool huge_pages; /* the next open_runtime's devices.huge_pages */

static size_t source_of(const tsr__kernel_key *key, bool fp64, char *buf, size_t cap)
{
    size_t length = 0;
    tsr_status st = tsr__opencl_source(key, fp64 ? TSR__KCAP_FP64 : 0, buf, cap, &length);
    return st == TSR_OK ? length : st == TSR_ERR_BUFFER_TOO_SMALL ? cap : 0;
}

/* A runtime over the first device, its memory its own (copies) or the
 * host's as discovery says; opened by building a program. */
static void open_runtime(cl_platform_id platform, bool copies, bool staged, bool host_gemm)
{
    static tsr__cl_device_info info;
    memset(&info, 0, sizeof info);
    cl_uint np = 0;
    clGetPlatformIDs(0, NULL, &np);
    cl_platform_id all[16];
    clGetPlatformIDs(np < 16 ? np : 16, all, NULL);
    for (cl_uint k = 0; k < np && k < 16; k++)
        if (all[k] == platform)
            info.platform_index = k;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof info.name - 1, info.name, NULL);
    cl_uint cu = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    info.compute_units = cu;
    info.fp64 = has_fp64;
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    info.host_unified_memory = unified && !copies;
    info.stage_copies = staged;
    info.host_code = host_gemm;
    info.huge_pages = huge_pages;
    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info.cl_device_type = type;
    tsr__clrt_config config = {.devices = &info,
                               .count = 1,
                               .notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC),
                               .source = source_of};
    ASSERT_OK(tsr__clrt_create(&config, &rt));
    tsr__kernel_key any = tsr__kernel_generic_key(TSR_FLOAT32);
    tsr__clrt_program *p = tsr__clrt_program_get(rt, 0, &any, TSR__BUILD_NOW);
    ASSERT_TRUE(p != NULL);
    while (p && tsr__clrt_program_state(p) == TSR__PROGRAM_PENDING)
        usleep(1000);
    ASSERT_EQ(tsr__clrt_program_state(p), TSR__PROGRAM_READY);
    ASSERT_EQ(tsr__clrt_copies(rt, 0), !unified || copies);
    cl_device_exec_capabilities exec = 0;
    clGetDeviceInfo(dev, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof exec, &exec, NULL);
    bool native = unified && !copies && (type & CL_DEVICE_TYPE_CPU) && (exec & CL_EXEC_NATIVE_KERNEL);
    ASSERT_EQ(tsr__clrt_host_code(rt, 0), host_gemm && native);
}

/* The GEMM program of dt, built (the daemon asks for it before a
 * product in dt). */
static void build_gemm_program(tsr_dtype dt)
{
    tsr__kernel_key key = tsr__kernel_gemm_key(dt);
    tsr__clrt_program *p = tsr__clrt_program_get(rt, 0, &key, TSR__BUILD_NOW);
    ASSERT_TRUE(p != NULL);
    while (p && !tsr__clrt_program_settled(p))
        usleep(1000);
    if (tsr__clrt_program_state(p) != TSR__PROGRAM_READY)
        fprintf(stderr, "%s\n", tsr__clrt_program_error(p));
    ASSERT_EQ(tsr__clrt_program_state(p), TSR__PROGRAM_READY);
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

static bool integral(tsr_dtype dt)
{
    return !tsr_dtype_is_floating_point(dt) && !tsr_dtype_is_complex(dt);
}

/* Element i of a buffer of dtype `dt` as a complex double. */
static void get(tsr_dtype dt, const unsigned char *base, size_t i, double v[2])
{
    v[1] = 0;
    size_t item = tsr_dtype_itemsize(dt);
    if (dt == TSR_FLOAT16 || dt == TSR_BFLOAT16 || integral(dt)) {
        ASSERT_OK(tsr_cast_buffer(base + i * item, dt, v, TSR_FLOAT64, 1));
    } else if (dt == TSR_FLOAT32 || dt == TSR_COMPLEX64) {
        float f[2] = {0, 0};
        memcpy(f, base + i * tsr_dtype_itemsize(dt), tsr_dtype_itemsize(dt));
        v[0] = f[0], v[1] = f[1];
    } else {
        memcpy(v, base + i * tsr_dtype_itemsize(dt), tsr_dtype_itemsize(dt));
    }
}

static void put(tsr_dtype dt, unsigned char *base, size_t i, double re, double im)
{
    if (dt == TSR_FLOAT16 || dt == TSR_BFLOAT16 || integral(dt)) {
        ASSERT_OK(tsr_cast_buffer(&re, TSR_FLOAT64, base + i * tsr_dtype_itemsize(dt), dt, 1));
    } else if (dt == TSR_FLOAT32 || dt == TSR_COMPLEX64) {
        float f[2] = {(float)re, (float)im};
        memcpy(base + i * tsr_dtype_itemsize(dt), f, tsr_dtype_itemsize(dt));
    } else {
        double d[2] = {re, im};
        memcpy(base + i * tsr_dtype_itemsize(dt), d, tsr_dtype_itemsize(dt));
    }
}

/* Elements 0..n-1 of a buffer of dtype `dt` as complex doubles (re, im
 * pairs): get() on each, with the conversions in one call (a conversion
 * takes each element on its own, so each gives the bits get() gives). */
static double *widen(tsr_dtype dt, const unsigned char *base, size_t n)
{
    double *w = malloc(2 * n * sizeof *w);
    ASSERT_TRUE(w != NULL);
    if (dt == TSR_FLOAT16 || dt == TSR_BFLOAT16 || integral(dt)) {
        ASSERT_OK(tsr_cast_buffer(base, dt, w + n, TSR_FLOAT64, n));
        for (size_t i = 0; i < n; i++)
            w[2 * i] = w[n + i], w[2 * i + 1] = 0;
    } else {
        for (size_t i = 0; i < n; i++)
            get(dt, base, i, &w[2 * i]);
    }
    return w;
}

/* alpha and beta in the dtype's math type: int64, float for float16 and
 * bfloat16, else the dtype. */
static void scalar(tsr_dtype dt, double re, double im, uint8_t out[16])
{
    memset(out, 0, 16);
    put(integral(dt)                              ? TSR_INT64
        : dt == TSR_FLOAT16 || dt == TSR_BFLOAT16 ? TSR_FLOAT32
                                                  : dt,
        out, 0, re, im);
}

static uint64_t rng = 0x2545F4914F6CDD1Du;

/* Small integers over 4: products and sums exact enough that the bound
 * below is loose for every summation order. */
static double value(void)
{
    return (double)((int)(test_next_u64(&rng) % 9) - 4) / 4.0;
}

/* Integers: -40..40, so that int8's sums wrap. */
static double value_of(tsr_dtype dt)
{
    return integral(dt) ? (double)((int)(test_next_u64(&rng) % 81) - 40) : value();
}

/* What C's element becomes in an integer dtype: the exact sum, wrapped
 * modulo 2^64 (int64 arithmetic's) and then to the dtype's bits. a and b
 * are the operands widened. */
static double wrapped(tsr_dtype dt, const double *a, const double *b, int64_t n, const int64_t *ai,
                      const int64_t *bi, int64_t alpha, int64_t beta, double old)
{
    uint64_t acc = 0;
    for (int64_t q = 0; q < n; q++)
        acc += (uint64_t)(int64_t)a[2 * ai[q]] * (uint64_t)(int64_t)b[2 * bi[q]];
    uint64_t v = (uint64_t)alpha * acc + (uint64_t)beta * (uint64_t)(int64_t)old;
    unsigned char bytes[8];
    memcpy(bytes, &v, 8); /* the low bytes: little-endian, as every dtype */
    double out[2];
    get(dt, bytes, 0, out);
    return out[0];
}

typedef struct shape {
    int64_t batch, m, n, k;
    bool ta, tb, beta_zero;
} shape;

static int failures_printed;

/* One product: operands at an offset of 3 elements, rows padded by 2. */
static void run_case(tsr_dtype dt, const shape *s)
{
    const int64_t pad = 2, at = 3;
    /* stored rows x cols of each operand: A is m x k (k x m transposed) */
    int64_t rows[3] = {s->m, s->ta ? s->k : s->m, s->tb ? s->n : s->k};
    int64_t cols[3] = {s->n, s->ta ? s->m : s->k, s->tb ? s->k : s->n};
    size_t item = tsr_dtype_itemsize(dt);
    bool cplx = tsr_dtype_is_complex(dt);
    unsigned char *mem[3];
    tsr__backend_gemm g = {.dtype = dt,
                           .batch = (uint64_t)s->batch,
                           .m = (uint64_t)s->m,
                           .n = (uint64_t)s->n,
                           .k = (uint64_t)s->k,
                           .trans_a = s->ta,
                           .trans_b = s->tb,
                           .beta_zero = s->beta_zero};
    uint64_t total[3];
    for (int o = 0; o < 3; o++) {
        g.ld[o] = (uint64_t)(cols[o] + pad);
        g.bstride[o] = g.ld[o] * (uint64_t)rows[o];
        g.offsets[o] = (uint64_t)at * item;
        total[o] = (uint64_t)at + g.bstride[o] * (uint64_t)s->batch;
        g.extents[o] = (g.bstride[o] * (uint64_t)(s->batch - 1) +
                        g.ld[o] * (uint64_t)(rows[o] - 1) + (uint64_t)cols[o]) *
                       item;
        mem[o] = malloc(total[o] * item);
        for (uint64_t i = 0; i < total[o]; i++)
            put(dt, mem[o], i, o == 0 ? 7.0 : value_of(dt), o == 0 || !cplx ? 0.0 : value());
    }
    /* C: its elements NaN where beta is 0, values otherwise; padding 7 */
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t i = 0; i < s->m; i++)
            for (int64_t j = 0; j < s->n; j++)
                put(dt, mem[0], (size_t)(at + b * (int64_t)g.bstride[0] + i * (int64_t)g.ld[0] + j),
                    s->beta_zero ? (integral(dt) ? 99.0 : NAN) : value_of(dt),
                    s->beta_zero || !cplx ? 0.0 : value());
    unsigned char *before = malloc(total[0] * item);
    memcpy(before, mem[0], total[0] * item);
    bool exact = integral(dt);
    double alpha[2] = {exact ? 3.0 : 1.5, cplx ? -0.5 : 0.0}, beta[2] = {s->beta_zero ? 0.0
                                                                         : exact      ? 2.0
                                                                                      : 0.5,
                                                                         0.0};
    scalar(dt, alpha[0], alpha[1], g.alpha);
    scalar(dt, beta[0], beta[1], g.beta);
    for (int o = 0; o < 3; o++)
        ASSERT_OK(tsr__clrt_buffer(rt, 0, mem[o], total[o] * item, &g.buffers[o]));
    completion c = {.status = TSR_OK};
    atomic_init(&c.done, 0);
    tsr_status st = tsr__clrt_gemm(rt, 0, &g, on_done, &c);
    ASSERT_OK(st);
    while (st == TSR_OK && !atomic_load(&c.done))
        sched_yield();
    ASSERT_OK(c.status);
    for (int o = 0; o < 3; o++)
        tsr__clrt_buffer_release(g.buffers[o]);
    double eps = dt == TSR_FLOAT16                          ? 0x1p-10
                 : dt == TSR_BFLOAT16                       ? 0x1p-7
                 : dt == TSR_FLOAT32 || dt == TSR_COMPLEX64 ? 0x1p-23
                                                            : 0x1p-52;
    int bad = 0;
    int64_t *ais = malloc((size_t)s->k * sizeof *ais), *bis = malloc((size_t)s->k * sizeof *bis);
    double *wa = widen(dt, mem[1], total[1]), *wb = widen(dt, mem[2], total[2]);
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t i = 0; i < s->m; i++)
            for (int64_t j = 0; j < s->n; j++) {
                double acc[2] = {0, 0}, mag = 0;
                for (int64_t q = 0; q < s->k; q++) {
                    int64_t ai = s->ta ? q * (int64_t)g.ld[1] + i : i * (int64_t)g.ld[1] + q;
                    int64_t bi = s->tb ? j * (int64_t)g.ld[2] + q : q * (int64_t)g.ld[2] + j;
                    ais[q] = at + b * (int64_t)g.bstride[1] + ai;
                    bis[q] = at + b * (int64_t)g.bstride[2] + bi;
                    const double *x = &wa[2 * ais[q]], *y = &wb[2 * bis[q]];
                    acc[0] += x[0] * y[0] - x[1] * y[1];
                    acc[1] += x[0] * y[1] + x[1] * y[0];
                    mag += hypot(x[0], x[1]) * hypot(y[0], y[1]);
                }
                size_t ci = (size_t)(at + b * (int64_t)g.bstride[0] + i * (int64_t)g.ld[0] + j);
                double old[2], got[2];
                get(dt, before, ci, old);
                get(dt, mem[0], ci, got);
                double want[2] = {alpha[0] * acc[0] - alpha[1] * acc[1],
                                  alpha[0] * acc[1] + alpha[1] * acc[0]};
                if (!s->beta_zero) {
                    want[0] += beta[0] * old[0];
                    want[1] += beta[0] * old[1];
                }
                double held = s->beta_zero ? 0.0 : hypot(old[0], old[1]); /* NaN where beta is 0 */
                double bound = 8 * eps * (2 * mag * hypot(alpha[0], alpha[1]) + held + 1);
                if (exact)
                    bad += got[0] != wrapped(dt, wa, wb, s->k, ais, bis, (int64_t)alpha[0],
                                             (int64_t)beta[0], old[0]);
                else if (!(fabs(got[0] - want[0]) <= bound && fabs(got[1] - want[1]) <= bound))
                    bad++;
                put(dt, mem[0], ci, 7.0, 0.0); /* then only the padding is checked */
            }
    /* every element that is no element of C is as it was (7, and before
     * the offset, the same) */
    for (uint64_t i = 0; i < total[0]; i++) {
        double v[2];
        get(dt, mem[0], i, v);
        if (v[0] != 7.0 || v[1] != 0.0)
            bad++;
    }
    if (bad && failures_printed++ < 10)
        fprintf(stderr,
                "%s batch %lld m %lld n %lld k %lld ta %d tb %d beta0 %d: %d bad elements\n",
                tsr_dtype_name(dt), (long long)s->batch, (long long)s->m, (long long)s->n,
                (long long)s->k, s->ta, s->tb, s->beta_zero, bad);
    ASSERT_EQ(bad, 0);
    for (int o = 0; o < 3; o++)
        free(mem[o]);
    free(before);
    free(wa);
    free(wb);
    free(ais);
    free(bis);
}

/* Every dtype on the host's shared memory; float32, float16 and int8
 * where the device's memory is its own (each runtime is a context of its
 * own, for which CLBlast compiles its kernels again: slow on a CPU
 * device). */
static void run_all(bool every_dtype)
{
    const tsr_dtype dts[] = {TSR_FLOAT32, TSR_FLOAT64,  TSR_COMPLEX64, TSR_COMPLEX128,
                             TSR_FLOAT16, TSR_BFLOAT16, TSR_UINT8,     TSR_INT8,
                             TSR_INT16,   TSR_INT32,    TSR_INT64};
    const int64_t sizes[][4] = {
        {1, 5, 7, 4}, {3, 5, 7, 4}, {1, 1, 9, 33}, {2, 17, 1, 6}, {1, 64, 48, 70}};
    const char *only = getenv("TSR_TEST_GEMM_DTYPE");
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        if ((only && strcmp(only, tsr_dtype_name(dts[d])) != 0) ||
            (!every_dtype && dts[d] != TSR_FLOAT32 && dts[d] != TSR_FLOAT16 && dts[d] != TSR_INT8))
            continue;
        bool wide = dts[d] == TSR_FLOAT64 || dts[d] == TSR_COMPLEX128;
        if (wide && !has_fp64)
            continue;
        if (tsr__kernel_gemm_has(dts[d]) && !tsr__clrt_host_code(rt, 0))
            build_gemm_program(dts[d]); /* the native kernel needs no program */
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int flags = 0; flags < 8; flags++) {
                shape s = {sizes[z][0], sizes[z][1],      sizes[z][2],     sizes[z][3],
                           flags & 1,   (flags & 2) != 0, (flags & 4) != 0};
                run_case(dts[d], &s);
            }
    }
    /* a dtype the cpu computes no product in is refused, nothing enqueued */
    tsr__backend_gemm g = {.dtype = TSR_UINT16, .batch = 1, .m = 2, .n = 2, .k = 1};
    ASSERT_FAIL(tsr__clrt_gemm(rt, 0, &g, on_done, NULL), TSR_ERR_NOT_SUPPORTED,
                "matrix products in uint16 on opencl devices are not available");
}

/* A launch through tsr__clrt_host_enqueue over three buffers of its own
 * (bytes[b] each, operand b at byte offset offs[b]) against
 * tsr__host_elementwise/tsr__host_reduce over copies of them. */
static void host_launch_case(const char *what, const tsr__kernel *k, const size_t bytes[3],
                             const uint64_t offs[3], bool by_piece)
{
    unsigned char *mem[3], *ref[3];
    void *buffers[3];
    tsr__backend_launch l = {.nbuffers = 3};
    unsigned char *host[TSR__KERNEL_MAX_OPERANDS] = {NULL};
    for (int b = 0; b < 3; b++) {
        mem[b] = aligned_alloc(4096, (bytes[b] + 4095) / 4096 * 4096);
        ref[b] = malloc(bytes[b]);
        for (size_t i = 0; i < bytes[b]; i++)
            mem[b][i] = (unsigned char)(test_next_u64(&rng) >> 56);
        /* finite floats: an exponent byte below 0x7f in every element */
        for (size_t i = 3; i < bytes[b]; i += 4)
            mem[b][i] &= 0x4f;
        memcpy(ref[b], mem[b], bytes[b]);
        ASSERT_OK(tsr__clrt_buffer(rt, 0, mem[b], bytes[b], &buffers[b]));
        l.buffers[b] = buffers[b];
        l.offsets[b] = offs[b];
        host[b] = ref[b] + offs[b];
    }
    tsr__kernel at = *k; /* the cpu's walk: offsets in host[], as the daemon gives them */
    for (uint32_t i = 0; i < at.noperands; i++)
        at.operands[i].offset = 0;
    bool reduce = tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE);
    ASSERT_OK(reduce ? tsr__host_reduce(&at, host, 1) : tsr__host_elementwise(&at, host, 1));
    int dim;
    int64_t rows;
    uint64_t pieces = tsr__host_pieces(&at, &dim, &rows);
    if (by_piece)
        ASSERT_TRUE(pieces > 1);
    /* all at once, or a piece per enqueue as the daemon's turns give them */
    for (uint64_t p = 0; p < (by_piece ? pieces : 1); p++) {
        l.first_piece = by_piece ? p : 0;
        l.piece_count = by_piece ? 1 : 0;
        completion c = {.status = TSR_OK};
        atomic_init(&c.done, 0);
        tsr_status st = tsr__clrt_host_enqueue(rt, 0, &at, &l, on_done, &c);
        ASSERT_OK(st);
        while (st == TSR_OK && !atomic_load(&c.done))
            sched_yield();
        ASSERT_OK(c.status);
    }
    for (int b = 0; b < 3; b++) {
        if (memcmp(mem[b], ref[b], bytes[b]) != 0) {
            fprintf(stderr, "host launch %s: buffer %d differs from the cpu's walk\n", what, b);
            ASSERT_TRUE(false);
        }
        tsr__clrt_buffer_release(buffers[b]);
        free(mem[b]);
        free(ref[b]);
    }
}

static void check_host_launches(void)
{
    /* out[i][j] = a[j][i] + 2 * b[i][j]: 37 x 300 float32, a transposed */
    tsr__kernel add = {.op = TSR__KOP_ADD, .common = TSR_FLOAT32, .ndim = 2, .noperands = 3,
                       .sizes = {37, 300}};
    float two = 2.0f;
    memcpy(add.alpha, &two, sizeof two);
    const int64_t add_strides[3][2] = {{300, 1}, {1, 37}, {300, 1}};
    for (int i = 0; i < 3; i++) {
        add.operands[i].dtype = TSR_FLOAT32;
        memcpy(add.operands[i].strides, add_strides[i], sizeof add_strides[i]);
    }
    const size_t add_bytes[3] = {37 * 300 * 4 + 64, 37 * 300 * 4 + 64, 37 * 300 * 4 + 64};
    const uint64_t add_offs[3] = {20, 4, 64};
    host_launch_case("add", &add, add_bytes, add_offs, false);
    /* uint8 x + 3 * y over 5 x 1Mi elements: two pieces, one enqueue each */
    tsr__kernel big = {.op = TSR__KOP_ADD, .common = TSR_UINT8, .ndim = 2, .noperands = 3,
                       .sizes = {5, 1 << 20}};
    int64_t three = 3;
    memcpy(big.alpha, &three, sizeof three);
    for (int i = 0; i < 3; i++) {
        big.operands[i].dtype = TSR_UINT8;
        big.operands[i].strides[0] = 1 << 20;
        big.operands[i].strides[1] = 1;
    }
    const size_t big_bytes[3] = {(5 << 20) + 64, (5 << 20) + 64, (5 << 20) + 64};
    host_launch_case("uint8 add in pieces", &big, big_bytes, add_offs, true);
    /* values and positions of the max along dim 1 of 64 x 1000 float32 */
    tsr__kernel mx = {.op = TSR__KOP_MAX_DIM, .common = TSR_FLOAT32, .ndim = 2, .noperands = 3,
                      .sizes = {64, 1000}};
    const int64_t mx_strides[3][2] = {{1, 0}, {1000, 1}, {1, 0}};
    const uint32_t mx_dtypes[3] = {TSR_FLOAT32, TSR_FLOAT32, TSR_INT64};
    for (int i = 0; i < 3; i++) {
        mx.operands[i].dtype = mx_dtypes[i];
        memcpy(mx.operands[i].strides, mx_strides[i], sizeof mx_strides[i]);
    }
    const size_t mx_bytes[3] = {64 * 4 + 8, 64 * 1000 * 4, 64 * 8 + 8};
    const uint64_t mx_offs[3] = {8, 0, 8};
    host_launch_case("max with a dim", &mx, mx_bytes, mx_offs, false);
}

/* A memfd of `bytes` mapped where its huge pages fit (as the daemon maps
 * a segment), *fd its descriptor. */
static unsigned char *segment(uint64_t bytes, int *fd)
{
    *fd = memfd_create("gemm-test-segment", MFD_CLOEXEC);
    ASSERT_TRUE(*fd >= 0);
    ASSERT_EQ(ftruncate(*fd, (off_t)bytes), 0);
    unsigned char *p = tsr__mmap_shared(*fd, 0, bytes, PROT_READ | PROT_WRITE, 0);
    ASSERT_TRUE(p != MAP_FAILED);
    return p;
}

/* A host launch of k over `buffers` (offsets 0), enqueued; *c says when
 * it is done. */
static void enqueue_host(const tsr__kernel *k, void *const *buffers, uint32_t n, completion *c)
{
    tsr__backend_launch l = {.nbuffers = n};
    for (uint32_t b = 0; b < n; b++)
        l.buffers[b] = buffers[b];
    *c = (completion){.status = TSR_OK};
    atomic_init(&c->done, 0);
    ASSERT_OK(tsr__clrt_host_enqueue(rt, 0, k, &l, on_done, c));
}

static void wait_done(completion *c)
{
    while (!atomic_load(&c->done))
        sched_yield();
    ASSERT_OK(c->status);
}

/* float32 out = a + b over n elements, contiguous. */
static tsr__kernel add_f32(int64_t n)
{
    tsr__kernel k = {.op = TSR__KOP_ADD, .common = TSR_FLOAT32, .ndim = 1, .noperands = 3,
                     .sizes = {n}};
    float one = 1.0f;
    memcpy(k.alpha, &one, sizeof one);
    for (int i = 0; i < 3; i++) {
        k.operands[i].dtype = TSR_FLOAT32;
        k.operands[i].strides[0] = 1;
    }
    return k;
}

/* A segment's move into huge pages (devices.huge_pages), queued when its
 * buffer is made: a launch run at once waits for it (host_run declines
 * and the launch is queued behind it), and a buffer released before the
 * move ran keeps it off the range, which the daemon then unmaps and may
 * map again: here another memfd at the same address, which must stay
 * untouched (no page read into it, none collapsed). */
static void check_huge_move(void)
{
    uint64_t huge = tsr__huge_page_bytes(), bytes = 4 * huge;
    /* Queued first and long (about a tenth of a second at least): the
     * float64 power of 4Mi elements, over buffers below a huge page's
     * move (plain allocations: nothing moves them). */
    int64_t n = 1 << 22;
    tsr__kernel pw = {.op = TSR__KOP_POW, .common = TSR_FLOAT64, .ndim = 1, .noperands = 3,
                      .sizes = {n}};
    for (int i = 0; i < 3; i++) {
        pw.operands[i].dtype = TSR_FLOAT64;
        pw.operands[i].strides[0] = 1;
    }
    void *slow[3];
    double *mem[3];
    for (int b = 0; b < 3; b++) {
        mem[b] = aligned_alloc(4096, (size_t)n * sizeof(double));
        for (int64_t i = 0; i < n; i++)
            mem[b][i] = 1.0 + (double)(i % 1000) * 1e-3;
        ASSERT_OK(tsr__clrt_buffer(rt, 0, mem[b], (uint64_t)n * sizeof(double), &slow[b]));
    }
    completion c_slow, c_after;
    enqueue_host(&pw, slow, 3, &c_slow);

    int fd_t, fd_u;
    unsigned char *t = segment(bytes, &fd_t);
    memset(t, 1, bytes);
    void *tb;
    ASSERT_OK(tsr__clrt_buffer(rt, 0, t, bytes, &tb)); /* its move waits behind the power */
    /* A 1-element add over it, run at once: declined while the move waits. */
    tsr__kernel one = add_f32(1);
    tsr__backend_launch l = {.nbuffers = 3, .buffers = {tb, tb, tb}};
    bool ran = true;
    ASSERT_OK(tsr__clrt_host_run(rt, 0, &one, &l, &ran));
    ASSERT_FALSE(ran);
    /* Released, unmapped, its hole punched; another segment in its place. */
    tsr__clrt_buffer_release(tb);
    ASSERT_EQ(fallocate(fd_t, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes), 0);
    munmap(t, bytes);
    close(fd_t);
    fd_u = memfd_create("gemm-test-other", MFD_CLOEXEC);
    ASSERT_TRUE(fd_u >= 0);
    ASSERT_EQ(ftruncate(fd_u, (off_t)bytes), 0);
    unsigned char *u =
        mmap(t, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd_u, 0);
    ASSERT_TRUE(u == t);
    /* Everything queued so far has run once a launch queued after it has. */
    enqueue_host(&one, slow, 3, &c_after);
    wait_done(&c_slow);
    wait_done(&c_after);
    struct stat st;
    ASSERT_EQ(fstat(fd_u, &st), 0);
    ASSERT_EQ(st.st_blocks, 0); /* nothing read in, nothing collapsed */
    munmap(u, bytes);
    close(fd_u);

    /* A segment whose move has run: a launch over it runs at once. */
    int fd_w;
    unsigned char *w = segment(bytes, &fd_w);
    void *wb;
    ASSERT_OK(tsr__clrt_buffer(rt, 0, w, bytes, &wb));
    enqueue_host(&one, slow, 3, &c_after);
    wait_done(&c_after);
    ((float *)w)[1] = 2.0f;
    ((float *)w)[2] = 3.0f;
    tsr__backend_launch lw = {.nbuffers = 3, .buffers = {wb, wb, wb}, .offsets = {0, 4, 8}};
    ASSERT_OK(tsr__clrt_host_run(rt, 0, &one, &lw, &ran));
    ASSERT_TRUE(ran);
    ASSERT_TRUE(((float *)w)[0] == 5.0f);
    tsr__clrt_buffer_release(wb);
    munmap(w, bytes);
    close(fd_w);
    for (int b = 0; b < 3; b++) {
        tsr__clrt_buffer_release(slow[b]);
        free(mem[b]);
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
    has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    /* host memory shared (the native kernel where the device is the
     * host's CPU, then CLBlast and the GEMM program), then the device's
     * own, then staged copies */
    const char *modes = getenv("TSR_TEST_GEMM_MODES");
    for (int mode = 0; mode < (modes ? atoi(modes) : 4); mode++) {
        open_runtime(platform, mode > 1, mode == 3, mode == 0);
        bool host = tsr__clrt_host_code(rt, 0);
        if (host)
            check_host_launches();
        run_all(mode <= 1);
        if (host) { /* segments moved into huge pages */
            tsr__clrt_destroy(rt);
            huge_pages = true;
            open_runtime(platform, false, false, true);
            huge_pages = false;
            check_huge_move();
        }
        tsr__clrt_destroy(rt);
        rt = NULL;
    }
    TEST_DONE();
}
