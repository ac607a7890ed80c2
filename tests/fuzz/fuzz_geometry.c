/* Fuzz target: the geometry and layout functions (geometry.h, layout.h).
 *
 * The input's bytes decode into an operation, a geometry (ndim, sizes,
 * strides, storage offset) and the operation's arguments. Invariants:
 * - a failing call sets a message and writes none of its outputs;
 * - a view gives the same answer when its output aliases its input;
 * - views that cannot grow the storage they address (transpose, t,
 *   permute, narrow, select, slice, squeeze, unsqueeze, expand, view and a
 *   reshape that did not copy) stay inside the input's storage span, and
 *   as_strided stays inside the storage it is given;
 * - strides_for's strides are contiguous in their format, broadcasting is
 *   symmetric, and the arithmetic helpers agree with plain arithmetic. */
#include "fuzz.h"

/* One more than the geometry can hold, so bad ndims reach the API with
 * arrays that are really that long. */
#define ARRAY_DIMS (TSR_MAX_DIMS + 2)

enum op {
    OP_NUMEL,
    OP_NBYTES,
    OP_GEOMETRY_INIT,
    OP_BROADCAST,
    OP_WRAP_DIM,
    OP_STRIDES_FOR,
    OP_CONTIGUITY,
    OP_PRESERVE_STRIDES,
    OP_FIRST_VIEW, /* the views follow */
    OP_TRANSPOSE = OP_FIRST_VIEW,
    OP_T,
    OP_PERMUTE,
    OP_NARROW,
    OP_SELECT,
    OP_SLICE,
    OP_UNSQUEEZE,
    OP_SQUEEZE,
    OP_EXPAND,
    OP_VIEW,
    OP_RESHAPE,
    OP_AS_STRIDED,
    OP_COUNT
};

typedef struct shape {
    int ndim; /* -1 .. TSR_MAX_DIMS + 1 */
    int64_t sizes[ARRAY_DIMS];
    int64_t strides[ARRAY_DIMS];
    int64_t offset;
} shape;

typedef struct view_args {
    int64_t a, b, c;
    bool has_start, has_end;
    shape other; /* permute dims, expand/view/reshape sizes, as_strided geometry */
    int64_t storage_elems;
    size_t itemsize;
} view_args;

static void decode_shape(fuzz_reader *r, shape *s)
{
    memset(s, 0, sizeof(*s));
    s->ndim = fuzz_u8(r) % (TSR_MAX_DIMS + 3) - 1;
    int n = s->ndim < 0 ? 0 : s->ndim;
    for (int i = 0; i < n; i++)
        s->sizes[i] = fuzz_i64(r);
    for (int i = 0; i < n; i++)
        s->strides[i] = fuzz_i64(r);
    s->offset = fuzz_i64(r);
}

static bool ndim_ok(int ndim)
{
    return ndim >= 0 && ndim <= TSR_MAX_DIMS;
}

static bool sizes_ok(const shape *s)
{
    if (!ndim_ok(s->ndim))
        return false;
    for (int i = 0; i < s->ndim; i++)
        if (s->sizes[i] < 0)
            return false;
    return true;
}

static void to_geometry(const shape *s, tsr_geometry *g)
{
    memset(g, 0, sizeof(*g));
    g->ndim = s->ndim;
    int n = ndim_ok(s->ndim) ? s->ndim : TSR_MAX_DIMS;
    memcpy(g->sizes, s->sizes, sizeof(int64_t) * n);
    memcpy(g->strides, s->strides, sizeof(int64_t) * n);
    g->offset = s->offset;
}

static bool same_geometry(const tsr_geometry *x, const tsr_geometry *y)
{
    if (x->ndim != y->ndim || x->offset != y->offset || !ndim_ok(x->ndim))
        return false;
    for (int i = 0; i < x->ndim; i++)
        if (x->sizes[i] != y->sizes[i] || x->strides[i] != y->strides[i])
            return false;
    return true;
}

/* The storage elements a geometry addresses, as [begin, end); false when
 * it addresses none or cannot say. */
static bool extent(const tsr_geometry *g, int64_t *begin, int64_t *end)
{
    int64_t numel, span;
    if (tsr_numel(g->ndim, g->sizes, &numel) != TSR_OK || numel == 0)
        return false;
    if (tsr_geometry_storage_span(g, &span) != TSR_OK)
        return false;
    *begin = g->offset;
    *end = span;
    return true;
}

static void check_numel(const shape *s, fuzz_reader *r)
{
    int64_t numel = -7;
    tsr_status st = tsr_numel(s->ndim, s->sizes, &numel);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(numel == -7);
        return;
    }
    FUZZ_CHECK(sizes_ok(s));
    int64_t product = 1;
    bool overflow = false, zero = false;
    for (int i = 0; i < s->ndim; i++) {
        zero |= s->sizes[i] == 0;
        overflow |= __builtin_mul_overflow(product, s->sizes[i], &product);
    }
    FUZZ_CHECK(zero ? numel == 0 : !overflow && numel == product);

    tsr_dtype dtype = (tsr_dtype)(fuzz_u8(r) % (TSR_DTYPE_COUNT + 1));
    int64_t nbytes = -7;
    st = tsr_nbytes(s->ndim, s->sizes, dtype, &nbytes);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(nbytes == -7);
        return;
    }
    FUZZ_CHECK(tsr_dtype_is_valid(dtype));
    FUZZ_CHECK(nbytes / (int64_t)tsr_dtype_itemsize(dtype) == numel);
}

static void check_strides_for(const shape *s, tsr_memory_format format)
{
    int64_t strides[ARRAY_DIMS];
    memset(strides, 0x5a, sizeof(strides));
    tsr_status st = tsr_strides_for(s->ndim, s->sizes, format, strides);
    tsr_geometry g;
    memset(&g, 0x5a, sizeof(g));
    tsr_status st_init = tsr_geometry_init(s->ndim, s->sizes, format, &g);
    FUZZ_CHECK(st == st_init);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(strides[0] == 0x5a5a5a5a5a5a5a5a && g.offset == 0x5a5a5a5a5a5a5a5a);
        return;
    }
    FUZZ_CHECK(sizes_ok(s) && format != TSR_PRESERVE_FORMAT);
    /* PyTorch's channels_last check walks size-0 dimensions like any
     * other, so only shapes without them are sure to pass it. */
    bool any_zero = false;
    for (int i = 0; i < s->ndim; i++)
        any_zero |= s->sizes[i] == 0;
    if (format == TSR_CONTIGUOUS_FORMAT || !any_zero)
        FUZZ_CHECK(tsr_is_contiguous(s->ndim, s->sizes, strides, format));
    FUZZ_CHECK(g.ndim == s->ndim && g.offset == 0);
    for (int i = 0; i < s->ndim; i++)
        FUZZ_CHECK(g.sizes[i] == s->sizes[i] && g.strides[i] == strides[i]);
    int64_t numel, span;
    FUZZ_CHECK(tsr_numel(g.ndim, g.sizes, &numel) == TSR_OK);
    FUZZ_CHECK(tsr_geometry_storage_span(&g, &span) == TSR_OK && span == numel);
}

static void check_contiguity(const shape *s, tsr_memory_format format, bool exact)
{
    bool c = tsr_is_contiguous(s->ndim, s->sizes, s->strides, format);
    if (format == TSR_PRESERVE_FORMAT)
        FUZZ_CHECK(c == tsr_is_contiguous(s->ndim, s->sizes, s->strides, TSR_CONTIGUOUS_FORMAT));
    tsr_is_non_overlapping_and_dense(s->ndim, s->sizes, s->strides);
    tsr_memory_format suggested = tsr_suggest_memory_format(s->ndim, s->sizes, s->strides, exact);
    FUZZ_CHECK(suggested == TSR_CONTIGUOUS_FORMAT || suggested == TSR_CHANNELS_LAST ||
               suggested == TSR_CHANNELS_LAST_3D);
}

static void check_preserve_strides(const shape *s)
{
    int64_t out[ARRAY_DIMS];
    memset(out, 0x5a, sizeof(out));
    tsr_status st = tsr_preserve_strides(s->ndim, s->sizes, s->strides, out);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(out[0] == 0x5a5a5a5a5a5a5a5a);
        return;
    }
    FUZZ_CHECK(ndim_ok(s->ndim));
    if (tsr_is_non_overlapping_and_dense(s->ndim, s->sizes, s->strides))
        for (int i = 0; i < s->ndim; i++)
            FUZZ_CHECK(out[i] == s->strides[i]);
    if (sizes_ok(s))
        FUZZ_CHECK(tsr_is_non_overlapping_and_dense(s->ndim, s->sizes, out));
}

static int64_t broadcast_dim(const shape *s, int from_right)
{
    return from_right < s->ndim ? s->sizes[s->ndim - 1 - from_right] : 1;
}

static void check_broadcast(const shape *a, const shape *b)
{
    int64_t out[TSR_MAX_DIMS], out_swapped[TSR_MAX_DIMS];
    int n = -7, n_swapped = -7;
    tsr_status st = tsr_broadcast_shapes(a->ndim, a->sizes, b->ndim, b->sizes, &n, out);
    tsr_status st_swapped =
        tsr_broadcast_shapes(b->ndim, b->sizes, a->ndim, a->sizes, &n_swapped, out_swapped);
    /* Both orders fail or neither does; which error comes first may differ. */
    FUZZ_CHECK((st == TSR_OK) == (st_swapped == TSR_OK));
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(n == -7 && n_swapped == -7);
        return;
    }
    FUZZ_CHECK(ndim_ok(a->ndim) && ndim_ok(b->ndim));
    FUZZ_CHECK(n == (a->ndim > b->ndim ? a->ndim : b->ndim) && n == n_swapped);
    for (int i = 0; i < n; i++) {
        int64_t x = broadcast_dim(a, i), y = broadcast_dim(b, i);
        FUZZ_CHECK(x == y || x == 1 || y == 1);
        FUZZ_CHECK(out[n - 1 - i] == (x == 1 ? y : x) && out_swapped[n - 1 - i] == out[n - 1 - i]);
    }
}

static void check_wrap_dim(int64_t dim, int ndim)
{
    int out = -7;
    tsr_status st = tsr_wrap_dim(dim, ndim, &out);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(out == -7);
        return;
    }
    int64_t range = ndim > 0 ? ndim : 1;
    FUZZ_CHECK(out >= 0 && out < range && (out == dim || out == dim + range));
}

static tsr_status call_view(enum op op, const tsr_geometry *in, const view_args *a,
                            tsr_geometry *out, bool *copied)
{
    const shape *o = &a->other;
    switch (op) {
    case OP_TRANSPOSE:
        return tsr_view_transpose(in, a->a, a->b, out);
    case OP_T:
        return tsr_view_t(in, out);
    case OP_PERMUTE:
        return tsr_view_permute(in, o->sizes, o->ndim, out);
    case OP_NARROW:
        return tsr_view_narrow(in, a->a, a->b, a->c, out);
    case OP_SELECT:
        return tsr_view_select(in, a->a, a->b, out);
    case OP_SLICE:
        return tsr_view_slice(in, a->a, a->has_start, a->b, a->has_end, a->c, o->offset, out);
    case OP_UNSQUEEZE:
        return tsr_view_unsqueeze(in, a->a, out);
    case OP_SQUEEZE:
        return tsr_view_squeeze(in, a->a, out);
    case OP_EXPAND:
        return tsr_view_expand(in, o->sizes, o->ndim, out);
    case OP_VIEW:
        return tsr_view_view(in, o->sizes, o->ndim, out);
    case OP_RESHAPE:
        return tsr_view_reshape(in, o->sizes, o->ndim, out, copied);
    case OP_AS_STRIDED:
        return tsr_view_as_strided(in, o->ndim, o->sizes, o->strides, o->offset, a->storage_elems,
                                   a->itemsize, out);
    default:
        abort();
    }
}

static void check_view(enum op op, const shape *s, const view_args *a)
{
    tsr_geometry in, out, aliased;
    bool copied = false, copied_aliased = false;
    to_geometry(s, &in);
    memset(&out, 0x5a, sizeof(out));
    tsr_status st = call_view(op, &in, a, &out, &copied);

    aliased = in;
    tsr_status st_aliased = call_view(op, &aliased, a, &aliased, &copied_aliased);
    FUZZ_CHECK(st == st_aliased);

    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(out.ndim == 0x5a5a5a5a && out.offset == 0x5a5a5a5a5a5a5a5a);
        FUZZ_CHECK(memcmp(&aliased, &in, sizeof(in)) == 0);
        return;
    }
    FUZZ_CHECK(ndim_ok(in.ndim) && ndim_ok(out.ndim));
    FUZZ_CHECK(same_geometry(&out, &aliased) && copied == copied_aliased);

    int64_t in_begin, in_end, out_begin, out_end;
    if (op == OP_AS_STRIDED) {
        if (extent(&out, &out_begin, &out_end))
            FUZZ_CHECK(out_end <= a->storage_elems);
        return;
    }
    if (op == OP_RESHAPE && copied) {
        FUZZ_CHECK(out.offset == 0);
        FUZZ_CHECK(tsr_is_contiguous(out.ndim, out.sizes, out.strides, TSR_CONTIGUOUS_FORMAT));
        return;
    }
    if (extent(&in, &in_begin, &in_end) && extent(&out, &out_begin, &out_end))
        FUZZ_CHECK(out_begin >= in_begin && out_end <= in_end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader r = {data, size, 0};
    enum op op = (enum op)(fuzz_u8(&r) % OP_COUNT);
    shape s;
    decode_shape(&r, &s);

    view_args a;
    memset(&a, 0, sizeof(a));
    a.a = fuzz_i64(&r);
    a.b = fuzz_i64(&r);
    a.c = fuzz_i64(&r);
    uint8_t flags = fuzz_u8(&r);
    a.has_start = flags & 1;
    a.has_end = flags & 2;
    tsr_memory_format format = (tsr_memory_format)((flags >> 2) % (TSR_MEMORY_FORMAT_COUNT + 1));
    a.storage_elems = fuzz_i64(&r);
    a.itemsize = fuzz_u8(&r) % 17;
    decode_shape(&r, &a.other);

    switch (op) {
    case OP_NUMEL:
    case OP_NBYTES:
        check_numel(&s, &r);
        break;
    case OP_GEOMETRY_INIT:
    case OP_STRIDES_FOR:
        check_strides_for(&s, format);
        break;
    case OP_BROADCAST:
        check_broadcast(&s, &a.other);
        break;
    case OP_WRAP_DIM:
        check_wrap_dim(a.a, s.ndim);
        break;
    case OP_CONTIGUITY:
        check_contiguity(&s, format, flags & 1);
        break;
    case OP_PRESERVE_STRIDES:
        check_preserve_strides(&s);
        break;
    default:
        check_view(op, &s, &a);
        break;
    }
    return 0;
}
