/* The elementwise operations of tessera/ops.h: add, sub, mul and div in
 * their three forms (new result, out=, in place), each with a tensor or a
 * Python number as its second operand; the op table's generated ones
 * (TENSOR, SCALAR and UNARY rows); and tsr_elementwise, which reaches
 * every one of them by number. All of them are one call into the planner
 * (libclient/plan.c), which owns the semantics. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/dtype.h"
#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/threadpool.h"
#include "libclient/plan.h"
#include "libclient/tensor_internal.h"
#include "tessera/convert.h"
#include "tessera/ops.h"

static tsr_status rounding_op(tsr_rounding_mode mode, tsr__kernel_op *op)
{
    switch (mode) {
    case TSR_ROUNDING_NONE:
        *op = TSR__KOP_DIV;
        return TSR_OK;
    case TSR_ROUNDING_TRUNC:
        *op = TSR__KOP_DIV_TRUNC;
        return TSR_OK;
    case TSR_ROUNDING_FLOOR:
        *op = TSR__KOP_DIV_FLOOR;
        return TSR_OK;
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                     "mode %d",
                     (int)mode);
}

/* The six entry points of one operation, with or without alpha. */
#define ALPHA_OP(name, OP)                                                                  \
    tsr_status tsr_##name(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,       \
                          tsr_tensor **result)                                              \
    {                                                                                       \
        return tsr__binary_op(OP, a, b, NULL, &alpha, TSR__OUT_NEW, NULL, result);          \
    }                                                                                       \
    tsr_status tsr_##name##_out(const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha, \
                                tsr_tensor *out)                                            \
    {                                                                                       \
        return tsr__binary_op(OP, a, b, NULL, &alpha, TSR__OUT_GIVEN, out, NULL);           \
    }                                                                                       \
    tsr_status tsr_##name##_(tsr_tensor *self, const tsr_tensor *b, tsr_scalar alpha)       \
    {                                                                                       \
        return tsr__binary_op(OP, self, b, NULL, &alpha, TSR__OUT_INPLACE, self, NULL);     \
    }                                                                                       \
    tsr_status tsr_##name##_scalar(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha,     \
                                   tsr_tensor **result)                                     \
    {                                                                                       \
        return tsr__binary_op(OP, a, NULL, &b, &alpha, TSR__OUT_NEW, NULL, result);         \
    }                                                                                       \
    tsr_status tsr_##name##_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_scalar alpha, \
                                       tsr_tensor *out)                                     \
    {                                                                                       \
        return tsr__binary_op(OP, a, NULL, &b, &alpha, TSR__OUT_GIVEN, out, NULL);          \
    }                                                                                       \
    tsr_status tsr_##name##_scalar_(tsr_tensor *self, tsr_scalar b, tsr_scalar alpha)       \
    {                                                                                       \
        return tsr__binary_op(OP, self, NULL, &b, &alpha, TSR__OUT_INPLACE, self, NULL);    \
    }

ALPHA_OP(add, TSR__KOP_ADD)
ALPHA_OP(sub, TSR__KOP_SUB)

tsr_status tsr_mul(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result)
{
    return tsr__binary_op(TSR__KOP_MUL, a, b, NULL, NULL, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_mul_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out)
{
    return tsr__binary_op(TSR__KOP_MUL, a, b, NULL, NULL, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_mul_(tsr_tensor *self, const tsr_tensor *b)
{
    return tsr__binary_op(TSR__KOP_MUL, self, b, NULL, NULL, TSR__OUT_INPLACE, self, NULL);
}

tsr_status tsr_mul_scalar(const tsr_tensor *a, tsr_scalar b, tsr_tensor **result)
{
    return tsr__binary_op(TSR__KOP_MUL, a, NULL, &b, NULL, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_mul_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_tensor *out)
{
    return tsr__binary_op(TSR__KOP_MUL, a, NULL, &b, NULL, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_mul_scalar_(tsr_tensor *self, tsr_scalar b)
{
    return tsr__binary_op(TSR__KOP_MUL, self, NULL, &b, NULL, TSR__OUT_INPLACE, self, NULL);
}

/* div: the rounding mode picks the kernel operation. */
static tsr_status div_op(const tsr_tensor *a, const tsr_tensor *b, const tsr_scalar *b_scalar,
                         tsr_rounding_mode mode, tsr__out_mode out_mode, tsr_tensor *out,
                         tsr_tensor **result)
{
    tsr__kernel_op op = TSR__KOP_DIV;
    tsr_status st = rounding_op(mode, &op);
    if (st != TSR_OK)
        return st;
    return tsr__binary_op(op, a, b, b_scalar, NULL, out_mode, out, result);
}

tsr_status tsr_div(const tsr_tensor *a, const tsr_tensor *b, tsr_rounding_mode mode,
                   tsr_tensor **result)
{
    return div_op(a, b, NULL, mode, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_div_out(const tsr_tensor *a, const tsr_tensor *b, tsr_rounding_mode mode,
                       tsr_tensor *out)
{
    return div_op(a, b, NULL, mode, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_div_(tsr_tensor *self, const tsr_tensor *b, tsr_rounding_mode mode)
{
    return div_op(self, b, NULL, mode, TSR__OUT_INPLACE, self, NULL);
}

tsr_status tsr_div_scalar(const tsr_tensor *a, tsr_scalar b, tsr_rounding_mode mode,
                          tsr_tensor **result)
{
    return div_op(a, NULL, &b, mode, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_div_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_rounding_mode mode,
                              tsr_tensor *out)
{
    return div_op(a, NULL, &b, mode, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_div_scalar_(tsr_tensor *self, tsr_scalar b, tsr_rounding_mode mode)
{
    return div_op(self, NULL, &b, mode, TSR__OUT_INPLACE, self, NULL);
}

/* ---- gelu: the approximation picks the kernel operation ---------------- */

#define GELU_BAD_APPROXIMATE "approximate argument must be either none or tanh."

tsr_status tsr_gelu_approximate_from_name(const char *name, tsr_gelu_approximate *out)
{
    if (name && strcmp(name, "none") == 0)
        *out = TSR_GELU_NONE;
    else if (name && strcmp(name, "tanh") == 0)
        *out = TSR_GELU_TANH;
    else
        return tsr__fail(TSR_ERR_RUNTIME, GELU_BAD_APPROXIMATE);
    return TSR_OK;
}

static tsr_status gelu_op(const tsr_tensor *a, tsr_gelu_approximate approximate,
                          tsr__out_mode out_mode, tsr_tensor *out, tsr_tensor **result)
{
    if (approximate != TSR_GELU_NONE && approximate != TSR_GELU_TANH)
        return tsr__fail(TSR_ERR_RUNTIME, GELU_BAD_APPROXIMATE);
    tsr__kernel_op op = approximate == TSR_GELU_TANH ? TSR__KOP_GELU_TANH : TSR__KOP_GELU;
    return tsr__binary_op(op, a, NULL, NULL, NULL, out_mode, out, result);
}

tsr_status tsr_gelu(const tsr_tensor *a, tsr_gelu_approximate approximate, tsr_tensor **result)
{
    return gelu_op(a, approximate, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_gelu_out(const tsr_tensor *a, tsr_gelu_approximate approximate, tsr_tensor *out)
{
    return gelu_op(a, approximate, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_gelu_(tsr_tensor *self, tsr_gelu_approximate approximate)
{
    return gelu_op(self, approximate, TSR__OUT_INPLACE, self, NULL);
}

/* ---- where ------------------------------------------------------------ */

tsr_status tsr_where(const tsr_tensor *cond, const tsr_tensor *a, const tsr_tensor *b,
                     tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, b, NULL, NULL, TSR__OUT_NEW, NULL,
                           result);
}

tsr_status tsr_where_out(const tsr_tensor *cond, const tsr_tensor *a, const tsr_tensor *b,
                         tsr_tensor *out)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, b, NULL, NULL, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_where_scalar(const tsr_tensor *cond, const tsr_tensor *a, tsr_scalar b,
                            tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, NULL, &b, NULL, TSR__OUT_NEW, NULL,
                           result);
}

tsr_status tsr_where_scalar_self(const tsr_tensor *cond, tsr_scalar a, const tsr_tensor *b,
                                 tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, NULL, &a, b, NULL, NULL, TSR__OUT_NEW, NULL,
                           result);
}

tsr_status tsr_where_scalars(const tsr_tensor *cond, tsr_scalar a, tsr_scalar b,
                             tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, NULL, &a, NULL, &b, NULL, TSR__OUT_NEW, NULL,
                           result);
}

/* ---- clamp with tensor bounds --------------------------------------------- */

/* Both bounds: the operation of three inputs; one: clamp_min (maximum's
 * loop) or clamp_max (minimum's), as PyTorch 1.13 runs them. */
static tsr_status clamp_op(const tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max,
                           tsr__out_mode mode, tsr_tensor *out, tsr_tensor **result)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (min == NULL && max == NULL)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "torch.clamp: At least one of 'min' or 'max' must not be None");
    if (tsr_dtype_is_complex(self->dtype))
        return tsr__fail(TSR_ERR_RUNTIME, "clamp is not supported for complex types");
    if (min && max)
        return tsr__ternary_op(TSR__KOP_CLAMP, self, min, NULL, max, NULL, NULL, mode, out, result);
    return tsr__binary_op(min ? TSR__KOP_CLAMP_MIN : TSR__KOP_CLAMP_MAX, self, min ? min : max,
                          NULL, NULL, mode, out, result);
}

tsr_status tsr_clamp(const tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max,
                     tsr_tensor **result)
{
    return clamp_op(self, min, max, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_clamp_out(const tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max,
                         tsr_tensor *out)
{
    return clamp_op(self, min, max, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_clamp_(tsr_tensor *self, const tsr_tensor *min, const tsr_tensor *max)
{
    return clamp_op(self, min, max, TSR__OUT_INPLACE, self, NULL);
}

/* ---- clamp with Python-number bounds ------------------------------------------ */

/* PyTorch 1.13's clamp.Scalar: a floating self keeps its dtype, another
 * meets the bounds as wrapped numbers (bool with int bounds gives int64,
 * int with a float bound the default dtype); an in-place self must keep
 * its dtype. */
static tsr_status clamp_scalar_type(const tsr_tensor *self, const tsr_scalar *min,
                                    const tsr_scalar *max, bool inplace, tsr_dtype *result)
{
    *result = self->dtype;
    if (tsr_dtype_is_complex(self->dtype))
        return tsr__fail(TSR_ERR_RUNTIME, "clamp is not supported for complex types");
    if (tsr_dtype_is_floating_point(self->dtype))
        return TSR_OK;
    tsr_operand ops[3] = {
        {self->geometry.ndim ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM, self->dtype}};
    size_t n = 1;
    if (min)
        ops[n++] = (tsr_operand){TSR_OPERAND_SCALAR, min->kind};
    if (max)
        ops[n++] = (tsr_operand){TSR_OPERAND_SCALAR, max->kind};
    tsr_status st = tsr_result_type(ops, n, result);
    if (st != TSR_OK)
        return st;
    if (inplace && *result != self->dtype)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "result type %s can't be cast to the desired output type %s",
                         tsr_dtype_message_name(*result), tsr__dtype_cpp_name(self->dtype));
    if (tsr_dtype_is_complex(*result))
        return tsr__fail(TSR_ERR_RUNTIME, "clamp is not supported for complex types");
    return TSR_OK;
}

static tsr_status clamp_scalar_op(const tsr_tensor *self, const tsr_scalar *min,
                                  const tsr_scalar *max, tsr__out_mode mode, tsr_tensor *out,
                                  tsr_tensor **result)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (min == NULL && max == NULL)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "torch.clamp: At least one of 'min' or 'max' must not be None");
    tsr_dtype type;
    tsr_status st = clamp_scalar_type(self, min, max, mode == TSR__OUT_INPLACE, &type);
    if (st != TSR_OK)
        return st;
    /* With both bounds PyTorch reads each as a double first, to fill the
     * output with NaN where one is NaN (which the element function
     * gives). */
    const tsr_scalar *both[2] = {min, max};
    for (int k = 0; k < 2 && min && max; k++)
        if (both[k]->kind == TSR_COMPLEX128 && both[k]->v.c[1] != 0)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "value cannot be converted to type double without overflow");
    tsr_tensor *converted = NULL;
    const tsr_tensor *src = self;
    if (type != self->dtype) { /* self.to(result type), as PyTorch runs it */
        tsr_tensor_options o = {0};
        o.has_dtype = true;
        o.dtype = type;
        if ((st = tsr_tensor_to(NULL, self, &o, false, &converted)) != TSR_OK)
            return st;
        src = converted;
    }
    if (min && max)
        st = tsr__ternary_op(TSR__KOP_CLAMP_SCALAR, src, NULL, min, NULL, max, NULL, mode, out,
                             result);
    else
        st = tsr__binary_op(min ? TSR__KOP_CLAMP_MIN_SCALAR : TSR__KOP_CLAMP_MAX_SCALAR, src, NULL,
                            NULL, min ? min : max, mode, out, result);
    tsr_tensor_release(converted);
    return st;
}

tsr_status tsr_clamp_scalar(const tsr_tensor *self, const tsr_scalar *min, const tsr_scalar *max,
                            tsr_tensor **result)
{
    return clamp_scalar_op(self, min, max, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_clamp_scalar_out(const tsr_tensor *self, const tsr_scalar *min,
                                const tsr_scalar *max, tsr_tensor *out)
{
    return clamp_scalar_op(self, min, max, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_clamp_scalar_(tsr_tensor *self, const tsr_scalar *min, const tsr_scalar *max)
{
    return clamp_scalar_op(self, min, max, TSR__OUT_INPLACE, self, NULL);
}

/* ---- lerp, addcmul, addcdiv ------------------------------------------------ */

/* lerp's own checks, before the iterator's: `end` (and a tensor weight)
 * must have start's dtype, named as c10 names its C++ types. */
static tsr_status lerp_dtype(const tsr_tensor *start, const tsr_tensor *other, const char *what)
{
    if (other == NULL || other->dtype == start->dtype)
        return TSR_OK;
    return tsr__fail(TSR_ERR_RUNTIME, "expected dtype %s for `%s` but got dtype %s",
                     tsr__dtype_cpp_name(start->dtype), what, tsr__dtype_cpp_name(other->dtype));
}

static tsr_status lerp_op(const tsr_tensor *start, const tsr_tensor *end, const tsr_tensor *weight,
                          const tsr_scalar *number, tsr__out_mode mode, tsr_tensor *out,
                          tsr_tensor **result)
{
    if (start == NULL || end == NULL || (weight == NULL && number == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    tsr_status st = lerp_dtype(start, end, "end");
    if (st == TSR_OK)
        st = lerp_dtype(start, weight, "weight");
    if (st != TSR_OK)
        return st;
    if (weight)
        return tsr__ternary_op(TSR__KOP_LERP, start, end, NULL, weight, NULL, NULL, mode, out,
                               result);
    return tsr__binary_op(TSR__KOP_LERP_SCALAR, start, end, NULL, number, mode, out, result);
}

tsr_status tsr_lerp(const tsr_tensor *start, const tsr_tensor *end, const tsr_tensor *weight,
                    tsr_tensor **result)
{
    return lerp_op(start, end, weight, NULL, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_lerp_out(const tsr_tensor *start, const tsr_tensor *end, const tsr_tensor *weight,
                        tsr_tensor *out)
{
    return lerp_op(start, end, weight, NULL, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_lerp_(tsr_tensor *self, const tsr_tensor *end, const tsr_tensor *weight)
{
    return lerp_op(self, end, weight, NULL, TSR__OUT_INPLACE, self, NULL);
}

tsr_status tsr_lerp_scalar(const tsr_tensor *start, const tsr_tensor *end, tsr_scalar weight,
                           tsr_tensor **result)
{
    return lerp_op(start, end, NULL, &weight, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_lerp_scalar_out(const tsr_tensor *start, const tsr_tensor *end, tsr_scalar weight,
                               tsr_tensor *out)
{
    return lerp_op(start, end, NULL, &weight, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_lerp_scalar_(tsr_tensor *self, const tsr_tensor *end, tsr_scalar weight)
{
    return lerp_op(self, end, NULL, &weight, TSR__OUT_INPLACE, self, NULL);
}

/* addcdiv refuses two integer (or bool) divisor operands first. */
static tsr_status addc_op(tsr__kernel_op op, const tsr_tensor *self, const tsr_tensor *t1,
                          const tsr_tensor *t2, tsr_scalar value, tsr__out_mode mode,
                          tsr_tensor *out, tsr_tensor **result)
{
    if (op == TSR__KOP_ADDCDIV && t1 && t2 &&
        (tsr_dtype_is_integral(t1->dtype) || t1->dtype == TSR_BOOL) &&
        (tsr_dtype_is_integral(t2->dtype) || t2->dtype == TSR_BOOL))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Integer division with addcdiv is no longer supported, and in a future  "
                         "release addcdiv will perform a true division of tensor1 and tensor2. The "
                         "historic addcdiv behavior can be implemented as (input + value * "
                         "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and "
                         "as (input + value * tensor1 / tensor2) for float inputs. The future "
                         "addcdiv behavior is just the latter implementation: (input + value * "
                         "tensor1 / tensor2), for all dtypes.");
    return tsr__ternary_op(op, self, t1, NULL, t2, NULL, &value, mode, out, result);
}

#define ADDC_OP(name, OP)                                                                     \
    tsr_status tsr_##name(const tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2, \
                          tsr_scalar value, tsr_tensor **result)                              \
    {                                                                                         \
        return addc_op(OP, self, t1, t2, value, TSR__OUT_NEW, NULL, result);                  \
    }                                                                                         \
    tsr_status tsr_##name##_out(const tsr_tensor *self, const tsr_tensor *t1,                 \
                                const tsr_tensor *t2, tsr_scalar value, tsr_tensor *out)      \
    {                                                                                         \
        return addc_op(OP, self, t1, t2, value, TSR__OUT_GIVEN, out, NULL);                   \
    }                                                                                         \
    tsr_status tsr_##name##_(tsr_tensor *self, const tsr_tensor *t1, const tsr_tensor *t2,    \
                             tsr_scalar value)                                                \
    {                                                                                         \
        return addc_op(OP, self, t1, t2, value, TSR__OUT_INPLACE, self, NULL);                \
    }

ADDC_OP(addcmul, TSR__KOP_ADDCMUL)
ADDC_OP(addcdiv, TSR__KOP_ADDCDIV)

/* ---- pow ------------------------------------------------------------------ */

/* The result dtype of pow with a Python number (either side). */
static tsr_status pow_type(const tsr_tensor *t, tsr_scalar number, tsr_dtype *type)
{
    tsr_operand ops[2] = {{t->geometry.ndim ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM, t->dtype},
                          {TSR_OPERAND_SCALAR, number.kind}};
    return tsr_result_type(ops, 2, type);
}

static tsr_status pow_op(const tsr_tensor *a, const tsr_tensor *b, tsr__out_mode mode,
                         tsr_tensor *out, tsr_tensor **result)
{
    return tsr__binary_op(TSR__KOP_POW, a, b, NULL, NULL, mode, out, result);
}

/* PyTorch 1.13's pow.Tensor_Scalar: a bool or integer self refuses a
 * negative integer exponent first; an integer, float16 or bfloat16
 * result takes the exponent through Scalar::to (its overflow message),
 * float32 and float64 read it as a double, complex results as a complex
 * number of their parts' type. */
static tsr_status pow_scalar_op(const tsr_tensor *self, tsr_scalar exponent, tsr__out_mode mode,
                                tsr_tensor *out, tsr_tensor **result)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if ((tsr_dtype_is_integral(self->dtype) || self->dtype == TSR_BOOL) &&
        exponent.kind == TSR_INT64 && exponent.v.i < 0)
        return tsr__fail(TSR_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    tsr_dtype type;
    tsr_status st = pow_type(self, exponent, &type);
    unsigned char element[16];
    if (st == TSR_OK && type != TSR_FLOAT32 && type != TSR_FLOAT64 && type != TSR_BOOL &&
        !tsr_dtype_is_complex(type))
        st = tsr__scalar_to_element(exponent, type, element);
    if (st != TSR_OK)
        return st;
    if (exponent.kind == TSR_BOOL && tsr_dtype_is_complex(type)) {
        /* no shortcut for False and True (not equal to 0 and 1): cpow,
         * after the out= (self) dtype check of this overload */
        const tsr_tensor *w = mode == TSR__OUT_NEW ? NULL : out;
        if (w && w->dtype != type)
            return tsr__fail(TSR_ERR_RUNTIME, "Found dtype %s but expected %s",
                             tsr_dtype_message_name(w->dtype), tsr_dtype_message_name(type));
        tsr_tensor_options o = {0};
        o.has_device = true;
        o.device = (tsr_device){TSR_DEVICE_CPU, -1};
        tsr_tensor *e = NULL;
        if ((st = tsr_tensor_from_data(NULL, 0, NULL, TSR_BOOL, &exponent.v.b, &o, &e)) != TSR_OK)
            return st;
        st = tsr__binary_op(TSR__KOP_POW, self, e, NULL, NULL, mode, out, result);
        tsr_tensor_release(e);
        return st;
    }
    return tsr__binary_op(TSR__KOP_POW_SCALAR, self, NULL, &exponent, NULL, mode, out, result);
}

/* PyTorch's wrapped number: a zero-dim cpu tensor of `type` holding
 * number, converted as a cast converts (no overflow check). */
static tsr_status wrapped_number(tsr_scalar number, tsr_dtype type, tsr_tensor **out)
{
    tsr_tensor_options o = {0};
    o.has_dtype = o.has_device = true;
    o.dtype = type;
    o.device = (tsr_device){TSR_DEVICE_CPU, -1};
    const void *data = number.kind == TSR_BOOL    ? (const void *)&number.v.b
                       : number.kind == TSR_INT64 ? (const void *)&number.v.i
                                                  : (const void *)&number.v.f;
    return tsr_tensor_from_data(NULL, 0, NULL, number.kind, data, &o, out);
}

/* pow.Scalar: the number is the base, the exponent a tensor, computed as
 * tensor ^ tensor with the base a zero-dim cpu tensor of the result
 * dtype (converted as PyTorch casts a wrapped number: no overflow
 * check). PyTorch allocates this result (and resizes an empty out= of
 * another shape) contiguous, whatever the exponent's layout. A base
 * equal to 1 (not True) fills the result with 1 without computing or
 * checking the cast to out=, as PyTorch does (complex cpow(1, y) would
 * be NaN for a NaN or infinite y). */
static tsr_status pow_scalar_self_op(tsr_scalar self, const tsr_tensor *exponent,
                                     tsr__out_mode mode, tsr_tensor *out, tsr_tensor **result)
{
    if (exponent == NULL || (mode == TSR__OUT_GIVEN && out == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    tsr_dtype type;
    tsr_status st = pow_type(exponent, self, &type);
    if (st != TSR_OK)
        return st;
    const tsr_geometry *g = &exponent->geometry;
    bool resize = mode == TSR__OUT_GIVEN && out->numel == 0 &&
                  (out->geometry.ndim != g->ndim ||
                   memcmp(out->geometry.sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim) != 0);
    tsr_tensor *base = NULL, *fresh = NULL;
    if ((st = wrapped_number(self, type, &base)) != TSR_OK)
        return st;
    bool one = self.kind == TSR_INT64            ? self.v.i == 1
               : self.kind == TSR_BOOL           ? false
               : tsr_dtype_is_complex(self.kind) ? self.v.c[0] == 1 && self.v.c[1] == 0
                                                 : self.v.f == 1;
    if (mode == TSR__OUT_GIVEN && !resize) {
        bool same = out->geometry.ndim == g->ndim &&
                    memcmp(out->geometry.sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim) == 0;
        st = one && same
                 ? TSR_OK
                 : tsr__binary_op(TSR__KOP_POW, base, exponent, NULL, NULL, mode, out, NULL);
        tsr_tensor_release(base);
        if (st == TSR_OK && one)
            st = tsr_tensor_fill_(out, tsr_scalar_int(1));
        return st;
    }
    tsr_tensor_options o = {0};
    o.has_dtype = true;
    o.dtype = resize ? out->dtype : type;
    o.has_memory_format = true;
    o.memory_format = TSR_CONTIGUOUS_FORMAT;
    if ((st = tsr_tensor_empty_like(exponent, &o, &fresh)) == TSR_OK)
        st = one ? tsr_tensor_fill_(fresh, tsr_scalar_int(1))
                 : tsr__binary_op(TSR__KOP_POW, base, exponent, NULL, NULL, TSR__OUT_GIVEN, fresh,
                                  NULL);
    tsr_tensor_release(base);
    if (st != TSR_OK)
        tsr_tensor_release(fresh);
    else if (resize)
        tsr__plan_adopt_storage(out, fresh);
    else
        *result = fresh;
    return st;
}

tsr_status tsr_pow(const tsr_tensor *self, const tsr_tensor *exponent, tsr_tensor **result)
{
    return pow_op(self, exponent, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_pow_out(const tsr_tensor *self, const tsr_tensor *exponent, tsr_tensor *out)
{
    return pow_op(self, exponent, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_pow_(tsr_tensor *self, const tsr_tensor *exponent)
{
    return pow_op(self, exponent, TSR__OUT_INPLACE, self, NULL);
}

tsr_status tsr_pow_scalar(const tsr_tensor *self, tsr_scalar exponent, tsr_tensor **result)
{
    return pow_scalar_op(self, exponent, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_pow_scalar_out(const tsr_tensor *self, tsr_scalar exponent, tsr_tensor *out)
{
    return pow_scalar_op(self, exponent, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_pow_scalar_(tsr_tensor *self, tsr_scalar exponent)
{
    return pow_scalar_op(self, exponent, TSR__OUT_INPLACE, self, NULL);
}

tsr_status tsr_pow_scalar_self(tsr_scalar self, const tsr_tensor *exponent, tsr_tensor **result)
{
    return pow_scalar_self_op(self, exponent, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_pow_scalar_self_out(tsr_scalar self, const tsr_tensor *exponent, tsr_tensor *out)
{
    return pow_scalar_self_op(self, exponent, TSR__OUT_GIVEN, out, NULL);
}

/* ---- nan_to_num ------------------------------------------------------------- */

/* One of nan_to_num's numbers in a floating dtype d, in its slot
 * (core/kernel.h): `value` as PyTorch's static_cast<scalar_t>(double)
 * gives it (float16 and bfloat16 through float), or for None d's largest
 * finite number (its lowest when `lowest`). */
static void replacement(tsr_dtype d, const double *value, bool lowest, uint8_t *slot)
{
    static const uint64_t largest[TSR_DTYPE_COUNT] = {[TSR_FLOAT16] = 0x7BFF,
                                                      [TSR_BFLOAT16] = 0x7F7F,
                                                      [TSR_FLOAT32] = 0x7F7FFFFF,
                                                      [TSR_FLOAT64] = UINT64_C(0x7FEFFFFFFFFFFFFF)};
    unsigned char element[16] = {0};
    uint8_t math[16];
    if (value && d == TSR_FLOAT64) {
        memcpy(element, value, sizeof *value);
    } else if (value) {
        float f = (float)*value;
        (void)tsr_cast_buffer(&f, TSR_FLOAT32, element, d, 1);
    } else {
        size_t w = tsr_dtype_itemsize(d);
        uint64_t bits = largest[d] | (lowest ? UINT64_C(1) << (8 * w - 1) : 0);
        memcpy(element, &bits, w);
    }
    tsr__kernel_alpha_from_element(d, element, math);
    memcpy(slot, math, 8);
}

/* torch.nan_to_num: PyTorch checks the out= dtype first, with its own
 * message; bool and the integers pass through the same kernel; a new
 * result is empty_like(self) (its strides), as PyTorch makes it. */
static tsr_status nan_to_num_op(const tsr_tensor *self, const double *nan, const double *posinf,
                                const double *neginf, tsr__out_mode mode, tsr_tensor *out,
                                tsr_tensor **result)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (mode == TSR__OUT_GIVEN && out && out->dtype != self->dtype)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "nan_to_num: dtype of out: %s should be same as input: %s",
                         tsr_dtype_message_name(out->dtype), tsr_dtype_message_name(self->dtype));
    uint8_t numbers[32] = {0};
    if (tsr_dtype_is_floating_point(self->dtype)) {
        double zero = 0;
        replacement(self->dtype, nan ? nan : &zero, false, numbers);
        replacement(self->dtype, posinf, false, numbers + 8);
        replacement(self->dtype, neginf, true, numbers + 16);
    }
    if (mode != TSR__OUT_NEW)
        return tsr__replace_op(TSR__KOP_NAN_TO_NUM, self, numbers, mode, out, result);
    /* a new result is empty_like(self), written as an out= */
    if (result == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    tsr_tensor *fresh = NULL;
    tsr_status st = tsr_tensor_empty_like(self, NULL, &fresh);
    if (st == TSR_OK)
        st = tsr__replace_op(TSR__KOP_NAN_TO_NUM, self, numbers, TSR__OUT_GIVEN, fresh, NULL);
    if (st != TSR_OK) {
        tsr_tensor_release(fresh);
        return st;
    }
    *result = fresh;
    return TSR_OK;
}

tsr_status tsr_nan_to_num(const tsr_tensor *self, const double *nan, const double *posinf,
                          const double *neginf, tsr_tensor **result)
{
    return nan_to_num_op(self, nan, posinf, neginf, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_nan_to_num_out(const tsr_tensor *self, const double *nan, const double *posinf,
                              const double *neginf, tsr_tensor *out)
{
    return nan_to_num_op(self, nan, posinf, neginf, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_nan_to_num_(tsr_tensor *self, const double *nan, const double *posinf,
                           const double *neginf)
{
    return nan_to_num_op(self, nan, posinf, neginf, TSR__OUT_INPLACE, self, NULL);
}

/* ---- round with decimals ---------------------------------------------------- */

/* PyTorch 1.13's round.decimals: decimals 0 runs round's kernel as it is
 * (integers and bool refused, with no shortcut); otherwise p = 10^|d| as
 * std::pow(10, d) gives it (d negated as int64, so INT64_MIN stays
 * negative and p is 0), cast to the dtype (float32 and bfloat16 through
 * float: inf past FLT_MAX), travels as the row's value. */
static tsr_status round_decimals_op(const tsr_tensor *self, int64_t decimals, tsr__out_mode mode,
                                    tsr_tensor *out, tsr_tensor **result)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (decimals == 0) {
        if (tsr_dtype_is_integral(self->dtype) || self->dtype == TSR_BOOL)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'",
                             tsr__kernel_ops[TSR__KOP_ROUND].stub,
                             tsr_dtype_message_name(self->dtype));
        return mode == TSR__OUT_NEW     ? tsr_round(self, result)
               : mode == TSR__OUT_GIVEN ? tsr_round_out(self, out)
                                        : tsr_round_((tsr_tensor *)self);
    }
    bool negative = decimals < 0;
    int64_t e = negative && decimals != INT64_MIN ? -decimals : decimals;
    double p = pow(10.0, (double)e);
    if (self->dtype != TSR_FLOAT64)
        p = (double)(float)p;
    tsr_scalar value = tsr_scalar_float(p);
    return tsr__binary_op(negative ? TSR__KOP_ROUND_DECIMALS_NEG : TSR__KOP_ROUND_DECIMALS, self,
                          NULL, NULL, &value, mode, out, result);
}

tsr_status tsr_round_decimals(const tsr_tensor *self, int64_t decimals, tsr_tensor **result)
{
    return round_decimals_op(self, decimals, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_round_decimals_out(const tsr_tensor *self, int64_t decimals, tsr_tensor *out)
{
    return round_decimals_op(self, decimals, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_round_decimals_(tsr_tensor *self, int64_t decimals)
{
    return round_decimals_op(self, decimals, TSR__OUT_INPLACE, self, NULL);
}

/* The operations the op table gives tensor-only functions (api TENSOR in
 * core/ops.def): tsr_<name>, tsr_<name>_out and tsr_<name>_. */
#define TENSOR_OP(name, OP)                                                                \
    tsr_status tsr_##name(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result)   \
    {                                                                                      \
        return tsr__binary_op(OP, a, b, NULL, NULL, TSR__OUT_NEW, NULL, result);           \
    }                                                                                      \
    tsr_status tsr_##name##_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out) \
    {                                                                                      \
        return tsr__binary_op(OP, a, b, NULL, NULL, TSR__OUT_GIVEN, out, NULL);            \
    }                                                                                      \
    tsr_status tsr_##name##_(tsr_tensor *self, const tsr_tensor *b)                        \
    {                                                                                      \
        return tsr__binary_op(OP, self, b, NULL, NULL, TSR__OUT_INPLACE, self, NULL);      \
    }
/* The Python-number forms of the SCALAR rows: tsr_<name>_scalar, _out
 * and _. */
#define SCALAR_OP(name, OP)                                                                \
    tsr_status tsr_##name##_scalar(const tsr_tensor *a, tsr_scalar b, tsr_tensor **result) \
    {                                                                                      \
        return tsr__binary_op(OP, a, NULL, &b, NULL, TSR__OUT_NEW, NULL, result);          \
    }                                                                                      \
    tsr_status tsr_##name##_scalar_out(const tsr_tensor *a, tsr_scalar b, tsr_tensor *out) \
    {                                                                                      \
        return tsr__binary_op(OP, a, NULL, &b, NULL, TSR__OUT_GIVEN, out, NULL);           \
    }                                                                                      \
    tsr_status tsr_##name##_scalar_(tsr_tensor *self, tsr_scalar b)                        \
    {                                                                                      \
        return tsr__binary_op(OP, self, NULL, &b, NULL, TSR__OUT_INPLACE, self, NULL);     \
    }

/* The UNARY rows: tsr_<name>, tsr_<name>_out and tsr_<name>_. */
#define UNARY_OP(name, OP)                                                               \
    tsr_status tsr_##name(const tsr_tensor *a, tsr_tensor **result)                      \
    {                                                                                    \
        return tsr__binary_op(OP, a, NULL, NULL, NULL, TSR__OUT_NEW, NULL, result);      \
    }                                                                                    \
    tsr_status tsr_##name##_out(const tsr_tensor *a, tsr_tensor *out)                    \
    {                                                                                    \
        return tsr__binary_op(OP, a, NULL, NULL, NULL, TSR__OUT_GIVEN, out, NULL);       \
    }                                                                                    \
    tsr_status tsr_##name##_(tsr_tensor *self)                                           \
    {                                                                                    \
        return tsr__binary_op(OP, self, NULL, NULL, NULL, TSR__OUT_INPLACE, self, NULL); \
    }

#define TENSOR_OP_INTERNAL(name, OP)
#define TENSOR_OP_HAND(name, OP)
#define TENSOR_OP_TENSOR(name, OP) TENSOR_OP(name, OP)
#define TENSOR_OP_SCALAR(name, OP) TENSOR_OP(name, OP) SCALAR_OP(name, OP)
#define TENSOR_OP_UNARY(name, OP) UNARY_OP(name, OP)
#define TENSOR_OP_REDUCE(name, OP) /* libclient/reduce.c */
#define TENSOR_OP_REDUCE_DTYPE(name, OP)
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) \
    TENSOR_OP_##api(name, TSR__KOP_##ENUM)
#include "core/ops.def"
#undef X

/* ---- every operation by its number ----------------------------------- */

tsr_status tsr_op_from_name(const char *name, tsr_op *op)
{
    if (name == NULL || op == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "name and op must not be NULL");
    for (uint32_t k = 1; k < TSR__KOP_COUNT; k++)
        if (!tsr__kernel_op_has(k, TSR__KOPF_MOVE | TSR__KOPF_REDUCE) &&
            strcmp(tsr__kernel_ops[k].name, name) == 0) {
            *op = k;
            return TSR_OK;
        }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "no elementwise operation is named \"%s\"", name);
}

/* The row of a computing operation, or NULL. */
static const tsr__kernel_op_info *computing(tsr_op op)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    return info && !(info->flags & (TSR__KOPF_MOVE | TSR__KOPF_REDUCE)) ? info : NULL;
}

const char *tsr_op_name(tsr_op op)
{
    const tsr__kernel_op_info *info = computing(op);
    return info ? info->name : NULL;
}

int tsr_op_arity(tsr_op op)
{
    const tsr__kernel_op_info *info = computing(op);
    return info ? (int)info->arity : -1;
}

tsr_status tsr_elementwise(tsr_op op, const tsr_tensor *const *inputs, size_t ninputs,
                           tsr_tensor *out, tsr_tensor **result)
{
    const tsr__kernel_op_info *info = computing(op);
    if (info == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid elementwise operation %u", op);
    if (inputs == NULL || ninputs != info->arity)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s takes %u input tensors, not %zu", info->name,
                         info->arity, inputs ? ninputs : 0);
    /* alpha and a value are 1: add's alpha, addcmul's value (lerp_scalar's
     * weight, which gives `end`) */
    tsr_scalar one = tsr_scalar_int(1);
    const tsr_scalar *value = info->flags & TSR__KOPF_VALUE ? &one : NULL;
    if (info->replace) /* nan_to_num's defaults */
        return nan_to_num_op(inputs[0], NULL, NULL, NULL, out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out,
                             result);
    if (info->arity == 3)
        return tsr__ternary_op(op, inputs[0], inputs[1], NULL, inputs[2], NULL, value,
                               out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
    if ((info->flags & (TSR__KOPF_ALPHA | TSR__KOPF_VALUE)) != 0) {
        return tsr__binary_op(op, inputs[0], info->arity > 1 ? inputs[1] : NULL, NULL, &one,
                              out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
    }
    return tsr__binary_op(op, inputs[0], ninputs > 1 ? inputs[1] : NULL, NULL, NULL,
                          out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
}

/* A Python number standing first (2 - x): PyTorch's wrapped number, a
 * zero-dim cpu tensor of the dtype the operation promotes to, converted
 * as a cast converts (as rsub and pow.Scalar make it). */
static tsr_status number_first(tsr__kernel_op op, tsr_scalar number, const tsr_tensor *b,
                               const tsr_scalar *alpha, tsr__out_mode mode, tsr_tensor *out,
                               tsr_tensor **result)
{
    tsr_dtype type;
    tsr_status st = pow_type(b, number, &type);
    if (st != TSR_OK)
        return st;
    tsr_tensor *a = NULL;
    if ((st = wrapped_number(number, type, &a)) != TSR_OK)
        return st;
    st = tsr__binary_op(op, a, b, NULL, alpha, mode, out, result);
    tsr_tensor_release(a);
    return st;
}

/* Each number goes to the function of op that takes one in its place,
 * so its promotion and messages are that function's. */
tsr_status tsr_elementwise_scalar(tsr_op op, const tsr_tensor *const *inputs,
                                  const tsr_scalar *numbers, size_t ninputs, tsr_tensor *out,
                                  tsr_tensor **result)
{
    const tsr__kernel_op_info *info = computing(op);
    if (info == NULL || inputs == NULL || ninputs != info->arity)
        return tsr_elementwise(op, inputs, ninputs, out, result); /* its messages */
    /* bit j: input j is a number */
    unsigned mask = 0;
    for (size_t j = 0; j < ninputs; j++)
        mask |= (unsigned)(inputs[j] == NULL) << j;
    if (mask == 0)
        return tsr_elementwise(op, inputs, ninputs, out, result);
    if (numbers == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: input %d is NULL and no number is given",
                         info->name, __builtin_ctz(mask));
    for (size_t j = 0; j < ninputs; j++)
        if (inputs[j] == NULL &&
            !(numbers[j].kind == TSR_BOOL || numbers[j].kind == TSR_INT64 ||
              numbers[j].kind == TSR_FLOAT64 || numbers[j].kind == TSR_COMPLEX128))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "%s: input %zu is a number of no kind (expected bool, int64, float64 "
                             "or complex128)",
                             info->name, j);
    tsr__out_mode mode = out ? TSR__OUT_GIVEN : TSR__OUT_NEW;
    tsr_scalar one = tsr_scalar_int(1);
    const tsr_scalar *alpha = info->flags & (TSR__KOPF_ALPHA | TSR__KOPF_VALUE) ? &one : NULL;
    if (op == TSR__KOP_POW && mask == 2)
        return pow_scalar_op(inputs[0], numbers[1], mode, out, result);
    if (op == TSR__KOP_POW && mask == 1)
        return pow_scalar_self_op(numbers[0], inputs[1], mode, out, result);
    if (op == TSR__KOP_WHERE && !(mask & 1)) {
        if (out)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "where: the forms with a Python number have no out=, as in "
                             "PyTorch 1.13");
        return tsr__ternary_op(op, inputs[0], inputs[1], &numbers[1], inputs[2], &numbers[2], NULL,
                               mode, out, result);
    }
    if ((op == TSR__KOP_CLAMP && mask == 6) ||
        ((op == TSR__KOP_CLAMP_MIN || op == TSR__KOP_CLAMP_MAX) && mask == 2))
        return clamp_scalar_op(inputs[0], op == TSR__KOP_CLAMP_MAX ? NULL : &numbers[1],
                               op == TSR__KOP_CLAMP       ? &numbers[2]
                               : op == TSR__KOP_CLAMP_MAX ? &numbers[1]
                                                          : NULL,
                               mode, out, result);
    if (op == TSR__KOP_LERP && mask == 4)
        return lerp_op(inputs[0], inputs[1], NULL, &numbers[2], mode, out, result);
    if (mask == (1u << ninputs) - 1)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: no tensor among its inputs", info->name);
    if (info->arity == 2 && mask == 2)
        return tsr__binary_op(op, inputs[0], NULL, &numbers[1], alpha, mode, out, result);
    if (info->arity == 2 && mask == 1)
        return number_first(op, numbers[0], inputs[1], alpha, mode, out, result);
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s takes no Python number as input %d", info->name,
                     __builtin_ctz(mask));
}

int tsr_get_num_threads(void)
{
    return tsr__threadpool_size();
}
