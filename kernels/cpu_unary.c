/* The cpu device's unary rows for machines with AVX2, FMA and F16C (see
 * tsr__cpu_fast_unary in cpu_fast.h).
 *
 * This file is compiled for those instruction sets (kernels/CMakeLists.txt)
 * and holds nothing but data and the functions its tables point to:
 * cpu_fast.c reads the tables only after it has seen the three on the
 * cpu, so no instruction of this file runs anywhere else. Everywhere
 * but x86-64 the tables are empty.
 *
 * Exactness. Every row gives the generic row's bits (kernels/cpu_loops.c,
 * kernels/scalar_ops.h and scalar_math.h): the same IEEE operations on
 * the same operands in the same order, each rounded once.
 *   - The scalar rows are the generic loops compiled again, here, where
 *     fmaf is the FMA instruction (a single rounding, as the library call
 *     it replaces) and nearbyintf the ROUNDSS of the current rounding
 *     mode: the same results, without a call per element. Not so
 *     floorf, ceilf and truncf, whose ROUNDSS quiets a signalling NaN
 *     that the library's functions return unchanged: cpu_fast.c leaves
 *     those three rows to the generic loop.
 *   - The vector rows (exp, log, tanh, sigmoid, silu and gelu's tanh
 *     form in float32, and bfloat16 through float32; gelu in float32) run
 *     the scalar functions' common path in eight lanes, written out
 *     operation for operation: where the scalar code branches on a value
 *     (expm1's k == 0, tanh's saturation, a sign) both sides are computed
 *     and the lane takes its side. Lanes off
 *     the common path (NaN, +-inf, zero, subnormal inputs, results that
 *     leave the normal range) are flagged and recomputed by the scalar
 *     function. fma(-k, c, x) is written with -k, the round of x / ln2
 *     in the current mode, as the scalar code has it (or as fnmadd(k,
 *     c, x), the same operation); -ffp-contract=off keeps the compiler
 *     from fusing anything else.
 * bfloat16 results round as tsr__k_bf16_out does (RNE on the bits, NaN
 * 7FC0). tests/kernels/test_cpu_unary.c compares every row with the
 * generic one over millions of inputs, special values included. */
#include "kernels/cpu_fast.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include "kernels/scalar_ops.h"

/* ---- the scalar rows ------------------------------------------------------ */

#define SAME(x) (x)
#define UNARY_ROW(name, S, IN, OUT, FN)                   \
    static void name(void *o_, const void *a_, int64_t n) \
    {                                                     \
        S *o = (S *)o_;                                   \
        const S *a = (const S *)a_;                       \
        for (int64_t i = 0; i < n; i++)                   \
            o[i] = OUT(FN(IN(a[i])));                     \
    }

#define IF_Y(...) __VA_ARGS__
#define IF_N(...)
#define IS_UNARY_UNARY(...) __VA_ARGS__
#define IS_UNARY_MOVE(...)
#define IS_UNARY_ALPHA(...)
#define IS_UNARY_PLAIN(...)
#define IS_UNARY_CHECKED(...)
#define IS_UNARY_WIDTH(...)
#define IS_UNARY_TERNARY(...)
#define IS_UNARY_VALUE1(...)
#define IS_UNARY_VALUE2(...)
#define IS_UNARY_VALUE3(...)
#define IS_UNARY_REDUCE(...)
#define IS_UNARY_REPLACE(...)

#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...)        \
    IS_UNARY_##call(IF_##f(                                                                       \
        UNARY_ROW(row_##ENUM##_f16, uint16_t, tsr__k_f16_in, tsr__k_f16_out, tsr__k_##elem##_f16) \
            UNARY_ROW(row_##ENUM##_bf16, uint16_t, tsr__k_bf16_in, tsr__k_bf16_out,               \
                      tsr__k_##elem##_bf16)                                                       \
                UNARY_ROW(row_##ENUM##_f32, float, SAME, SAME, tsr__k_##elem##_f32)               \
                    UNARY_ROW(row_##ENUM##_f64, double, SAME, SAME, tsr__k_##elem##_f64)))
#include "core/ops.def"
#undef X

const tsr__cpu_unary_fn tsr__cpu_unary_scalar[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    IS_UNARY_##call(IF_##f([TSR__KOP_##ENUM] = {row_##ENUM##_f16, row_##ENUM##_bf16,       \
                                                row_##ENUM##_f32, row_##ENUM##_f64}, ))
#include "core/ops.def"
#undef X
};

/* ---- eight lanes ------------------------------------------------------------ */

typedef __m256 V;
typedef __m256i VI;

static inline V vc(float c)
{
    return _mm256_set1_ps(c);
}
static inline V add(V a, V b)
{
    return _mm256_add_ps(a, b);
}
static inline V sub(V a, V b)
{
    return _mm256_sub_ps(a, b);
}
static inline V mul(V a, V b)
{
    return _mm256_mul_ps(a, b);
}
static inline V dv(V a, V b)
{
    return _mm256_div_ps(a, b);
}
static inline V fma8(V a, V b, V c)
{
    return _mm256_fmadd_ps(a, b, c);
}
static inline V neg(V a)
{
    return _mm256_xor_ps(a, vc(-0.0f));
}
static inline V rint8(V a)
{
    return _mm256_round_ps(a, _MM_FROUND_CUR_DIRECTION);
}
/* The lanes of `when` take a, the others b. */
static inline V pick(V when, V a, V b)
{
    return _mm256_blendv_ps(b, a, when);
}
/* 2^k for k in the normal exponents (tsr__k_pow2_f32). */
static inline V pow2(VI k)
{
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(TSR__K_F_BIAS)), TSR__K_F_MANT));
}
static inline int lanes(V mask)
{
    return _mm256_movemask_ps(mask);
}

/* ---- the functions' common paths -------------------------------------------
 * Each returns the eight results and sets *off to the lanes that leave
 * the common path (a bit per lane): the caller recomputes those. */

static inline V expq_tail(V r)
{
    V q = fma8(r, vc(TSR__K_EXPF_Q5), vc(TSR__K_EXPF_Q4));
    q = fma8(r, q, vc(TSR__K_EXPF_Q3));
    q = fma8(r, q, vc(TSR__K_EXPF_Q2));
    return fma8(r, q, vc(TSR__K_EXPF_Q1));
}

/* The functions LANES8 and LANES16 call, and the parts they call,
 * always inlined: GCC kept exp8, log8, tanh8, gelu8 and some of their
 * parts out of line, and a call per vector kept the two vectors of
 * LANES16 from overlapping (exp over 2^16 float32 in the second-level
 * cache: 0.85 ns an element called, 0.45 inlined). */
#define ROW8 static inline __attribute__((always_inline))

/* tsr__k_exp_f32 where k = rint(x / ln2) is a normal exponent (which
 * puts x inside the overflow and underflow bounds): p * 2^k. */
ROW8 V exp8(V x, int *off)
{
    V k = rint8(mul(x, vc(TSR__K_F_LOG2E)));
    V nk = neg(k);
    V r = fma8(nk, vc(TSR__K_F_LN2_HI), x);
    r = fma8(nk, vc(TSR__K_F_LN2_LO), r);
    V p = add(vc(1.0f), fma8(mul(r, r), fma8(r, expq_tail(r), vc(TSR__K_EXPF_Q0)), r));
    V in = _mm256_and_ps(_mm256_cmp_ps(k, vc((float)TSR__K_F_BIAS), _CMP_LE_OQ),
                         _mm256_cmp_ps(k, vc((float)(1 - TSR__K_F_BIAS)), _CMP_GE_OQ));
    *off = ~lanes(in) & 0xFF;
    return mul(p, pow2(_mm256_cvttps_epi32(k)));
}

static inline V logp(V z)
{
    V p = fma8(z, vc(TSR__K_LOGF_P3), vc(TSR__K_LOGF_P2));
    p = fma8(z, p, vc(TSR__K_LOGF_P1));
    return fma8(z, p, vc(TSR__K_LOGF_P0));
}

/* tsr__k_log_f32 of a positive normal finite x: logm(x, 1, 0), logw with
 * e = 0 and c = 0. */
ROW8 V log8(V x, int *off)
{
    const VI one = _mm256_set1_epi32(1 << TSR__K_F_MANT);
    VI u = _mm256_castps_si256(x);
    VI e = _mm256_sub_epi32(_mm256_srli_epi32(u, TSR__K_F_MANT), _mm256_set1_epi32(TSR__K_F_BIAS));
    VI m = _mm256_or_si256(_mm256_and_si256(u, _mm256_sub_epi32(one, _mm256_set1_epi32(1))),
                           _mm256_set1_epi32(TSR__K_F_BIAS << TSR__K_F_MANT));
    VI high = _mm256_cmpgt_epi32(m, _mm256_set1_epi32((int)(TSR__K_F_SQRT2 - 1)));
    m = _mm256_sub_epi32(m, _mm256_and_si256(high, one));
    e = _mm256_sub_epi32(e, high); /* high is -1 where e takes one more */
    V f = sub(_mm256_castsi256_ps(m), vc(1.0f));
    V s = dv(f, add(vc(2.0f), f));
    V z = mul(s, s);
    V hf = mul(vc(0.5f), f);
    V h = mul(hf, f);
    V et = _mm256_cvtepi32_ps(e);
    V small = fma8(s, fma8(z, logp(z), h), fma8(et, vc(TSR__K_F_LN2_LO), vc(0.0f)));
    small = sub(small, fma8(hf, f, neg(h)));
    V d = sub(f, h);
    V eh = mul(et, vc(TSR__K_F_LN2_HI));
    V hi = add(eh, d);
    V lo = add(add(sub(eh, hi), d), add(sub(sub(f, d), h), small));
    /* logm with mh = 1, ml = 0 */
    V y = mul(hi, vc(1.0f));
    V r = add(y, add(fma8(hi, vc(1.0f), neg(y)), fma8(hi, vc(0.0f), mul(lo, vc(1.0f)))));
    V in = _mm256_and_ps(_mm256_cmp_ps(x, vc(TSR__K_F_MIN_NORMAL), _CMP_GE_OQ),
                         _mm256_cmp_ps(x, vc(INFINITY), _CMP_LT_OQ));
    *off = ~lanes(in) & 0xFF;
    return r;
}

/* tsr__k_expr_f32. */
ROW8 V expr8(V x, V xl, V *r, V *h, V *lo)
{
    V k = rint8(mul(x, vc(TSR__K_F_LOG2E)));
    V nk = neg(k);
    V rh = fma8(nk, vc(TSR__K_F_LN2_HI), x);
    V rr = fma8(nk, vc(TSR__K_F_LN2_LO), rh);
    V rl = fma8(nk, vc(TSR__K_F_LN2_LO), sub(rh, rr));
    V rs = add(rr, xl);
    V rb = sub(rs, rr);
    rl = add(rl, add(sub(rr, sub(rs, rb)), sub(xl, rb)));
    rr = rs;
    V r2 = mul(rr, rr);
    V e2 = fma8(rr, rr, neg(r2));
    *r = rr;
    *h = mul(vc(0.5f), r2);
    *lo = fma8(r2, mul(rr, expq_tail(rr)), fma8(vc(0.5f), e2, fma8(rl, rr, rl)));
    return k;
}

ROW8 V exp1p8(V r, V h, V lo, V *yl)
{
    V s = add(r, h);
    lo = add(lo, sub(h, sub(s, r)));
    V yh = add(vc(1.0f), s);
    *yl = add(add(sub(vc(1.0f), yh), s), lo);
    return yh;
}

/* tsr__k_expm1k_f32, both of its branches, each lane taking its own
 * (k == 0 or not); k within the normal exponents. */
ROW8 V expm1k8(V k, V r, V h, V lo, V *rest)
{
    V yl;
    V yh = exp1p8(r, h, lo, &yl);
    V p = pow2(_mm256_cvttps_epi32(k));
    V a = mul(p, yh);
    V s = add(a, vc(-1.0f));
    V bb = sub(s, a);
    V err = add(sub(a, sub(s, bb)), sub(vc(-1.0f), bb));
    V zero = _mm256_cmp_ps(k, vc(0.0f), _CMP_EQ_OQ);
    *rest = pick(zero, add(h, lo), fma8(p, yl, err));
    return pick(zero, r, s);
}

/* tsr__k_tanh_f32 of a nonzero x (NaN and +-0 are off the path). */
typedef struct tanh_half {
    V e, el; /* expm1(-2|x|) in two words */
} tanh_half;

ROW8 tanh_half tanh8_head(V x)
{
    V ax = _mm256_andnot_ps(vc(-0.0f), x);
    V r, h, lo, el;
    V k = expr8(mul(vc(-2.0f), ax), vc(0.0f), &r, &h, &lo);
    V eh = expm1k8(k, r, h, lo, &el);
    V e = add(eh, el);
    return (tanh_half){.e = e, .el = sub(el, sub(e, eh))};
}

ROW8 V tanh8_tail(tanh_half h, V x, int *off)
{
    V e = h.e, el = h.el;
    V ax = _mm256_andnot_ps(vc(-0.0f), x);
    V dh = add(vc(2.0f), e);
    V dl = add(sub(e, sub(dh, vc(2.0f))), el);
    V q = dv(neg(e), dh);
    V rem = fma8(q, dh, e);
    V t = add(q, dv(fma8(neg(q), dl, neg(add(rem, el))), dh));
    t = pick(_mm256_cmp_ps(ax, vc(TSR__K_F_TANH_ONE), _CMP_LT_OQ), t, vc(1.0f));
    V signed_t = pick(_mm256_cmp_ps(x, vc(0.0f), _CMP_LT_OQ), neg(t), t);
    V in = _mm256_cmp_ps(x, vc(0.0f), _CMP_NEQ_OQ); /* false for NaN */
    *off = ~lanes(in) & 0xFF;
    return signed_t;
}

ROW8 V tanh8(V x, int *off)
{
    return tanh8_tail(tanh8_head(x), x, off);
}

/* tsr__k_sigmoid_f32 where 2^k, exp(-x)'s power of two, stays two
 * below the top exponent (x above about -87; NaN and x below are off
 * the path): 1 / (1 + e) with 1 + e in two words and the division's
 * remainder corrected for. max(SIGMOID_EXP, -x) keeps a NaN (the
 * instruction returns its second operand where one is NaN), which then
 * fails the bound on k. In two halves for PIPELINED_ROW: the head
 * computes e = exp(-x) in two words and the lanes off the path, the
 * tail the division. */
typedef struct sigmoid_half {
    V eh, el; /* e = exp(-x) in two words */
    int off;
} sigmoid_half;

ROW8 sigmoid_half sigmoid8_head(V x)
{
    V z = _mm256_max_ps(vc(TSR__K_F_SIGMOID_EXP), neg(x));
    V kb = fma8(z, vc(TSR__K_F_LOG2E), vc(TSR__K_F_SHIFTER));
    V k = sub(kb, vc(TSR__K_F_SHIFTER));
    V rh = _mm256_fnmadd_ps(k, vc(TSR__K_F_LN2_HI), z);
    V r = _mm256_fnmadd_ps(k, vc(TSR__K_F_LN2_LO), rh);
    V t = mul(mul(r, r), fma8(r, expq_tail(r), vc(TSR__K_EXPF_Q0)));
    V s = add(r, t);
    V h = add(vc(1.0f), s);
    V l = add(add(sub(vc(1.0f), h), s), add(sub(r, s), t));
    V p = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(kb), TSR__K_F_MANT));
    return (sigmoid_half){
        .eh = mul(p, h),
        .el = mul(p, l),
        .off = ~lanes(_mm256_cmp_ps(k, vc((float)(TSR__K_F_BIAS - 2)), _CMP_LE_OQ)) & 0xFF};
}

ROW8 V sigmoid8_tail(sigmoid_half e, int *off)
{
    *off = e.off;
    V dh = add(vc(1.0f), e.eh);
    V dl = add(sub(_mm256_min_ps(e.eh, vc(1.0f)), sub(dh, _mm256_max_ps(e.eh, vc(1.0f)))), e.el);
    V q = dv(vc(1.0f), dh);
    return fma8(q, _mm256_fnmadd_ps(q, dl, _mm256_fnmadd_ps(q, dh, vc(1.0f))), q);
}

ROW8 V sigmoid8(V x, int *off)
{
    return sigmoid8_tail(sigmoid8_head(x), off);
}

/* The rows of tsr__k_erfcf as columns: the value of column j for row i
 * of each lane (i in 0..8) is low[j][i] for i < 8, row8[j] for i = 8. */
typedef struct erfc_cols {
    V low[TSR__K_ERFCF_N + 2];
    float row8[TSR__K_ERFCF_N + 2];
} erfc_cols;

static void erfc_cols_init(erfc_cols *c)
{
    for (int j = 0; j < TSR__K_ERFCF_N + 2; j++) {
        float v[8];
        for (int i = 0; i < 8; i++)
            v[i] = tsr__k_erfcf[i * (TSR__K_ERFCF_N + 2) + j];
        c->low[j] = _mm256_loadu_ps(v);
        c->row8[j] = tsr__k_erfcf[8 * (TSR__K_ERFCF_N + 2) + j];
    }
}

/* Row 8 is looked for only where `far` says a lane may hold it. */
static inline V column(const erfc_cols *c, int j, VI row, V is8, int far)
{
    V v = _mm256_permutevar8x32_ps(c->low[j], row);
    return far ? pick(is8, vc(c->row8[j]), v) : v;
}

/* tsr__k_erfcrow_f32 with each lane's own row (row 8 only if `far`). */
static inline V erfcrow8(const erfc_cols *c, VI row, V x, int far, V *lo)
{
    V is8 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(row, _mm256_set1_epi32(8)));
    V s = sub(x, column(c, 0, row, is8, far));
    V q = column(c, TSR__K_ERFCF_N + 1, row, is8, far);
    for (int j = TSR__K_ERFCF_N; j > 3; j--)
        q = fma8(s, q, column(c, j, row, is8, far));
    V c0 = column(c, 2, row, is8, far);
    V c3 = column(c, 3, row, is8, far);
    V p = mul(c3, s);
    V hi = add(c0, p);
    *lo = add(add(sub(c0, hi), p),
              add(add(fma8(c3, s, neg(p)), column(c, 1, row, is8, far)), mul(mul(s, s), q)));
    return hi;
}

/* tsr__k_erfc2_f32 for x in [1/2, 9): both of its ways to F (x below 3:
 * the row of x; above: G(1/x) / x), each lane taking its own; the second
 * only where a lane of `need` takes it. */
ROW8 V erfc2_8(const erfc_cols *c, V x, V xl, V need, V *lo, V *k)
{
    V xx = mul(x, x);
    V xxl = add(fma8(x, x, neg(xx)), mul(mul(vc(2.0f), x), xl));
    V r, h, l, yl;
    *k = expr8(neg(xx), neg(xxl), &r, &h, &l);
    V y = exp1p8(r, h, l, &yl);
    V yh = add(y, yl);
    yl = sub(yl, sub(yh, y));
    V below3 = _mm256_cmp_ps(x, vc(3.0f), _CMP_LT_OQ);
    VI near = _mm256_cvttps_epi32(mul(sub(x, vc(0.5f)), vc(2.0f)));
    V fh, fl;
    if (lanes(_mm256_andnot_ps(below3, need)) == 0) {
        fh = erfcrow8(c, near, x, 0, &fl);
    } else {
        V t = dv(vc(1.0f), x);
        VI far = _mm256_add_epi32(
            _mm256_set1_epi32(5),
            _mm256_min_epi32(_mm256_cvttps_epi32(mul(t, vc(12.0f))), _mm256_set1_epi32(3)));
        VI row =
            _mm256_castps_si256(pick(below3, _mm256_castsi256_ps(near), _mm256_castsi256_ps(far)));
        V gl;
        V g = erfcrow8(c, row, pick(below3, x, t), 1, &gl);
        V fh_far = dv(g, x);
        V fl_far = dv(add(fma8(neg(fh_far), x, g), gl), x);
        fh = pick(below3, g, fh_far);
        fl = pick(below3, gl, fl_far);
    }
    fl = fma8(xl, fma8(mul(vc(2.0f), x), fh, neg(vc(TSR__K_F_TWO_SQRTPI))), fl);
    V ph = mul(yh, fh);
    *lo = add(fma8(yh, fh, neg(ph)), fma8(yh, fl, mul(yl, fh)));
    return ph;
}

/* The rows of tsr__k_geluf as columns: row k in lane k, which a
 * permute by k picks. */
typedef struct gelu_cols {
    V col[TSR__K_GELUF_N];
} gelu_cols;

static void gelu_cols_init(gelu_cols *g)
{
    for (int j = 0; j < TSR__K_GELUF_N; j++) {
        float v[8];
        for (int k = 0; k < 8; k++)
            v[k] = tsr__k_geluf[k * TSR__K_GELUF_N + j];
        g->col[j] = _mm256_loadu_ps(v);
    }
}

/* tsr__k_gelu_f32 of x in (GELU_LOW, GELU_HIGH), tsr__k_gelum_f32's
 * operations in eight lanes, each lane with its own row: every lane
 * takes the same way, so the cost is the same for any input there.
 * Lanes elsewhere (NaN among them) are off the path; +-0 is kept. Two
 * steps take a shorter way to the same values: fma(a, b, -c) is
 * fmsub(a, b, c) (one rounding of the same number), and the errors of t
 * = c0 + p1 and hi = t + p2, Knuth's two-sums there, are fast two-sums
 * here (p1 - (t - c0), p2 - (hi - t)): exact where the first term is
 * the larger, which every float32 in (GELU_LOW, GELU_HIGH) was found to
 * satisfy (both ways compared over all 2^31 of them; 10% less time). */
typedef struct gelu_half {
    V u, q; /* q: the terms past c2 of the row's polynomial, Q(u) */
    VI k;   /* the row */
} gelu_half;

ROW8 gelu_half gelu_near8_head(const gelu_cols *g, V x)
{
    V a = _mm256_andnot_ps(vc(-0.0f), x);
    V a2 = mul(a, vc(2.0f));
    VI k = _mm256_cvttps_epi32(a2);
    V kf = _mm256_cvtepi32_ps(k);
    V u = sub(sub(a2, kf), _mm256_min_ps(kf, vc(0.5f)));
    V q = _mm256_permutevar8x32_ps(g->col[TSR__K_GELUF_N - 1], k);
    for (int j = TSR__K_GELUF_N - 2; j > 5; j--)
        q = fma8(u, q, _mm256_permutevar8x32_ps(g->col[j], k));
    return (gelu_half){.u = u, .q = q, .k = k};
}

ROW8 V gelu_near8_tail(const gelu_cols *g, gelu_half h, V x, int *off)
{
    V u = h.u, q = h.q;
#define COL(j) _mm256_permutevar8x32_ps(g->col[j], h.k)
    V c0 = COL(0), c0l = COL(1), c1 = COL(2), c1l = COL(3), c2 = COL(4), c2l = COL(5);
#undef COL
    V uu = mul(u, u);
    V uul = _mm256_fmsub_ps(u, u, uu);
    V p1 = mul(c1, u);
    V p2 = mul(c2, uu);
    V t = add(c0, p1);
    V tb = sub(t, c0);
    V hi = add(t, p2);
    V hb = sub(hi, t);
    V sums = add(sub(p1, tb), sub(p2, hb));
    V products = add(_mm256_fmsub_ps(c1, u, p1), _mm256_fmsub_ps(c2, uu, p2));
    V lo = add(add(sums, products), fma8(uu, fma8(u, q, c2l), fma8(c2, uul, fma8(c1l, u, c0l))));
    V y = _mm256_max_ps(x, vc(0.0f));
    V d = sub(y, hi);
    V r = add(d, sub(sub(sub(y, d), hi), lo));
    V in = _mm256_and_ps(_mm256_cmp_ps(x, vc(TSR__K_F_GELU_LOW), _CMP_GT_OQ),
                         _mm256_cmp_ps(x, vc(TSR__K_F_GELU_HIGH), _CMP_LT_OQ));
    *off = ~lanes(in) & 0xFF;
    return pick(_mm256_cmp_ps(x, vc(0.0f), _CMP_EQ_OQ), x, r);
}

/* tsr__k_gelu_f32 where the table does not serve x, from -9 sqrt2 (where
 * erfc's power of two leaves the normal ones) to GELU_LOW and from
 * GELU_HIGH up, the lanes of *far (a finite x, the others on stand-ins):
 * geluv's erfcx of -x / sqrt2 in two words, 2 minus erfc2's value above
 * 0 (x below 0), and 2 from -ERF_ONE (x itself), times x / 2 and its
 * power of two. */
ROW8 V gelu_far8(const erfc_cols *c, V x, V *far)
{
    V yh = mul(x, vc(TSR__K_F_SQRT1_2_HI));
    V ex = neg(yh); /* erfcx(ex + exl) */
    V yl = add(fma8(x, vc(TSR__K_F_SQRT1_2_HI), neg(yh)), mul(x, vc(TSR__K_F_SQRT1_2_LO)));
    V exl = neg(yl);
    V ax = _mm256_andnot_ps(vc(-0.0f), ex);
    V near = _mm256_and_ps(_mm256_cmp_ps(x, vc(TSR__K_F_GELU_LOW), _CMP_GT_OQ),
                           _mm256_cmp_ps(x, vc(TSR__K_F_GELU_HIGH), _CMP_LT_OQ));
    *far = _mm256_andnot_ps(near, _mm256_and_ps(_mm256_cmp_ps(ex, vc(9.0f), _CMP_LT_OQ),
                                                _mm256_cmp_ps(x, vc(INFINITY), _CMP_LT_OQ)));
    V two = _mm256_cmp_ps(ex, vc(-TSR__K_F_ERF_ONE), _CMP_LE_OQ);
    V need = _mm256_andnot_ps(two, *far);
    V e = vc(2.0f), lo = vc(0.0f), k = vc(0.0f);
    if (lanes(need)) {
        /* erfc2 of |ex|, and 2 minus it below 0 */
        V negative = _mm256_cmp_ps(ex, vc(0.0f), _CMP_LT_OQ);
        V el, k2;
        V e2 = erfc2_8(c, pick(need, ax, vc(1.0f)), pick(negative, neg(exl), exl), need, &el, &k2);
        V p2 = pow2(_mm256_cvttps_epi32(k2));
        V a2 = mul(p2, e2);
        V s2 = sub(vc(2.0f), a2);
        V lo2 = sub(sub(sub(vc(2.0f), s2), a2), mul(p2, el));
        e = pick(need, pick(negative, s2, e2), e);
        lo = pick(need, pick(negative, lo2, el), lo);
        k = _mm256_and_ps(need, _mm256_andnot_ps(negative, k2));
    }
    return mul(fma8(x, mul(vc(0.5f), e), mul(x, mul(vc(0.5f), lo))), pow2(_mm256_cvttps_epi32(k)));
}

/* tsr__k_gelu_f32: the table's way in every lane, and where a lane is
 * beyond it (rare in activations: |x| of N(0, 1) passes 3 in one lane in
 * 400), the far way too, each lane taking its own; lanes neither takes
 * (NaN, infinities, x below -9 sqrt2) are off the path. */
ROW8 V gelu8(const gelu_cols *g, const erfc_cols *c, V x, int *off)
{
    V r = gelu_near8_tail(g, gelu_near8_head(g, x), x, off);
    if (*off) {
        V far;
        V f = gelu_far8(c, x, &far);
        r = pick(far, f, r);
        *off &= ~lanes(far);
    }
    return r;
}

/* tsr__k_xsigmoid_f32(x, v, vl) where v is from SIGMOID_EXP up (NaN and
 * v below are off the path): sigmoidx's middle way (1 / (1 + exp(-v -
 * vl)) in two words) and its 1 beyond -EXPM1_TINY, each lane taking its
 * own, then x times the sigmoid in one rounding (the power of two of
 * both ways is 1). */
ROW8 V xsigmoid8(V x, V v, V vl, int *off)
{
    V one = _mm256_cmp_ps(v, vc(-TSR__K_F_EXPM1_TINY), _CMP_GT_OQ);
    V s = pick(one, vc(0.0f), neg(v));
    V sl = pick(one, vc(0.0f), neg(vl));
    V r, h, l, yl;
    V kd = expr8(s, sl, &r, &h, &l);
    V y = exp1p8(r, h, l, &yl);
    V yh = add(y, yl);
    V p = pow2(_mm256_cvttps_epi32(kd));
    V eh = mul(p, yh);
    V yd = sub(yl, sub(yh, y));
    V dh = add(vc(1.0f), eh);
    V b = sub(dh, eh);
    V dl = add(add(sub(eh, sub(dh, b)), sub(vc(1.0f), b)), mul(p, yd));
    V q = dv(vc(1.0f), dh);
    V rem = fma8(neg(q), dh, vc(1.0f));
    V ql = dv(fma8(neg(q), dl, rem), dh);
    q = pick(one, vc(1.0f), q);
    ql = pick(one, vc(0.0f), ql);
    *off = ~lanes(_mm256_cmp_ps(v, vc(TSR__K_F_SIGMOID_EXP), _CMP_GE_OQ)) & 0xFF;
    return fma8(x, q, mul(x, ql));
}

/* tsr__k_silu_f32 of a finite x from SIGMOID_EXP up (+inf is off the
 * path with the rest). */
ROW8 V silu8(V x, int *off)
{
    V y = xsigmoid8(x, x, vc(0.0f), off);
    *off |= ~lanes(_mm256_cmp_ps(x, vc(INFINITY), _CMP_LT_OQ)) & 0xFF;
    return y;
}

/* tsr__k_gelut_f32 of x in [-1024, 1024] where 2u is from SIGMOID_EXP
 * up: 2u = A x + B x^3 in two words, then xsigmoid's. */
ROW8 V gelut8(V x, int *off)
{
    V x2 = mul(x, x);
    V x3 = mul(x2, x);
    V x3l = add(fma8(x2, x, neg(x3)), mul(fma8(x, x, neg(x2)), x));
    V a = mul(vc(TSR__K_F_GELU_A_HI), x);
    V al = add(fma8(vc(TSR__K_F_GELU_A_HI), x, neg(a)), mul(vc(TSR__K_F_GELU_A_LO), x));
    V b = mul(vc(TSR__K_F_GELU_B_HI), x3);
    V bl = add(fma8(vc(TSR__K_F_GELU_B_HI), x3, neg(b)),
               fma8(vc(TSR__K_F_GELU_B_HI), x3l, mul(vc(TSR__K_F_GELU_B_LO), x3)));
    V v = add(a, b);
    V bb = sub(v, a);
    V vl = add(add(sub(a, sub(v, bb)), sub(b, bb)), add(al, bl));
    V y = xsigmoid8(x, v, vl, off);
    V in = _mm256_cmp_ps(_mm256_andnot_ps(vc(-0.0f), x), vc(1024.0f), _CMP_LE_OQ);
    *off |= ~lanes(in) & 0xFF;
    return y;
}

/* ---- the vector rows ----------------------------------------------------------- */

/* The lanes of `off` (a bit per lane) of eight results y recomputed
 * from their inputs x by `scalar`. */
static V redo_lanes(float (*scalar)(float), V x, V y, int off)
{
    float in[8], r[8];
    _mm256_storeu_ps(in, x);
    _mm256_storeu_ps(r, y);
    for (int j = 0; j < 8; j++)
        if (off >> j & 1)
            r[j] = scalar(in[j]);
    return _mm256_loadu_ps(r);
}

/* The lanes `off` of gelu8's results r that the table did not serve: the
 * far way where it serves them, tsr__k_gelu_f32 for the rest. */
static V gelu_fix8(const erfc_cols *c, V x, V r, int off)
{
    V far;
    V f = gelu_far8(c, x, &far);
    r = pick(far, f, r);
    off &= ~lanes(far);
    return off ? redo_lanes(tsr__k_gelu_f32, x, r, off) : r;
}

/* Eight results of f8, the lanes off its path recomputed by `scalar`. */
#define LANES8(f8, scalar, x, out)                   \
    do {                                             \
        int off_;                                    \
        V x_ = (x);                                  \
        out = f8(x_, &off_);                         \
        if (off_)                                    \
            out = redo_lanes(scalar, x_, out, off_); \
    } while (0)

/* Sixteen: two vectors computed side by side before either is checked,
 * so that their chains of dependent operations overlap. */
#define LANES16(f8, scalar, x0, x1, out0, out1)          \
    do {                                                 \
        int off0_, off1_;                                \
        V x0_ = (x0), x1_ = (x1);                        \
        out0 = f8(x0_, &off0_);                          \
        out1 = f8(x1_, &off1_);                          \
        if (off0_ | off1_) {                             \
            out0 = redo_lanes(scalar, x0_, out0, off0_); \
            out1 = redo_lanes(scalar, x1_, out1, off1_); \
        }                                                \
    } while (0)

/* bfloat16 results: tsr__f32_to_bf16's RNE on the bits, NaN 7FC0. */
static inline __m128i bf16_of(V r)
{
    VI t = _mm256_castps_si256(r);
    VI odd = _mm256_and_si256(_mm256_srli_epi32(t, 16), _mm256_set1_epi32(1));
    VI c = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(0x7FFF)), odd),
                             16);
    VI nan = _mm256_cmpgt_epi32(_mm256_and_si256(t, _mm256_set1_epi32(0x7FFFFFFF)),
                                _mm256_set1_epi32(0x7F800000));
    c = _mm256_blendv_epi8(c, _mm256_set1_epi32(0x7FC0), nan);
    return _mm_packus_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
}

static inline V bf16_in8(const uint16_t *p)
{
    VI w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

/* The last n % 8 elements go through the same lanes from a copy padded
 * with 1 (on every function's common path). */
#define VECTOR_ROWS(fn, f8, scalar)                                                            \
    static void row_##fn##_f32_v(void *o_, const void *a_, int64_t n)                          \
    {                                                                                          \
        float *o = (float *)o_;                                                                \
        const float *a = (const float *)a_;                                                    \
        int64_t i = 0;                                                                         \
        for (; i + 16 <= n; i += 16) {                                                         \
            V y0, y1;                                                                          \
            LANES16(f8, scalar, _mm256_loadu_ps(a + i), _mm256_loadu_ps(a + i + 8), y0, y1);   \
            _mm256_storeu_ps(o + i, y0);                                                       \
            _mm256_storeu_ps(o + i + 8, y1);                                                   \
        }                                                                                      \
        for (; i + 8 <= n; i += 8) {                                                           \
            V y;                                                                               \
            LANES8(f8, scalar, _mm256_loadu_ps(a + i), y);                                     \
            _mm256_storeu_ps(o + i, y);                                                        \
        }                                                                                      \
        if (i < n) {                                                                           \
            float in[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8];                                    \
            memcpy(in, a + i, (size_t)(n - i) * sizeof(float));                                \
            V y;                                                                               \
            LANES8(f8, scalar, _mm256_loadu_ps(in), y);                                        \
            _mm256_storeu_ps(out, y);                                                          \
            memcpy(o + i, out, (size_t)(n - i) * sizeof(float));                               \
        }                                                                                      \
    }                                                                                          \
    static void row_##fn##_bf16_v(void *o_, const void *a_, int64_t n)                         \
    {                                                                                          \
        uint16_t *o = (uint16_t *)o_;                                                          \
        const uint16_t *a = (const uint16_t *)a_;                                              \
        int64_t i = 0;                                                                         \
        for (; i + 16 <= n; i += 16) {                                                         \
            V y0, y1;                                                                          \
            LANES16(f8, scalar, bf16_in8(a + i), bf16_in8(a + i + 8), y0, y1);                 \
            _mm_storeu_si128((__m128i *)(o + i), bf16_of(y0));                                 \
            _mm_storeu_si128((__m128i *)(o + i + 8), bf16_of(y1));                             \
        }                                                                                      \
        for (; i + 8 <= n; i += 8) {                                                           \
            V y;                                                                               \
            LANES8(f8, scalar, bf16_in8(a + i), y);                                            \
            _mm_storeu_si128((__m128i *)(o + i), bf16_of(y));                                  \
        }                                                                                      \
        if (i < n) {                                                                           \
            uint16_t in[8] = {0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x3F80}, \
                     out[8];                                                                   \
            memcpy(in, a + i, (size_t)(n - i) * sizeof(uint16_t));                             \
            V y;                                                                               \
            LANES8(f8, scalar, bf16_in8(in), y);                                               \
            _mm_storeu_si128((__m128i *)out, bf16_of(y));                                      \
            memcpy(o + i, out, (size_t)(n - i) * sizeof(uint16_t));                            \
        }                                                                                      \
    }

/* A float32 row of a function split in two halves, HEAD(x) (to a value
 * of type H) and TAIL(h, x, &off) (to the results and the lanes off the
 * path, which FIX(x, y, off) recomputes), D vectors at a time in software
 * pipeline: the heads of the next D vectors come before the tails of
 * these in the instructions, so that the processor overlaps them. Its
 * window holds about two vectors' worth of a long chain of dependent
 * operations, and one sigmoid, from x through the division to its
 * correction, is such a chain: over 4096 float32 in the first-level cache
 * (AMD EPYC Zen 4), 0.58 ns an element one vector after the other, 0.48
 * so (D = 4); gelu on N(0, 1) 0.80 and 0.57 (D = 2; with three or four
 * its heads took more registers than there are, and ran slower); tanh
 * 1.08 and 0.98 (D = 2). The
 * tail reads x again rather than have the head carry it (gelu 0.65 with
 * x carried). The rest (under 2D vectors, or n % 8D) goes through
 * `rest`, the row of the whole function; each lane is computed as there,
 * so the bits are its bits. SETUP declares what HEAD, TAIL and FIX
 * read. */
#define PIPELINED_ROW(fn, D, SETUP, H, HEAD, TAIL, FIX, rest)                        \
    static void row_##fn##_f32_v(void *o_, const void *a_, int64_t n)                \
    {                                                                                \
        float *o = (float *)o_;                                                      \
        const float *a = (const float *)a_;                                          \
        if (n < 16 * (D)) {                                                          \
            rest(o_, a_, n);                                                         \
            return;                                                                  \
        }                                                                            \
        SETUP                                                                        \
        H h[D], next[D];                                                             \
        for (int v = 0; v < (D); v++)                                                \
            h[v] = HEAD(_mm256_loadu_ps(a + 8 * v));                                 \
        int64_t i = 0;                                                               \
        for (;; i += 8 * (D)) {                                                      \
            bool more = i + 16 * (D) <= n;                                           \
            const float *ahead = a + (more ? i + 8 * (D) : i); /* else a stand-in */ \
            for (int v = 0; v < (D); v++)                                            \
                next[v] = HEAD(_mm256_loadu_ps(ahead + 8 * v));                      \
            V y[D];                                                                  \
            int off[D], any = 0;                                                     \
            for (int v = 0; v < (D); v++) {                                          \
                y[v] = TAIL(h[v], _mm256_loadu_ps(a + i + 8 * v), &off[v]);          \
                any |= off[v];                                                       \
            }                                                                        \
            if (any)                                                                 \
                for (int v = 0; v < (D); v++)                                        \
                    if (off[v])                                                      \
                        y[v] = FIX(_mm256_loadu_ps(a + i + 8 * v), y[v], off[v]);    \
            for (int v = 0; v < (D); v++)                                            \
                _mm256_storeu_ps(o + i + 8 * v, y[v]);                               \
            if (!more)                                                               \
                break;                                                               \
            for (int v = 0; v < (D); v++)                                            \
                h[v] = next[v];                                                      \
        }                                                                            \
        i += 8 * (D);                                                                \
        if (i < n)                                                                   \
            rest(o + i, a + i, n - i);                                               \
    }

VECTOR_ROWS(exp, exp8, tsr__k_exp_f32)
VECTOR_ROWS(log, log8, tsr__k_log_f32)
VECTOR_ROWS(tanh_plain, tanh8, tsr__k_tanh_f32)
#define TANH_FIX(x, y, off) redo_lanes(tsr__k_tanh_f32, x, y, off)
PIPELINED_ROW(tanh, 2, , tanh_half, tanh8_head, tanh8_tail, TANH_FIX, row_tanh_plain_f32_v)
#undef TANH_FIX
VECTOR_ROWS(sigmoid_plain, sigmoid8, tsr__k_sigmoid_f32)
#define SIGMOID_TAIL(h, x, off) sigmoid8_tail(h, off)
#define SIGMOID_FIX(x, y, off) redo_lanes(tsr__k_sigmoid_f32, x, y, off)
PIPELINED_ROW(sigmoid, 4, , sigmoid_half, sigmoid8_head, SIGMOID_TAIL, SIGMOID_FIX,
              row_sigmoid_plain_f32_v)
#undef SIGMOID_FIX
VECTOR_ROWS(silu, silu8, tsr__k_silu_f32)
VECTOR_ROWS(gelut, gelut8, tsr__k_gelut_f32)

static void row_gelu_plain_f32_v(void *o_, const void *a_, int64_t n)
{
    float *o = (float *)o_;
    const float *a = (const float *)a_;
    gelu_cols g;
    erfc_cols c;
    gelu_cols_init(&g);
    erfc_cols_init(&c);
#define GELU8(x, off) gelu8(&g, &c, x, off)
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        V y0, y1;
        LANES16(GELU8, tsr__k_gelu_f32, _mm256_loadu_ps(a + i), _mm256_loadu_ps(a + i + 8), y0, y1);
        _mm256_storeu_ps(o + i, y0);
        _mm256_storeu_ps(o + i + 8, y1);
    }
    for (; i + 8 <= n; i += 8) {
        V y;
        LANES8(GELU8, tsr__k_gelu_f32, _mm256_loadu_ps(a + i), y);
        _mm256_storeu_ps(o + i, y);
    }
    if (i < n) {
        float in[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8];
        memcpy(in, a + i, (size_t)(n - i) * sizeof(float));
        V y;
        LANES8(GELU8, tsr__k_gelu_f32, _mm256_loadu_ps(in), y);
        _mm256_storeu_ps(out, y);
        memcpy(o + i, out, (size_t)(n - i) * sizeof(float));
    }
}

#undef GELU8

#define GELU_SETUP      \
    gelu_cols g;        \
    erfc_cols c;        \
    gelu_cols_init(&g); \
    erfc_cols_init(&c);
#define GELU_HEAD(x) gelu_near8_head(&g, x)
#define GELU_TAIL(h, x, off) gelu_near8_tail(&g, h, x, off)
#define GELU_FIX(x, y, off) gelu_fix8(&c, x, y, off)
PIPELINED_ROW(gelu, 2, GELU_SETUP, gelu_half, GELU_HEAD, GELU_TAIL, GELU_FIX, row_gelu_plain_f32_v)
#undef GELU_SETUP
#undef GELU_HEAD
#undef GELU_TAIL
#undef GELU_FIX

#define VECTOR_ENTRY(ENUM, fn) [TSR__KOP_##ENUM] = {NULL, row_##fn##_bf16_v, row_##fn##_f32_v, NULL}

/* Long outputs (tsr__cpu_fast_stream_unary) take the same rows: their
 * stores stay plain. Over 2^26 float32 N(0, 1) samples in huge pages, one
 * thread, the AMD EPYC (Zen 3), plain against around the caches, ns an
 * element: log 3.41 / 3.58 (half of the samples negative), tanh 1.59 /
 * 1.70, sigmoid 0.72-0.79 / 0.88-0.96, silu 1.38 / 1.46, gelu_tanh 1.75 /
 * 1.93; gelu 1.54-2.02 / 1.69-2.07 (four runs). exp too, though light
 * enough that a core could be bound by what it moves, and around the
 * caches it moves a third less (no output line is read before it is
 * written): 0.31-0.37 / 0.43-0.54 there, and on an AMD EPYC (Zen 4)
 * 0.30-0.32 / 0.41-0.46, where PyTorch's exp ran at 0.44-0.46 in the
 * runs that measured ours around the caches at 0.47-0.56 through the
 * daemon. */
const tsr__cpu_unary_fn tsr__cpu_unary_vector[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES] = {
    VECTOR_ENTRY(EXP, exp),
    VECTOR_ENTRY(LOG, log),
    [TSR__KOP_TANH] = {NULL, row_tanh_plain_bf16_v, row_tanh_f32_v, NULL},
    [TSR__KOP_SIGMOID] = {NULL, row_sigmoid_plain_bf16_v, row_sigmoid_f32_v, NULL},
    VECTOR_ENTRY(SILU, silu),
    VECTOR_ENTRY(GELU_TANH, gelut),
    [TSR__KOP_GELU] = {NULL, NULL, row_gelu_f32_v, NULL},
};

#else /* no vector rows on this machine */

const tsr__cpu_unary_fn tsr__cpu_unary_scalar[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES];
const tsr__cpu_unary_fn tsr__cpu_unary_vector[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES];

#endif
