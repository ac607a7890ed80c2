/* Factory functions: empty, empty_strided, zeros, ones, full, from_data
 * and the *_like family, with PyTorch's defaults, checks and messages.
 *
 * Every factory is the same pipeline: read the options (dtype, device,
 * layout, memory format), check the sizes, build the geometry, resolve the
 * device, allocate, then fill. Fill values are converted once, into one
 * element, and that element is repeated over the storage; the conversion is
 * tsr_cast_buffer's, after the range check c10's Scalar::to<T>() makes
 * ("value cannot be converted to type int8_t without overflow"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "tessera/convert.h"
#include "libclient/client.h"
#include "libclient/tensor_internal.h"

/* What a factory writes into its fresh memory. */
typedef enum fill_kind { FILL_NONE, FILL_ZEROS, FILL_ONES, FILL_VALUE } fill_kind;

typedef struct fill {
    fill_kind kind;
    tsr_scalar value; /* FILL_VALUE */
} fill;

/* The widest element: complex128. */
#define ELEMENT_MAX 16

static const tsr_tensor_options no_options;

static tsr_status check_options(const tsr_tensor_options *o)
{
    if ((unsigned)o->layout >= TSR_LAYOUT_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid layout value %d", (int)o->layout);
    if (o->has_memory_format && o->layout != TSR_STRIDED)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "memory format option is only supported by strided tensors");
    if (o->layout != TSR_STRIDED)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "layout %s is not supported by the factory functions: only "
                         "torch.strided tensors can be created",
                         tsr_layout_name(o->layout));
    if (o->has_dtype && !tsr_dtype_is_valid(o->dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)o->dtype);
    if (o->has_memory_format && (unsigned)o->memory_format >= TSR_MEMORY_FORMAT_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid memory format value %d",
                         (int)o->memory_format);
    return TSR_OK;
}

/* ---- Fill values ---------------------------------------------------- */

/* The C++ type names c10's Scalar::to<T>() reports. */
static const char *const cxx_names[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = "bool",
    [TSR_UINT8] = "uint8_t",
    [TSR_INT8] = "int8_t",
    [TSR_UINT16] = "uint16_t",
    [TSR_INT16] = "int16_t",
    [TSR_UINT32] = "uint32_t",
    [TSR_INT32] = "int",
    [TSR_UINT64] = "uint64_t",
    [TSR_INT64] = "int64_t",
    [TSR_FLOAT16] = "at::Half",
    [TSR_BFLOAT16] = "at::BFloat16",
    [TSR_FLOAT32] = "float",
    [TSR_FLOAT64] = "double",
    [TSR_COMPLEX32] = "c10::complex<c10::Half>",
    [TSR_COMPLEX64] = "c10::complex<float>",
    [TSR_COMPLEX128] = "c10::complex<double>",
    [TSR_FLOAT8_E4M3FN] = "at::Float8_e4m3fn",
    [TSR_FLOAT8_E5M2] = "at::Float8_e5m2",
    [TSR_FLOAT8_E4M3FNUZ] = "at::Float8_e4m3fnuz",
    [TSR_FLOAT8_E5M2FNUZ] = "at::Float8_e5m2fnuz",
    [TSR_FLOAT8_E8M0FNU] = "at::Float8_e8m0fnu",
    [TSR_FLOAT4_E2M1FN_X2] = "at::Float4_e2m1fn_x2",
};

/* What c10's overflows<To, From>() reads from std::numeric_limits of a
 * dtype (of a complex dtype's components). Integral bounds are exact;
 * `lowest`/`max` are what a floating source is compared with (INT64_MAX
 * compares as 2^63, as in C++). e8m0fnu counts as unsigned: it has no sign
 * and no zero (2^-127 .. 2^127). */
typedef struct limits {
    bool integral, is_unsigned, has_infinity, has_nan;
    int64_t imin;  /* integral only */
    uint64_t imax; /* integral only */
    double lowest, max;
} limits;

static const struct {
    double max;
    bool has_infinity;
} floating[TSR_DTYPE_COUNT] = {
    [TSR_FLOAT16] = {65504, true},           [TSR_BFLOAT16] = {0x1.fep127, true},
    [TSR_FLOAT32] = {0x1.fffffep127, true},  [TSR_FLOAT64] = {INFINITY, true},
    [TSR_FLOAT8_E4M3FN] = {448, false},      [TSR_FLOAT8_E5M2] = {57344, true},
    [TSR_FLOAT8_E4M3FNUZ] = {240, false},    [TSR_FLOAT8_E5M2FNUZ] = {57344, false},
    [TSR_FLOAT8_E8M0FNU] = {0x1p127, false},
};

static limits limits_of(tsr_dtype d)
{
    d = tsr_dtype_to_real(d);
    if (tsr_dtype_is_integral(d)) {
        unsigned bits = (unsigned)tsr_dtype_itemsize(d) * 8;
        bool is_unsigned = !tsr_dtype_is_signed(d);
        uint64_t imax = UINT64_MAX >> (64 - bits + !is_unsigned);
        int64_t imin = is_unsigned ? 0 : -(int64_t)imax - 1;
        return (limits){true, is_unsigned, false, false, imin, imax, (double)imin, (double)imax};
    }
    bool e8m0 = d == TSR_FLOAT8_E8M0FNU;
    double max = floating[d].max;
    return (limits){false, e8m0, floating[d].has_infinity, true, 0, 0, e8m0 ? 0x1p-127 : -max, max};
}

/* overflows() for a floating source. */
static bool float_overflows(double f, const limits *l)
{
    if (l->has_infinity && isinf(f))
        return false;
    if (isnan(f))
        return !l->has_nan;
    return f < l->lowest || f > l->max;
}

/* overflows() for an int64 source: an unsigned target takes negative
 * values modulo 2^bits as long as their magnitude fits. */
static bool int_overflows(int64_t i, const limits *l)
{
    if (!l->integral)
        return l->is_unsigned ? i < 0 : (double)i < l->lowest || (double)i > l->max;
    if (l->is_unsigned)
        return i < 0 ? -(uint64_t)i > l->imax : (uint64_t)i > l->imax;
    return i < l->imin || (i > 0 && (uint64_t)i > l->imax);
}

/* c10's checked_convert: whether Scalar::to<T>() refuses the value (bool
 * targets and bool sources never do). */
static bool value_overflows(tsr_scalar v, tsr_dtype d)
{
    if (d == TSR_BOOL || v.kind == TSR_BOOL)
        return false;
    limits l = limits_of(d);
    if (v.kind == TSR_INT64)
        return int_overflows(v.v.i, &l);
    if (v.kind == TSR_FLOAT64)
        return float_overflows(v.v.f, &l);
    /* complex: a real target must not drop an imaginary part */
    if (!tsr_dtype_is_complex(d) && v.v.c[1] != 0)
        return true;
    return float_overflows(v.v.c[0], &l) || float_overflows(v.v.c[1], &l);
}

static tsr_status check_scalar(tsr_scalar v)
{
    if (v.kind != TSR_BOOL && v.kind != TSR_INT64 && v.kind != TSR_FLOAT64 &&
        v.kind != TSR_COMPLEX128)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid scalar kind %d (expected bool, int64, float64 or complex128)",
                         (int)v.kind);
    return TSR_OK;
}

/* One element of `dtype` holding `v`, as fill_(v) writes it. */
static tsr_status encode_value(tsr_scalar v, tsr_dtype dtype, unsigned char *element)
{
    unsigned char src[16];
    switch (v.kind) {
    case TSR_BOOL:
        src[0] = v.v.b;
        break;
    case TSR_INT64:
        memcpy(src, &v.v.i, sizeof(v.v.i));
        break;
    case TSR_FLOAT64:
        memcpy(src, &v.v.f, sizeof(v.v.f));
        break;
    case TSR_COMPLEX128:
        memcpy(src, v.v.c, sizeof(v.v.c));
        break;
    default:
        return check_scalar(v);
    }
    if (dtype != TSR_FLOAT4_E2M1FN_X2 && value_overflows(v, dtype))
        return tsr__fail(TSR_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                         cxx_names[dtype]);
    /* fill_ converts through c10's scalar constructors: their NaN bits. */
    tsr_cast_options opts = {.nan_bits = TSR_NAN_BITS_SCALAR};
    return tsr_cast_buffer_ex(src, v.kind, element, dtype, 1, &opts);
}

tsr_status tsr__scalar_to_element(tsr_scalar value, tsr_dtype dtype, unsigned char *element)
{
    memset(element, 0, ELEMENT_MAX);
    return encode_value(value, dtype, element);
}

/* The element a fill writes (zeros need none). */
static tsr_status fill_element(const fill *f, tsr_dtype dtype, unsigned char *element)
{
    memset(element, 0, ELEMENT_MAX);
    switch (f->kind) {
    case FILL_ONES:
        /* float4_e2m1fn_x2 has no casts: 1.0 is code 2 in both nibbles. */
        if (dtype == TSR_FLOAT4_E2M1FN_X2) {
            element[0] = 0x22;
            return TSR_OK;
        }
        return encode_value(tsr_scalar_int(1), dtype, element);
    case FILL_VALUE:
        return encode_value(f->value, dtype, element);
    default:
        return TSR_OK;
    }
}

/* Repeats the element over the whole storage (a factory's tensor is dense,
 * so the storage is exactly its elements). Zeros come zeroed from
 * tsr__tensor_alloc. */
static tsr_status fill_storage(tsr_tensor *t, const fill *f, const unsigned char *element)
{
    size_t n = (size_t)t->storage->nbytes, item = tsr_dtype_itemsize(t->dtype);
    if (f->kind == FILL_NONE || f->kind == FILL_ZEROS || n == 0 ||
        t->storage->device.type == TSR_DEVICE_META)
        return TSR_OK;
    if (t->storage->client) {
        /* Device memory is filled where it lives: by the daemon. */
        tsr__region whole = {.itemsize = (uint32_t)item, .ndim = 1, .sizes = {(int64_t)(n / item)},
                             .strides = {1}};
        return tsr__client_fill(t->storage->client, t->storage->device, t->storage->handle, &whole,
                                element);
    }
    unsigned char *data = NULL;
    tsr_status st = tsr__tensor_host_base(t, "", &data);
    if (st != TSR_OK)
        return st;
    memcpy(data, element, item);
    for (size_t done = item; done < n;) { /* doubling copies */
        size_t chunk = done < n - done ? done : n - done;
        memcpy(data + done, data, chunk);
        done += chunk;
    }
    return TSR_OK;
}

/* ---- The pipeline --------------------------------------------------- */

/* Allocates g on `device` (unresolved) and fills it. */
static tsr_status build(tsr_client *client, tsr_device device, tsr_dtype dtype,
                        const tsr_geometry *g, const fill *f, tsr_tensor **out)
{
    unsigned char element[ELEMENT_MAX];
    tsr_status st = fill_element(f, dtype, element);
    tsr_device resolved;
    if (st == TSR_OK)
        st = tsr__tensor_resolve_device(client, device, &resolved);
    if (st != TSR_OK)
        return st;
    tsr_tensor *t = NULL;
    if ((st = tsr__tensor_alloc(client, resolved, dtype, g, f->kind == FILL_ZEROS, &t)) != TSR_OK)
        return st;
    if ((st = fill_storage(t, f, element)) != TSR_OK) {
        tsr_tensor_release(t);
        return st;
    }
    *out = t;
    return TSR_OK;
}

/* The sizes' checks in empty's order: negative sizes, then the byte count
 * ("Storage size calculation overflowed with sizes=[...]"). */
static tsr_status check_sizes(int ndim, const int64_t *sizes, tsr_dtype dtype)
{
    if (ndim < 0 || ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "number of dimensions must be in [0, %d], got %d", TSR_MAX_DIMS, ndim);
    if (ndim > 0 && sizes == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "sizes must not be NULL");
    int64_t nbytes;
    tsr_status st = tsr_nbytes(ndim, sizes, dtype, &nbytes);
    if (st == TSR_ERR_OVERFLOW) {
        char text[TSR__DIMS_TEXT];
        return tsr__fail(TSR_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                         tsr__format_dims(text, sizeof(text), sizes, ndim));
    }
    return st;
}

/* empty/zeros/ones/full/from_data: the default device and a fresh layout. */
static tsr_status factory(tsr_client *client, int ndim, const int64_t *sizes,
                          const tsr_tensor_options *options, tsr_dtype dtype, const fill *f,
                          tsr_tensor **out)
{
    const tsr_tensor_options *o = options ? options : &no_options;
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    tsr_status st = check_options(o);
    if (st == TSR_OK)
        st = check_sizes(ndim, sizes, dtype);
    tsr_geometry g;
    if (st == TSR_OK)
        st = tsr_geometry_init(ndim, sizes,
                               o->has_memory_format ? o->memory_format : TSR_CONTIGUOUS_FORMAT, &g);
    tsr_device device = o->device;
    if (st == TSR_OK && !o->has_device)
        st = tsr_get_default_device(NULL, &device); /* resolution picks the current index */
    if (st != TSR_OK)
        return st;
    return build(client, device, dtype, &g, f, out);
}

static tsr_dtype dtype_or_default(const tsr_tensor_options *options)
{
    return options && options->has_dtype ? options->dtype : tsr_get_default_dtype();
}

tsr_status tsr_tensor_empty(tsr_client *client, int ndim, const int64_t *sizes,
                            const tsr_tensor_options *options, tsr_tensor **out)
{
    fill f = {.kind = FILL_NONE};
    return factory(client, ndim, sizes, options, dtype_or_default(options), &f, out);
}

tsr_status tsr_tensor_zeros(tsr_client *client, int ndim, const int64_t *sizes,
                            const tsr_tensor_options *options, tsr_tensor **out)
{
    fill f = {.kind = FILL_ZEROS};
    return factory(client, ndim, sizes, options, dtype_or_default(options), &f, out);
}

tsr_status tsr_tensor_ones(tsr_client *client, int ndim, const int64_t *sizes,
                           const tsr_tensor_options *options, tsr_tensor **out)
{
    fill f = {.kind = FILL_ONES};
    return factory(client, ndim, sizes, options, dtype_or_default(options), &f, out);
}

tsr_status tsr_tensor_full(tsr_client *client, int ndim, const int64_t *sizes, tsr_scalar value,
                           const tsr_tensor_options *options, tsr_tensor **out)
{
    fill f = {.kind = FILL_VALUE, .value = value};
    tsr_status st = check_scalar(value);
    if (st != TSR_OK)
        return st;
    tsr_dtype dtype;
    if (options && options->has_dtype)
        dtype = options->dtype;
    else if (value.kind == TSR_FLOAT64)
        dtype = tsr_get_default_dtype();
    else if (value.kind == TSR_COMPLEX128)
        dtype = tsr_get_default_complex_dtype();
    else
        dtype = value.kind; /* bool and int64 */
    return factory(client, ndim, sizes, options, dtype, &f, out);
}

tsr_status tsr_tensor_empty_strided(tsr_client *client, int ndim, const int64_t *sizes,
                                    const int64_t *strides, const tsr_tensor_options *options,
                                    tsr_tensor **out)
{
    const tsr_tensor_options *o = options ? options : &no_options;
    tsr_dtype dtype = dtype_or_default(o);
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    if (o->has_memory_format)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "empty_strided() takes no memory format: the strides decide the layout");
    tsr_status st = check_options(o);
    if (st == TSR_OK)
        st = check_sizes(ndim, sizes, dtype);
    if (st != TSR_OK)
        return st;
    if (ndim > 0 && strides == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "strides must not be NULL");
    tsr_geometry g = {.ndim = ndim};
    if (ndim > 0) {
        memcpy(g.sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(g.strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    /* computeStorageNbytes: negative strides and overflow are one message. */
    int64_t span, nbytes;
    if (tsr_geometry_storage_span(&g, &span) != TSR_OK ||
        __builtin_mul_overflow(span, (int64_t)tsr_dtype_itemsize(dtype), &nbytes)) {
        char t1[TSR__DIMS_TEXT], t2[TSR__DIMS_TEXT];
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Storage size calculation overflowed with sizes=%s and strides=%s",
                         tsr__format_dims(t1, sizeof(t1), sizes, ndim),
                         tsr__format_dims(t2, sizeof(t2), strides, ndim));
    }
    tsr_device device = o->device;
    if (!o->has_device && (st = tsr_get_default_device(NULL, &device)) != TSR_OK)
        return st;
    fill f = {.kind = FILL_NONE};
    return build(client, device, dtype, &g, &f, out);
}

/* from_data's copy: the row-major source converted into t's dtype and
 * laid out in t's strides (a channels_last request is not row-major). */
static tsr_status write_data(tsr_tensor *t, tsr_dtype src_dtype, const void *data)
{
    unsigned char *base = NULL;
    tsr_status st = tsr__tensor_host_ordered(t, "", &base);
    if (st != TSR_OK || t->numel == 0)
        return st;
    const tsr_geometry *g = &t->geometry;
    size_t n = (size_t)t->numel, item = tsr_dtype_itemsize(t->dtype);
    if (tsr_is_contiguous(g->ndim, g->sizes, g->strides, TSR_CONTIGUOUS_FORMAT))
        return tsr_cast_buffer(data, src_dtype, base, t->dtype, n);
    if (src_dtype == t->dtype) {
        tsr__strided_scatter(base, g, item, data);
        return TSR_OK;
    }
    void *packed = malloc(n * item); /* n * item is the storage's size */
    if (packed == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory converting %zu elements", n);
    st = tsr_cast_buffer(data, src_dtype, packed, t->dtype, n);
    if (st == TSR_OK)
        tsr__strided_scatter(base, g, item, packed);
    free(packed);
    return st;
}

tsr_status tsr_tensor_from_data(tsr_client *client, int ndim, const int64_t *sizes,
                                tsr_dtype src_dtype, const void *data,
                                const tsr_tensor_options *options, tsr_tensor **out)
{
    if (!tsr_dtype_is_valid(src_dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)src_dtype);
    tsr_dtype dtype = options && options->has_dtype ? options->dtype : src_dtype;
    fill f = {.kind = FILL_NONE};
    tsr_tensor *t = NULL;
    tsr_status st = factory(client, ndim, sizes, options, dtype, &f, &t);
    if (st != TSR_OK)
        return st;
    if (t->numel > 0 && data == NULL) {
        tsr_tensor_release(t);
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "data must not be NULL");
    }
    if (t->storage->device.type != TSR_DEVICE_META &&
        (st = write_data(t, src_dtype, data)) != TSR_OK) {
        tsr_tensor_release(t);
        return st;
    }
    *out = t;
    return TSR_OK;
}

/* ---- *_like --------------------------------------------------------- */

static tsr_status like_factory(const tsr_tensor *like, const tsr_tensor_options *options,
                               const fill *f, tsr_tensor **out)
{
    const tsr_tensor_options *o = options ? options : &no_options;
    if (like == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    tsr_status st = check_options(o);
    if (st != TSR_OK)
        return st;
    const tsr_geometry *in = &like->geometry;
    tsr_geometry g = {.ndim = in->ndim};
    if (o->has_memory_format && o->memory_format != TSR_PRESERVE_FORMAT) {
        st = tsr_geometry_init(in->ndim, in->sizes, o->memory_format, &g);
    } else {
        memcpy(g.sizes, in->sizes, sizeof(g.sizes));
        st = tsr_preserve_strides(in->ndim, in->sizes, in->strides, g.strides);
    }
    if (st != TSR_OK)
        return st;
    /* *_like keeps to its input's device (the default device does not
     * apply) and reaches accelerators through its input's client. */
    tsr__storage *s = like->storage;
    return build(s->client, o->has_device ? o->device : s->device,
                 o->has_dtype ? o->dtype : like->dtype, &g, f, out);
}

tsr_status tsr_tensor_empty_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                 tsr_tensor **out)
{
    fill f = {.kind = FILL_NONE};
    return like_factory(like, options, &f, out);
}

tsr_status tsr_tensor_zeros_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                 tsr_tensor **out)
{
    fill f = {.kind = FILL_ZEROS};
    return like_factory(like, options, &f, out);
}

tsr_status tsr_tensor_ones_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                tsr_tensor **out)
{
    fill f = {.kind = FILL_ONES};
    return like_factory(like, options, &f, out);
}

tsr_status tsr_tensor_full_like(const tsr_tensor *like, tsr_scalar value,
                                const tsr_tensor_options *options, tsr_tensor **out)
{
    fill f = {.kind = FILL_VALUE, .value = value};
    return like_factory(like, options, &f, out);
}
