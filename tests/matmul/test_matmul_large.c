/* Products larger than the conformance tables' (which stay under 20 x 40):
 * the integer loop across its cache blocks (more than 32 rows, 64 inner
 * elements and 256 columns), OpenBLAS on its own threads, a batch spread
 * over the pool, and a transposed operand, each against a plain loop in
 * this file (exact for integers, and for floats whose sums are exact).
 * float16, bfloat16 and float32 operands laid out every way the packing
 * takes (transposed, rows strided past its runs of 256 elements, a
 * transposed out=), with inner sizes small enough for exact sums. */
#include <stdlib.h>

#include "test.h"

/* Small integers as any dtype: every sum below is exact in float32. */
static tsr_tensor *filled(tsr_dtype dt, int ndim, const int64_t *sizes, uint64_t seed,
                          int64_t **values)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    int64_t *v = malloc(sizeof *v * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        v[i] = (int64_t)(test_next_u64(&seed) % 17) - 8;
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, ndim, sizes, TSR_INT64, v, &o, &t));
    *values = v;
    return t;
}

/* c[b] = a[b] @ b[b] (batch 1 for matrices), a's element (i, p) at
 * ai * i + ap * p. */
static void check(tsr_tensor *c, const int64_t *a, const int64_t *b, int64_t batch, int64_t m,
                  int64_t k, int64_t n, int64_t ai, int64_t ap, int bits)
{
    int64_t *got = malloc(sizeof *got * (size_t)(batch * m * n));
    tsr_tensor *wide = NULL;
    tsr_tensor_options o = {.has_dtype = true, .dtype = TSR_INT64};
    ASSERT_OK(tsr_tensor_to(NULL, c, &o, false, &wide));
    ASSERT_OK(tsr_tensor_copy_to_host(wide, got, sizeof *got * (size_t)(batch * m * n)));
    int bad = 0;
    for (int64_t q = 0; q < batch; q++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                uint64_t sum = 0;
                for (int64_t p = 0; p < k; p++)
                    sum += (uint64_t)a[q * m * k + ai * i + ap * p] *
                           (uint64_t)b[q * k * n + p * n + j];
                int64_t want = bits == 64 ? (int64_t)sum : (int64_t)(int8_t)sum;
                bad += got[(q * m + i) * n + j] != want;
            }
    ASSERT_EQ(bad, 0);
    tsr_tensor_release(wide);
    free(got);
}

int main(void)
{
    int64_t *av, *bv;
    /* integers across every block boundary, and int8 wrapping */
    const tsr_dtype ints[] = {TSR_INT32, TSR_INT8};
    for (int d = 0; d < 2; d++) {
        int64_t sa[2] = {70, 300}, sb[2] = {300, 270};
        tsr_tensor *a = filled(ints[d], 2, sa, 1 + d, &av), *b = filled(ints[d], 2, sb, 7, &bv), *c;
        ASSERT_OK(tsr_mm(a, b, &c));
        check(c, av, bv, 1, 70, 300, 270, 300, 1, d ? 8 : 64);
        tsr_tensor_release(a), tsr_tensor_release(b), tsr_tensor_release(c), free(av), free(bv);
    }
    /* float32 on OpenBLAS's threads, a read transposed (a^T of a 300 x 400) */
    {
        int64_t sa[2] = {300, 400}, sb[2] = {300, 500};
        tsr_tensor *a = filled(TSR_FLOAT32, 2, sa, 3, &av), *b = filled(TSR_FLOAT32, 2, sb, 4, &bv);
        tsr_tensor *at, *c;
        ASSERT_OK(tsr_tensor_t(a, &at));
        ASSERT_OK(tsr_mm(at, b, &c));
        check(c, av, bv, 1, 400, 300, 500, 1, 400, 64);
        tsr_tensor_release(a), tsr_tensor_release(at), tsr_tensor_release(b), tsr_tensor_release(c),
            free(av), free(bv);
    }
    /* a batch of small products over the pool, float64 and bfloat16 */
    const tsr_dtype floats[] = {TSR_FLOAT64, TSR_BFLOAT16, TSR_INT16};
    for (int d = 0; d < 3; d++) {
        int64_t sa[3] = {300, 6, 5}, sb[3] = {300, 5, 7};
        tsr_tensor *a = filled(floats[d], 3, sa, 5, &av), *b = filled(floats[d], 3, sb, 6, &bv), *c;
        ASSERT_OK(tsr_bmm(a, b, &c));
        check(c, av, bv, 300, 6, 5, 7, 5, 1, 64);
        tsr_tensor_release(a), tsr_tensor_release(b), tsr_tensor_release(c), free(av), free(bv);
    }
    /* a transposed (a^T of a 4 x 300, read along its columns), b every
     * other column of a 4 x 1200 (neither rows nor columns contiguous: 600
     * elements gathered in runs), into out^T of a 600 x 300 */
    const tsr_dtype packed[] = {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32};
    for (int d = 0; d < 3; d++) {
        int64_t sa[2] = {4, 300}, sb[2] = {4, 1200}, sc[2] = {600, 300};
        int64_t vb[2] = {4, 600}, vb_strides[2] = {1200, 2};
        tsr_tensor *a = filled(packed[d], 2, sa, 8 + d, &av), *b = filled(packed[d], 2, sb, 9, &bv);
        tsr_tensor *at, *bs, *cbase, *c;
        tsr_tensor_options o = {.has_dtype = true, .dtype = packed[d]};
        ASSERT_OK(tsr_tensor_t(a, &at));
        ASSERT_OK(tsr_tensor_as_strided(b, 2, vb, vb_strides, 0, &bs));
        ASSERT_OK(tsr_tensor_empty(NULL, 2, sc, &o, &cbase));
        ASSERT_OK(tsr_tensor_t(cbase, &c));
        ASSERT_OK(tsr_mm_out(at, bs, c));
        int64_t *bdense = malloc(sizeof *bdense * 4 * 600);
        for (int64_t p = 0; p < 4; p++)
            for (int64_t j = 0; j < 600; j++)
                bdense[p * 600 + j] = bv[p * 1200 + 2 * j];
        check(c, av, bdense, 1, 300, 4, 600, 1, 300, 64);
        tsr_tensor_release(a), tsr_tensor_release(at), tsr_tensor_release(b),
            tsr_tensor_release(bs), tsr_tensor_release(cbase), tsr_tensor_release(c);
        free(av), free(bv), free(bdense);
    }
    TEST_DONE();
}
