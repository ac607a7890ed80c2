/* Operations on tensors: elementwise arithmetic, copies with casting,
 * fill, clone and contiguous, with PyTorch's semantics.
 *
 * Arithmetic (add, sub, mul, div) comes in three forms, as in PyTorch:
 *   tsr_add(a, b, alpha, &result)   a new tensor (torch.add(a, b))
 *   tsr_add_out(a, b, alpha, out)   into an existing tensor (out=)
 *   tsr_add_(self, b, alpha)        in place on the first operand (a.add_(b))
 * and each takes its second operand as a tensor (of any rank, zero-dim
 * included) or, in the *_scalar functions, as a Python number (tsr_scalar).
 *
 * Semantics, all PyTorch's:
 *   - the result dtype is tsr_result_type's over the operands (dimensioned
 *     tensors, then zero-dim tensors, then scalars); true division of
 *     integers gives the default dtype; trunc and floor division keep
 *     integer types;
 *   - the computation happens in the common dtype (float16, bfloat16 and
 *     complex32 through float32 / complex64, rounded once at the end), and
 *     the result is converted into the output; an out= or in-place output
 *     the result cannot be cast to (tsr_can_cast) is TSR_ERR_RUNTIME
 *     "result type Float can't be cast to the desired output type Long";
 *   - integer overflow wraps; integer division by zero is TSR_ERR_RUNTIME
 *     "ZeroDivisionError"; subtracting bool tensors is TSR_ERR_RUNTIME
 *     "Subtraction, the `-` operator, with two bool tensors is not
 *     supported. Use the `^` or `logical_xor()` operator instead.";
 *   - operands broadcast ("The size of tensor a (3) must match the size of
 *     tensor b (2) at non-singleton dimension 1"); a new result follows the
 *     operands' memory format (the first operand breaking ties); an out=
 *     tensor of the wrong shape is resized when it has no elements and is
 *     otherwise TSR_ERR_RUNTIME "output with shape [2] doesn't match the
 *     broadcast shape [3]" (PyTorch 1.13 resizes it with a warning); an
 *     output that overlaps itself (expanded) or partially overlaps an
 *     input is refused with PyTorch's message;
 *   - all tensors of an operation live on one device, except zero-dim cpu
 *     tensors, which act as scalars; otherwise TSR_ERR_RUNTIME "Expected
 *     all tensors to be on the same device, but found at least two
 *     devices, opencl:0 and cpu!". Nothing moves implicitly;
 *   - a dtype an operation does not compute in is TSR_ERR_NOT_SUPPORTED
 *     with PyTorch's "\"add_stub\" not implemented for 'Float8_e4m3fn'"
 *     (add and sub say add_stub, then mul_cpu, div_cpu, div_trunc_cpu,
 *     div_floor_cpu): the shell dtypes (float8, float4, uint16/32/64), and
 *     what PyTorch 1.13 refuses (trunc/floor division of bool and complex,
 *     true division of complex32);
 *   - docs/semantics.md ("Elementwise arithmetic") says which of
 *     PyTorch's paths each result follows (fused alpha, complex formulas);
 *   - meta tensors compute shapes, dtypes and strides only.
 *
 * cpu tensors are computed in this process (a small thread pool splits
 * large operations); accelerator tensors are computed by the daemon on the
 * device's queue, asynchronously: tsr_synchronize waits for them. The
 * library's host copies (tsr_tensor_copy_to_host/_from_host, from_data,
 * copy_ between devices) wait for them by themselves; memory reached
 * through tsr_tensor_data_ptr must not be read or written before
 * tsr_synchronize returns. An
 * error inside a queued kernel is reported by the next call on that
 * device (or by tsr_synchronize). cpu and opencl results are bit-identical.
 *
 * Tensor arguments are borrowed; new tensors belong to the caller. */
#ifndef TESSERA_OPS_H
#define TESSERA_OPS_H

#include "tessera/client.h"
#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.div's rounding_mode: None (true division), "trunc", "floor". */
typedef enum tsr_rounding_mode {
    TSR_ROUNDING_NONE,
    TSR_ROUNDING_TRUNC,
    TSR_ROUNDING_FLOOR,
} tsr_rounding_mode;

/* torch.nn.functional.gelu's approximate: "none" or "tanh". */
typedef enum tsr_gelu_approximate {
    TSR_GELU_NONE,
    TSR_GELU_TANH,
} tsr_gelu_approximate;

/* ---- add / sub: a + alpha * b, a - alpha * b ------------------------ */
/* alpha is converted to the computation dtype as fill_ converts values
 * ("value cannot be converted to type int8_t without overflow"), after
 * PyTorch's checks ("For integral input tensors, argument alpha must not
 * be a floating point number."; "Boolean alpha only supported for Boolean
 * results."; "For non-complex input tensors, argument alpha must not be a
 * complex number.", all TSR_ERR_RUNTIME). sub computes a + (-alpha) * b,
 * as PyTorch does. tsr_scalar_int(1) is the usual alpha. */

TSR_API tsr_status tsr_add(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,
                           tsr_tensor **result);
TSR_API tsr_status tsr_add_out(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,
                               tsr_tensor *out);
TSR_API tsr_status tsr_add_(tsr_tensor *self, const tsr_tensor *b, tsr_scalar alpha);
TSR_API tsr_status tsr_add_scalar(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha,
                                  tsr_tensor **result);
TSR_API tsr_status tsr_add_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha,
                                      tsr_tensor *out);
TSR_API tsr_status tsr_add_scalar_(tsr_tensor *self, tsr_scalar b, tsr_scalar alpha);

TSR_API tsr_status tsr_sub(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,
                           tsr_tensor **result);
TSR_API tsr_status tsr_sub_out(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,
                               tsr_tensor *out);
TSR_API tsr_status tsr_sub_(tsr_tensor *self, const tsr_tensor *b, tsr_scalar alpha);
TSR_API tsr_status tsr_sub_scalar(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha,
                                  tsr_tensor **result);
TSR_API tsr_status tsr_sub_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha,
                                      tsr_tensor *out);
TSR_API tsr_status tsr_sub_scalar_(tsr_tensor *self, tsr_scalar b, tsr_scalar alpha);

/* ---- mul ------------------------------------------------------------ */

TSR_API tsr_status tsr_mul(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_mul_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_mul_(tsr_tensor *self, const tsr_tensor *b);
TSR_API tsr_status tsr_mul_scalar(const tsr_tensor *a, tsr_scalar b, tsr_tensor **result);
TSR_API tsr_status tsr_mul_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_tensor *out);
TSR_API tsr_status tsr_mul_scalar_(tsr_tensor *self, tsr_scalar b);

/* ---- div ------------------------------------------------------------ */

TSR_API tsr_status tsr_div(const tsr_tensor *a, const tsr_tensor *b, tsr_rounding_mode mode,
                           tsr_tensor **result);
TSR_API tsr_status tsr_div_out(const tsr_tensor *a, const tsr_tensor *b, tsr_rounding_mode mode,
                               tsr_tensor *out);
TSR_API tsr_status tsr_div_(tsr_tensor *self, const tsr_tensor *b, tsr_rounding_mode mode);
TSR_API tsr_status tsr_div_scalar(const tsr_tensor *a, tsr_scalar b, tsr_rounding_mode mode,
                                  tsr_tensor **result);
TSR_API tsr_status tsr_div_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_rounding_mode mode,
                                      tsr_tensor *out);
TSR_API tsr_status tsr_div_scalar_(tsr_tensor *self, tsr_scalar b, tsr_rounding_mode mode);

/* ---- maximum, minimum ----------------------------------------------- */

/* torch.maximum / torch.minimum: the larger (smaller) element, NaN where
 * either is NaN; tensors only (zero-dim ones included), as in PyTorch;
 * the in-place form is torch.maximum(self, b, out=self). Complex inputs
 * are TSR_ERR_NOT_SUPPORTED "maximum not implemented for complex tensors.". */
TSR_API tsr_status tsr_maximum(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_maximum_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_maximum_(tsr_tensor *self, const tsr_tensor *b);
TSR_API tsr_status tsr_minimum(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_minimum_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_minimum_(tsr_tensor *self, const tsr_tensor *b);

/* ---- The generated families ---------------------------------------- */
/* Each line below declares one operation's functions, with PyTorch's
 * semantics (the same as the arithmetic's above: promotion, broadcasting,
 * out= casts, devices). Arguments are borrowed; *result is a new tensor
 * the caller owns, written only on success. Statuses: TSR_OK;
 * TSR_ERR_INVALID_ARGUMENT (NULL); TSR_ERR_RUNTIME (shapes, casts,
 * devices, and PyTorch's refusals that are not dtype errors, e.g. "Negation,
 * the `-` operator, on a bool tensor is not supported. ..."); and
 * TSR_ERR_NOT_SUPPORTED for a dtype the operation does not compute in
 * ("\"bitwise_not_cpu\" not implemented for 'Float'").
 *
 * TSR_UNARY_OP(name): tsr_<name>(a, &result), tsr_<name>_out(a, out),
 * tsr_<name>_(self). */
#define TSR_UNARY_OP(name)                                                     \
    TSR_API tsr_status tsr_##name(const tsr_tensor *a, tsr_tensor **result);   \
    TSR_API tsr_status tsr_##name##_out(const tsr_tensor *a, tsr_tensor *out); \
    TSR_API tsr_status tsr_##name##_(tsr_tensor *self);
/* TSR_TENSOR_OP(name): tsr_<name>(a, b, &result), tsr_<name>_out(a, b,
 * out), tsr_<name>_(self, b), b a tensor (zero-dim ones included). */
#define TSR_TENSOR_OP(name)                                                                       \
    TSR_API tsr_status tsr_##name(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result); \
    TSR_API tsr_status tsr_##name##_out(const tsr_tensor *a, const tsr_tensor *b,                 \
                                        tsr_tensor *out);                                         \
    TSR_API tsr_status tsr_##name##_(tsr_tensor *self, const tsr_tensor *b);
/* TSR_SCALAR_OP(name): TSR_TENSOR_OP's three, and tsr_<name>_scalar,
 * _scalar_out, _scalar_ with b a Python number. */
#define TSR_SCALAR_OP(name)                                                       \
    TSR_TENSOR_OP(name)                                                           \
    TSR_API tsr_status tsr_##name##_scalar(const tsr_tensor *a, tsr_scalar b,     \
                                           tsr_tensor **result);                  \
    TSR_API tsr_status tsr_##name##_scalar_out(const tsr_tensor *a, tsr_scalar b, \
                                               tsr_tensor *out);                  \
    TSR_API tsr_status tsr_##name##_scalar_(tsr_tensor *self, tsr_scalar b);

/* Of one input, computing in its dtype: abs and neg wrap on integers;
 * sign; square (bool gives int64); floor, ceil, trunc and round (half to
 * even) of an integer are the integer; relu; bitwise_not (integers and
 * bool); frac. float16 is refused by floor, ceil, trunc, round, relu and
 * sqrt, as PyTorch 1.13's cpu kernels refuse it. Complex inputs of
 * reciprocal and sqrt are not computed yet (TSR_ERR_NOT_SUPPORTED).
 * abs of a complex input is |z| in its real dtype (complex64 gives
 * float32), a hypot within 1 ulp that overflows only where |z| does
 * (PyTorch 1.13's vectorised loop overflows where a part's square does);
 * its out= may be any dtype the real one casts to, or the input's own;
 * in place it is TSR_ERR_RUNTIME "In-place abs is not supported for
 * complex tensors.". sgn is sign in bool, the integers and the floating
 * dtypes, and z / |z| (0 for 0) in complex, |z| being that hypot. */
TSR_UNARY_OP(sgn)
TSR_UNARY_OP(abs)
TSR_UNARY_OP(neg)
TSR_UNARY_OP(sign)
TSR_UNARY_OP(square)
TSR_UNARY_OP(floor)
TSR_UNARY_OP(ceil)
TSR_UNARY_OP(trunc)
TSR_UNARY_OP(round)
TSR_UNARY_OP(relu)
TSR_UNARY_OP(bitwise_not)
TSR_UNARY_OP(frac)
/* Integers and bool compute in the default dtype; sqrt is correctly
 * rounded. */
TSR_UNARY_OP(reciprocal)
TSR_UNARY_OP(sqrt)
/* Integers and bool compute in the default dtype, bfloat16 in float32
 * (rounded once); float16 is refused as PyTorch 1.13's cpu kernels refuse
 * it. Within 1 ulp of the correctly rounded result, the same bits on
 * every device; exact where IEEE 754 defines the result; complex64 and complex128 compute, each part within a few ulps of
 * the true value (docs/semantics.md). */
TSR_UNARY_OP(exp)
TSR_UNARY_OP(log)
/* exp(x) - 1 and log(1 + x), accurate near 0: the dtypes as exp and log,
 * within 1 ulp, the same bits on every device, exact where IEEE 754
 * defines the result (expm1(+-0) = +-0, expm1(-inf) = -1, log1p(+-0) =
 * +-0, log1p(-1) = -inf). Complex inputs are refused with PyTorch 1.13's
 * message. */
TSR_UNARY_OP(expm1)
TSR_UNARY_OP(log1p)
/* 1 / (1 + exp(-x)) and tanh: the dtypes as exp, within 1 ulp of the
 * correctly rounded result, the same bits on every device (sigmoid(+-0) =
 * 1/2, tanh(+-0) = +-0, +-1 and 0 at the infinities); complex64 and complex128 compute, each part within a few ulps of
 * the true value (docs/semantics.md). */
TSR_UNARY_OP(sigmoid)
TSR_UNARY_OP(tanh)
/* 2^x, log2 and log10, the hyperbolic functions and their inverses, and
 * 1 / sqrt(x): the dtypes as exp (exp2 computes float16 too, in float32,
 * rounded once), within 1 ulp of the correctly rounded result, the same
 * bits on every device, exact where IEEE 754 defines the result (exp2 of
 * an integer, log2 of a power of two, +-0 and +-inf kept by sinh, asinh,
 * atanh; cosh(+-inf) = +inf, acosh(1) = +0, atanh(+-1) = +-inf, rsqrt(+-0)
 * = +-inf, rsqrt(+inf) = +0); complex64 and complex128 compute, each part within a few ulps of
 * the true value (docs/semantics.md),
 * but exp2, which PyTorch 1.13 refuses too. */
TSR_UNARY_OP(exp2)
TSR_UNARY_OP(log2)
TSR_UNARY_OP(log10)
TSR_UNARY_OP(sinh)
TSR_UNARY_OP(cosh)
TSR_UNARY_OP(asinh)
TSR_UNARY_OP(acosh)
TSR_UNARY_OP(atanh)
TSR_UNARY_OP(rsqrt)
/* The error function and its complement: the dtypes as exp (complex
 * inputs refused with PyTorch 1.13's message), within 1 ulp of the
 * correctly rounded result, the same bits on every device (erf(+-0) =
 * +-0, erf(+-inf) = +-1, erfc(-inf) = 2, erfc(+inf) = +0). */
TSR_UNARY_OP(erf)
TSR_UNARY_OP(erfc)
/* x * sigmoid(x): floating inputs only (integers and bool refused with
 * PyTorch's "silu_cpu" message, float16 too), an out= or in-place output
 * of the input's dtype; within 1 ulp of the true value, the same bits on
 * every device. silu(-inf) is NaN, as in PyTorch. Complex inputs are not
 * computed yet (TSR_ERR_NOT_SUPPORTED, "complex silu is not available
 * yet"). */
TSR_UNARY_OP(silu)
/* torch.nn.functional.gelu(a, approximate=): x * Phi(x) (TSR_GELU_NONE,
 * Phi the standard normal distribution function) or PyTorch's
 * x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) (TSR_GELU_TANH);
 * another value is PyTorch's "approximate argument must be either none
 * or tanh." (TSR_ERR_RUNTIME). Floating inputs only, as silu ("GeluKernelImpl"
 * messages); within 1 ulp of the true value of either, the same bits on
 * every device; gelu(-inf) is NaN, as in PyTorch. */
TSR_API tsr_status tsr_gelu(const tsr_tensor *a, tsr_gelu_approximate approximate,
                            tsr_tensor **result);
TSR_API tsr_status tsr_gelu_out(const tsr_tensor *a, tsr_gelu_approximate approximate,
                                tsr_tensor *out);
TSR_API tsr_status tsr_gelu_(tsr_tensor *self, tsr_gelu_approximate approximate);
/* PyTorch's spelling of approximate ("none", "tanh") to the enum; another
 * string (or NULL) is TSR_ERR_RUNTIME with PyTorch's message. */
TSR_API tsr_status tsr_gelu_approximate_from_name(const char *name, tsr_gelu_approximate *out);
/* sin, cos and tan (radians): the dtypes as exp, within 1 ulp of the
 * correctly rounded result for every argument however large, the same
 * bits on every device (sin(+-0) = +-0, tan(+-0) = +-0, cos(+-0) = 1, NaN
 * at the infinities); complex64 and complex128 compute, each part within a few ulps of
 * the true value (docs/semantics.md). */
TSR_UNARY_OP(sin)
TSR_UNARY_OP(cos)
TSR_UNARY_OP(tan)
/* asin, acos (NaN outside [-1, 1]) and atan: as sin; asin(+-0) = +-0,
 * atan(+-0) = +-0, atan(+-inf) = +-pi/2 rounded, acos(1) = +0; complex
 * ones as glibc's casin, cacos and catan (C99 Annex G's special values,
 * the branch cuts' sides as the signed zeros say). */
TSR_UNARY_OP(asin)
TSR_UNARY_OP(acos)
TSR_UNARY_OP(atan)
/* A bool result (an out= or in-place output takes any dtype, 0 or 1). */
TSR_UNARY_OP(logical_not)
TSR_UNARY_OP(isnan)
TSR_UNARY_OP(isinf)
TSR_UNARY_OP(isfinite)
TSR_UNARY_OP(signbit)

/* Comparisons: a bool result, computed in the operands' common dtype. */
TSR_SCALAR_OP(eq)
TSR_SCALAR_OP(ne)
TSR_SCALAR_OP(lt)
TSR_SCALAR_OP(le)
TSR_SCALAR_OP(gt)
TSR_SCALAR_OP(ge)
/* Truth of each operand (non-zero), combined: a bool result. */
TSR_TENSOR_OP(logical_and)
TSR_TENSOR_OP(logical_or)
TSR_TENSOR_OP(logical_xor)
/* Integers and bool only. */
TSR_SCALAR_OP(bitwise_and)
TSR_SCALAR_OP(bitwise_or)
TSR_SCALAR_OP(bitwise_xor)
/* maximum and minimum that ignore a NaN where the other input is a
 * number; no complex ("fmax not implemented for complex tensors."). */
TSR_TENSOR_OP(fmax)
TSR_TENSOR_OP(fmin)
/* sqrt(a^2 + b^2) without overflow or underflow on the way, within 1 ulp
 * of the correctly rounded result; bfloat16, float32 and float64 (float16,
 * integers, bool and complex refused, as PyTorch 1.13's cpu kernel does);
 * +inf where either is infinite, even beside a NaN. */
TSR_TENSOR_OP(hypot)
/* a's magnitude with b's sign; integers and bool compute in the default
 * dtype. */
TSR_SCALAR_OP(copysign)
/* The angle of the point (b, a), atan(a / b) in the right quadrant, in
 * (-pi, pi]; tensors only, as PyTorch 1.13 takes them. Integers and bool
 * compute in the default dtype, float16 and complex are refused
 * ("atan2_cpu" not implemented for ...). Within 1 ulp of the correctly
 * rounded result, IEEE 754's values at zeros and infinities (atan2(+-0,
 * -0) = +-pi, atan2(+-inf, -inf) = +-3pi/4, ...), the same bits on every
 * device. */
TSR_TENSOR_OP(atan2)
/* Remainders of a division, integers (bool refused) and floating dtypes:
 * fmod's takes a's sign (C's fmod and %), remainder's b's (Python's %).
 * An integer zero divisor is PyTorch's "ZeroDivisionError"
 * (TSR_ERR_RUNTIME), a zero scalar one before anything is written. */
TSR_SCALAR_OP(remainder)
TSR_SCALAR_OP(fmod)
/* Shifts of integers (bool and floating dtypes refused): the count is
 * taken modulo 32 below int64 and modulo 64 in it, negative ones by their
 * low bits, as PyTorch 1.13 computes them; right shifts are arithmetic. */
TSR_SCALAR_OP(bitwise_left_shift)
TSR_SCALAR_OP(bitwise_right_shift)

/* ---- where ------------------------------------------------------------ */

/* torch.where(cond, a, b): a's element where cond is true, else b's, all
 * three broadcast together. cond is a bool tensor (uint8 is taken as
 * PyTorch 1.13 takes it, nonzero meaning true); any other dtype is
 * TSR_ERR_RUNTIME "where expected condition to be a boolean tensor, but
 * got a tensor with dtype Float". a and b meet in their common dtype
 * (Python numbers as PyTorch's wrapped numbers), which is the result's;
 * an out= must have that dtype ("Found dtype Float but expected Half")
 * and may not overlap an input partly. The Python-number forms have no
 * out=, as in PyTorch 1.13; there is no in-place form. */
TSR_API tsr_status tsr_where(const tsr_tensor *cond, const tsr_tensor *a, const tsr_tensor *b,
                             tsr_tensor **result);
TSR_API tsr_status tsr_where_out(const tsr_tensor *cond, const tsr_tensor *a, const tsr_tensor *b,
                                 tsr_tensor *out);
/* b a Python number (torch.where(cond, a, 2.5)). */
TSR_API tsr_status tsr_where_scalar(const tsr_tensor *cond, const tsr_tensor *a, tsr_scalar b,
                                    tsr_tensor **result);
/* a a Python number (torch.where(cond, 2.5, b)). */
TSR_API tsr_status tsr_where_scalar_self(const tsr_tensor *cond, tsr_scalar a, const tsr_tensor *b,
                                         tsr_tensor **result);
/* Both Python numbers (torch.where(cond, 1.0, 0.0)). */
TSR_API tsr_status tsr_where_scalars(const tsr_tensor *cond, tsr_scalar a, tsr_scalar b,
                                     tsr_tensor **result);

/* ---- clamp ------------------------------------------------------------ */

/* torch.clamp(self, min, max) with tensor bounds, either of them NULL
 * (not both: TSR_ERR_RUNTIME "torch.clamp: At least one of 'min' or 'max'
 * must not be None"). All broadcast together and meet in their common
 * dtype; out= and in place as the arithmetic (the common dtype must cast
 * to the output's). Both bounds: std::min(std::max(self, min), max), a
 * NaN bound giving NaN; bool and float16 are refused ("\"clamp_cpu\" not
 * implemented for 'Half'"), as in PyTorch 1.13. One bound: maximum's
 * (minimum's) loop, which takes bool and float16. A complex self is
 * TSR_ERR_RUNTIME "clamp is not supported for complex types". */
TSR_API tsr_status tsr_clamp(const tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max,
                             tsr_tensor **result);
TSR_API tsr_status tsr_clamp_out(const tsr_tensor *self, const tsr_tensor *min,
                                 const tsr_tensor *max, tsr_tensor *out);
TSR_API tsr_status tsr_clamp_(tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max);

/* torch.clamp(self, min, max) with Python-number bounds, either NULL (not
 * both), as PyTorch 1.13's clamp.Scalar: a floating self keeps its dtype,
 * another meets the bounds as wrapped numbers (an int32 self with a float
 * bound gives float32); the bounds are converted to that dtype as
 * PyTorch's Scalar::to converts them ("value cannot be converted to type
 * int8_t without overflow"). Both bounds: std::min(std::max(x, min),
 * max), NaN wherever a bound is NaN; one bound: std::max(x, min)
 * (std::min(x, max)), which a NaN bound leaves unchanged. bool, float16
 * and complex are refused ("\"clamp_scalar_cpu\" not implemented for
 * 'Half'"; "clamp is not supported for complex types"). out= must have
 * the result's dtype ("Found dtype Int but expected Float"); in place the
 * result's dtype must be self's ("result type Float can't be cast to the
 * desired output type int"). Arguments are borrowed; *result is new and
 * the caller's. */
TSR_API tsr_status tsr_clamp_scalar(const tsr_tensor *self, const tsr_scalar *min,
                                    const tsr_scalar *max, tsr_tensor **result);
TSR_API tsr_status tsr_clamp_scalar_out(const tsr_tensor *self, const tsr_scalar *min,
                                        const tsr_scalar *max, tsr_tensor *out);
TSR_API tsr_status tsr_clamp_scalar_(tsr_tensor *self, const tsr_scalar *min,
                                     const tsr_scalar *max);

/* ---- pow ---------------------------------------------------------------- */

/* torch.pow in PyTorch 1.13's three forms: tensor ^ tensor (tsr_pow,
 * _out, _), tensor ^ Python number (tsr_pow_scalar, _out, _) and Python
 * number ^ tensor (tsr_pow_scalar_self, _out). The result dtype is
 * tsr_result_type's (an int32 self with a float exponent gives the
 * default dtype). Integers compute exactly, wrapping as the dtype does; a
 * negative integer exponent gives 1 for a base of 1, +-1 for -1 and 0
 * otherwise in the tensor forms, and is refused for a bool or integer
 * self with a number exponent (TSR_ERR_RUNTIME "Integers to negative
 * integer powers are not allowed."). Floating dtypes are within 1 ulp of
 * the correctly rounded result (float16 and bfloat16 through float32,
 * rounded once), IEEE 754's special values exact (pow(x, 0) = 1 and
 * pow(1, y) = 1 even for NaN, NaN for a negative base and a non-integer
 * exponent); with a number exponent of 0.5, -0.5, -1, 2, 3 or -2 the
 * float32, float64 and bfloat16 results are PyTorch's sqrt(x), 1 /
 * sqrt(x), 1 / x, x x, x x x and 1 / (x x) (pow(-0, 0.5) = -0 there). An
 * integer, float16 or bfloat16 result takes a number exponent as
 * PyTorch's Scalar::to does ("value cannot be converted to type int8_t
 * without overflow"). The number-exponent form's out= (and in place,
 * self) must have the result dtype ("Found dtype Long but expected
 * Float"). bool ^ bool is TSR_ERR_NOT_SUPPORTED ("\"pow\" not
 * implemented for 'Bool'"). Complex results (complex64, complex128) are
 * exp(y log x) with glibc's cpow's special values, each part within about
 * 2 ulps of the true value, and PyTorch's kernels for the number
 * exponents 0, 1, 0.5, -0.5, -1, 2, 3 and -2; a number base equal to 1
 * fills the result with 1, as PyTorch (docs/semantics.md). Arguments are
 * borrowed; *result is new and the caller's. */
TSR_API tsr_status tsr_pow(const tsr_tensor *self, const tsr_tensor *exponent, tsr_tensor **result);
TSR_API tsr_status tsr_pow_out(const tsr_tensor *self, const tsr_tensor *exponent, tsr_tensor *out);
TSR_API tsr_status tsr_pow_(tsr_tensor *self, const tsr_tensor *exponent);
TSR_API tsr_status tsr_pow_scalar(const tsr_tensor *self, tsr_scalar exponent, tsr_tensor **result);
TSR_API tsr_status tsr_pow_scalar_out(const tsr_tensor *self, tsr_scalar exponent, tsr_tensor *out);
TSR_API tsr_status tsr_pow_scalar_(tsr_tensor *self, tsr_scalar exponent);
TSR_API tsr_status tsr_pow_scalar_self(tsr_scalar self, const tsr_tensor *exponent,
                                       tsr_tensor **result);
TSR_API tsr_status tsr_pow_scalar_self_out(tsr_scalar self, const tsr_tensor *exponent,
                                           tsr_tensor *out);

/* ---- nan_to_num --------------------------------------------------------- */

/* torch.nan_to_num(self, nan=, posinf=, neginf=): NaN, +inf and -inf
 * replaced by *nan (0 when NULL), *posinf and *neginf (self's dtype's
 * largest and lowest finite numbers when NULL), each cast to the dtype as
 * PyTorch's static_cast casts a double (float16 and bfloat16 through
 * float, so 1e10 becomes inf in float16); every other value, -0 and
 * subnormals included, is kept. bool and integer inputs pass through
 * unchanged. The out= (and in place, self) must have self's dtype
 * (TSR_ERR_RUNTIME "nan_to_num: dtype of out: Double should be same as
 * input: Float"); complex inputs are TSR_ERR_NOT_SUPPORTED
 * ("\"nan_to_num\" not implemented for 'ComplexFloat'"), as in PyTorch
 * 1.13. The numbers are read during the call; arguments are borrowed;
 * *result is new and the caller's. */
TSR_API tsr_status tsr_nan_to_num(const tsr_tensor *self, const double *nan, const double *posinf,
                                  const double *neginf, tsr_tensor **result);
TSR_API tsr_status tsr_nan_to_num_out(const tsr_tensor *self, const double *nan,
                                      const double *posinf, const double *neginf, tsr_tensor *out);
TSR_API tsr_status tsr_nan_to_num_(tsr_tensor *self, const double *nan, const double *posinf,
                                   const double *neginf);

/* ---- round with decimals ------------------------------------------------ */

/* torch.round(self, decimals=decimals) as PyTorch 1.13 computes it: p =
 * 10^|decimals| (std::pow's double, cast to self's dtype: float32 and
 * bfloat16 through float), then rint(x * p) / p, or rint(x / p) * p for
 * negative decimals, half to even, in the dtype's arithmetic (bfloat16
 * rounds the scaled value to bfloat16 before rint). A p past the dtype's
 * range (decimals above 38 in float32) gives NaN, as in PyTorch.
 * decimals 0 is tsr_round, except that bool and integer inputs are
 * refused. bfloat16, float32 and float64 only: the others are
 * TSR_ERR_NOT_SUPPORTED ("\"round_cpu\" not implemented for 'Half'",
 * "round_vml_cpu" with decimals 0). out= and in place must have self's
 * dtype ("Found dtype Double but expected Float"). Arguments are
 * borrowed; *result is new and the caller's. */
TSR_API tsr_status tsr_round_decimals(const tsr_tensor *self, int64_t decimals,
                                      tsr_tensor **result);
TSR_API tsr_status tsr_round_decimals_out(const tsr_tensor *self, int64_t decimals,
                                          tsr_tensor *out);
TSR_API tsr_status tsr_round_decimals_(tsr_tensor *self, int64_t decimals);

/* ---- lerp ------------------------------------------------------------- */

/* torch.lerp(start, end, weight): start + weight * (end - start), as
 * PyTorch 1.13's cpu loops round it (docs/semantics.md). end and a tensor
 * weight must have start's dtype (TSR_ERR_RUNTIME "expected dtype float
 * for `end` but got dtype double"); all three broadcast together. The
 * tensor form's out= must have that dtype ("Found dtype Double but
 * expected Float"); the Python-number form (tsr_lerp_scalar*) converts
 * weight as PyTorch's Scalar::to converts it ("value cannot be converted
 * to type float without overflow") and casts to its out= as the
 * arithmetic does. bfloat16, float32, float64, complex64 and complex128
 * compute; the others are TSR_ERR_NOT_SUPPORTED ("\"lerp_kernel_tensor\"
 * not implemented for 'Half'"). Arguments are borrowed; *result is new
 * and the caller's. */
TSR_API tsr_status tsr_lerp(const tsr_tensor *start, const tsr_tensor *end,
                            const tsr_tensor *weight, tsr_tensor **result);
TSR_API tsr_status tsr_lerp_out(const tsr_tensor *start, const tsr_tensor *end,
                                const tsr_tensor *weight, tsr_tensor *out);
TSR_API tsr_status tsr_lerp_(tsr_tensor *self, const tsr_tensor *end, const tsr_tensor *weight);
TSR_API tsr_status tsr_lerp_scalar(const tsr_tensor *start, const tsr_tensor *end,
                                   tsr_scalar weight, tsr_tensor **result);
TSR_API tsr_status tsr_lerp_scalar_out(const tsr_tensor *start, const tsr_tensor *end,
                                       tsr_scalar weight, tsr_tensor *out);
TSR_API tsr_status tsr_lerp_scalar_(tsr_tensor *self, const tsr_tensor *end, tsr_scalar weight);

/* ---- addcmul, addcdiv ------------------------------------------------- */

/* torch.addcmul(self, t1, t2, value=value): self + value * t1 * t2, and
 * torch.addcdiv: self + value * t1 / t2 (tsr_scalar_int(1) is PyTorch's
 * default value). The three tensors broadcast together and meet in their
 * common dtype, which value is converted to as PyTorch's Scalar::to
 * converts it ("value cannot be converted to type int8_t without
 * overflow"; bfloat16 takes it as a float); out= and in place as the
 * arithmetic. addcmul computes in the integers, bfloat16, float32,
 * float64, complex64 and complex128; addcdiv in the floating and complex
 * ones, and refuses two integer or bool t1 and t2 first (TSR_ERR_RUNTIME
 * "Integer division with addcdiv is no longer supported, ..."). Others
 * are TSR_ERR_NOT_SUPPORTED ("\"addcmul_cpu_out\" not implemented for
 * 'Bool'"). Arguments are borrowed; *result is new and the caller's. */
TSR_API tsr_status tsr_addcmul(const tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2,
                               tsr_scalar value, tsr_tensor **result);
TSR_API tsr_status tsr_addcmul_out(const tsr_tensor *self, const tsr_tensor *t1,
                                   const tsr_tensor *t2, tsr_scalar value, tsr_tensor *out);
TSR_API tsr_status tsr_addcmul_(tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2,
                                tsr_scalar value);
TSR_API tsr_status tsr_addcdiv(const tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2,
                               tsr_scalar value, tsr_tensor **result);
TSR_API tsr_status tsr_addcdiv_out(const tsr_tensor *self, const tsr_tensor *t1,
                                   const tsr_tensor *t2, tsr_scalar value, tsr_tensor *out);
TSR_API tsr_status tsr_addcdiv_(tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2,
                                tsr_scalar value);

/* ---- Matrix products ----------------------------------------------------- */
/* torch.mm, bmm, addmm, dot, mv, outer and matmul, with PyTorch 1.13's
 * shape rules and messages:
 *   - mm(a, b): matrices ("self must be a matrix", "mat2 must be a
 *     matrix"), a's columns = b's rows ("mat1 and mat2 shapes cannot be
 *     multiplied (2x3 and 4x5)"); bmm(a, b): 3-D tensors ("batch1 must be
 *     a 3D tensor"), b's first two sizes [batch, k] ("Expected size for
 *     first two dimensions of batch2 tensor to be: [2, 3] but got: [3,
 *     3]."); dot(a, b): vectors of one dtype and length ("1D tensors
 *     expected, but got 2D and 1D tensors", "dot : expected both vectors
 *     to have same dtype, but found Float and Double", "inconsistent
 *     tensor size, ..."); mv(a, v): "vector + matrix @ vector expected,
 *     got 1, 2, 2", "size mismatch, got 2, 2x3,4"; outer(a, b): vectors
 *     ("outer: Expected 1-D argument self, but got 2-D"), then a's column
 *     times b elementwise (tsr_mul's promotion, out= casting and devices);
 *   - matmul(a, b) is PyTorch's composite: dot for 1-D @ 1-D, mv for 2-D @
 *     1-D, mm for 1-D @ 2-D (a as one row, the row dropped from the
 *     result) and 2-D @ 2-D; a batch of 3 or more dims against a matrix
 *     or a vector is folded into the rows of one mm (mv), on either side,
 *     and the messages are those of that folded product ("mat1 and mat2
 *     shapes cannot be multiplied (4x3 and 4x5)"); otherwise the batch
 *     dims broadcast ("The size of tensor a (2) must match the size of
 *     tensor b (3) at non-singleton dimension 0") and bmm runs. 0-D
 *     operands: "both arguments to matmul need to be at least 1D, but
 *     they are 0D and 2D";
 *   - addmm(self, mat1, mat2, beta, alpha) = beta * self + alpha * (mat1
 *     @ mat2), self expanded to the product's shape (expand's message);
 *     one dtype for all ("self and mat2 must have the same dtype", "mat1
 *     and mat2 must have the same dtype"); beta = 0 ignores self, NaN
 *     included; alpha = 0 ignores the product (0 * inf is not computed),
 *     as PyTorch's BLAS does; beta and alpha are converted to the math
 *     type (float for float16/bfloat16) as c10 converts them ("value
 *     cannot be converted to type int8_t without overflow"). addmm_ needs
 *     self of the product's shape ("Bad in-place call: input tensor size
 *     [1, 4] and output tensor size [2, 4] should match");
 *   - dtypes: the result has the first operand's dtype (bmm and mv, as in
 *     PyTorch: the second's), and the operands must have that dtype
 *     ("expected scalar type Float but found Double"); float32, float64,
 *     complex64 and complex128 compute through OpenBLAS, float16 and
 *     bfloat16 in float32 rounded once (PyTorch 1.13 refuses float16 on
 *     the cpu; Tessera computes it as PyTorch 2 does), the integers but
 *     bool exactly, wrapping. bool, complex32 and the shell dtypes are
 *     TSR_ERR_NOT_SUPPORTED with PyTorch's "\"addmm_impl_cpu_\" not
 *     implemented for 'Bool'" ("bmm", "dot", "addmv_impl_cpu" for
 *     theirs), except where there is nothing to compute (an empty result
 *     or an inner size of 0 gives zeros, in any dtype, as in PyTorch);
 *   - results are new contiguous tensors. An out= must have the result's
 *     dtype ("Expected out tensor to have dtype float, but got double
 *     instead"; dot's "result dtype Double does not match input dtype
 *     Float") and shape; one without elements is resized, one of another
 *     shape with elements is TSR_ERR_RUNTIME "output with shape [3, 3]
 *     doesn't match the result shape [2, 4]" (PyTorch 1.13 resizes it
 *     with a warning). An out= that shares memory with an input gets the
 *     right answer (through a temporary), unlike PyTorch's;
 *   - transposed and strided operands are read in place where BLAS can
 *     (rows or columns contiguous); others are packed first. Values are
 *     within the tolerance PyTorch's own tests allow for each dtype, not
 *     bit-identical across thread counts;
 *   - devices: cpu, and meta (shapes and dtypes only); every operand on
 *     one device ("Expected all tensors to be on the same device, ...").
 *     Accelerator tensors are TSR_ERR_NOT_SUPPORTED "mm on opencl devices
 *     is not available yet" (outer, being elementwise, runs there).
 * Statuses: TSR_OK; TSR_ERR_INVALID_ARGUMENT (NULL); TSR_ERR_RUNTIME and
 * TSR_ERR_INDEX (PyTorch's errors); TSR_ERR_NOT_SUPPORTED (dtypes,
 * devices); TSR_ERR_OUT_OF_MEMORY. Tensors are borrowed; *result is a new
 * tensor the caller owns, written only on success. */
TSR_API tsr_status tsr_mm(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_mm_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_bmm(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_bmm_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_matmul(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_matmul_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_dot(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_dot_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_mv(const tsr_tensor *a, const tsr_tensor *v, tsr_tensor **result);
TSR_API tsr_status tsr_mv_out(const tsr_tensor *a, const tsr_tensor *v, tsr_tensor *out);
TSR_API tsr_status tsr_outer(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result);
TSR_API tsr_status tsr_outer_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out);
TSR_API tsr_status tsr_addmm(const tsr_tensor *self, const tsr_tensor *mat1, const tsr_tensor *mat2,
                             tsr_scalar beta, tsr_scalar alpha, tsr_tensor **result);
TSR_API tsr_status tsr_addmm_out(const tsr_tensor *self, const tsr_tensor *mat1,
                                 const tsr_tensor *mat2, tsr_scalar beta, tsr_scalar alpha,
                                 tsr_tensor *out);
TSR_API tsr_status tsr_addmm_(tsr_tensor *self, const tsr_tensor *mat1, const tsr_tensor *mat2,
                              tsr_scalar beta, tsr_scalar alpha);

/* ---- Reductions -------------------------------------------------------- */
/* torch.sum, prod, mean, nansum, nanmean, amax, amin, all, any, argmax,
 * argmin, and torch.max / torch.min with a dim, with PyTorch 1.13's
 * semantics and messages (docs/semantics.md, "Reductions"):
 *   - dims: `ndims` dimensions at `dims` (negative ones wrap; a repeated
 *     one is TSR_ERR_RUNTIME "dim 0 appears multiple times in the list of
 *     dims"; out of range is TSR_ERR_INDEX "Dimension out of range
 *     (expected to be in range of [-2, 1], but got 2)"); ndims 0 reduces
 *     every dimension (PyTorch's dim=None). prod, all, any, argmax and
 *     argmin take one dim or none (ndims 0 or 1), as PyTorch does;
 *   - keepdim keeps each reduced dimension with size 1;
 *   - dtype (the functions of sum, prod, mean, nansum, nanmean): the dtype
 *     the elements are converted to and reduced in, or TSR_NO_DTYPE;
 *   - the result's dtype: sum, prod and nansum of bool and the integers
 *     give int64, of the others their dtype; mean and nanmean refuse
 *     integers ("mean(): could not infer output dtype. Input dtype must be
 *     either a floating point or complex dtype. Got: Long"); all and any
 *     give bool (uint8 for uint8); argmax, argmin and the indices int64;
 *     amax, amin, max and min the input's dtype. An out= tensor of sum,
 *     prod, mean, nansum, nanmean decides the dtype the reduction runs in
 *     (PyTorch's rule); the others check it ("Expected the dtype for input
 *     and out to match, ..."). An out= of another shape is resized, as
 *     PyTorch 1.13 resizes it; one that overlaps itself is refused;
 *   - empty reductions: sum and nansum give 0, prod 1, all true, any
 *     false, mean NaN; amax, amin, argmax, argmin, max and min of an empty
 *     dimension are TSR_ERR_INDEX "amax(): Expected reduction dim 0 to
 *     have non-zero size." (over every dimension TSR_ERR_RUNTIME, as in
 *     PyTorch);
 *   - NaN: max, min, amax, amin propagate it, argmax and argmin take it
 *     as the extreme (the first NaN), nansum and nanmean skip it; ties go
 *     to the first index;
 *   - float16 and bfloat16 accumulate in float32 and round once; the
 *     order of a sum is fixed by the shape alone (kernels/reduce_order.h),
 *     so a result has the same bits with any number of threads;
 *   - a dtype the reduction does not compute in is TSR_ERR_NOT_SUPPORTED
 *     with PyTorch's message ("\"prod_cpu\" not implemented for 'Half'");
 *   - cpu tensors compute; meta tensors give shapes and dtypes; tensors of
 *     other devices are TSR_ERR_NOT_SUPPORTED ("sum on opencl devices is
 *     not available yet"). */

/* No dtype= (PyTorch's dtype=None). */
#define TSR_NO_DTYPE ((tsr_dtype)-1)

#define TSR_REDUCE_OP(name)                                                                  \
    TSR_API tsr_status tsr_##name(const tsr_tensor *a, const int64_t *dims, int ndims,       \
                                  bool keepdim, tsr_tensor **result);                        \
    TSR_API tsr_status tsr_##name##_out(const tsr_tensor *a, const int64_t *dims, int ndims, \
                                        bool keepdim, tsr_tensor *out);
#define TSR_REDUCE_DTYPE_OP(name)                                                            \
    TSR_API tsr_status tsr_##name(const tsr_tensor *a, const int64_t *dims, int ndims,       \
                                  bool keepdim, tsr_dtype dtype, tsr_tensor **result);       \
    TSR_API tsr_status tsr_##name##_out(const tsr_tensor *a, const int64_t *dims, int ndims, \
                                        bool keepdim, tsr_dtype dtype, tsr_tensor *out);

TSR_REDUCE_DTYPE_OP(sum)
TSR_REDUCE_DTYPE_OP(prod)
TSR_REDUCE_DTYPE_OP(mean)
TSR_REDUCE_DTYPE_OP(nansum)
TSR_REDUCE_DTYPE_OP(nanmean)
TSR_REDUCE_OP(amax)
TSR_REDUCE_OP(amin)
TSR_REDUCE_OP(all)
TSR_REDUCE_OP(any)
TSR_REDUCE_OP(argmax)
TSR_REDUCE_OP(argmin)

/* torch.max(a, dim, keepdim) / torch.min: the values (a's dtype) and
 * their int64 indices along `dim` (the first of equal values; a NaN wins).
 * The _out forms check both tensors' dtypes ("Expected out tensor to have
 * dtype float, but got double instead") and resize them. Both results
 * are written only on success; new ones belong to the caller. */
TSR_API tsr_status tsr_max_dim(const tsr_tensor *a, int64_t dim, bool keepdim, tsr_tensor **values,
                               tsr_tensor **indices);
TSR_API tsr_status tsr_max_dim_out(const tsr_tensor *a, int64_t dim, bool keepdim,
                                   tsr_tensor *values, tsr_tensor *indices);
TSR_API tsr_status tsr_min_dim(const tsr_tensor *a, int64_t dim, bool keepdim, tsr_tensor **values,
                               tsr_tensor **indices);
TSR_API tsr_status tsr_min_dim_out(const tsr_tensor *a, int64_t dim, bool keepdim,
                                   tsr_tensor *values, tsr_tensor *indices);

/* ---- Statistics and normalisations ------------------------------------ */
/* Each has an _out form (PyTorch's out=), which computes the result in
 * full and then writes it into `out`: an out of another shape is resized
 * (a new contiguous storage), one that overlaps itself is refused, and
 * its dtype follows PyTorch 1.13's rule for that function, given below
 * (docs/semantics.md, "Reductions"). */

/* torch.var / torch.std(a, dims, correction=, keepdim): the variance of the
 * elements along dims (ndims 0: all of them) divided by max(0, N -
 * correction), N the count reduced (correction 1 is PyTorch's unbiased);
 * float16, bfloat16, float32 and float64, computed in float64 and rounded
 * once ("std and var only support floating point and complex dtypes"
 * otherwise). Of a complex a: the variance of its real parts plus that of
 * its imaginary parts, in a's real dtype (complex64 gives float32); std
 * takes the square root of that sum (complex32's is PyTorch's "\"sqrt_vml_cpu\"
 * not implemented for 'Half'"). out= may be any floating dtype, which a
 * real a is converted to before the variance (its result is in that
 * dtype), or, for a complex a, a complex one too (computed in its real
 * dtype); others are "\"std_cpu\" not implemented for 'Long'". */
TSR_API tsr_status tsr_var(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, tsr_tensor **result);
TSR_API tsr_status tsr_var_out(const tsr_tensor *a, const int64_t *dims, int ndims,
                               int64_t correction, bool keepdim, tsr_tensor *out);
TSR_API tsr_status tsr_std(const tsr_tensor *a, const int64_t *dims, int ndims, int64_t correction,
                           bool keepdim, tsr_tensor **result);
TSR_API tsr_status tsr_std_out(const tsr_tensor *a, const int64_t *dims, int ndims,
                               int64_t correction, bool keepdim, tsr_tensor *out);
/* torch.norm(a, p, dims, keepdim) for p = 1, 2 and INFINITY (others are
 * TSR_ERR_NOT_SUPPORTED): sum |x|, sqrt(sum |x|^2), max |x| (0 over
 * nothing), in float64, rounded once to a's floating dtype, or a's real
 * dtype for a complex a (complex32 only for p = INFINITY, as PyTorch
 * 1.13); others are PyTorch's "norm(): input dtype should be either
 * floating point or complex. Got Long instead.". out=: a real a is
 * converted to its (real) dtype first; a complex a's norm is converted to
 * it (where PyTorch 1.13 stores its floats over the out='s elements
 * whatever their dtype); an integer or bool out= is "\"norm_cpu\" not
 * implemented for 'Long'". */
TSR_API tsr_status tsr_norm(const tsr_tensor *a, double p, const int64_t *dims, int ndims,
                            bool keepdim, tsr_tensor **result);
TSR_API tsr_status tsr_norm_out(const tsr_tensor *a, double p, const int64_t *dims, int ndims,
                                bool keepdim, tsr_tensor *out);
/* torch.logsumexp(a, dims, keepdim): log(sum(exp(x - m))) + m, m the max
 * along dims with infinities taken as 0, in a's floating dtype (bool and
 * integers in float32, bfloat16 through float32; float16 refused as
 * PyTorch 1.13's cpu refuses its exp). out= must be floating
 * ("logsumexp(): Expected floating point type for result tensor, but got:
 * Long"): the exponentials are summed into its dtype and the log and the
 * max's addition taken there (a float16 one is PyTorch's refusal of its
 * log); a complex a is "\"max_values_cpu\" not implemented for
 * 'ComplexFloat'". */
TSR_API tsr_status tsr_logsumexp(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,
                                 tsr_tensor **result);
TSR_API tsr_status tsr_logsumexp_out(const tsr_tensor *a, const int64_t *dims, int ndims,
                                     bool keepdim, tsr_tensor *out);
/* torch.softmax / torch.log_softmax(a, dim, dtype=): exp(x - m) / sum and
 * (x - m) - log(sum), m the max along dim; a converted to dtype first
 * (TSR_NO_DTYPE: none); float32, float64 and bfloat16 (through float32),
 * others refused with PyTorch's message ("\"softmax_lastdim_kernel_impl\"
 * not implemented for 'Long'"). out= must have the result's dtype
 * ("Expected out tensor to have dtype float, but got double instead"). */
TSR_API tsr_status tsr_softmax(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                               tsr_tensor **result);
TSR_API tsr_status tsr_softmax_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                                   tsr_tensor *out);
TSR_API tsr_status tsr_log_softmax(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                                   tsr_tensor **result);
TSR_API tsr_status tsr_log_softmax_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                                       tsr_tensor *out);
/* torch.cumsum(a, dim, dtype=): the running sums along dim, in dtype (or
 * a's floating or complex dtype, int64 for bool and the integers),
 * accumulated as PyTorch 1.13's cpu does (double for float32 and float64,
 * float for bfloat16, int64 wrapping for the integers) and each rounded
 * once: PyTorch's bits. float16 is PyTorch's "\"cumsum_out_cpu\" not
 * implemented for 'Half'". out='s dtype is the dtype the sums are taken
 * in (a dtype= must be it: "Expected out tensor to have dtype double, but
 * got float instead"). On the host: an accelerator tensor is copied there
 * and back. */
TSR_API tsr_status tsr_cumsum(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                              tsr_tensor **result);
TSR_API tsr_status tsr_cumsum_out(const tsr_tensor *a, int64_t dim, tsr_dtype dtype,
                                  tsr_tensor *out);

/* ---- Every operation by number -------------------------------------- */
/* An elementwise operation's number: stable across releases (it is the
 * op table's wire number), so bindings may keep it. */
typedef uint32_t tsr_op;

/* The operation called `name` ("add", "isnan", "div_floor", ...): TSR_OK,
 * or TSR_ERR_INVALID_ARGUMENT when none is (or for NULL). *op is written
 * only on success. */
TSR_API tsr_status tsr_op_from_name(const char *name, tsr_op *op);
/* Its name (static storage), or NULL for a number that is no operation. */
TSR_API const char *tsr_op_name(tsr_op op);
/* Its tensor inputs (1, 2 or 3), or -1 for a number that is no operation. */
TSR_API int tsr_op_arity(tsr_op op);
/* Runs `op` on `ninputs` tensors (its arity), as its own function does:
 * into `out` when it is not NULL (out=), else into a new *result. add and
 * sub take alpha 1; where takes (cond, a, b), clamp (self, min, max),
 * clamp_min and clamp_max (self, bound); div is true division (div_trunc and div_floor are
 * operations of their own). Statuses: those of the operation's function;
 * TSR_ERR_INVALID_ARGUMENT for an unknown op, a wrong count or NULL. */
TSR_API tsr_status tsr_elementwise(tsr_op op, const tsr_tensor *const *inputs, size_t ninputs,
                                   tsr_tensor *out, tsr_tensor **result);
/* The same with Python numbers among the inputs: a NULL inputs[j] is
 * numbers[j] (read only there; numbers may be NULL when no input is),
 * taken as the operation's own number-taking function takes it, with its
 * promotion (a wrapped number) and messages. A number may be the second
 * input of a binary operation (as tsr_add_scalar; pow as tsr_pow_scalar),
 * its first (PyTorch's reflected forms, 2 - x: a zero-dim cpu tensor of
 * the result dtype; pow as tsr_pow_scalar_self), where's second and
 * third (no out=, as in PyTorch 1.13), clamp's two bounds together and
 * clamp_min's or clamp_max's bound (tsr_clamp_scalar), lerp's weight
 * (tsr_lerp_scalar). A number elsewhere, no tensor at all, or a number
 * of another kind is TSR_ERR_INVALID_ARGUMENT; otherwise as
 * tsr_elementwise. */
TSR_API tsr_status tsr_elementwise_scalar(tsr_op op, const tsr_tensor *const *inputs,
                                          const tsr_scalar *numbers, size_t ninputs,
                                          tsr_tensor *out, tsr_tensor **result);

/* torch.get_num_threads(): the threads the cpu device computes an
 * operation on, this one included. TESSERA_NUM_THREADS when it is set to
 * a positive number, else the CPUs this process may use: its affinity
 * mask (taskset, a cpuset) bounded by its control group's CPU quota
 * (cgroup v2 cpu.max or v1 cpu.cfs_quota_us, the smallest on the way to
 * the root: systemd's CPUQuota=, a container's CPU limit), rounded up; at
 * most 16. Decided at the first parallel operation (or this call), then
 * fixed for the life of the process. */
TSR_API int tsr_get_num_threads(void);

/* ---- Copies, fill, conversion --------------------------------------- */

/* dst.copy_(src): src broadcast to dst's shape, converted to dst's dtype
 * (tsr_cast_buffer's rules, every dtype including the shell ones), across
 * devices too (the explicit host <-> accelerator transfer). dst must not
 * overlap itself; a partial overlap with src is PyTorch's error. */
TSR_API tsr_status tsr_tensor_copy_(tsr_tensor *dst, const tsr_tensor *src);

/* t.fill_(value): value converted as tsr_tensor_full converts it. */
TSR_API tsr_status tsr_tensor_fill_(tsr_tensor *t, tsr_scalar value);

/* t.to(device, dtype, copy=copy, memory_format=...): options->has_device /
 * has_dtype / has_memory_format select what changes (the memory format
 * defaults to preserve). When nothing changes and !copy, *out is t itself
 * (one more reference), as in PyTorch. `client` reaches accelerator memory
 * for a cpu or meta t; NULL means t's own client. */
TSR_API tsr_status tsr_tensor_to(tsr_client *client, const tsr_tensor *t,
                                 const tsr_tensor_options *options, bool copy, tsr_tensor **out);

/* t.clone(memory_format=format): a new tensor on t's device with t's
 * values; TSR_PRESERVE_FORMAT keeps t's strides when they are dense and
 * non-overlapping, else suggests a format as PyTorch does. */
TSR_API tsr_status tsr_tensor_clone(const tsr_tensor *t, tsr_memory_format format,
                                    tsr_tensor **out);

/* t.contiguous(memory_format=format): t itself (one more reference) when it
 * is already contiguous in `format`, else a copy that is. Preserve format
 * reads as contiguous format in that first test (as in PyTorch); a tensor
 * that fails it is TSR_ERR_RUNTIME "preserve memory format is unsupported
 * by the contiguous operator". */
TSR_API tsr_status tsr_tensor_contiguous(const tsr_tensor *t, tsr_memory_format format,
                                         tsr_tensor **out);

/* Waits until every operation this client queued on `device` has finished
 * (an index-less accelerator means the current device; cpu and meta return
 * at once) and reports the first error one of them met. */
TSR_API tsr_status tsr_synchronize(tsr_client *client, tsr_device device);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_OPS_H */
