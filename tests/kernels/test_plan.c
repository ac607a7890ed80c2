/* The planner behind tessera/ops.h on cpu and meta tensors: checks and
 * messages in PyTorch's order, result dtypes, output layouts, and values
 * through every loop shape (contiguous, broadcast, strided, transposed
 * tiles, converted blocks, threads). Known answers from PyTorch 1.13. */
#include <math.h>

#include "test.h"

static tsr_tensor *from(int ndim, const int64_t *sizes, tsr_dtype dt, const void *data)
{
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, ndim, sizes, dt, data, NULL, &t));
    return t;
}

static tsr_tensor *filled(int ndim, const int64_t *sizes, tsr_dtype dt, double v)
{
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_full(NULL, ndim, sizes, tsr_scalar_float(v), &o, &t));
    return t;
}

static void check_messages(void)
{
    int64_t s3[] = {3}, s23[] = {2, 3}, s4[] = {4}, s2[] = {2};
    tsr_tensor *a = filled(1, s3, TSR_FLOAT32, 1), *b = filled(1, s4, TSR_FLOAT32, 1), *r = NULL;
    tsr_tensor *m = filled(2, s23, TSR_FLOAT32, 1);
    tsr_scalar one = tsr_scalar_int(1);
    ASSERT_FAIL(tsr_add(a, b, one, &r), TSR_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                "dimension 0");
    ASSERT_FAIL(tsr_add_(a, m, one), TSR_ERR_RUNTIME,
                "output with shape [3] doesn't match the broadcast shape [2, 3]");
    tsr_tensor *i64 = filled(1, s3, TSR_INT64, 1);
    ASSERT_FAIL(tsr_add_out(a, a, one, i64), TSR_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    ASSERT_FAIL(tsr_div_(i64, i64, TSR_ROUNDING_NONE), TSR_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    ASSERT_FAIL(tsr_add_scalar_(i64, tsr_scalar_float(1.5), one), TSR_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Long");
    ASSERT_FAIL(tsr_add(i64, i64, tsr_scalar_float(0.5), &r), TSR_ERR_RUNTIME,
                "For integral input tensors, argument alpha must not be a floating point number.");
    ASSERT_FAIL(tsr_add(a, a, tsr_scalar_bool(true), &r), TSR_ERR_RUNTIME,
                "Boolean alpha only supported for Boolean results.");
    ASSERT_FAIL(tsr_add(a, a, tsr_scalar_complex(1, 1), &r), TSR_ERR_RUNTIME,
                "For non-complex input tensors, argument alpha must not be a complex number.");
    tsr_tensor *z = filled(1, s3, TSR_INT64, 0);
    ASSERT_FAIL(tsr_div(i64, z, TSR_ROUNDING_FLOOR, &r), TSR_ERR_RUNTIME, "ZeroDivisionError");
    tsr_tensor *bl = filled(1, s3, TSR_BOOL, 1);
    ASSERT_FAIL(tsr_sub_scalar(a, tsr_scalar_bool(true), one, &r), TSR_ERR_RUNTIME,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    ASSERT_FAIL(tsr_div(bl, bl, TSR_ROUNDING_TRUNC, &r), TSR_ERR_NOT_SUPPORTED,
                "\"div_trunc_cpu\" not implemented for 'Bool'");
    tsr_tensor *f8 = filled(1, s3, TSR_FLOAT8_E4M3FN, 1);
    ASSERT_FAIL(tsr_add(f8, f8, one, &r), TSR_ERR_NOT_SUPPORTED,
                "\"add_stub\" not implemented for 'Float8_e4m3fn'");
    ASSERT_OK(tsr_add(i64, i64, tsr_scalar_int(1000), &r));
    tsr_tensor_release(r);
    r = NULL;
    tsr_tensor *i8 = filled(1, s3, TSR_INT8, 1);
    ASSERT_FAIL(tsr_add(i8, i8, tsr_scalar_int(1000), &r), TSR_ERR_RUNTIME,
                "value cannot be converted to type int8_t without overflow");
    /* overlap: x[1:] = x[:3] + x[1:] */
    tsr_tensor *x = filled(1, s4, TSR_FLOAT32, 1), *lo = NULL, *hi = NULL, *e = NULL;
    ASSERT_OK(tsr_tensor_narrow(x, 0, 0, 3, &lo));
    ASSERT_OK(tsr_tensor_narrow(x, 0, 1, 3, &hi));
    ASSERT_FAIL(tsr_add_out(lo, hi, one, hi), TSR_ERR_RUNTIME,
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.");
    ASSERT_FAIL(tsr_tensor_copy_(lo, hi), TSR_ERR_RUNTIME, NULL);
    tsr_tensor *one_elem = filled(1, (int64_t[]){1}, TSR_FLOAT32, 1);
    ASSERT_OK(tsr_tensor_expand(one_elem, s3, 1, &e));
    ASSERT_FAIL(tsr_add_scalar_out(a, one, one, e), TSR_ERR_RUNTIME,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
    ASSERT_OK(tsr_tensor_fill_(e, tsr_scalar_int(2))); /* fill_ does not check overlap */
    /* out= with no elements is resized; with elements it must fit */
    tsr_tensor *empty = NULL, *two = filled(1, s2, TSR_FLOAT32, 0);
    ASSERT_OK(tsr_tensor_empty(NULL, 1, (int64_t[]){0}, NULL, &empty));
    ASSERT_OK(tsr_add_out(m, a, one, empty));
    ASSERT_EQ(tsr_tensor_ndim(empty), 2);
    ASSERT_EQ(tsr_tensor_numel(empty), 6);
    ASSERT_FAIL(tsr_add_out(a, a, one, two), TSR_ERR_RUNTIME,
                "output with shape [2] doesn't match the broadcast shape [3]");
    ASSERT_FAIL(tsr_div(a, a, (tsr_rounding_mode)7, &r), TSR_ERR_INVALID_ARGUMENT, NULL);
    tsr_tensor *tensors[] = {a, b, m, i64, z, bl, f8, i8, x, lo, hi, e, one_elem, empty, two};
    for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++)
        tsr_tensor_release(tensors[i]);
}

static void check_strides(const tsr_tensor *t, const int64_t *want)
{
    for (int d = 0; d < tsr_tensor_ndim(t); d++)
        ASSERT_EQ(tsr_tensor_strides(t)[d], want[d]);
}

/* TensorIterator's output layouts (spec 7.6). */
static void check_layouts(void)
{
    int64_t s[] = {2, 3, 4, 5}, s43[] = {4, 3}, s34[] = {3, 4};
    tsr_tensor_options cl = {.has_memory_format = true, .memory_format = TSR_CHANNELS_LAST};
    tsr_tensor *c = NULL, *l = NULL, *r = NULL, *t43 = NULL, *t34 = NULL, *tt = NULL;
    ASSERT_OK(tsr_tensor_zeros(NULL, 4, s, NULL, &c));
    ASSERT_OK(tsr_tensor_zeros(NULL, 4, s, &cl, &l));
    tsr_scalar one = tsr_scalar_int(1);
    ASSERT_OK(tsr_add(l, c, one, &r));
    check_strides(r, (int64_t[]){60, 1, 15, 3});
    tsr_tensor_release(r);
    ASSERT_OK(tsr_add(c, l, one, &r));
    check_strides(r, (int64_t[]){60, 20, 5, 1});
    tsr_tensor_release(r);
    ASSERT_OK(tsr_mul_scalar(l, tsr_scalar_int(2), &r));
    check_strides(r, (int64_t[]){60, 1, 15, 3});
    tsr_tensor_release(r);
    ASSERT_OK(tsr_tensor_zeros(NULL, 2, s43, NULL, &t43));
    ASSERT_OK(tsr_tensor_zeros(NULL, 2, s34, NULL, &t34));
    ASSERT_OK(tsr_tensor_t(t43, &tt));
    ASSERT_OK(tsr_add(tt, t34, one, &r));
    check_strides(r, (int64_t[]){1, 3});
    tsr_tensor_release(r);
    ASSERT_OK(tsr_add(t34, tt, one, &r));
    check_strides(r, (int64_t[]){4, 1});
    tsr_tensor_release(r);
    /* meta: shapes, dtypes and strides only */
    tsr_tensor_options meta = {.has_device = true, .device = {TSR_DEVICE_META, -1}};
    tsr_tensor *mt = NULL, *zero_dim = filled(0, NULL, TSR_FLOAT64, 2);
    ASSERT_OK(tsr_tensor_empty(NULL, 4, s, &meta, &mt));
    ASSERT_OK(tsr_div(mt, zero_dim, TSR_ROUNDING_NONE, &r));
    ASSERT_EQ(tsr_tensor_device(r).type, TSR_DEVICE_META);
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_FLOAT32);
    tsr_tensor_release(r);
    ASSERT_OK(tsr_add(zero_dim, mt, one, &r));
    tsr_tensor_release(r);
    tsr_tensor *m0 = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 0, NULL, &meta, &m0));
    ASSERT_FAIL(tsr_add(m0, c, one, &r), TSR_ERR_RUNTIME,
                "Expected all tensors to be on the same device, but found at least two devices, "
                "meta and cpu!");
    tsr_tensor *all[] = {c, l, t43, t34, tt, mt, zero_dim, m0};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        tsr_tensor_release(all[i]);
}

/* Values through every loop shape, against a reference computed here. */
static void check_values(int64_t rows, int64_t cols)
{
    int64_t sz[] = {rows, cols}, szt[] = {cols, rows};
    size_t n = (size_t)(rows * cols);
    float *av = malloc(n * sizeof *av), *bv = malloc(n * sizeof *bv), *got = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        av[i] = (float)(i % 97) - 40.5f;
        bv[i] = (float)(i % 13) + 0.25f;
    }
    tsr_tensor *a = from(2, sz, TSR_FLOAT32, av), *bt = from(2, szt, TSR_FLOAT32, bv);
    tsr_tensor *b = NULL, *r = NULL, *h = NULL, *c = NULL;
    ASSERT_OK(tsr_tensor_t(bt, &b)); /* transposed: the tiled path */
    ASSERT_OK(tsr_sub(a, b, tsr_scalar_int(2), &r));
    ASSERT_OK(tsr_tensor_copy_to_host(r, got, n * 4));
    size_t bad = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            bad += got[i * cols + j] != av[i * cols + j] - 2 * bv[j * rows + i];
    ASSERT_EQ(bad, 0);
    tsr_tensor_release(r);
    /* mixed dtypes: float16 + float32 -> float32 through converted blocks,
     * written into a float64 out= */
    tsr_tensor_options f16 = {.has_dtype = true, .dtype = TSR_FLOAT16};
    ASSERT_OK(tsr_tensor_to(NULL, a, &f16, false, &h));
    tsr_tensor_options f64 = {.has_dtype = true, .dtype = TSR_FLOAT64};
    ASSERT_OK(tsr_tensor_empty(NULL, 2, sz, &f64, &c));
    ASSERT_OK(tsr_mul_out(h, b, c));
    double *gd = (double *)got;
    ASSERT_OK(tsr_tensor_copy_to_host(c, gd, n * 8));
    bad = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            bad += gd[i * cols + j] != (double)(av[i * cols + j] * bv[j * rows + i]);
    ASSERT_EQ(bad, 0);
    /* clone and contiguous of the transposed view */
    ASSERT_OK(tsr_tensor_contiguous(b, TSR_CONTIGUOUS_FORMAT, &r));
    ASSERT_TRUE(tsr_tensor_is_contiguous(r, TSR_CONTIGUOUS_FORMAT));
    ASSERT_OK(tsr_tensor_copy_to_host(r, got, n * 4));
    bad = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            bad += got[i * cols + j] != bv[j * rows + i];
    ASSERT_EQ(bad, 0);
    tsr_tensor_release(r);
    ASSERT_OK(tsr_tensor_clone(b, TSR_PRESERVE_FORMAT, &r));
    check_strides(r, (int64_t[]){1, rows});
    tsr_tensor_release(r);
    tsr_tensor *all[] = {a, bt, b, h, c};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        tsr_tensor_release(all[i]);
    free(av);
    free(bv);
    free(got);
}

static void check_copies(void)
{
    int64_t s[] = {5};
    double v[] = {1.5, -2.7, 300.7, NAN, -0.0};
    tsr_tensor *d = from(1, s, TSR_FLOAT64, v), *i8 = filled(1, s, TSR_INT8, 0), *r = NULL;
    ASSERT_OK(tsr_tensor_copy_(i8, d));
    int8_t got[5];
    ASSERT_OK(tsr_tensor_copy_to_host(i8, got, 5));
    ASSERT_EQ(got[0], 1);
    ASSERT_EQ(got[1], -2);
    ASSERT_EQ(got[2], 44);
    ASSERT_OK(tsr_tensor_to(NULL, d, NULL, false, &r));
    ASSERT_TRUE(r == d);
    tsr_tensor_release(r);
    ASSERT_OK(tsr_tensor_to(NULL, d, NULL, true, &r));
    ASSERT_TRUE(r != d);
    tsr_tensor_release(r);
    ASSERT_OK(tsr_tensor_contiguous(d, TSR_PRESERVE_FORMAT, &r)); /* contiguous already */
    tsr_tensor_release(r);
    tsr_tensor *f8 = filled(1, s, TSR_FLOAT8_E5M2, 0);
    ASSERT_OK(tsr_tensor_copy_(f8, d));
    ASSERT_OK(tsr_tensor_fill_(f8, tsr_scalar_float(2.0)));
    uint8_t codes[5];
    ASSERT_OK(tsr_tensor_copy_to_host(f8, codes, 5));
    ASSERT_EQ(codes[4], 0x40);
    ASSERT_FAIL(tsr_tensor_fill_(i8, tsr_scalar_int(1000)), TSR_ERR_RUNTIME,
                "value cannot be converted to type int8_t without overflow");
    tsr_tensor_release(d);
    tsr_tensor_release(i8);
    tsr_tensor_release(f8);
}

int main(void)
{
    check_messages();
    check_layouts();
    check_values(3, 5);
    check_values(70, 130);  /* tiles with ragged edges */
    check_values(300, 257); /* above the threading threshold */
    check_copies();
    TEST_DONE();
}
