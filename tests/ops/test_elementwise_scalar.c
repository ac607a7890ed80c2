/* tsr_elementwise_scalar (an operation by number with Python numbers among
 * its inputs) against the named functions that take the number, whose
 * results the conformance families check against PyTorch: the same bytes,
 * dtype and shape for each place a number may stand, out= included; and
 * its refusals. On the cpu, no daemon. */
#include <string.h>

#include "tessera/tessera.h"
#include "test.h"

static const int64_t shape[2] = {5, 3};

static tsr_op op_named(const char *name)
{
    tsr_op op = 0;
    ASSERT_OK(tsr_op_from_name(name, &op));
    return op;
}

/* A [5, 3] tensor of small values (bool: every other one true). */
static tsr_tensor *values(tsr_dtype dtype, int seed)
{
    double v[15];
    for (int k = 0; k < 15; k++)
        v[k] = dtype == TSR_BOOL ? (k + seed) % 2 : (double)((k * 7 + seed * 5) % 23) - 5;
    tsr_tensor_options o = {.has_dtype = true, .dtype = dtype};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, 2, shape, TSR_FLOAT64, v, &o, &t));
    return t;
}

static bool same(tsr_tensor *a, tsr_tensor *b)
{
    if (!a || !b || tsr_tensor_dtype(a) != tsr_tensor_dtype(b) ||
        tsr_tensor_ndim(a) != tsr_tensor_ndim(b) ||
        memcmp(tsr_tensor_sizes(a), tsr_tensor_sizes(b),
               sizeof(int64_t) * (size_t)tsr_tensor_ndim(a)) ||
        tsr_tensor_nbytes(a) != tsr_tensor_nbytes(b))
        return false;
    unsigned char x[15 * 16], y[15 * 16];
    size_t n = (size_t)tsr_tensor_nbytes(a);
    return n <= sizeof(x) && !tsr_tensor_copy_to_host(a, x, n) &&
           !tsr_tensor_copy_to_host(b, y, n) && !memcmp(x, y, n);
}

/* got and want both succeed and are the same tensor; both released. */
#define SAME(call_got, call_want)             \
    do {                                      \
        tsr_tensor *got = NULL, *want = NULL; \
        ASSERT_OK(call_got);                  \
        ASSERT_OK(call_want);                 \
        ASSERT_TRUE(same(got, want));         \
        tsr_tensor_release(got);              \
        tsr_tensor_release(want);             \
    } while (0)

static void test_forms(void)
{
    tsr_tensor *x = values(TSR_FLOAT32, 1), *i8 = values(TSR_INT8, 2), *c = values(TSR_BOOL, 3),
               *y = values(TSR_FLOAT32, 4);
    const tsr_scalar two = tsr_scalar_int(2), half = tsr_scalar_float(0.5),
                     big = tsr_scalar_int(300);
    const tsr_scalar n2[3] = {two, two, half}, nbig[2] = {big, big};
    const tsr_tensor *xn[2] = {x, NULL}, *nx[2] = {NULL, x}, *i8n[2] = {i8, NULL},
                     *cxn[3] = {c, x, NULL}, *cnx[3] = {c, NULL, x}, *cnn[3] = {c, NULL, NULL},
                     *xnn[3] = {x, NULL, NULL}, *xyn[3] = {x, y, NULL};
    tsr_scalar one = tsr_scalar_int(1);

    /* The second input of a binary operation. */
    SAME(tsr_elementwise_scalar(op_named("add"), xn, n2, 2, NULL, &got),
         tsr_add_scalar(x, two, one, &want));
    SAME(tsr_elementwise_scalar(op_named("add"), i8n, nbig, 2, NULL, &got),
         tsr_add_scalar(i8, big, one, &want)); /* int8, wrapped */
    SAME(tsr_elementwise_scalar(op_named("div"), xn, n2, 2, NULL, &got),
         tsr_div_scalar(x, two, TSR_ROUNDING_NONE, &want));
    SAME(tsr_elementwise_scalar(op_named("div_floor"), i8n, n2, 2, NULL, &got),
         tsr_div_scalar(i8, two, TSR_ROUNDING_FLOOR, &want));
    SAME(tsr_elementwise_scalar(op_named("eq"), xn, n2, 2, NULL, &got),
         tsr_eq_scalar(x, two, &want));
    SAME(tsr_elementwise_scalar(op_named("pow"), xn, n2, 2, NULL, &got),
         tsr_pow_scalar(x, two, &want));
    /* The first: pow.Scalar, and 2 - x as PyTorch's rsub, -x + 2. */
    SAME(tsr_elementwise_scalar(op_named("pow"), nx, n2, 2, NULL, &got),
         tsr_pow_scalar_self(two, x, &want));
    tsr_tensor *neg = NULL;
    ASSERT_OK(tsr_neg(x, &neg));
    SAME(tsr_elementwise_scalar(op_named("sub"), nx, n2, 2, NULL, &got),
         tsr_add_scalar(neg, two, one, &want));
    tsr_tensor_release(neg);
    /* where, clamp, lerp. */
    SAME(tsr_elementwise_scalar(op_named("where"), cxn, n2, 3, NULL, &got),
         tsr_where_scalar(c, x, half, &want));
    SAME(tsr_elementwise_scalar(op_named("where"), cnx, n2, 3, NULL, &got),
         tsr_where_scalar_self(c, two, x, &want));
    SAME(tsr_elementwise_scalar(op_named("where"), cnn, n2, 3, NULL, &got),
         tsr_where_scalars(c, two, half, &want));
    SAME(tsr_elementwise_scalar(op_named("clamp"), xnn, n2, 3, NULL, &got),
         tsr_clamp_scalar(x, &n2[1], &n2[2], &want));
    SAME(tsr_elementwise_scalar(op_named("clamp_max"), xn, n2, 2, NULL, &got),
         tsr_clamp_scalar(x, NULL, &n2[1], &want));
    SAME(tsr_elementwise_scalar(op_named("lerp"), xyn, n2, 3, NULL, &got),
         tsr_lerp_scalar(x, y, half, &want));
    /* out=: into a float64 tensor, as tsr_mul_scalar_out. */
    tsr_tensor_options f64 = {.has_dtype = true, .dtype = TSR_FLOAT64};
    tsr_tensor *o1 = NULL, *o2 = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 2, shape, &f64, &o1));
    ASSERT_OK(tsr_tensor_empty(NULL, 2, shape, &f64, &o2));
    ASSERT_OK(tsr_elementwise_scalar(op_named("mul"), xn, n2, 2, o1, NULL));
    ASSERT_OK(tsr_mul_scalar_out(x, two, o2));
    ASSERT_TRUE(same(o1, o2));
    /* Without numbers it is tsr_elementwise. */
    const tsr_tensor *xy[2] = {x, y};
    SAME(tsr_elementwise_scalar(op_named("add"), xy, NULL, 2, NULL, &got),
         tsr_add(x, y, one, &want));

    tsr_tensor_release(o2);
    tsr_tensor_release(o1);
    tsr_tensor_release(y);
    tsr_tensor_release(c);
    tsr_tensor_release(i8);
    tsr_tensor_release(x);
}

static void test_refusals(void)
{
    tsr_tensor *x = values(TSR_FLOAT32, 1), *c = values(TSR_BOOL, 3), *r = NULL;
    const tsr_scalar n2[3] = {tsr_scalar_int(2), tsr_scalar_int(2), tsr_scalar_int(2)};
    const tsr_tensor *nn[2] = {NULL, NULL}, *xn[2] = {x, NULL}, *nxx[3] = {NULL, x, x},
                     *xnx[3] = {x, NULL, x}, *cxn[3] = {c, x, NULL}, *xnx2[3] = {x, NULL, x};
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("add"), nn, n2, 2, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "add: no tensor among its inputs");
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("add"), xn, NULL, 2, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "add: input 1 is NULL and no number is given");
    tsr_scalar odd[2] = {tsr_scalar_int(2), tsr_scalar_int(2)};
    odd[1].kind = TSR_INT32;
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("add"), xn, odd, 2, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT,
                "add: input 1 is a number of no kind (expected bool, int64, float64 or "
                "complex128)");
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("where"), nxx, n2, 3, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "where takes no Python number as input 0");
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("addcmul"), xnx, n2, 3, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "addcmul takes no Python number as input 1");
    /* clamp's bounds are both numbers or both tensors. */
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("clamp"), xnx2, n2, 3, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "clamp takes no Python number as input 1");
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("where"), cxn, n2, 3, x, NULL),
                TSR_ERR_INVALID_ARGUMENT,
                "where: the forms with a Python number have no out=, as in PyTorch 1.13");
    ASSERT_FAIL(tsr_elementwise_scalar(op_named("add"), xn, n2, 1, NULL, &r),
                TSR_ERR_INVALID_ARGUMENT, "add takes 2 input tensors, not 1");
    ASSERT_TRUE(r == NULL);
    tsr_tensor_release(c);
    tsr_tensor_release(x);
}

int main(void)
{
    test_forms();
    test_refusals();
    TEST_DONE();
}
