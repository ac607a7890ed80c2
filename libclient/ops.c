/* The elementwise operations of tessera/ops.h: add, sub, mul and div in
 * their three forms (new result, out=, in place), each with a tensor or a
 * Python number as its second operand; the op table's generated ones
 * (TENSOR, SCALAR and UNARY rows); and tsr_elementwise, which reaches
 * every one of them by number. All of them are one call into the planner
 * (libclient/plan.c), which owns the semantics. */
#include <string.h>

#include "core/error.h"
#include "libclient/plan.h"
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
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, b, NULL, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_where_out(const tsr_tensor *cond, const tsr_tensor *a, const tsr_tensor *b,
                         tsr_tensor *out)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, b, NULL, TSR__OUT_GIVEN, out, NULL);
}

tsr_status tsr_where_scalar(const tsr_tensor *cond, const tsr_tensor *a, tsr_scalar b,
                            tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, a, NULL, NULL, &b, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_where_scalar_self(const tsr_tensor *cond, tsr_scalar a, const tsr_tensor *b,
                                 tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, NULL, &a, b, NULL, TSR__OUT_NEW, NULL, result);
}

tsr_status tsr_where_scalars(const tsr_tensor *cond, tsr_scalar a, tsr_scalar b,
                             tsr_tensor **result)
{
    return tsr__ternary_op(TSR__KOP_WHERE, cond, NULL, &a, NULL, &b, TSR__OUT_NEW, NULL, result);
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
        return tsr__ternary_op(TSR__KOP_CLAMP, self, min, NULL, max, NULL, mode, out, result);
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
    if (info->arity == 3)
        return tsr__ternary_op(op, inputs[0], inputs[1], NULL, inputs[2], NULL,
                               out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
    if ((info->flags & TSR__KOPF_ALPHA) != 0) {
        tsr_scalar one = tsr_scalar_int(1);
        return tsr__binary_op(op, inputs[0], inputs[1], NULL, &one,
                              out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
    }
    return tsr__binary_op(op, inputs[0], ninputs > 1 ? inputs[1] : NULL, NULL, NULL,
                          out ? TSR__OUT_GIVEN : TSR__OUT_NEW, out, result);
}
