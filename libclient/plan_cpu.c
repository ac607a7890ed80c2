/* Running a planned kernel on the host (tsr__plan_run_host).
 *
 * The coalesced iteration space is cut into units: a unit is a block of
 * the two innermost dimensions (a whole row when the inputs walk the
 * output's order; a 64 x 64 tile when an input is transposed against the
 * output, so that both stay in cache). Units are independent, which is
 * what the thread pool splits above PARALLEL_MIN elements.
 *
 * A row runs the kernels/ row loop of the common dtype directly when every
 * operand already has that dtype. Otherwise it goes in blocks of BLOCK
 * elements through small buffers: inputs are gathered and converted into
 * the common dtype, the row loop writes the result block, which is
 * converted into the output's dtype and scattered. */
#include <stdatomic.h>
#include <string.h>

#include "core/error.h"
#include "kernels/kernels.h"
#include "libclient/plan.h"
#include "libclient/threadpool.h"

#define BLOCK 1024
#define TILE 64
#define PARALLEL_MIN 32768
#define ELEMENT_MAX 16

typedef struct exec {
    const tsr__plan *plan;
    tsr__kernel_row row;
    int nops;
    bool convert;                          /* some operand's dtype differs from the common one */
    size_t size[TSR__KERNEL_MAX_OPERANDS]; /* itemsize of each operand's dtype */
    size_t common_size;
    /* geometry: outer dims [0, ndim-2), then the tile's two */
    int ndim;
    int64_t n1, n0; /* the two innermost sizes (n1 = 1 below two dims) */
    int64_t t1, t0; /* unit extents along them */
    int64_t b1, b0; /* units along them */
    atomic_int bad;
} exec;

/* Element pointer of operand k at element index `at` (in its dtype). */
static unsigned char *at_element(const exec *x, int k, int64_t at)
{
    const tsr__kernel_operand *o = &x->plan->kernel.operands[k];
    if (o->flags & TSR__KOPERAND_SCALAR)
        return (unsigned char *)x->plan->kernel.scalar;
    return x->plan->host[k] + (o->offset + at) * (int64_t)x->size[k];
}

/* Moves n elements of `size` bytes between a strided place and a packed
 * buffer. */
static void gather(unsigned char *dst, const unsigned char *src, int64_t n, int64_t stride,
                   size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + (size_t)i * size, src + i * stride, size);
}

static void scatter(unsigned char *dst, const unsigned char *src, int64_t n, int64_t stride,
                    size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + i * stride, src + (size_t)i * size, size);
}

/* m result elements of the common dtype -> the output's dtype, at its
 * stride (in elements). */
static tsr_status store_block(const exec *x, const unsigned char *result, unsigned char *staging,
                              unsigned char *out, int64_t step, int64_t m)
{
    tsr_dtype common = (tsr_dtype)x->plan->kernel.common;
    tsr_dtype dt = (tsr_dtype)x->plan->kernel.operands[0].dtype;
    if (step == 1)
        return tsr__kernel_convert(result, common, out, dt, (size_t)m);
    tsr_status st = tsr__kernel_convert(result, common, staging, dt, (size_t)m);
    if (st == TSR_OK)
        scatter(out, staging, m, step * (int64_t)x->size[0], x->size[0]);
    return st;
}

/* One row of n elements with converted operands, BLOCK at a time. */
static tsr_status convert_row(exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    const tsr__kernel *k = &x->plan->kernel;
    tsr_dtype common = (tsr_dtype)k->common;
    unsigned char buf[TSR__KERNEL_MAX_OPERANDS][BLOCK * ELEMENT_MAX];
    unsigned char staging[BLOCK * ELEMENT_MAX];
    for (int64_t done = 0; done < n; done += BLOCK) {
        int64_t m = n - done < BLOCK ? n - done : BLOCK;
        const unsigned char *in[TSR__KERNEL_MAX_OPERANDS] = {NULL};
        int64_t bytes[3] = {0, 0, 0};
        for (int op = 1; op < x->nops; op++) {
            const tsr__kernel_operand *o = &k->operands[op];
            unsigned char *src = p[op] + done * step[op] * (int64_t)x->size[op];
            tsr_dtype dt = (tsr_dtype)o->dtype;
            tsr_status st = TSR_OK;
            if ((o->flags & TSR__KOPERAND_SCALAR) || dt == common) {
                in[op] = src;
                bytes[op] = step[op] * (int64_t)x->common_size;
                continue;
            }
            in[op] = buf[op];
            bytes[op] = step[op] == 0 ? 0 : (int64_t)x->common_size;
            if (step[op] == 0) {
                st = tsr__kernel_convert(src, dt, buf[op], common, 1);
            } else if (step[op] == 1) {
                st = tsr__kernel_convert(src, dt, buf[op], common, (size_t)m);
            } else {
                gather(staging, src, m, step[op] * (int64_t)x->size[op], x->size[op]);
                st = tsr__kernel_convert(staging, dt, buf[op], common, (size_t)m);
            }
            if (st != TSR_OK)
                return st;
        }
        unsigned char *out = p[0] + done * step[0] * (int64_t)x->size[0];
        tsr_status st = TSR_OK;
        bool direct = (tsr_dtype)k->operands[0].dtype == common;
        bytes[0] = direct ? step[0] * (int64_t)x->size[0] : (int64_t)x->common_size;
        int bad = 0;
        m = x->row(direct ? out : buf[0], in[1], x->nops > 2 ? in[2] : in[1], m, bytes, k->alpha,
                   &bad);
        if (bad)
            atomic_store(&x->bad, 1);
        if (!direct)
            st = store_block(x, buf[0], staging, out, step[0], m);
        if (st != TSR_OK || bad)
            return st;
    }
    return TSR_OK;
}

static tsr_status run_row(exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    if (x->convert)
        return convert_row(x, p, step, n);
    const tsr__kernel *k = &x->plan->kernel;
    int64_t bytes[3] = {0, 0, 0};
    for (int op = 0; op < x->nops; op++)
        bytes[op] = step[op] * (int64_t)x->size[op];
    if (k->op == TSR__KOP_FILL) {
        bytes[2] = 0;
        (void)x->row(p[0], NULL, k->scalar, n, bytes, k->alpha, &(int){0});
        return TSR_OK;
    }
    int bad = 0;
    (void)x->row(p[0], p[1], x->nops > 2 ? p[2] : p[1], n, bytes, k->alpha, &bad);
    if (bad)
        atomic_store(&x->bad, 1);
    return TSR_OK;
}

/* Unit u: its outer index, then its block along dim ndim-2 and ndim-1. */
static tsr_status run_unit(exec *x, int64_t u)
{
    const tsr__kernel *k = &x->plan->kernel;
    int64_t j = u % x->b0, rest = u / x->b0;
    int64_t i = rest % x->b1, outer = rest / x->b1;
    int64_t at[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int d = x->ndim - 3; d >= 0; d--) {
        int64_t c = outer % k->sizes[d];
        outer /= k->sizes[d];
        for (int op = 0; op < x->nops; op++)
            at[op] += c * k->operands[op].strides[d];
    }
    int d1 = x->ndim - 2, d0 = x->ndim - 1;
    int64_t step[TSR__KERNEL_MAX_OPERANDS] = {0}, step1[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int op = 0; op < x->nops; op++) {
        step[op] = d0 >= 0 ? k->operands[op].strides[d0] : 0;
        step1[op] = d1 >= 0 ? k->operands[op].strides[d1] : 0;
        if (k->operands[op].flags & TSR__KOPERAND_SCALAR)
            step[op] = step1[op] = 0;
    }
    int64_t r_end = (i + 1) * x->t1 < x->n1 ? (i + 1) * x->t1 : x->n1;
    int64_t c0 = j * x->t0, c_end = c0 + x->t0 < x->n0 ? c0 + x->t0 : x->n0;
    for (int64_t r = i * x->t1; r < r_end; r++) {
        unsigned char *p[TSR__KERNEL_MAX_OPERANDS];
        for (int op = 0; op < x->nops; op++)
            p[op] = at_element(x, op, at[op] + r * step1[op] + c0 * step[op]);
        tsr_status st = run_row(x, p, step, c_end - c0);
        if (st != TSR_OK || atomic_load_explicit(&x->bad, memory_order_relaxed))
            return st;
    }
    return TSR_OK;
}

static void run_units(void *ctx, int64_t begin, int64_t end)
{
    exec *x = ctx;
    /* Conversions fail only for dtypes the planner refuses; a zero divisor
     * stops this range (other threads finish theirs, as in PyTorch). */
    for (int64_t u = begin; u < end && !atomic_load_explicit(&x->bad, memory_order_relaxed); u++)
        if (run_unit(x, u) != TSR_OK)
            return;
}

/* Whether an input walks the innermost dimension with a large stride while
 * the output does not: tiles then keep its cache lines in use. */
static bool wants_tiles(const tsr__kernel *k)
{
    if (k->ndim < 2)
        return false;
    int d0 = k->ndim - 1, d1 = k->ndim - 2;
    if (k->operands[0].strides[d0] != 1)
        return false;
    for (uint32_t op = 1; op < k->noperands; op++) {
        const tsr__kernel_operand *o = &k->operands[op];
        if (!(o->flags & TSR__KOPERAND_SCALAR) && o->strides[d1] == 1 && o->strides[d0] > 1)
            return true;
    }
    return false;
}

tsr_status tsr__plan_run_host(const tsr__plan *plan)
{
    const tsr__kernel *k = &plan->kernel;
    tsr_dtype common = (tsr_dtype)k->common;
    exec x = {.plan = plan, .nops = (int)k->noperands, .ndim = k->ndim};
    x.row = tsr__kernel_row_for((tsr__kernel_op)k->op, common);
    tsr_status st = tsr__kernel_check_compute((tsr__kernel_op)k->op, common);
    if (st != TSR_OK)
        return st;
    x.common_size = tsr_dtype_itemsize(common);
    for (int op = 0; op < x.nops; op++) {
        const tsr__kernel_operand *o = &k->operands[op];
        bool scalar = o->flags & TSR__KOPERAND_SCALAR;
        x.size[op] = scalar ? x.common_size : tsr_dtype_itemsize((tsr_dtype)o->dtype);
        x.convert |= !scalar && (tsr_dtype)o->dtype != common && k->op != TSR__KOP_FILL;
    }
    x.n0 = k->ndim >= 1 ? k->sizes[k->ndim - 1] : 1;
    x.n1 = k->ndim >= 2 ? k->sizes[k->ndim - 2] : 1;
    bool tiles = wants_tiles(k);
    x.t0 = tiles ? TILE : (x.n0 > 0 ? x.n0 : 1);
    x.t1 = tiles ? TILE : 1;
    x.b0 = (x.n0 + x.t0 - 1) / x.t0;
    x.b1 = (x.n1 + x.t1 - 1) / x.t1;
    int64_t outer = 1;
    for (int d = 0; d < k->ndim - 2; d++)
        outer *= k->sizes[d];
    int64_t units = outer * x.b1 * x.b0;
    atomic_init(&x.bad, 0);
    if (plan->numel < PARALLEL_MIN) {
        run_units(&x, 0, units);
    } else {
        int64_t per_unit = x.t0 * x.t1;
        tsr__parallel_for(units, per_unit >= 8192 ? 1 : 8192 / per_unit, run_units, &x);
    }
    if (atomic_load(&x.bad))
        return tsr__fail(TSR_ERR_RUNTIME, "ZeroDivisionError");
    return TSR_OK;
}
