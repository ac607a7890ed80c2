/* The statistics and normalisations that PyTorch builds on its
 * reductions: var, std, norm, logsumexp, softmax, log_softmax, and the
 * cumulative sum. All but cumsum are compositions of the public
 * reductions and elementwise operations (so they run wherever those run,
 * with the same bits on every device: the order of each piece is fixed);
 * cumsum is a scan of its own.
 *
 * Where PyTorch 1.13's cpu kernels accumulate in double (var, std and norm
 * of float32: its Welford and norm loops take at::acc_type, which is
 * double for float on the cpu), Tessera computes the whole composition in
 * float64 and rounds once at the end, so the results stay within an ulp or
 * two of PyTorch's although the algorithms differ (two passes instead of
 * Welford). logsumexp, softmax and log_softmax compute in their dtype as
 * PyTorch does (bfloat16 through float32). The out= forms compute the
 * result in full, in the dtype PyTorch's rule for that function gives,
 * and then store it into the out= tensor (store_out). docs/semantics.md,
 * "Reductions", lists the differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "libclient/tensor_internal.h"
#include "tessera/tessera.h"

static bool is_float(tsr_dtype dt)
{
    return dt == TSR_FLOAT16 || dt == TSR_BFLOAT16 || dt == TSR_FLOAT32 || dt == TSR_FLOAT64;
}

static bool is_complex(tsr_dtype dt)
{
    return dt == TSR_COMPLEX32 || dt == TSR_COMPLEX64 || dt == TSR_COMPLEX128;
}

/* c10's ScalarType names, as PyTorch's messages print them ("Float", "Long"). */
static const char *torch_name(tsr_dtype dt)
{
    return tsr_dtype_message_name(dt);
}

/* t converted to dtype on its own device (a new reference). */
static tsr_status convert(const tsr_tensor *t, tsr_dtype dtype, tsr_tensor **out)
{
    tsr_tensor_options o = {.has_dtype = true, .dtype = dtype};
    return tsr_tensor_to(NULL, t, &o, false, out);
}

/* The elements each result element reduces: the product of the reduced
 * dims' sizes (every dim when ndims is 0). The dims were checked by a
 * reduction already. */
static int64_t reduced_count(const tsr_tensor *a, const int64_t *dims, int ndims)
{
    bool mask[TSR_MAX_DIMS];
    if (tsr__reduced_dims(a, dims, ndims, mask))
        return 0;
    int64_t n = 1;
    for (int d = 0; d < a->geometry.ndim; d++)
        n *= mask[d] ? a->geometry.sizes[d] : 1;
    return n;
}

/* Writes r, the result computed in full, into the caller's out=: out
 * fitted to r's shape (a new storage when it has another, as PyTorch
 * resizes it), then r copied in, converted to out's dtype. */
static tsr_status store_out(const tsr_tensor *r, tsr_tensor *out)
{
    tsr_geometry g;
    tsr_status st = tsr__tensor_writable(out);
    if (!st)
        st = tsr_geometry_init(r->geometry.ndim, r->geometry.sizes, TSR_CONTIGUOUS_FORMAT, &g);
    if (!st)
        st = tsr__fit_reduction_out(out, &g);
    if (!st)
        st = tsr_tensor_copy_(out, r);
    return st;
}

/* The integers and bool, which the statistics' kernels do not compute in
 * (nor the dtypes that hold no numbers). */
static bool not_numeric(tsr_dtype dt)
{
    return !is_float(dt) && !is_complex(dt);
}

/* ---- var and std ------------------------------------------------------- */

/* The real (part 0) or imaginary (part 1) elements of complex t: a view
 * of its storage in the real dtype (PyTorch's at::real and at::imag). */
static tsr_status complex_part(const tsr_tensor *t, int part, tsr_tensor **out)
{
    tsr_tensor *v = NULL;
    tsr_status st = tsr__tensor_view_of(t, &t->geometry, &v);
    if (st)
        return st;
    v->dtype = tsr_dtype_to_real(t->dtype);
    for (int d = 0; d < v->geometry.ndim; d++)
        v->geometry.strides[d] *= 2;
    v->geometry.offset = 2 * v->geometry.offset + part;
    *out = v;
    return TSR_OK;
}

/* var (root: std) of the real floating x, two passes in float64 and
 * rounded once to x's dtype. */
static tsr_status var_real(const tsr_tensor *x, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, bool root, tsr_tensor **result)
{
    tsr_tensor *w = NULL, *mean = NULL, *d = NULL, *sq = NULL, *s = NULL, *v = NULL, *r = NULL;
    tsr_status st = convert(x, TSR_FLOAT64, &w);
    if (!st) /* PyTorch's dim errors come from here */
        st = tsr_mean(w, dims, ndims, true, TSR_NO_DTYPE, &mean);
    if (!st)
        st = tsr_sub(w, mean, tsr_scalar_int(1), &d);
    if (!st)
        st = tsr_mul(d, d, &sq);
    if (!st)
        st = tsr_sum(sq, dims, ndims, keepdim, TSR_NO_DTYPE, &s);
    if (!st) {
        int64_t n = reduced_count(x, dims, ndims) - correction;
        st = tsr_div_scalar(s, tsr_scalar_float(n > 0 ? (double)n : 0.0), TSR_ROUNDING_NONE, &v);
    }
    if (!st && root)
        st = tsr_sqrt_(v);
    if (!st)
        st = convert(v, tsr_tensor_dtype(x), &r);
    tsr_tensor_release(w);
    tsr_tensor_release(mean);
    tsr_tensor_release(d);
    tsr_tensor_release(sq);
    tsr_tensor_release(s);
    tsr_tensor_release(v);
    if (!st)
        *result = r;
    return st;
}

/* var or std of the real x into dtype R, by PyTorch 1.13's two paths: a
 * reduction of every dimension that is not of size 1, into anything but
 * float16 and bfloat16, is computed from x itself (float32 or float64
 * only), rounded to x's dtype and then converted to R (any dtype);
 * others convert x to R first, which must be floating. */
static tsr_status var_into(const tsr_tensor *x, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, bool root, tsr_dtype R, tsr_tensor **result)
{
    bool mask[TSR_MAX_DIMS], full = R != TSR_FLOAT16 && R != TSR_BFLOAT16 && x->numel > 0;
    tsr_status st = tsr__reduced_dims(x, dims, ndims, mask);
    for (int d = 0; !st && d < x->geometry.ndim; d++)
        full = full && (mask[d] || x->geometry.sizes[d] == 1);
    if (st)
        return st;
    tsr_dtype dt = tsr_tensor_dtype(x);
    if (full && dt != TSR_FLOAT32 && dt != TSR_FLOAT64)
        return tsr__fail(TSR_ERR_RUNTIME, "std_var_all: Unsupported dtype %s", torch_name(dt));
    if (!full && (not_numeric(R) || is_complex(R)))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"std_cpu\" not implemented for '%s'",
                         torch_name(R));
    tsr_tensor *w = NULL, *v = NULL;
    st = full ? TSR_OK : convert(x, R, &w);
    if (!st)
        st = var_real(w ? w : x, dims, ndims, correction, keepdim, root, &v);
    tsr_tensor_release(w);
    if (!st && full) {
        st = convert(v, R, &w);
        tsr_tensor_release(v);
        v = w;
    }
    if (!st)
        *result = v;
    return st;
}

/* var or std of a into dtype R (an out='s, or a's (real) one). A complex
 * a is the variance of its real parts plus that of its imaginary parts,
 * each computed as a real variance into R (its real dtype for a complex
 * R), added in R and (std) its square root taken there, as PyTorch 1.13
 * composes it. */
static tsr_status var_impl(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, bool root, tsr_dtype R, tsr_tensor **result)
{
    if (!is_complex(tsr_tensor_dtype(a)))
        return var_into(a, dims, ndims, correction, keepdim, root, R, result);
    if (is_complex(R))
        R = tsr_dtype_to_real(R);
    tsr_tensor *part[2] = {NULL, NULL}, *v[2] = {NULL, NULL}, *r = NULL;
    tsr_status st = TSR_OK;
    for (int k = 0; k < 2 && !st; k++) {
        st = complex_part(a, k, &part[k]);
        if (!st)
            st = var_into(part[k], dims, ndims, correction, keepdim, false, R, &v[k]);
    }
    if (!st)
        st = tsr_add(v[0], v[1], tsr_scalar_int(1), &r);
    if (!st && root)
        st = tsr_sqrt_(r);
    for (int k = 0; k < 2; k++) {
        tsr_tensor_release(part[k]);
        tsr_tensor_release(v[k]);
    }
    if (st) {
        tsr_tensor_release(r);
        return st;
    }
    *result = r;
    return TSR_OK;
}

/* var and std's checks and their dtype: a's (its real one), or out's. */
static tsr_status var_call(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, bool root, tsr_tensor *out, tsr_tensor **result)
{
    const char *name = root ? "std" : "var";
    if (!a || (!out && !result) || ndims < 0 || (ndims && !dims))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: NULL tensor, result or dims", name);
    tsr_dtype dt = tsr_tensor_dtype(a);
    if (not_numeric(dt))
        return tsr__fail(TSR_ERR_RUNTIME, "std and var only support floating point and complex "
                                          "dtypes");
    if (!out)
        return var_impl(a, dims, ndims, correction, keepdim, root,
                        is_complex(dt) ? tsr_dtype_to_real(dt) : dt, result);
    tsr_tensor *r = NULL;
    tsr_status st =
        var_impl(a, dims, ndims, correction, keepdim, root, tsr_tensor_dtype(out), &r);
    if (!st)
        st = store_out(r, out);
    tsr_tensor_release(r);
    return st;
}

tsr_status tsr_var(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                   bool keepdim, tsr_tensor **result)
{
    return var_call(a, dims, ndims, correction, keepdim, false, NULL, result);
}

tsr_status tsr_var_out(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                       bool keepdim, tsr_tensor *out)
{
    return var_call(a, dims, ndims, correction, keepdim, false, out, NULL);
}

tsr_status tsr_std(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                   bool keepdim, tsr_tensor **result)
{
    return var_call(a, dims, ndims, correction, keepdim, true, NULL, result);
}

tsr_status tsr_std_out(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                       bool keepdim, tsr_tensor *out)
{
    return var_call(a, dims, ndims, correction, keepdim, true, out, NULL);
}

/* ---- norm ---------------------------------------------------------------- */

/* The p-norm of a (real or complex) in float64 from |x|, rounded once to
 * a's real dtype. */
static tsr_status norm_impl(const tsr_tensor *a, double p, const int64_t *dims, int ndims,
                            bool keepdim, tsr_tensor **result)
{
    tsr_dtype dt = tsr_tensor_dtype(a);
    tsr_tensor *x = NULL, *m = NULL, *s = NULL, *r = NULL;
    tsr_status st = convert(a, is_complex(dt) ? TSR_COMPLEX128 : TSR_FLOAT64, &x);
    if (!st) /* |x| in float64, for complex x too */
        st = tsr_abs(x, &m);
    if (!st && p == 2)
        st = tsr_mul_(m, m);
    if (!st && p == INFINITY) {
        /* PyTorch's inf norm of nothing is 0 (its identity), not amax's
         * error: |x| >= 0, so the max of 0 and the elements is the same. */
        if (reduced_count(a, dims, ndims) == 0 && tsr_tensor_numel(a) == 0)
            st = tsr_sum(m, dims, ndims, keepdim, TSR_NO_DTYPE, &s);
        else
            st = tsr_amax(m, dims, ndims, keepdim, &s);
    } else if (!st) {
        st = tsr_sum(m, dims, ndims, keepdim, TSR_NO_DTYPE, &s);
    }
    if (!st && p == 2)
        st = tsr_sqrt_(s);
    if (!st)
        st = convert(s, is_complex(dt) ? tsr_dtype_to_real(dt) : dt, &r);
    tsr_tensor_release(x);
    tsr_tensor_release(m);
    tsr_tensor_release(s);
    if (!st)
        *result = r;
    return st;
}

/* norm's checks, in PyTorch's order, then the norm: of a itself (complex
 * a, whose result out= converts), or of a converted to out's real dtype
 * (real a: PyTorch's reduction reads it in that dtype). */
static tsr_status norm_call(const tsr_tensor *a, double p, const int64_t *dims, int ndims,
                            bool keepdim, tsr_tensor *out, tsr_tensor **result)
{
    if (!a || (!out && !result) || ndims < 0 || (ndims && !dims))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "norm: NULL tensor, result or dims");
    tsr_dtype dt = tsr_tensor_dtype(a);
    if (not_numeric(dt))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "norm(): input dtype should be either floating point or complex. Got %s "
                         "instead.",
                         torch_name(dt));
    if (!(p == 1 || p == 2 || p == INFINITY))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "norm with p = %g is not available yet (p = 1, 2 and inf are)", p);
    /* PyTorch 1.13's complex32 kernel is only the inf norm's (amax);
     * nothing runs for an empty input */
    if (dt == TSR_COMPLEX32 && p != INFINITY && tsr_tensor_numel(a) > 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"norm_cpu\" not implemented for '%s'",
                         torch_name(dt));
    if (!out)
        return norm_impl(a, p, dims, ndims, keepdim, result);
    tsr_dtype od = tsr_tensor_dtype(out);
    bool mask[TSR_MAX_DIMS];
    tsr_status st = tsr__reduced_dims(a, dims, ndims, mask); /* PyTorch's dim errors first */
    if (st)
        return st;
    if (not_numeric(od))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"norm_cpu\" not implemented for '%s'",
                         torch_name(od));
    tsr_tensor *x = NULL, *r = NULL;
    st = is_complex(dt) ? TSR_OK : convert(a, is_complex(od) ? tsr_dtype_to_real(od) : od, &x);
    if (!st)
        st = norm_impl(x ? x : a, p, dims, ndims, keepdim, &r);
    if (!st)
        st = store_out(r, out);
    tsr_tensor_release(x);
    tsr_tensor_release(r);
    return st;
}

tsr_status tsr_norm(const tsr_tensor *a, double p, const int64_t *dims, int ndims, bool keepdim,
                    tsr_tensor **result)
{
    return norm_call(a, p, dims, ndims, keepdim, NULL, result);
}

tsr_status tsr_norm_out(const tsr_tensor *a, double p, const int64_t *dims, int ndims,
                        bool keepdim, tsr_tensor *out)
{
    return norm_call(a, p, dims, ndims, keepdim, out, NULL);
}

/* ---- logsumexp, softmax, log_softmax ------------------------------------ */

/* The input in the dtype the exponentials are computed in: PyTorch's
 * default float dtype for bool and the integers, float32 for bfloat16
 * (rounded back at the end), the input's own otherwise. */
static tsr_status exp_input(const tsr_tensor *a, tsr_dtype *result_dtype, tsr_tensor **x)
{
    tsr_dtype dt = tsr_tensor_dtype(a);
    *result_dtype = is_float(dt) ? dt : TSR_FLOAT32;
    tsr_dtype work = dt == TSR_BFLOAT16 || !is_float(dt) ? TSR_FLOAT32 : dt;
    if (dt == TSR_FLOAT16) /* PyTorch 1.13's cpu has no float16 exp */
        work = dt;
    return convert(a, work, x);
}

/* m: the max along dims (kept), its infinities replaced by 0 so that a
 * slice of all -inf (or one holding +inf) subtracts nothing. */
static tsr_status shift_of(const tsr_tensor *x, const int64_t *dims, int ndims, tsr_tensor **m)
{
    tsr_tensor *mx = NULL, *inf = NULL;
    tsr_status st = tsr_amax(x, dims, ndims, true, &mx);
    if (!st)
        st = tsr_isinf(mx, &inf);
    if (!st)
        st = tsr_where_scalar_self(inf, tsr_scalar_float(0), mx, m);
    tsr_tensor_release(mx);
    tsr_tensor_release(inf);
    return st;
}

/* logsumexp with its sum, log and the max's addition in sum_dtype (an
 * out='s dtype, as PyTorch sums into its out= and finishes there), or in
 * the exponentials' dtype rounded to the result's (TSR_NO_DTYPE). */
static tsr_status lse_impl(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,
                           tsr_dtype sum_dtype, tsr_tensor **result)
{
    tsr_dtype rdt;
    tsr_tensor *x = NULL, *m = NULL, *d = NULL, *e = NULL, *s = NULL, *l = NULL, *mv = NULL,
               *r = NULL, *out = NULL;
    tsr_status st = exp_input(a, &rdt, &x);
    bool empty = !st && tsr_tensor_numel(x) == 0;
    if (!st && !empty)
        st = shift_of(x, dims, ndims, &m);
    if (!st)
        st = empty ? tsr_exp(x, &e) : tsr_sub(x, m, tsr_scalar_int(1), &d);
    if (!st && !empty)
        st = tsr_exp(d, &e);
    if (!st)
        st = tsr_sum(e, dims, ndims, keepdim, sum_dtype, &s);
    if (!st)
        st = tsr_log(s, &l);
    if (!st && !empty) /* the max in the result's shape: m has it kept */
        st = tsr_tensor_reshape(m, tsr_tensor_sizes(l), tsr_tensor_ndim(l), &mv);
    if (!st && !empty)
        st = tsr_add(l, mv, tsr_scalar_int(1), &r);
    if (!st)
        st = convert(empty ? l : r, sum_dtype == TSR_NO_DTYPE ? rdt : sum_dtype, &out);
    tsr_tensor_release(x);
    tsr_tensor_release(m);
    tsr_tensor_release(d);
    tsr_tensor_release(e);
    tsr_tensor_release(s);
    tsr_tensor_release(l);
    tsr_tensor_release(mv);
    tsr_tensor_release(r);
    if (!st)
        *result = out;
    return st;
}

static tsr_status lse_refuse_dtype(tsr_dtype dt)
{
    return tsr__fail(TSR_ERR_RUNTIME,
                     "logsumexp(): Expected floating point type for result tensor, but got: %s",
                     torch_name(dt));
}

tsr_status tsr_logsumexp(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,
                         tsr_tensor **result)
{
    if (!a || !result || ndims < 0 || (ndims && !dims))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "logsumexp: NULL tensor, result or dims");
    if (is_complex(tsr_tensor_dtype(a))) /* the result would be complex */
        return lse_refuse_dtype(tsr_tensor_dtype(a));
    return lse_impl(a, dims, ndims, keepdim, TSR_NO_DTYPE, result);
}

tsr_status tsr_logsumexp_out(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,
                             tsr_tensor *out)
{
    if (!a || !out || ndims < 0 || (ndims && !dims))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "logsumexp: NULL tensor, out or dims");
    tsr_dtype od = tsr_tensor_dtype(out);
    if (!is_float(od))
        return lse_refuse_dtype(od);
    if (is_complex(tsr_tensor_dtype(a))) /* PyTorch's max of it comes first */
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"max_values_cpu\" not implemented for '%s'",
                         torch_name(tsr_tensor_dtype(a)));
    tsr_tensor *r = NULL;
    tsr_status st = lse_impl(a, dims, ndims, keepdim, od, &r);
    if (!st)
        st = store_out(r, out);
    tsr_tensor_release(r);
    return st;
}

static tsr_status softmax_impl(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, bool log,
                               tsr_tensor **result)
{
    const char *name = log ? "log_softmax" : "softmax";
    if (!a || !result)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: NULL tensor or result", name);
    tsr_tensor *x = NULL, *m = NULL, *d = NULL, *e = NULL, *s = NULL, *out = NULL;
    tsr_status st = convert(a, dtype == TSR_NO_DTYPE ? tsr_tensor_dtype(a) : dtype, &x);
    if (st)
        return st;
    tsr_dtype dt = tsr_tensor_dtype(x);
    int nd = tsr_tensor_ndim(x), span = nd ? nd : 1;
    if (dim < -span || dim >= span) {
        tsr_tensor_release(x);
        return tsr__fail(TSR_ERR_INDEX,
                         "Dimension out of range (expected to be in range of [%d, %d], but got "
                         "%lld)",
                         -span, span - 1, (long long)dim);
    }
    int64_t d0 = dim < 0 ? dim + span : dim;
    if (tsr_tensor_numel(x) == 0) { /* PyTorch returns it as it is, any dtype */
        *result = x;
        return TSR_OK;
    }
    if (dt != TSR_FLOAT32 && dt != TSR_FLOAT64 && dt != TSR_BFLOAT16) {
        /* PyTorch 1.13's kernel names: log_softmax along an inner dim
         * goes through softmax's */
        bool last = nd == 0 || d0 == nd - 1;
        tsr_tensor_release(x);
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s%s_kernel_impl\" not implemented for '%s'",
                         last ? name : "softmax", last ? "_lastdim" : "", torch_name(dt));
    }
    if (dt == TSR_BFLOAT16) { /* computed in float32, rounded once */
        tsr_tensor *wide = NULL;
        st = convert(x, TSR_FLOAT32, &wide);
        tsr_tensor_release(x);
        x = wide;
    }
    int64_t dims[1] = {d0};
    int ndims = nd ? 1 : 0;
    if (!st) /* the max as it is: an infinite one makes the slice NaN, as in PyTorch */
        st = tsr_amax(x, dims, ndims, true, &m);
    if (!st)
        st = tsr_sub(x, m, tsr_scalar_int(1), &d);
    /* softmax works in d's memory (exp and the quotient in place: the
     * same bits, two passes fewer over fresh memory); log_softmax keeps
     * d for its difference */
    if (!st && log)
        st = tsr_exp(d, &e);
    else if (!st)
        st = tsr_exp_(d);
    if (!st)
        st = tsr_sum(log ? e : d, dims, ndims, true, TSR_NO_DTYPE, &s);
    if (!st && log) { /* (x - m) - log(sum(exp(x - m))) */
        st = tsr_log_(s);
        if (!st)
            st = tsr_sub_(d, s, tsr_scalar_int(1));
    } else if (!st) {
        st = tsr_div_(d, s, TSR_ROUNDING_NONE);
    }
    if (!st)
        st = convert(d, dt, &out);
    tsr_tensor_release(x);
    tsr_tensor_release(m);
    tsr_tensor_release(d);
    tsr_tensor_release(e);
    tsr_tensor_release(s);
    if (!st)
        *result = out;
    return st;
}

/* The out= form of softmax, log_softmax (fn) and cumsum: fn's result
 * stored into out. */
static tsr_status along_out(tsr_status (*fn)(const tsr_tensor *, int64_t, tsr_dtype, tsr_tensor **),
                            const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor *out)
{
    tsr_tensor *r = NULL;
    tsr_status st = fn(a, dim, dtype, &r);
    if (!st)
        st = store_out(r, out);
    tsr_tensor_release(r);
    return st;
}

tsr_status tsr_softmax(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor **result)
{
    return softmax_impl(a, dim, dtype, false, result);
}

tsr_status tsr_log_softmax(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor **result)
{
    return softmax_impl(a, dim, dtype, true, result);
}

/* softmax and log_softmax's out=: of the result's dtype exactly. */
static tsr_status softmax_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, bool log,
                              tsr_tensor *out)
{
    if (!a || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: NULL tensor or out",
                         log ? "log_softmax" : "softmax");
    bool mask[TSR_MAX_DIMS]; /* PyTorch's dim error comes first */
    tsr_status st = tsr__reduced_dims(a, &dim, 1, mask);
    if (!st)
        st = tsr__expect_out_dtype(out, dtype == TSR_NO_DTYPE ? a->dtype : dtype);
    if (st)
        return st;
    return along_out(log ? tsr_log_softmax : tsr_softmax, a, dim, dtype, out);
}

tsr_status tsr_softmax_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor *out)
{
    return softmax_out(a, dim, dtype, false, out);
}

tsr_status tsr_log_softmax_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor *out)
{
    return softmax_out(a, dim, dtype, true, out);
}

/* ---- cumsum --------------------------------------------------------------- */

/* The dtype PyTorch's cpu scan accumulates in (at::acc_type): double for
 * float32 and float64, float for bfloat16, complex<double> for complex64,
 * int64 for bool and the integers. */
static tsr_dtype scan_dtype(tsr_dtype dt)
{
    switch (dt) {
    case TSR_FLOAT32:
    case TSR_FLOAT64:
        return TSR_FLOAT64;
    case TSR_BFLOAT16:
        return TSR_FLOAT32;
    case TSR_COMPLEX64:
    case TSR_COMPLEX128:
        return TSR_COMPLEX128;
    default:
        return TSR_INT64;
    }
}

/* The running sum along one dim of a contiguous [outer, n, inner] block
 * in place, element type T, adding with ADD (integers wrap). */
#define TSR__SCAN(T, ADD)                                               \
    static void scan_##T(T *p, int64_t outer, int64_t n, int64_t inner) \
    {                                                                   \
        for (int64_t o = 0; o < outer; o++)                             \
            for (int64_t k = 1; k < n; k++) {                           \
                T *row = p + (o * n + k) * inner, *prev = row - inner;  \
                for (int64_t i = 0; i < inner; i++)                     \
                    row[i] = ADD(prev[i], row[i]);                      \
            }                                                           \
    }
#define TSR__ADD_PLAIN(a, b) ((a) + (b))
#define TSR__ADD_WRAP(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
typedef struct c128 {
    double re, im;
} c128;
static c128 add_c128(c128 a, c128 b)
{
    return (c128){a.re + b.re, a.im + b.im};
}
TSR__SCAN(double, TSR__ADD_PLAIN)
TSR__SCAN(float, TSR__ADD_PLAIN)
TSR__SCAN(int64_t, TSR__ADD_WRAP)
TSR__SCAN(c128, add_c128)

tsr_status tsr_cumsum(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor **result)
{
    if (!a || !result)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cumsum: NULL tensor or result");
    tsr_dtype in = tsr_tensor_dtype(a);
    tsr_dtype rdt = dtype != TSR_NO_DTYPE ? dtype : is_float(in) || is_complex(in) ? in : TSR_INT64;
    int nd = tsr_tensor_ndim(a), span = nd ? nd : 1;
    if (dim < -span || dim >= span)
        return tsr__fail(TSR_ERR_INDEX,
                         "Dimension out of range (expected to be in range of [%d, %d], but got "
                         "%lld)",
                         -span, span - 1, (long long)dim);
    /* PyTorch runs no kernel (and checks no dtype) for a 0-dim or empty
     * input. */
    bool trivial = nd == 0 || tsr_tensor_numel(a) == 0;
    if (!trivial &&
        (rdt == TSR_FLOAT16 || rdt == TSR_COMPLEX32 || tsr_dtype_is_shell(rdt) ||
         !(is_float(rdt) || is_complex(rdt) || tsr_dtype_is_integral(rdt) || rdt == TSR_BOOL)))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"cumsum_out_cpu\" not implemented for '%s'",
                         torch_name(rdt));
    if (trivial)
        return convert(a, rdt, result);
    tsr_dtype acc = scan_dtype(rdt);
    /* The input in the result's dtype (as PyTorch converts it first),
     * then in the accumulation dtype, contiguous on the host. */
    tsr_tensor *x = NULL, *w = NULL, *host = NULL, *out = NULL;
    tsr_status st = convert(a, rdt, &x);
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = acc, .has_device = true, .device = {TSR_DEVICE_CPU, -1}};
    if (!st)
        st = tsr_tensor_to(NULL, x, &o, true, &w);
    if (!st)
        st = tsr_tensor_contiguous(w, TSR_CONTIGUOUS_FORMAT, &host);
    void *p = NULL;
    if (!st)
        st = tsr_tensor_data_ptr(host, &p);
    if (!st && tsr_tensor_numel(host) > 0) {
        int64_t d0 = dim < 0 ? dim + span : dim, outer = 1, inner = 1;
        const int64_t *sz = tsr_tensor_sizes(host);
        int64_t n = nd ? sz[d0] : 1;
        for (int k = 0; k < nd; k++) {
            outer *= k < d0 ? sz[k] : 1;
            inner *= k > d0 ? sz[k] : 1;
        }
        if (acc == TSR_FLOAT64)
            scan_double(p, outer, n, inner);
        else if (acc == TSR_FLOAT32)
            scan_float(p, outer, n, inner);
        else if (acc == TSR_COMPLEX128)
            scan_c128(p, outer, n, inner);
        else
            scan_int64_t(p, outer, n, inner);
    }
    tsr_tensor_options back = {
        .has_dtype = true, .dtype = rdt, .has_device = true, .device = tsr_tensor_device(a)};
    if (!st) /* each running sum rounded once to the result's dtype */
        st = tsr_tensor_to(a->storage->client, host, &back, true, &out);
    tsr_tensor_release(x);
    tsr_tensor_release(w);
    tsr_tensor_release(host);
    if (!st)
        *result = out;
    return st;
}

tsr_status tsr_cumsum_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype, tsr_tensor *out)
{
    if (!a || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cumsum: NULL tensor or out");
    /* out='s dtype is the one the sums are taken in; a dtype= must be it */
    tsr_status st = dtype == TSR_NO_DTYPE ? TSR_OK : tsr__expect_out_dtype(out, dtype);
    if (st)
        return st;
    /* a bool out= (which tsr_cumsum's dtype= takes) has no kernel */
    if (out->dtype == TSR_BOOL && a->geometry.ndim > 0 && a->numel > 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"cumsum_out_cpu\" not implemented for '%s'",
                         torch_name(out->dtype));
    return along_out(tsr_cumsum, a, dim, out->dtype, out);
}
