/* See launch.h. What a launch of a kernel is, whatever the device: its
 * key (the program it needs), whether a device can run it, and the walk
 * and NDRange of core/kernel.h's ABI. A backend's code generator writes a
 * program for each key this file accepts, with the entries
 * tsr__kernel_entry names. */
#include "kernels/launch.h"
#include "kernels/reduce_order.h"

#include <string.h>

#include "core/error.h"
#include "kernels/cpu_reduce.h"
#include "kernels/kernels.h"
#include "tessera/dtype.h"

static bool needs_fp64(tsr_dtype d)
{
    return d == TSR_FLOAT64 || d == TSR_COMPLEX128;
}

static tsr_status bad_key(const char *what, int value)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid kernel %s %d", what, value);
}

/* Operand k of a key: its dtype, or TSR__KEY_SCALAR. */
static bool key_is_scalar(const tsr__kernel_key *key, int k)
{
    return key->dtypes[k] == TSR__KEY_SCALAR;
}

uint32_t tsr__kernel_scalar_max(uint32_t op)
{
    return tsr__kernel_op_has(op, TSR__KOPF_ALPHA | TSR__KOPF_VALUE | TSR__KOPF_MOVE) ? 1 : 2;
}

uint32_t tsr__kernel_scalar_count(const tsr__kernel *k)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++)
        n += (k->operands[i].flags & TSR__KOPERAND_SCALAR) != 0;
    return n;
}

/* The operands with storage of a key's kernels: the output, then each
 * input that is not a scalar. */
int tsr__kernel_key_storage(const tsr__kernel_key *key, int *storage)
{
    int n = 0;
    for (int k = 0; k < key->noperands && k < TSR__KERNEL_MAX_OPERANDS; k++)
        if (k == 0 || !key_is_scalar(key, k))
            storage[n++] = k;
    return n;
}

static bool has_entry(const tsr__kernel_key *key, const int *storage, int nstorage, int entry);

static tsr_status fp64_missing(void)
{
    return tsr__fail(TSR_ERR_NOT_SUPPORTED, "this device has no float64 support: it cannot compute "
                                            "with float64 or complex128");
}

/* A generic program's key: op 0, the entry, a common dtype, zeros. */
static tsr_status generic_key_check(const tsr__kernel_key *key, unsigned caps)
{
    if (key->op != 0 || key->noperands != 0)
        return bad_key("field of a generic program's key", key->op);
    for (int k = 0; k < TSR__KERNEL_MAX_OPERANDS; k++)
        if (key->dtypes[k] != 0)
            return bad_key("operand dtype of a generic program's key", key->dtypes[k]);
    if (!tsr_dtype_is_valid((tsr_dtype)key->common))
        return bad_key("common dtype", key->common);
    if (key->entry == TSR__KENTRY_GEMM && !tsr__kernel_gemm_has((tsr_dtype)key->common))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "no GEMM program computes in %s",
                         tsr_dtype_name((tsr_dtype)key->common));
    if (key->entry == TSR__KENTRY_REDUCE &&
        !tsr__reduce_computes(TSR__KOP_SUM, (tsr_dtype)key->common))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "no reduction computes in %s",
                         tsr_dtype_name((tsr_dtype)key->common));
    if (needs_fp64((tsr_dtype)key->common) && !(caps & TSR__KCAP_FP64))
        return fp64_missing();
    return TSR_OK;
}

uint32_t tsr__kernel_operand_count(uint32_t op)
{
    return 1 + tsr__kernel_ops[op].arity + (tsr__kernel_op_has(op, TSR__KOPF_INDICES) ? 1 : 0);
}

/* A reduction's key (core/kernel.h, "A reduction"): a reduction the cpu
 * computes in the common dtype (tsr__reduce_computes), an output in the common dtype (all and any: bool or
 * uint8; argmax, argmin: int64), int64 positions, no scalar input. */
static tsr_status reduce_key_check(const tsr__kernel_key *key, unsigned caps)
{
    uint32_t op = key->op, flags = tsr__kernel_ops[op].flags;
    tsr_dtype common = (tsr_dtype)key->common;
    if (key->noperands != tsr__kernel_operand_count(op))
        return bad_key("operand count", key->noperands);
    if (key->entry != TSR__KENTRY_REDUCE)
        return bad_key("entry", key->entry);
    bool fp64 = needs_fp64(common);
    for (int k = 0; k < TSR__KERNEL_MAX_OPERANDS; k++) {
        uint8_t d = key->dtypes[k];
        if (k >= key->noperands) {
            if (d != 0)
                return bad_key("unused operand dtype", d);
            continue;
        }
        if (!tsr_dtype_is_valid((tsr_dtype)d) || d == TSR_FLOAT4_E2M1FN_X2)
            return bad_key("operand dtype", d);
        fp64 |= needs_fp64((tsr_dtype)d);
    }
    if (!tsr__reduce_computes(op, common))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'",
                         tsr__kernel_ops[op].stub, tsr_dtype_message_name(common));
    uint8_t out = key->dtypes[0];
    bool out_ok = (flags & TSR__KOPF_INDEX) ? out == TSR_INT64
                  : common == TSR_BOOL      ? out == TSR_BOOL || out == TSR_UINT8
                                            : out == common;
    if (!out_ok || ((flags & TSR__KOPF_INDICES) && key->dtypes[2] != TSR_INT64))
        return bad_key("output dtype of a reduction", out);
    if (fp64 && !(caps & TSR__KCAP_FP64))
        return fp64_missing();
    return TSR_OK;
}

tsr_status tsr__kernel_key_check(const tsr__kernel_key *key, unsigned caps)
{
    if (key == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel key must not be NULL");
    if (key->entry == TSR__KENTRY_GENERIC || key->entry == TSR__KENTRY_GEMM ||
        (key->entry == TSR__KENTRY_REDUCE && key->op == 0))
        return generic_key_check(key, caps);
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    if (key->op == 0 || key->op >= TSR__KOP_COUNT)
        return bad_key("operation", key->op);
    if (!tsr_dtype_is_valid((tsr_dtype)key->common))
        return bad_key("common dtype", key->common);
    if (tsr__kernel_ops[op].flags & TSR__KOPF_REDUCE)
        return reduce_key_check(key, caps);
    unsigned want = 1 + tsr__kernel_ops[op].arity;
    if (key->noperands != want)
        return bad_key("operand count", key->noperands);
    if (key->entry >= TSR__KENTRY_COUNT)
        return bad_key("entry", key->entry);
    tsr_dtype common = (tsr_dtype)key->common;
    bool fp64 = needs_fp64(common);
    for (int k = 0; k < TSR__KERNEL_MAX_OPERANDS; k++) {
        uint8_t d = key->dtypes[k];
        if (k >= (int)want) {
            if (d != 0)
                return bad_key("unused operand dtype", d);
            continue;
        }
        if (d == TSR__KEY_SCALAR && k > 0)
            continue;
        if (!tsr_dtype_is_valid((tsr_dtype)d))
            return bad_key("operand dtype", d);
        fp64 |= needs_fp64((tsr_dtype)d);
        if ((d == TSR_FLOAT4_E2M1FN_X2) != (common == TSR_FLOAT4_E2M1FN_X2) && op != TSR__KOP_FILL)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                             "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                             "(from %s to %s)",
                             tsr_dtype_message_name((tsr_dtype)d), tsr_dtype_message_name(common));
    }
    if ((op == TSR__KOP_FILL || op == TSR__KOP_COPY) && key->dtypes[0] != common)
        return bad_key("output dtype of a copy", key->dtypes[0]);
    tsr_status st = tsr__kernel_check_compute(op, common);
    if (st != TSR_OK)
        return st;
    if (fp64 && !(caps & TSR__KCAP_FP64))
        return fp64_missing();
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = tsr__kernel_key_storage(key, storage);
    if (!has_entry(key, storage, nstorage, key->entry))
        return bad_key("entry for these operands", key->entry);
    return TSR_OK;
}

tsr_status tsr__kernel_key_of(const tsr__kernel *k, tsr__kernel_key *out)
{
    if (k == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel and key must not be NULL");
    if (k->ndim < 0 || k->ndim > TSR_MAX_DIMS)
        return bad_key("ndim", k->ndim);
    if (k->noperands < 1 || k->noperands > TSR__KERNEL_MAX_OPERANDS)
        return bad_key("operand count", (int)k->noperands);
    for (int d = 0; d < k->ndim; d++)
        if (k->sizes[d] < 0)
            return bad_key("size", (int)k->sizes[d]);
    if (k->op > 0xff || k->common > 0xff)
        return bad_key("operation or dtype", (int)k->op);
    tsr__kernel_key key = {
        .op = (uint8_t)k->op,
        .common = (uint8_t)k->common,
        .noperands = (uint8_t)k->noperands,
    };
    for (uint32_t i = 0; i < k->noperands; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & ~(uint32_t)TSR__KOPERAND_SCALAR)
            return bad_key("operand flags", (int)o->flags);
        if ((o->flags & TSR__KOPERAND_SCALAR) && i == 0)
            return bad_key("output flags", (int)o->flags);
        if (!(o->flags & TSR__KOPERAND_SCALAR) && o->dtype >= TSR_DTYPE_COUNT)
            return bad_key("operand dtype", (int)o->dtype);
        key.dtypes[i] = o->flags & TSR__KOPERAND_SCALAR ? TSR__KEY_SCALAR : (uint8_t)o->dtype;
    }
    if (tsr__kernel_scalar_count(k) > tsr__kernel_scalar_max(k->op))
        return bad_key("scalar input count", (int)tsr__kernel_scalar_count(k));
    bool reduce = tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE);
    key.entry = reduce ? TSR__KENTRY_REDUCE : TSR__KWALK_STRIDED;
    tsr_status st = tsr__kernel_key_check(&key, TSR__KCAP_FP64);
    if (st != TSR_OK || reduce) {
        if (st == TSR_OK)
            *out = key;
        return st;
    }
    /* The walk depends on the layout alone, not on the device. An empty
     * launch has none (it runs nothing). tsr__kernel_entry only names
     * entries the checked key has, so the key needs no second check. */
    bool empty = false;
    for (int d = 0; d < k->ndim; d++)
        empty |= k->sizes[d] == 0;
    if (!empty) {
        tsr__kernel_geometry g;
        tsr__kernel_launch_geometry(k, 1, 0, &g);
        key.entry = (uint8_t)tsr__kernel_entry(&key, g.block[2]);
    }
    *out = key;
    return TSR_OK;
}

/* ---- launches ----------------------------------------------------------- */

/* The elements one work-item walks along rows that every operand steps
 * through by one (or stands still on): enough that starting a work-item
 * is noise beside them. */
#define ROW_ELEMENTS 16384u
/* A strided walk goes through a tile, so that the cache lines an operand
 * that runs across the rows touches are used up while they are still in
 * the first-level cache. (A transposed input of an operation is packed
 * instead: TSR__KPACK_*.) */
#define TILE_X 32u
#define TILE_Y 32u
/* Blocks are halved down to this many elements until every compute unit
 * has several work-items. */
#define MIN_BLOCK 256u
#define ITEMS_PER_UNIT 4u

/* What block.z says of add/sub's alpha in the floating dtypes whose add
 * special-cases 1 and -1 (float16, bfloat16, float32, float64; alpha
 * comes as float32 bits in the two reduced ones): those have loops of
 * their own (tsr__kernel_key_alpha_loops). */
static uint32_t alpha_class(const tsr__kernel *k)
{
    tsr_dtype c = (tsr_dtype)k->common;
    if (!tsr__kernel_op_has(k->op, TSR__KOPF_ALPHA) ||
        (c != TSR_FLOAT16 && c != TSR_BFLOAT16 && c != TSR_FLOAT32 && c != TSR_FLOAT64))
        return 0;
    uint64_t bits = 0, one = c == TSR_FLOAT64 ? UINT64_C(0x3FF0000000000000) : 0x3F800000u;
    uint64_t sign = c == TSR_FLOAT64 ? UINT64_C(0x8000000000000000) : 0x80000000u;
    memcpy(&bits, k->alpha, c == TSR_FLOAT64 ? 8 : 4);
    return bits == one            ? TSR__KBLOCK_ALPHA_ONE
           : bits == (one | sign) ? TSR__KBLOCK_ALPHA_MINUS_ONE
                                  : 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Whether the output steps by one along x. */
static bool out_unit(const tsr__kernel_geometry *g)
{
    return g->stride[0][0] == 1;
}

/* Whether every input with storage but `except` steps by one along x. */
static bool others_unit(const tsr__kernel_geometry *g, const tsr__kernel *k, uint32_t except)
{
    int q = 1;
    for (uint32_t i = 1; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        if (k->operands[i].flags & TSR__KOPERAND_SCALAR)
            continue;
        if (i != except && g->stride[q][0] != 1)
            return false;
        q++;
    }
    return true;
}

/* Splits the NDRange into pieces of at most TSR__KERNEL_PIECE_ITEMS
 * work-items and about TSR__KERNEL_PIECE_ELEMENTS elements: whole rows of
 * x first, then of y, then the outer index. */
static void launch_pieces(tsr__kernel_geometry *g)
{
    uint64_t room = TSR__KERNEL_PIECE_ELEMENTS / ((uint64_t)g->block[0] * g->block[1]);
    if (room == 0)
        room = 1;
    g->pieces = 1;
    for (int d = 0; d < 3; d++) {
        g->step[d] = min_u64(g->global[d], room);
        if (g->step[d] == 0)
            g->step[d] = 1;
        room /= g->step[d];
        if (room == 0)
            room = 1;
        g->pieces *= ceil_div(g->global[d], g->step[d]);
    }
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

/* Whether dimension d of a reduction is reduced (cpu_reduce.c's rule). */
static bool reduced_dim(const tsr__kernel *k, int d)
{
    return k->operands[0].strides[d] == 0 && k->sizes[d] != 1;
}

void tsr__kernel_reduce_counts(const tsr__kernel *k, uint64_t *outputs, uint64_t *each)
{
    *outputs = *each = 1;
    for (int d = 0; d < k->ndim && d < TSR_MAX_DIMS; d++) {
        uint64_t *n = reduced_dim(k, d) ? each : outputs;
        *n = mul_sat(*n, (uint64_t)k->sizes[d]);
    }
}

/* A reduction's walk (core/kernel.h, "A reduction"): a work-item per
 * block of outputs, each reduced whole, in pieces of about
 * TSR__KERNEL_PIECE_ELEMENTS elements of work. */
static void reduce_geometry(const tsr__kernel *k, uint32_t compute_units, tsr__kernel_geometry *g)
{
    int order[TSR_MAX_DIMS], nk = 0, nd = k->ndim;
    for (int d = 0; d < nd; d++)
        if (!reduced_dim(k, d))
            order[nk++] = d;
    for (int d = 0, n = nk; d < nd; d++)
        if (reduced_dim(k, d))
            order[n++] = d;
    int q = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++)
        if (!(k->operands[i].flags & TSR__KOPERAND_SCALAR)) {
            for (int j = 0; j < nd; j++)
                g->geom[(1 + q) * nd + j] = k->operands[i].strides[order[j]];
            q++;
        }
    for (int j = 0; j < nd; j++)
        g->geom[j] = k->sizes[order[j]];
    g->nstorage = q;
    g->geom_count = nd * (1 + q);
    uint64_t outputs, each;
    tsr__kernel_reduce_counts(k, &outputs, &each);
    uint64_t work = each > 0 ? each : 1;
    /* several outputs per work-item where each is short, but every
     * compute unit gets a few work-items */
    uint64_t bx = min_u64(outputs, ROW_ELEMENTS / work > 0 ? ROW_ELEMENTS / work : 1);
    uint64_t want = (uint64_t)ITEMS_PER_UNIT * (compute_units ? compute_units : 1);
    while (bx > 1 && ceil_div(outputs, bx) < want)
        bx = ceil_div(bx, 2);
    if (bx == 0)
        bx = 1;
    /* Outputs along a kept dimension contiguous in the input, each over
     * elements that are not (a sum over dim 0 of a row-major matrix):
     * work-items of whole groups of TSR__RED_COL_OUTPUTS of them, which
     * a device sums together (opencl/reduce.cl's column walk), as many
     * groups as make TSR__RED_COL_WIDE outputs (long runs of each row)
     * while every compute unit keeps a few work-items, each of at most
     * two pieces' elements. */
    int64_t in_inner = nk > 0 ? k->operands[1].strides[order[nk - 1]] : 0;
    int64_t red_inner = nk < nd ? k->operands[1].strides[order[nd - 1]] : 1;
    bool by_cols = nk > 0 && in_inner == 1 && red_inner != 1 && each > 1 &&
                   (uint64_t)k->sizes[order[nk - 1]] >= TSR__RED_COL_OUTPUTS;
    if (by_cols) {
        uint64_t groups = TSR__RED_COL_WIDE / TSR__RED_COL_OUTPUTS;
        while (groups > 1 && (ceil_div(outputs, groups * TSR__RED_COL_OUTPUTS) < want ||
                              groups * TSR__RED_COL_OUTPUTS * work > 2 * TSR__KERNEL_PIECE_ELEMENTS))
            groups /= 2;
        bx = groups * TSR__RED_COL_OUTPUTS;
    }
    g->size[0] = outputs;
    g->size[1] = each;
    g->size[2] = 1;
    g->block[0] = (uint32_t)bx;
    g->block[1] = (uint32_t)nk;
    g->block[2] = 0;
    g->block[3] = (uint32_t)(nd - nk);
    g->global[0] = ceil_div(outputs, bx);
    g->global[1] = g->global[2] = 1;
    g->local[0] = g->local[1] = g->local[2] = 1;
    uint64_t room = TSR__KERNEL_PIECE_ELEMENTS / mul_sat(bx, work);
    /* a column walk's piece has a work-item for every compute unit: as
     * long in time as one work-item's */
    if (by_cols && room < compute_units)
        room = compute_units;
    g->step[0] = min_u64(g->global[0], room > 0 ? room : 1);
    g->step[1] = g->step[2] = 1;
    g->pieces = ceil_div(g->global[0], g->step[0]);
    /* Too few outputs for the compute units, each of at least two nodes
     * of TSR__RED_BLOCK_CHUNKS chunks: the nodes of an output's chunk tree
     * go to work-items of their own (two phases, core/kernel.h). Nodes
     * grow by powers of two until there are about `want` in all. */
    uint64_t chunks = ceil_div(each, TSR__RED_CHUNK);
    if (outputs >= want || chunks < 2 * TSR__RED_BLOCK_CHUNKS)
        return;
    uint64_t per_output = ceil_div(want, outputs), node = TSR__RED_BLOCK_CHUNKS;
    while (ceil_div(chunks, node) > per_output)
        node *= 2;
    uint64_t nodes = ceil_div(chunks, node);
    if (nodes < 2)
        return;
    g->size[2] = nodes;
    g->size[3] = node;
    g->block[0] = 1;
    g->global[0] = outputs * nodes;
    g->step[0] = g->global[0];
    g->pieces = 1;
}

void tsr__kernel_launch_geometry(const tsr__kernel *k, uint32_t compute_units,
                                 uint64_t stream_bytes, tsr__kernel_geometry *g)
{
    memset(g, 0, sizeof *g);
    if (tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE)) {
        reduce_geometry(k, compute_units, g);
        return;
    }
    int nd = k->ndim, outer = nd > 2 ? nd - 2 : 0;
    g->size[0] = nd >= 1 ? (uint64_t)k->sizes[nd - 1] : 1;
    g->size[1] = nd >= 2 ? (uint64_t)k->sizes[nd - 2] : 1;
    g->size[2] = 1;
    for (int d = 0; d < outer; d++)
        g->size[2] *= (uint64_t)k->sizes[d];
    if (outer >= 2)
        for (int d = 0; d < outer; d++)
            g->geom[d] = k->sizes[d];
    /* The walk: which operands step by one along x, which stand still,
     * which run along y instead (transposed). */
    bool unit = true;
    uint32_t still = 0, nstill = 0, across = 0, nacross = 0;
    int q = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & TSR__KOPERAND_SCALAR)
            continue;
        int64_t *st = g->stride[q];
        st[0] = nd >= 1 ? o->strides[nd - 1] : 0;
        st[1] = nd >= 2 ? o->strides[nd - 2] : 0;
        st[2] = nd == 3 ? o->strides[0] : 0;
        if (outer >= 2)
            for (int d = 0; d < outer; d++)
                g->geom[outer * (1 + q) + d] = o->strides[d];
        if (st[0] == 0 && i > 0) {
            still = i;
            nstill++;
        } else if (st[0] != 1) {
            unit = false;
            if (i > 0 && st[1] == 1) {
                across = i;
                nacross++;
            }
        }
        q++;
    }
    g->nstorage = q;
    g->geom_count = outer >= 2 ? outer * (1 + q) : 0;
    /* A transposed input is packed where every other operand steps by one
     * along x: its stride along x is not 1, so `unit` only fails for it,
     * and nothing stands still. A copy packs too: NCHW -> NHWC of a
     * 64x64x56x56 float32 tensor on one PoCL thread ran about 20% faster
     * through the packed tile (8x8 transposes in registers) than through
     * the strided walk's element-by-element tile. */
    bool packs =
        nacross == 1 && nstill == 0 && g->size[1] > 1 && out_unit(g) && others_unit(g, k, across);
    /* Three inputs have the unit and strided walks only: the others name
     * input 1 or 2. */
    bool ternary = k->noperands > 3;
    uint32_t walk = g->size[0] <= 1 || (unit && nstill == 0) ? TSR__KWALK_UNIT
                    : ternary                                ? TSR__KWALK_STRIDED
                    : unit && nstill == 1                    ? still
                    : packs                                  ? TSR__KWALK_PACK1 + across - 1
                                                             : TSR__KWALK_STRIDED;
    /* The block: long rows where the operands step through memory
     * together, tiles where one of them runs across. */
    uint64_t bx, by;
    if (walk == TSR__KWALK_PACK1 || walk == TSR__KWALK_PACK2) {
        size_t w = tsr_dtype_itemsize((tsr_dtype)k->operands[across].dtype);
        bx = min_u64(g->size[0], TSR__KPACK_X);
        by = min_u64(g->size[1], TSR__KPACK_BYTES / (TSR__KPACK_X * w));
    } else if (walk != TSR__KWALK_STRIDED || g->size[1] == 1) {
        bx = min_u64(g->size[0], ROW_ELEMENTS);
        by = min_u64(g->size[1], ROW_ELEMENTS / bx);
    } else {
        bx = min_u64(g->size[0], TILE_X);
        by = min_u64(g->size[1], bx < TILE_X ? ROW_ELEMENTS / bx : TILE_Y);
    }
    uint64_t want = (uint64_t)ITEMS_PER_UNIT * (compute_units ? compute_units : 1);
    while (ceil_div(g->size[0], bx) * ceil_div(g->size[1], by) * g->size[2] < want &&
           bx * by >= 2 * MIN_BLOCK) {
        if (by > 1)
            by = ceil_div(by, 2);
        else
            bx = ceil_div(bx, 2);
    }
    g->block[0] = (uint32_t)bx;
    g->block[1] = (uint32_t)by;
    g->block[2] = walk + (walk == TSR__KWALK_UNIT ? alpha_class(k) : 0);
    uint64_t out_bytes =
        g->size[0] * g->size[1] * g->size[2] * tsr_dtype_itemsize((tsr_dtype)k->operands[0].dtype);
    /* (A packed walk streams only the rows it has vectors for: see
     * vector_rows.) */
    bool chunks =
        walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_BCAST2 || walk == TSR__KWALK_PACK1 ||
        walk == TSR__KWALK_PACK2 ||
        (walk == TSR__KWALK_UNIT && (k->op == TSR__KOP_FILL || tsr__kernel_unit_streams(k->op)));
    if (chunks && stream_bytes > 0 && out_bytes >= stream_bytes)
        g->block[2] |= TSR__KBLOCK_STREAM;
    g->block[3] = (uint32_t)outer;
    g->global[0] = ceil_div(g->size[0], bx);
    g->global[1] = ceil_div(g->size[1], by);
    g->global[2] = g->size[2];
    g->local[0] = g->local[1] = g->local[2] = 1;
    launch_pieces(g);
}

/* An operation's output is half the bytes a unary one moves and a third
 * of a binary one's: stored through the caches, each of its lines is read
 * before it is written, a third (a quarter) more traffic than stores
 * around them (as memcpy stores a large block) move. A copy's own rows
 * are left as they were. 2^26-element adds on one PoCL thread of an AMD
 * EPYC (AVX2), a loaded machine, against a STREAM add beside them:
 * float16 0.67-0.88 streamed against 0.59-0.80 stored through the
 * caches, bfloat16 0.75-0.88 against 0.63-0.79, float32 alike
 * (0.93-1.12 against 0.94-1.19). */
bool tsr__kernel_unit_streams(uint32_t op)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    return info && op != TSR__KOP_COPY && info->arity >= 1 && !(info->flags & TSR__KOPF_REDUCE);
}

/* Whether the program divides integers, where a zero divisor leaves its
 * element unwritten (and which no vector unit computes anyway). */
bool tsr__kernel_key_checks_zero(const tsr__kernel_key *key)
{
    tsr_dtype c = (tsr_dtype)key->common;
    return tsr__kernel_op_has(key->op, TSR__KOPF_ZERO_CHECK) && !tsr_dtype_is_floating_point(c) &&
           !tsr_dtype_is_complex(c);
}

/* Whether add/sub gets loops of its own for alpha 1 and -1 where every
 * operand steps by one: in the floating dtypes whose add special-cases
 * them (scalar_ops.h), which a vector loop that does not know alpha
 * computes all of (three paths, one of them the reduced dtypes' rounding
 * of alpha * b) before it picks one. Knowing alpha, those loops compute
 * a + b or a - b as written and need no NaN spelled out (cl_helpers;
 * bfloat16's encoder writes every NaN as 7FC0 anyway). */
bool tsr__kernel_key_alpha_loops(const tsr__kernel_key *key)
{
    tsr_dtype c = (tsr_dtype)key->common;
    return tsr__kernel_op_has(key->op, TSR__KOPF_ALPHA) &&
           (c == TSR_FLOAT16 || c == TSR_BFLOAT16 || c == TSR_FLOAT32 || c == TSR_FLOAT64);
}

/* Whether a program has the walk: the standing-still and packed ones
 * need their input to have storage; an integer division has the scalar
 * walk only (no vector unit divides integers, and a zero divisor leaves
 * its element unwritten, which chunks would not). */
static bool has_walk(const tsr__kernel_key *key, const int *storage, int nstorage, int walk)
{
    if (tsr__kernel_key_checks_zero(key))
        return walk == TSR__KWALK_STRIDED;
    if (key->noperands > 3)
        return walk == TSR__KWALK_STRIDED || walk == TSR__KWALK_UNIT;
    int k = walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_PACK1   ? 1
            : walk == TSR__KWALK_BCAST2 || walk == TSR__KWALK_PACK2 ? 2
                                                                    : 0;
    for (int q = 1; q < nstorage; q++)
        if (storage[q] == k)
            return true;
    return k == 0;
}

static const char *const entry_names[TSR__KENTRY_COUNT] = {
    [TSR__KWALK_UNIT] = "unit",
    [TSR__KWALK_BCAST1] = "bcast1",
    [TSR__KWALK_BCAST2] = "bcast2",
    [TSR__KWALK_STRIDED] = "strided",
    [TSR__KWALK_PACK1] = "pack1",
    [TSR__KWALK_PACK2] = "pack2",
    [TSR__KENTRY_UNIT_PLUS] = "unit, alpha 1",
    [TSR__KENTRY_UNIT_MINUS] = "unit, alpha -1",
    [TSR__KENTRY_GENERIC] = "generic",
    [TSR__KENTRY_REDUCE] = "reduce",
    [TSR__KENTRY_GEMM] = "gemm",
};

/* Whether a key's program has the entry. */
static bool has_entry(const tsr__kernel_key *key, const int *storage, int nstorage, int entry)
{
    if (entry == TSR__KENTRY_UNIT_PLUS || entry == TSR__KENTRY_UNIT_MINUS)
        return tsr__kernel_key_alpha_loops(key) &&
               has_walk(key, storage, nstorage, TSR__KWALK_UNIT);
    if (entry >= TSR__KWALK_COUNT)
        return false; /* the generic and reduction programs' */
    return entry == TSR__KWALK_STRIDED || has_walk(key, storage, nstorage, entry);
}

int tsr__kernel_entry(const tsr__kernel_key *key, uint32_t block_z)
{
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = tsr__kernel_key_storage(key, storage);
    uint32_t walk = block_z & (TSR__KBLOCK_ALPHA_ONE - 1);
    if (walk == TSR__KWALK_UNIT && (block_z & TSR__KBLOCK_ALPHA_ONE) &&
        has_entry(key, storage, nstorage, TSR__KENTRY_UNIT_PLUS))
        return TSR__KENTRY_UNIT_PLUS;
    if (walk == TSR__KWALK_UNIT && (block_z & TSR__KBLOCK_ALPHA_MINUS_ONE) &&
        has_entry(key, storage, nstorage, TSR__KENTRY_UNIT_MINUS))
        return TSR__KENTRY_UNIT_MINUS;
    if (walk < TSR__KWALK_COUNT && has_entry(key, storage, nstorage, (int)walk))
        return (int)walk;
    return TSR__KWALK_STRIDED;
}

const char *tsr__kernel_entry_name(int entry)
{
    return entry >= 0 && entry < TSR__KENTRY_COUNT ? entry_names[entry] : NULL;
}

tsr__kernel_key tsr__kernel_generic_key(tsr_dtype common)
{
    return (tsr__kernel_key){.entry = TSR__KENTRY_GENERIC, .common = (uint8_t)common};
}

tsr__kernel_key tsr__kernel_reduce_key(tsr_dtype common)
{
    return (tsr__kernel_key){.entry = TSR__KENTRY_REDUCE, .common = (uint8_t)common};
}

tsr__kernel_key tsr__kernel_gemm_key(tsr_dtype dtype)
{
    return (tsr__kernel_key){.entry = TSR__KENTRY_GEMM, .common = (uint8_t)dtype};
}

bool tsr__kernel_gemm_has(tsr_dtype d)
{
    return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || d == TSR_UINT8 || d == TSR_INT8 ||
           d == TSR_INT16 || d == TSR_INT32 || d == TSR_INT64;
}

void tsr__kernel_generic_kind(const tsr__kernel *k, uint32_t kind[4])
{
    uint32_t in[3] = {TSR__KGENERIC_NONE, TSR__KGENERIC_NONE, TSR__KGENERIC_NONE}, storage = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        bool scalar = (k->operands[i].flags & TSR__KOPERAND_SCALAR) != 0;
        storage += !scalar;
        if (i > 0)
            in[i - 1] = scalar ? TSR__KEY_SCALAR : k->operands[i].dtype & 0xffu;
    }
    kind[0] = k->op;
    kind[1] = k->operands[0].dtype;
    kind[2] = in[0] | in[1] << 8 | in[2] << 16;
    kind[3] = storage;
}
