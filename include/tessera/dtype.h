/* Data types: the 22 dtypes of PyTorch 2.9, their names and properties,
 * type promotion, result_type, the casting rules and the default dtype.
 *
 * Everything here is a pure function of its arguments, except the default
 * dtype, which is process-wide state (as torch.get_default_dtype is). */
#ifndef TESSERA_DTYPE_H
#define TESSERA_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The order is part of the ABI and of the wire protocol: append only. */
typedef enum tsr_dtype {
    TSR_BOOL,
    TSR_UINT8,
    TSR_INT8,
    TSR_UINT16,
    TSR_INT16,
    TSR_UINT32,
    TSR_INT32,
    TSR_UINT64,
    TSR_INT64,
    TSR_FLOAT16,
    TSR_BFLOAT16,
    TSR_FLOAT32,
    TSR_FLOAT64,
    TSR_COMPLEX32,
    TSR_COMPLEX64,
    TSR_COMPLEX128,
    TSR_FLOAT8_E4M3FN,
    TSR_FLOAT8_E5M2,
    TSR_FLOAT8_E4M3FNUZ,
    TSR_FLOAT8_E5M2FNUZ,
    TSR_FLOAT8_E8M0FNU,
    TSR_FLOAT4_E2M1FN_X2,
    TSR_DTYPE_COUNT
} tsr_dtype;

/* The kind of values a dtype holds. Unsigned is not a category of its own:
 * PyTorch's promotion never looks at signedness across categories. */
typedef enum tsr_dtype_category {
    TSR_CATEGORY_BOOL,
    TSR_CATEGORY_INTEGRAL,
    TSR_CATEGORY_FLOATING,
    TSR_CATEGORY_COMPLEX
} tsr_dtype_category;

/* True when d names one of the TSR_DTYPE_COUNT dtypes. Every other function
 * of this header that takes a dtype treats an invalid one as an error (for
 * those that return a status) or returns 0/false/NULL. */
TSR_API bool tsr_dtype_is_valid(tsr_dtype d);

/* Canonical Python name without the "torch." prefix: "float32". */
TSR_API const char *tsr_dtype_name(tsr_dtype d);
/* The name PyTorch's C++ messages use (c10 toString): "Float", "Long",
 * "ComplexHalf", "Float8_e4m3fn". */
TSR_API const char *tsr_dtype_message_name(tsr_dtype d);
/* The short alias ("float", "half", "cdouble") or NULL when there is none. */
TSR_API const char *tsr_dtype_alias(tsr_dtype d);
/* PyTorch's abbreviation ("f32", "bf16", "c64", "f8e4m3fn"). */
TSR_API const char *tsr_dtype_abbr(tsr_dtype d);

/* Looks a dtype up by any name PyTorch gives it: the canonical name, the
 * alias, either with a "torch." prefix ("float", "torch.half", "cfloat"), or
 * a legacy tensor type name ("FloatTensor", "torch.cuda.ByteTensor",
 * "torch.sparse.DoubleTensor"). Case-sensitive, as Python attributes are.
 * Writes *out only on success. Returns TSR_OK, or TSR_ERR_TYPE with
 * "invalid dtype name: '<name>'" (NULL name: TSR_ERR_INVALID_ARGUMENT). */
TSR_API tsr_status tsr_dtype_from_name(const char *name, tsr_dtype *out);

/* Bytes per element (1 for float4_e2m1fn_x2, which packs two values). */
TSR_API size_t tsr_dtype_itemsize(tsr_dtype d);
TSR_API tsr_dtype_category tsr_dtype_category_of(tsr_dtype d);
/* torch.dtype.is_floating_point: float16/32/64, bfloat16, float8, float4. */
TSR_API bool tsr_dtype_is_floating_point(tsr_dtype d);
TSR_API bool tsr_dtype_is_complex(tsr_dtype d);
/* Integral without bool: (u)int8..(u)int64. */
TSR_API bool tsr_dtype_is_integral(tsr_dtype d);
/* torch.dtype.is_signed: false for bool, unsigned ints and float8_e8m0fnu. */
TSR_API bool tsr_dtype_is_signed(tsr_dtype d);
/* Shell dtypes: storage, fill, copy and views only, no arithmetic
 * (float8, float4, uint16/32/64). */
TSR_API bool tsr_dtype_is_shell(tsr_dtype d);
/* float8 formats (e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu). */
TSR_API bool tsr_dtype_is_float8(tsr_dtype d);
/* The real dtype of a complex one's components (complex64 -> float32);
 * any other dtype maps to itself (torch.dtype.to_real). */
TSR_API tsr_dtype tsr_dtype_to_real(tsr_dtype d);
/* torch.dtype.to_complex: float16 -> complex32, bfloat16/float32 ->
 * complex64, float64 -> complex128, complex -> itself. Anything else fails
 * with TSR_ERR_RUNTIME "Unknown Complex ScalarType for <Name>". */
TSR_API tsr_status tsr_dtype_to_complex(tsr_dtype d, tsr_dtype *out);

/* torch.promote_types. Writes *out only on success. Errors (TSR_ERR_RUNTIME,
 * PyTorch 2.9's text): float8 with another dtype, uint16/32/64 with a
 * non-floating dtype, float4 with another dtype. */
TSR_API tsr_status tsr_promote_types(tsr_dtype a, tsr_dtype b, tsr_dtype *out);

/* torch.can_cast: false iff complex -> non-complex, floating -> integral, or
 * non-bool -> bool. */
TSR_API bool tsr_can_cast(tsr_dtype from, tsr_dtype to);

/* Casting policies for frontends whose rules differ from PyTorch's. */
typedef enum tsr_cast_policy {
    TSR_CAST_PYTORCH,   /* tsr_can_cast */
    TSR_CAST_ONEFLOW,   /* PyTorch's rule, and no narrowing within a category */
    TSR_CAST_NO,        /* NumPy 'no': identical dtypes only */
    TSR_CAST_EQUIV,     /* NumPy 'equiv': identical dtypes only (no byte orders here) */
    TSR_CAST_SAFE,      /* NumPy 'safe': every value survives */
    TSR_CAST_SAME_KIND, /* NumPy 'same_kind': safe, or within/up the kind order b<u<i<f<c */
    TSR_CAST_UNSAFE,    /* NumPy 'unsafe': anything */
    TSR_CAST_POLICY_COUNT
} tsr_cast_policy;

TSR_API bool tsr_can_cast_policy(tsr_dtype from, tsr_dtype to, tsr_cast_policy policy);
/* The policy's name ("pytorch", "oneflow", "no", "equiv", "safe",
 * "same_kind", "unsafe") and its lookup; lookup failure is
 * TSR_ERR_INVALID_ARGUMENT. */
TSR_API const char *tsr_cast_policy_name(tsr_cast_policy policy);
TSR_API tsr_status tsr_cast_policy_from_name(const char *name, tsr_cast_policy *out);

/* The check an in-place or out= operation makes before writing a result of
 * dtype `common` into a tensor of dtype `out_dtype`: TSR_OK when allowed by
 * `policy`, else TSR_ERR_RUNTIME with PyTorch's message
 * "result type Float can't be cast to the desired output type Int". */
TSR_API tsr_status tsr_check_output_cast(tsr_dtype common, tsr_dtype out_dtype,
                                         tsr_cast_policy policy);

/* The default dtype (float32 at start). Process-wide; reading it is safe
 * from any thread. Setting accepts a floating-point dtype PyTorch accepts
 * (float16, bfloat16, float32, float64) and fails otherwise with
 * TSR_ERR_TYPE "only floating-point types are supported as the default
 * type". */
TSR_API tsr_status tsr_set_default_dtype(tsr_dtype d);
TSR_API tsr_dtype tsr_get_default_dtype(void);
/* The complex counterpart of the default dtype: float16 -> complex32,
 * float64 -> complex128, anything else -> complex64. */
TSR_API tsr_dtype tsr_get_default_complex_dtype(void);

/* result_type operands. A SCALAR operand's dtype names its kind: TSR_BOOL,
 * TSR_INT64 (integer), TSR_FLOAT64 (floating), TSR_COMPLEX128 (complex);
 * any other dtype is read by its category the same way. */
typedef enum tsr_operand_kind {
    TSR_OPERAND_TENSOR,   /* a tensor with at least one dimension */
    TSR_OPERAND_ZERO_DIM, /* a 0-dim tensor */
    TSR_OPERAND_SCALAR    /* a wrapped number: bool, int, float, complex */
} tsr_operand_kind;

typedef struct tsr_operand {
    tsr_operand_kind kind;
    tsr_dtype dtype;
} tsr_operand;

/* torch.result_type over n operands (n >= 1), with PyTorch's three tiers
 * and the current default dtype. Writes *out only on success; promotion
 * errors propagate with their messages. n == 0 or a NULL array is
 * TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_result_type(const tsr_operand *ops, size_t n, tsr_dtype *out);

/* The same with an explicit default dtype instead of the process-wide one
 * (a float dtype set_default_dtype accepts). */
TSR_API tsr_status tsr_result_type_with_default(const tsr_operand *ops, size_t n,
                                                tsr_dtype default_dtype, tsr_dtype *out);

/* Longest operand text tsr_operand_parse accepts. */
#define TSR_OPERAND_TEXT_MAX 256

/* Parses one operand as the `tessera result-type` command writes it:
 *   "int32[2,3]"  a tensor of that dtype and shape (any dtype name)
 *   "int64[]"     a 0-dim tensor
 *   "int64[0]"    a tensor with one dimension of size 0 (still dimensioned)
 *   "5", "-3"     an integer scalar;  "2.5", "1e3", "inf", "nan"  a float scalar
 *   "true", "false", "True", "False"  a bool scalar
 *   "1+2j", "2j", "-1.5-0.5j"  a complex scalar
 * Sizes are non-negative decimal integers (at most 25 of them). Writes *out
 * only on success; anything else is TSR_ERR_INVALID_ARGUMENT naming the
 * text. */
TSR_API tsr_status tsr_operand_parse(const char *text, tsr_operand *out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DTYPE_H */
