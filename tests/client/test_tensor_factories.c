/* Factories beyond the tables: option checks and their messages, devices
 * without a client, full's dtype inference, the fills PyTorch 1.13 cannot
 * answer for (2.9's complex -> bool, complex32, float8, uint16/32/64,
 * float4), from_data, empty_strided and the *_like family's overrides. */
#include <stdint.h>
#include <string.h>

#include "client/support_tensor.h"
#include "test.h"

static const int64_t SIZES_2x3[2] = {2, 3};
static const int64_t SIZES_3[1] = {3};

static tsr_tensor_options with_dtype(tsr_dtype dtype)
{
    tsr_tensor_options o = {0};
    o.has_dtype = true;
    o.dtype = dtype;
    return o;
}

/* The first element's bytes of a 3-element fill, as a number (little
 * endian), after checking all three are equal. */
static uint64_t filled(tsr_tensor *t)
{
    unsigned char raw[48];
    size_t item = tsr_tensor_itemsize(t);
    uint64_t v = 0;
    ASSERT_TRUE(item <= 8);
    ASSERT_OK(tsr_tensor_copy_to_host(t, raw, 3 * item));
    ASSERT_TRUE(memcmp(raw, raw + item, item) == 0 && memcmp(raw, raw + 2 * item, item) == 0);
    for (size_t b = 0; b < item && b < 8; b++)
        v |= (uint64_t)raw[b] << (8 * b);
    tsr_tensor_release(t);
    return v;
}

static uint64_t full_bits(tsr_scalar value, tsr_dtype dtype)
{
    tsr_tensor_options o = with_dtype(dtype);
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_full(NULL, 1, SIZES_3, value, &o, &t);
    if (st != TSR_OK) {
        ASSERT_OK(st);
        return UINT64_MAX;
    }
    return filled(t);
}

static void expect_full_overflow(tsr_scalar value, tsr_dtype dtype, const char *type_name)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "value cannot be converted to type %s without overflow", type_name);
    tsr_tensor_options o = with_dtype(dtype);
    tsr_tensor *t = NULL;
    ASSERT_FAIL(tsr_tensor_full(NULL, 1, SIZES_3, value, &o, &t), TSR_ERR_RUNTIME, msg);
    ASSERT_TRUE(t == NULL);
}

static void test_option_checks(void)
{
    tsr_tensor *t = NULL;
    tsr_tensor_options o = {0};
    o.layout = TSR_SPARSE_COO;
    ASSERT_FAIL(tsr_tensor_zeros(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_NOT_SUPPORTED,
                "layout sparse_coo is not supported by the factory functions: only torch.strided "
                "tensors can be created");
    o.has_memory_format = true;
    o.memory_format = TSR_CONTIGUOUS_FORMAT;
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_RUNTIME,
                "memory format option is only supported by strided tensors");
    o = (tsr_tensor_options){0};
    o.layout = TSR_LAYOUT_COUNT;
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    o = with_dtype(TSR_DTYPE_COUNT);
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT,
                "invalid dtype value 22");
    o = (tsr_tensor_options){0};
    o.has_memory_format = true;
    o.memory_format = TSR_MEMORY_FORMAT_COUNT;
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT, NULL);

    int64_t many[TSR_MAX_DIMS + 1];
    for (int i = 0; i <= TSR_MAX_DIMS; i++)
        many[i] = 1;
    ASSERT_FAIL(tsr_tensor_empty(NULL, TSR_MAX_DIMS + 1, many, NULL, &t), TSR_ERR_INVALID_ARGUMENT,
                "number of dimensions must be in [0, 25], got 26");
    ASSERT_FAIL(tsr_tensor_empty(NULL, -1, many, NULL, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, NULL, NULL, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_TRUE(t == NULL);
    ASSERT_OK(tsr_tensor_ones(NULL, TSR_MAX_DIMS, many, NULL, &t));
    ASSERT_EQ(tsr_tensor_ndim(t), TSR_MAX_DIMS);
    ASSERT_EQ(tsr_tensor_numel(t), 1);
    tsr_tensor_release(t);
    t = NULL;

    /* 0-dim: one element. */
    ASSERT_OK(tsr_tensor_full(NULL, 0, NULL, tsr_scalar_float(2.5), NULL, &t));
    ASSERT_EQ(tsr_tensor_ndim(t), 0);
    float f = 0;
    ASSERT_OK(tsr_tensor_copy_to_host(t, &f, sizeof(f)));
    ASSERT_TRUE(f == 2.5f);
    tsr_tensor_release(t);
    t = NULL;

    /* A scalar of no Python kind. */
    tsr_scalar bad = tsr_scalar_float(1);
    bad.kind = TSR_FLOAT32;
    ASSERT_FAIL(tsr_tensor_full(NULL, 1, SIZES_3, bad, NULL, &t), TSR_ERR_INVALID_ARGUMENT,
                "invalid scalar kind 11 (expected bool, int64, float64 or complex128)");
}

static void test_devices(void)
{
    tsr_tensor *t = NULL;
    tsr_tensor_options o = {0};
    o.has_device = true;
    o.device = (tsr_device){TSR_DEVICE_OPENCL, -1};
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT,
                "cannot allocate on opencl without a client: opencl tensors live in tesserad's "
                "memory (pass the tsr_client from tsr_client_open)");
    o.device = (tsr_device){TSR_DEVICE_OPENCL, 1};
    ASSERT_FAIL(tsr_tensor_ones(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT,
                "cannot allocate on opencl:1 without a client: opencl tensors live in tesserad's "
                "memory (pass the tsr_client from tsr_client_open)");
    /* Without a session no registry says which accelerator types the
     * daemon serves: every one of them needs a client. */
    o.device = (tsr_device){TSR_DEVICE_CUDA, 0};
    ASSERT_FAIL(tsr_tensor_zeros(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT,
                "cannot allocate on cuda:0 without a client: cuda tensors live in tesserad's "
                "memory (pass the tsr_client from tsr_client_open)");
    o.device = (tsr_device){TSR_DEVICE_MPS, -1};
    ASSERT_FAIL(tsr_tensor_full(NULL, 2, SIZES_2x3, tsr_scalar_int(1), &o, &t),
                TSR_ERR_INVALID_ARGUMENT,
                "cannot allocate on mps without a client: mps tensors live in tesserad's memory "
                "(pass the tsr_client from tsr_client_open)");
    o.device = (tsr_device){TSR_DEVICE_TYPE_COUNT, -1};
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    o.device = (tsr_device){TSR_DEVICE_CPU, -2};
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_TRUE(t == NULL);

    /* cpu:3 is cpu, as in PyTorch. */
    o.device = (tsr_device){TSR_DEVICE_CPU, 3};
    ASSERT_OK(tsr_tensor_empty(NULL, 2, SIZES_2x3, &o, &t));
    ASSERT_EQ(tsr_tensor_device(t).index, -1);
    ASSERT_EQ(tsr_tensor_get_device(t), -1);

    /* *_like onto opencl from a cpu tensor has no client to go through. */
    tsr_tensor *r = NULL;
    o.device = (tsr_device){TSR_DEVICE_OPENCL, 0};
    ASSERT_FAIL(tsr_tensor_empty_like(t, &o, &r), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_empty_like(NULL, NULL, &r), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_TRUE(r == NULL);
    tsr_tensor_release(t);
}

static void test_full_dtype_inference(void)
{
    static const struct {
        tsr_dtype default_dtype, from_float, from_complex;
    } cases[] = {
        {TSR_FLOAT32, TSR_FLOAT32, TSR_COMPLEX64},
        {TSR_FLOAT64, TSR_FLOAT64, TSR_COMPLEX128},
        {TSR_FLOAT16, TSR_FLOAT16, TSR_COMPLEX32}, /* 2.9; 1.13 said complex64 */
        {TSR_BFLOAT16, TSR_BFLOAT16, TSR_COMPLEX64},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ASSERT_OK(tsr_set_default_dtype(cases[i].default_dtype));
        tsr_tensor *t = NULL;
        ASSERT_OK(tsr_tensor_full(NULL, 1, SIZES_3, tsr_scalar_float(0.5), NULL, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), cases[i].from_float);
        tsr_tensor_release(t);
        ASSERT_OK(tsr_tensor_full(NULL, 1, SIZES_3, tsr_scalar_complex(1, 2), NULL, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), cases[i].from_complex);
        tsr_tensor_release(t);
        ASSERT_OK(tsr_tensor_full(NULL, 1, SIZES_3, tsr_scalar_int(7), NULL, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), TSR_INT64);
        tsr_tensor_release(t);
        ASSERT_OK(tsr_tensor_full(NULL, 1, SIZES_3, tsr_scalar_bool(true), NULL, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), TSR_BOOL);
        tsr_tensor_release(t);
        ASSERT_OK(tsr_tensor_zeros(NULL, 1, SIZES_3, NULL, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), cases[i].default_dtype);
        tsr_tensor_release(t);
    }
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT32));
    /* complex32 from the default float16, with its bytes: 1.5 = 3E00, 2 = 4000. */
    ASSERT_UEQ(full_bits(tsr_scalar_complex(1.5, 2), TSR_COMPLEX32), 0x40003E00u);
}

/* Fills 1.13 cannot answer, from the c10 rules (hand-checked codes). */
static void test_fills_of_later_dtypes(void)
{
    /* 2.9's complex -> bool looks at both parts (1.13: real part only). */
    ASSERT_UEQ(full_bits(tsr_scalar_complex(0, 1), TSR_BOOL), 1);
    ASSERT_UEQ(full_bits(tsr_scalar_complex(0, 0), TSR_BOOL), 0);
    ASSERT_UEQ(full_bits(tsr_scalar_complex(0, -0.0), TSR_BOOL), 0);
    expect_full_overflow(tsr_scalar_float(70000), TSR_COMPLEX32, "c10::complex<c10::Half>");
    expect_full_overflow(tsr_scalar_complex(1, 1e6), TSR_COMPLEX32, "c10::complex<c10::Half>");

    /* float8: 1.0 in each format, then range limits. */
    static const struct {
        tsr_dtype dtype;
        uint64_t one;
        const char *name;
    } f8[] = {
        {TSR_FLOAT8_E4M3FN, 0x38, "at::Float8_e4m3fn"},
        {TSR_FLOAT8_E5M2, 0x3C, "at::Float8_e5m2"},
        {TSR_FLOAT8_E4M3FNUZ, 0x40, "at::Float8_e4m3fnuz"},
        {TSR_FLOAT8_E5M2FNUZ, 0x40, "at::Float8_e5m2fnuz"},
        {TSR_FLOAT8_E8M0FNU, 0x7F, "at::Float8_e8m0fnu"},
    };
    for (size_t i = 0; i < sizeof(f8) / sizeof(f8[0]); i++) {
        tsr_tensor_options o = with_dtype(f8[i].dtype);
        tsr_tensor *t = NULL;
        ASSERT_OK(tsr_tensor_ones(NULL, 1, SIZES_3, &o, &t));
        ASSERT_UEQ(filled(t), f8[i].one);
        ASSERT_OK(tsr_tensor_zeros(NULL, 1, SIZES_3, &o, &t));
        ASSERT_UEQ(filled(t), 0);
        ASSERT_UEQ(full_bits(tsr_scalar_int(1), f8[i].dtype), f8[i].one);
        expect_full_overflow(tsr_scalar_float(1e39), f8[i].dtype, f8[i].name);
        expect_full_overflow(tsr_scalar_int(-100000), f8[i].dtype, f8[i].name);
        expect_full_overflow(tsr_scalar_complex(1, 1), f8[i].dtype, f8[i].name);
    }
    ASSERT_UEQ(full_bits(tsr_scalar_float(448), TSR_FLOAT8_E4M3FN), 0x7E);
    ASSERT_UEQ(full_bits(tsr_scalar_float(-448), TSR_FLOAT8_E4M3FN), 0xFE);
    expect_full_overflow(tsr_scalar_float(449), TSR_FLOAT8_E4M3FN, "at::Float8_e4m3fn");
    expect_full_overflow(tsr_scalar_float(1.0 / 0.0), TSR_FLOAT8_E4M3FN, "at::Float8_e4m3fn");
    ASSERT_UEQ(full_bits(tsr_scalar_float(0.0 / 0.0), TSR_FLOAT8_E4M3FN) & 0x7F, 0x7F);
    ASSERT_UEQ(full_bits(tsr_scalar_float(1.0 / 0.0), TSR_FLOAT8_E5M2), 0x7C);
    ASSERT_UEQ(full_bits(tsr_scalar_float(240), TSR_FLOAT8_E4M3FNUZ), 0x7F);
    expect_full_overflow(tsr_scalar_float(241), TSR_FLOAT8_E4M3FNUZ, "at::Float8_e4m3fnuz");
    expect_full_overflow(tsr_scalar_float(1.0 / 0.0), TSR_FLOAT8_E5M2FNUZ, "at::Float8_e5m2fnuz");
    /* e8m0fnu holds powers of two from 2^-127: no zero, no sign. */
    ASSERT_UEQ(full_bits(tsr_scalar_float(2), TSR_FLOAT8_E8M0FNU), 0x80);
    expect_full_overflow(tsr_scalar_float(0), TSR_FLOAT8_E8M0FNU, "at::Float8_e8m0fnu");
    expect_full_overflow(tsr_scalar_float(-1), TSR_FLOAT8_E8M0FNU, "at::Float8_e8m0fnu");
    expect_full_overflow(tsr_scalar_int(-1), TSR_FLOAT8_E8M0FNU, "at::Float8_e8m0fnu");

    /* uint16/32/64: negative integers wrap when their magnitude fits. */
    ASSERT_UEQ(full_bits(tsr_scalar_int(-1), TSR_UINT16), 0xFFFF);
    ASSERT_UEQ(full_bits(tsr_scalar_int(65535), TSR_UINT16), 0xFFFF);
    ASSERT_UEQ(full_bits(tsr_scalar_int(-65535), TSR_UINT16), 1);
    expect_full_overflow(tsr_scalar_int(65536), TSR_UINT16, "uint16_t");
    expect_full_overflow(tsr_scalar_int(-65536), TSR_UINT16, "uint16_t");
    expect_full_overflow(tsr_scalar_float(-1), TSR_UINT32, "uint32_t");
    ASSERT_UEQ(full_bits(tsr_scalar_int(-1), TSR_UINT32), 0xFFFFFFFFu);
    ASSERT_UEQ(full_bits(tsr_scalar_float(4294967295.0), TSR_UINT32), 0xFFFFFFFFu);
    expect_full_overflow(tsr_scalar_float(4294967296.0), TSR_UINT32, "uint32_t");
    ASSERT_UEQ(full_bits(tsr_scalar_int(INT64_MIN), TSR_UINT64), UINT64_C(0x8000000000000000));
    ASSERT_UEQ(full_bits(tsr_scalar_float(1e19), TSR_UINT64), UINT64_C(10000000000000000000));
    expect_full_overflow(tsr_scalar_float(2e19), TSR_UINT64, "uint64_t");
    expect_full_overflow(tsr_scalar_float(0.0 / 0.0), TSR_UINT64, "uint64_t");

    /* float4_e2m1fn_x2 has no casts: zeros and ones (1.0 is code 2 in
     * each nibble) are all it fills. */
    tsr_tensor_options o = with_dtype(TSR_FLOAT4_E2M1FN_X2);
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_ones(NULL, 1, SIZES_3, &o, &t));
    ASSERT_UEQ(filled(t), 0x22);
    ASSERT_OK(tsr_tensor_zeros(NULL, 1, SIZES_3, &o, &t));
    ASSERT_UEQ(filled(t), 0);
    ASSERT_FAIL(tsr_tensor_full(NULL, 1, SIZES_3, tsr_scalar_float(1), &o, &t),
                TSR_ERR_NOT_SUPPORTED,
                "copy_() does not support casting Float4_e2m1fn_x2 to different types (from "
                "Double to Float4_e2m1fn_x2)");
    ASSERT_EQ(tsr_float4_to_float(0x22 & 0xF), 1);
}

static void test_from_data(void)
{
    const int64_t data[6] = {0, 1, 2, 3, 4, 5};
    tsr_tensor_options o = with_dtype(TSR_FLOAT32);
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, 2, SIZES_2x3, TSR_INT64, data, &o, &t));
    float f[6];
    ASSERT_OK(tsr_tensor_copy_to_host(t, f, sizeof(f)));
    for (int i = 0; i < 6; i++)
        ASSERT_TRUE(f[i] == (float)i);
    tsr_tensor_release(t);

    /* Without a dtype the data's own; channels_last lays the same
     * row-major values out in its strides. */
    const int64_t nchw[4] = {1, 3, 2, 2};
    int64_t values[12], back[12];
    for (int i = 0; i < 12; i++)
        values[i] = 100 + i;
    o = (tsr_tensor_options){0};
    o.has_memory_format = true;
    o.memory_format = TSR_CHANNELS_LAST;
    for (int same = 0; same < 2; same++) {
        o.has_dtype = !same;
        o.dtype = TSR_INT32;
        ASSERT_OK(tsr_tensor_from_data(NULL, 4, nchw, TSR_INT64, values, &o, &t));
        ASSERT_EQ(tsr_tensor_dtype(t), same ? TSR_INT64 : TSR_INT32);
        ASSERT_TRUE(tsr_tensor_is_contiguous(t, TSR_CHANNELS_LAST));
        ASSERT_EQ(tsr_tensor_strides(t)[1], 1);
        int64_t n = 0;
        ASSERT_TRUE(tt_values(t, back, 12, &n));
        ASSERT_TRUE(n == 12 && memcmp(back, values, sizeof(values)) == 0);
        tsr_tensor_release(t);
    }

    ASSERT_FAIL(tsr_tensor_from_data(NULL, 2, SIZES_2x3, TSR_INT64, NULL, NULL, &t),
                TSR_ERR_INVALID_ARGUMENT, "data must not be NULL");
    ASSERT_FAIL(tsr_tensor_from_data(NULL, 2, SIZES_2x3, TSR_DTYPE_COUNT, data, NULL, &t),
                TSR_ERR_INVALID_ARGUMENT, NULL);
    o = with_dtype(TSR_FLOAT4_E2M1FN_X2);
    ASSERT_FAIL(tsr_tensor_from_data(NULL, 2, SIZES_2x3, TSR_INT64, data, &o, &t),
                TSR_ERR_NOT_SUPPORTED, NULL);
    /* Same-dtype data is copied bit for bit, float4 pairs included. */
    const unsigned char pairs[3] = {0x12, 0xF0, 0x8A};
    unsigned char got[3];
    ASSERT_OK(tsr_tensor_from_data(NULL, 1, SIZES_3, TSR_FLOAT4_E2M1FN_X2, pairs, NULL, &t));
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, 3));
    ASSERT_TRUE(memcmp(got, pairs, 3) == 0);
    tsr_tensor_release(t);
    /* meta keeps no data and accepts none. */
    o = (tsr_tensor_options){0};
    o.has_device = true;
    o.device = (tsr_device){TSR_DEVICE_META, -1};
    ASSERT_OK(tsr_tensor_from_data(NULL, 2, SIZES_2x3, TSR_INT64, data, &o, &t));
    ASSERT_EQ(tsr_tensor_dtype(t), TSR_INT64);
    tsr_tensor_release(t);
}

static void test_empty_strided(void)
{
    tsr_tensor *t = NULL, *v = NULL;
    const int64_t gaps[2] = {10, 1}, cols[2] = {1, 2}, negative[2] = {-1, 1};
    ASSERT_OK(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, cols, NULL, &t));
    ASSERT_EQ(tsr_tensor_strides(t)[0], 1);
    ASSERT_EQ(tsr_tensor_strides(t)[1], 2);
    ASSERT_FALSE(tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT));
    tsr_tensor_release(t);
    /* The storage spans the strides: 13 elements for sizes [2, 3],
     * strides [10, 1]. */
    ASSERT_OK(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, gaps, NULL, &t));
    const int64_t span[1] = {13}, beyond[1] = {14}, unit[1] = {1};
    ASSERT_OK(tsr_tensor_as_strided(t, 1, span, unit, 0, &v));
    tsr_tensor_release(v);
    v = NULL;
    ASSERT_FAIL(tsr_tensor_as_strided(t, 1, beyond, unit, 0, &v), TSR_ERR_RUNTIME,
                "setStorage: sizes [14], strides [1], storage offset 0, and itemsize 4 requiring "
                "a storage size of 56 are out of bounds for storage of size 52");
    tsr_tensor_release(t);
    ASSERT_FAIL(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, negative, NULL, &t), TSR_ERR_RUNTIME,
                "Storage size calculation overflowed with sizes=[2, 3] and strides=[-1, 1]");
    const int64_t huge[2] = {INT64_MAX / 2, 1}, neg_sizes[2] = {2, -1};
    ASSERT_FAIL(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, huge, NULL, &t), TSR_ERR_RUNTIME,
                "Storage size calculation overflowed with sizes=[2, 3] and "
                "strides=[4611686018427387903, 1]");
    ASSERT_FAIL(tsr_tensor_empty_strided(NULL, 2, neg_sizes, cols, NULL, &t), TSR_ERR_RUNTIME,
                "Trying to create tensor with negative dimension -1: [2, -1]");
    tsr_tensor_options o = {0};
    o.has_memory_format = true;
    ASSERT_FAIL(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, cols, &o, &t),
                TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_empty_strided(NULL, 2, SIZES_2x3, NULL, NULL, &t),
                TSR_ERR_INVALID_ARGUMENT, NULL);
    /* Empty tensors need no storage whatever their strides. */
    const int64_t none[2] = {0, 3};
    ASSERT_OK(tsr_tensor_empty_strided(NULL, 2, none, negative, NULL, &t));
    ASSERT_EQ(tsr_tensor_numel(t), 0);
    tsr_tensor_release(t);
}

static void test_like(void)
{
    const int64_t nchw[4] = {2, 3, 4, 5};
    tsr_tensor_options o = with_dtype(TSR_INT32);
    o.has_memory_format = true;
    o.memory_format = TSR_CHANNELS_LAST;
    tsr_tensor *like = NULL, *r = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 4, nchw, &o, &like));

    ASSERT_OK(tsr_tensor_full_like(like, tsr_scalar_float(2.75), NULL, &r));
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_INT32); /* the input's dtype, not the value's */
    ASSERT_TRUE(tsr_tensor_is_contiguous(r, TSR_CHANNELS_LAST));
    int64_t values[120], n = 0;
    ASSERT_TRUE(tt_values(r, values, 120, &n));
    ASSERT_TRUE(n == 120 && values[0] == 2 && values[119] == 2);
    tsr_tensor_release(r);

    tsr_tensor_options over = with_dtype(TSR_FLOAT64);
    over.has_device = true;
    over.device = (tsr_device){TSR_DEVICE_META, 0};
    ASSERT_OK(tsr_tensor_ones_like(like, &over, &r));
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_FLOAT64);
    ASSERT_EQ(tsr_tensor_device(r).type, TSR_DEVICE_META);
    ASSERT_EQ(tsr_tensor_device(r).index, -1);
    ASSERT_TRUE(tsr_tensor_is_contiguous(r, TSR_CHANNELS_LAST));
    /* From meta back to cpu, fresh contiguous strides on request. */
    tsr_tensor *back = NULL;
    tsr_tensor_options cpu = {0};
    cpu.has_device = true;
    cpu.device = (tsr_device){TSR_DEVICE_CPU, -1};
    cpu.has_memory_format = true;
    cpu.memory_format = TSR_CONTIGUOUS_FORMAT;
    ASSERT_OK(tsr_tensor_zeros_like(r, &cpu, &back));
    ASSERT_EQ(tsr_tensor_device(back).type, TSR_DEVICE_CPU);
    ASSERT_TRUE(tsr_tensor_is_contiguous(back, TSR_CONTIGUOUS_FORMAT));
    ASSERT_TRUE(tt_values(back, values, 120, &n));
    ASSERT_TRUE(values[0] == 0 && values[119] == 0);
    tsr_tensor_release(back);
    tsr_tensor_release(r);
    r = NULL;

    ASSERT_FAIL(tsr_tensor_full_like(like, tsr_scalar_int(1LL << 40), NULL, &r), TSR_ERR_RUNTIME,
                "value cannot be converted to type int without overflow");
    o = (tsr_tensor_options){0};
    o.layout = TSR_SPARSE_COO;
    ASSERT_FAIL(tsr_tensor_empty_like(like, &o, &r), TSR_ERR_NOT_SUPPORTED, NULL);
    o = (tsr_tensor_options){0};
    o.has_memory_format = true;
    o.memory_format = TSR_CHANNELS_LAST_3D;
    ASSERT_FAIL(tsr_tensor_empty_like(like, &o, &r), TSR_ERR_RUNTIME,
                "required rank 5 tensor to use channels_last_3d format");
    ASSERT_TRUE(r == NULL);
    tsr_tensor_release(like);
}

static void test_storage(void)
{
    /* 0-byte cpu storages are still distinct, aligned blocks. */
    const int64_t zero[1] = {0};
    tsr_tensor *a = NULL, *b = NULL;
    void *pa = NULL, *pb = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 1, zero, NULL, &a));
    ASSERT_OK(tsr_tensor_empty(NULL, 1, zero, NULL, &b));
    ASSERT_OK(tsr_tensor_data_ptr(a, &pa));
    ASSERT_OK(tsr_tensor_data_ptr(b, &pb));
    ASSERT_TRUE(pa != NULL && pb != NULL && pa != pb);
    ASSERT_FALSE(tsr_tensor_shares_storage(a, b));
    ASSERT_TRUE(tsr_tensor_shares_storage(a, a));
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    const int64_t some[1] = {37};
    tsr_tensor_options o = with_dtype(TSR_UINT8);
    ASSERT_OK(tsr_tensor_zeros(NULL, 1, some, &o, &a));
    ASSERT_OK(tsr_tensor_data_ptr(a, &pa));
    ASSERT_EQ((uintptr_t)pa % 64, 0);
    tsr_tensor_release(a);

    /* zeros really writes zeros into recycled memory. */
    const int64_t big[1] = {1 << 16};
    for (int round = 0; round < 2; round++) {
        ASSERT_OK(round ? tsr_tensor_zeros(NULL, 1, big, &o, &a)
                        : tsr_tensor_full(NULL, 1, big, tsr_scalar_int(0xAB), &o, &a));
        unsigned char *p = NULL;
        ASSERT_OK(tsr_tensor_data_ptr(a, (void **)&p));
        ASSERT_EQ(p[0], round ? 0 : 0xAB);
        ASSERT_EQ(p[(1 << 16) - 1], round ? 0 : 0xAB);
        tsr_tensor_release(a);
    }
}

int main(void)
{
    test_option_checks();
    test_devices();
    test_full_dtype_inference();
    test_fills_of_later_dtypes();
    test_from_data();
    test_empty_strided();
    test_like();
    test_storage();
    TEST_DONE();
}
