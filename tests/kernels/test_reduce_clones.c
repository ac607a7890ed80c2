/* The reduction loops' two builds (kernels/cpu_reduce_ops.c: the baseline
 * and AVX2) give the same bits: every combine in every family, over
 * lengths around the lanes and a chunk, on random values mixed with NaNs,
 * infinities, signed zeros and ties, then on the same without NaNs and on
 * signed zeros alone (where the AVX2 max and min take their own way, and
 * a tie must keep the first zero, as the baseline does); and both builds
 * of the loop over two whole chunks at once give each chunk's bits. The cpu picks AVX2 where it can, so
 * the other suites see only that build on such a machine; this test holds
 * the baseline to it. Skipped (77) without AVX2. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cpu_reduce_ops.h"
#include "test.h"

static uint64_t state = 20261126;

static uint64_t next(void)
{
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* n math values of a family: `width` bytes each (float: 4, double and
 * uint64: 8, complex64: 8, complex128: 16). */
enum { WITH_NANS, NO_NANS, ZEROS, KINDS };
static void fill(unsigned char *x, int64_t n, tsr_dtype common, int kind)
{
    static const double special[] = {0.0, -0.0, 1.0, 1.0, -2.5, INFINITY, -INFINITY, NAN};
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = next();
        double v = kind == ZEROS ? special[(z >> 8) % 2]
                   : z % 4 == 0  ? special[(z >> 8) % (kind == WITH_NANS ? 8 : 7)]
                                 : ((double)(z >> 11) / 9007199254740992.0 - 0.5) * 64;
        if (common == TSR_FLOAT32 || common == TSR_COMPLEX64) {
            float f[2] = {(float)v, (float)(v * 0.5)};
            memcpy(x + i * (common == TSR_FLOAT32 ? 4 : 8), f, common == TSR_FLOAT32 ? 4 : 8);
        } else if (common == TSR_FLOAT64 || common == TSR_COMPLEX128) {
            double d[2] = {v, v * 0.5};
            memcpy(x + i * (common == TSR_FLOAT64 ? 8 : 16), d, common == TSR_FLOAT64 ? 8 : 16);
        } else {
            uint64_t u = z % 3 == 0 ? (z >> 32) % 5 : z;
            memcpy(x + i * 8, &u, 8);
        }
    }
}

/* Two accumulators' results, as stored in their dtype: the same bytes.
 * (A compensated sum's e part means nothing once s is infinite, and is
 * not compared.) */
static bool same_value(const tsr__reduce_ops *ops, tsr_dtype common, const void *a, const void *b)
{
    mval x, y;
    unsigned char sa[16] = {0}, sb[16] = {0};
    ops->final(a, x.b);
    ops->final(b, y.b);
    ops->store(common, x.b, sa);
    ops->store(common, y.b, sb);
    return memcmp(sa, sb, sizeof sa) == 0;
}

int main(void)
{
    if (!tsr__reduce_avx2()) {
        printf("no AVX2 here: the baseline is all there is\n");
        return 77;
    }
    static const char *const combines[] = {"sum", "prod", "max", "min", "all", "any"};
    static const tsr_dtype commons[] = {TSR_INT64, TSR_FLOAT32, TSR_FLOAT64, TSR_COMPLEX64,
                                        TSR_COMPLEX128};
    static const int64_t lengths[] = {1, 5, 15, 16, 17, 31, 33, 100, 257, 4095, 4096};
    static unsigned char x[4096 * 16], y[4096 * 16], lanes_a[16 * 64 * 16], lanes_b[16 * 64 * 16],
        lanes_c[16 * 64 * 16];
    int compared = 0, pairs = 0;
    for (size_t c = 0; c < sizeof combines / sizeof combines[0]; c++)
        for (size_t d = 0; d < sizeof commons / sizeof commons[0]; d++) {
            const tsr__reduce_ops *ops = tsr__reduce_ops_for(combines[c], commons[d]);
            if (ops == NULL)
                continue;
            for (size_t l = 0; l < KINDS * sizeof lengths / sizeof lengths[0]; l++) {
                int64_t n = lengths[l % (sizeof lengths / sizeof lengths[0])];
                int kind = (int)(l / (sizeof lengths / sizeof lengths[0]));
                fill(x, n, commons[d], kind);
                mval a, b;
                ops->chunk(x, n, a.b);
                ops->chunk_avx2(x, n, b.b);
                if (!same_value(ops, commons[d], a.b, b.b))
                    fprintf(stderr, "%s in %s, %lld elements%s: the chunks differ\n", combines[c],
                            tsr_dtype_name(commons[d]), (long long)n,
                            kind == WITH_NANS ? ""
                            : kind == NO_NANS ? " (no NaN)"
                                              : " (zeros)");
                ASSERT_TRUE(same_value(ops, commons[d], a.b, b.b));
                if (n == CHUNK) {
                    /* two chunks at once, the second of another kind:
                     * each as the one-chunk loop gives it */
                    fill(y, n, commons[d], (kind + 1) % KINDS);
                    mval ya, r2[4];
                    ops->chunk(y, n, ya.b);
                    ops->chunk2(x, y, r2[0].b, r2[1].b);
                    ops->chunk2_avx2(x, y, r2[2].b, r2[3].b);
                    for (int k = 0; k < 4; k++)
                        ASSERT_TRUE(same_value(ops, commons[d], k % 2 ? ya.b : a.b, r2[k].b));
                    ops->chunk2_avx2(y, x, r2[0].b, r2[1].b);
                    ASSERT_TRUE(same_value(ops, commons[d], ya.b, r2[0].b));
                    ASSERT_TRUE(same_value(ops, commons[d], a.b, r2[1].b));
                    /* the scans: x's chunk first, y's after it (the
                     * best and its position carried on) */
                    mval sx, sy;
                    int64_t ax = -1, ay;
                    ops->scan(x, n, 0, true, sx.b, &ax);
                    sy = sx;
                    ay = ax;
                    ops->scan(y, n, n, false, sy.b, &ay);
                    for (int build = 0; build < 2; build++) {
                        mval tx, ty = sx;
                        int64_t bx = -1, by = ax;
                        (build ? ops->scan2_avx2 : ops->scan2)(x, y, 0, n, true, false, tx.b, &bx,
                                                               ty.b, &by);
                        ASSERT_EQ(bx, ax);
                        ASSERT_EQ(by, ay);
                        ASSERT_TRUE(ax < 0 || (same_value(ops, commons[d], sx.b, tx.b) &&
                                               same_value(ops, commons[d], sy.b, ty.b)));
                    }
                    pairs++;
                }
                int64_t at_a = -1, at_b = -1;
                ops->scan(x, n, 7, true, a.b, &at_a);
                ops->scan_avx2(x, n, 7, true, b.b, &at_b);
                ASSERT_EQ(at_a, at_b);
                /* the column rows: n rows of 64 columns */
                int64_t rows = n < 64 ? n : 64;
                ops->col_init(lanes_a, 64);
                ops->col_init(lanes_b, 64);
                int nc = 64 - (int)(n % 7);
                ops->col_rows(lanes_a, x, (int64_t)ops->xsize, rows, nc);
                ops->col_rows_avx2(lanes_b, x, (int64_t)ops->xsize, rows, nc);
                /* and a row (or two) at a time, as the gathered walk
                 * gives them */
                ops->col_init(lanes_c, 64);
                for (int64_t i0 = 0; i0 < rows; i0 += 2 * LANES)
                    for (int j = 0; j < LANES && i0 + j < rows; j++) {
                        int64_t i = i0 + j;
                        ops->col_two(
                            lanes_c, x + i * (int64_t)ops->xsize,
                            i + LANES < rows ? x + (i + LANES) * (int64_t)ops->xsize : NULL, j, nc);
                    }
                ops->col_fold(lanes_a, nc);
                ops->col_fold(lanes_b, nc);
                ops->col_fold(lanes_c, nc);
                bool cols_same = true;
                for (int k = 0; k < nc; k++) {
                    ops->col_value(lanes_a, nc, k, a.b);
                    ops->col_value(lanes_b, nc, k, b.b);
                    cols_same &= same_value(ops, commons[d], a.b, b.b);
                    ops->col_value(lanes_c, nc, k, b.b);
                    cols_same &= same_value(ops, commons[d], a.b, b.b);
                }
                ASSERT_TRUE(cols_same);
                compared++;
            }
        }
    printf("%d combine x dtype x length cases: baseline and AVX2 agree\n", compared);
    printf("%d of them two whole chunks at once too (chunk2)\n", pairs);
    ASSERT_TRUE(pairs > 0);
    TEST_DONE();
}
