/* The dtype table and everything that is a plain lookup in it: names,
 * aliases, legacy tensor type names, sizes and predicates.
 *
 * One row per dtype, indexed by tsr_dtype; the static assert keeps the
 * table and the enum in step. Names are PyTorch 2.9's. */
#include "core/dtype.h"

#include <string.h>

#include "core/error.h"

#define ROW(e, nm, msg, al, ab, size, cat, sgn, sh, cls) \
    [e] = {.name = nm,                                   \
           .message_name = msg,                          \
           .alias = al,                                  \
           .abbr = ab,                                   \
           .itemsize = size,                             \
           .category = TSR_CATEGORY_##cat,               \
           .is_signed = sgn,                             \
           .shell = sh,                                  \
           .classic = cls}

const tsr__dtype_info tsr__dtypes[TSR_DTYPE_COUNT] = {
    ROW(TSR_BOOL, "bool", "Bool", NULL, "b8", 1, BOOL, false, false, 12),
    ROW(TSR_UINT8, "uint8", "Byte", NULL, "u8", 1, INTEGRAL, false, false, 0),
    ROW(TSR_INT8, "int8", "Char", NULL, "i8", 1, INTEGRAL, true, false, 1),
    ROW(TSR_UINT16, "uint16", "UInt16", NULL, "u16", 2, INTEGRAL, false, true, -1),
    ROW(TSR_INT16, "int16", "Short", "short", "i16", 2, INTEGRAL, true, false, 2),
    ROW(TSR_UINT32, "uint32", "UInt32", NULL, "u32", 4, INTEGRAL, false, true, -1),
    ROW(TSR_INT32, "int32", "Int", "int", "i32", 4, INTEGRAL, true, false, 3),
    ROW(TSR_UINT64, "uint64", "UInt64", NULL, "u64", 8, INTEGRAL, false, true, -1),
    ROW(TSR_INT64, "int64", "Long", "long", "i64", 8, INTEGRAL, true, false, 4),
    ROW(TSR_FLOAT16, "float16", "Half", "half", "f16", 2, FLOATING, true, false, 5),
    ROW(TSR_BFLOAT16, "bfloat16", "BFloat16", NULL, "bf16", 2, FLOATING, true, false, 6),
    ROW(TSR_FLOAT32, "float32", "Float", "float", "f32", 4, FLOATING, true, false, 7),
    ROW(TSR_FLOAT64, "float64", "Double", "double", "f64", 8, FLOATING, true, false, 8),
    ROW(TSR_COMPLEX32, "complex32", "ComplexHalf", "chalf", "c32", 4, COMPLEX, true, false, 9),
    ROW(TSR_COMPLEX64, "complex64", "ComplexFloat", "cfloat", "c64", 8, COMPLEX, true, false, 10),
    ROW(TSR_COMPLEX128, "complex128", "ComplexDouble", "cdouble", "c128", 16, COMPLEX, true, false,
        11),
    ROW(TSR_FLOAT8_E4M3FN, "float8_e4m3fn", "Float8_e4m3fn", NULL, "f8e4m3fn", 1, FLOATING, true,
        true, -1),
    ROW(TSR_FLOAT8_E5M2, "float8_e5m2", "Float8_e5m2", NULL, "f8e5m2", 1, FLOATING, true, true, -1),
    ROW(TSR_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", "Float8_e4m3fnuz", NULL, "f8e4m3fnuz", 1, FLOATING,
        true, true, -1),
    ROW(TSR_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", "Float8_e5m2fnuz", NULL, "f8e5m2fnuz", 1, FLOATING,
        true, true, -1),
    ROW(TSR_FLOAT8_E8M0FNU, "float8_e8m0fnu", "Float8_e8m0fnu", NULL, "f8e8m0fnu", 1, FLOATING,
        false, true, -1),
    ROW(TSR_FLOAT4_E2M1FN_X2, "float4_e2m1fn_x2", "Float4_e2m1fn_x2", NULL, "f4e2m1fnx2", 1,
        FLOATING, true, true, -1),
};
#undef ROW

_Static_assert(TSR__ARRAY_SIZE(tsr__dtypes) == TSR_DTYPE_COUNT, "one row per dtype");
_Static_assert(TSR_DTYPE_COUNT == 22, "PyTorch 2.9 has 22 dtypes in the docs' table");

/* c10's name of each dtype's C++ type (what PyTorch's messages print). */
static const char *const cpp_names[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = "bool",
    [TSR_UINT8] = "unsigned char",
    [TSR_INT8] = "signed char",
    [TSR_UINT16] = "unsigned short",
    [TSR_INT16] = "short int",
    [TSR_UINT32] = "unsigned int",
    [TSR_INT32] = "int",
    [TSR_UINT64] = "unsigned long",
    [TSR_INT64] = "long int",
    [TSR_FLOAT16] = "c10::Half",
    [TSR_BFLOAT16] = "c10::BFloat16",
    [TSR_FLOAT32] = "float",
    [TSR_FLOAT64] = "double",
    [TSR_COMPLEX32] = "c10::complex<c10::Half>",
    [TSR_COMPLEX64] = "c10::complex<float>",
    [TSR_COMPLEX128] = "c10::complex<double>",
    [TSR_FLOAT8_E4M3FN] = "c10::Float8_e4m3fn",
    [TSR_FLOAT8_E5M2] = "c10::Float8_e5m2",
    [TSR_FLOAT8_E4M3FNUZ] = "c10::Float8_e4m3fnuz",
    [TSR_FLOAT8_E5M2FNUZ] = "c10::Float8_e5m2fnuz",
    [TSR_FLOAT8_E8M0FNU] = "c10::Float8_e8m0fnu",
    [TSR_FLOAT4_E2M1FN_X2] = "c10::Float4_e2m1fn_x2",
};
_Static_assert(TSR__ARRAY_SIZE(cpp_names) == TSR_DTYPE_COUNT, "a C++ name per dtype");

const char *tsr__dtype_cpp_name(tsr_dtype d)
{
    return tsr__dtype_valid(d) && cpp_names[d] ? cpp_names[d] : "?";
}

bool tsr_dtype_is_valid(tsr_dtype d)
{
    return tsr__dtype_valid(d);
}

#define FIELD_OR(d, field, fallback) (tsr__dtype_valid(d) ? tsr__dtypes[d].field : (fallback))

const char *tsr_dtype_name(tsr_dtype d)
{
    return FIELD_OR(d, name, NULL);
}

const char *tsr_dtype_message_name(tsr_dtype d)
{
    return FIELD_OR(d, message_name, NULL);
}

const char *tsr_dtype_alias(tsr_dtype d)
{
    return FIELD_OR(d, alias, NULL);
}

const char *tsr_dtype_abbr(tsr_dtype d)
{
    return FIELD_OR(d, abbr, NULL);
}

size_t tsr_dtype_itemsize(tsr_dtype d)
{
    return FIELD_OR(d, itemsize, 0);
}

tsr_dtype_category tsr_dtype_category_of(tsr_dtype d)
{
    return FIELD_OR(d, category, TSR_CATEGORY_BOOL);
}

bool tsr_dtype_is_floating_point(tsr_dtype d)
{
    return tsr__dtype_valid(d) && tsr__dtypes[d].category == TSR_CATEGORY_FLOATING;
}

bool tsr_dtype_is_complex(tsr_dtype d)
{
    return tsr__dtype_valid(d) && tsr__dtypes[d].category == TSR_CATEGORY_COMPLEX;
}

bool tsr_dtype_is_integral(tsr_dtype d)
{
    return tsr__dtype_valid(d) && tsr__dtypes[d].category == TSR_CATEGORY_INTEGRAL;
}

bool tsr_dtype_is_signed(tsr_dtype d)
{
    return FIELD_OR(d, is_signed, false);
}

bool tsr_dtype_is_shell(tsr_dtype d)
{
    return FIELD_OR(d, shell, false);
}

bool tsr_dtype_is_float8(tsr_dtype d)
{
    return d >= TSR_FLOAT8_E4M3FN && d <= TSR_FLOAT8_E8M0FNU;
}

tsr_dtype tsr_dtype_to_real(tsr_dtype d)
{
    switch (d) {
    case TSR_COMPLEX32:
        return TSR_FLOAT16;
    case TSR_COMPLEX64:
        return TSR_FLOAT32;
    case TSR_COMPLEX128:
        return TSR_FLOAT64;
    default:
        return d;
    }
}

tsr_status tsr_dtype_to_complex(tsr_dtype d, tsr_dtype *out)
{
    tsr_dtype c;
    switch (d) {
    case TSR_FLOAT16:
        c = TSR_COMPLEX32;
        break;
    case TSR_BFLOAT16:
    case TSR_FLOAT32:
        c = TSR_COMPLEX64;
        break;
    case TSR_FLOAT64:
        c = TSR_COMPLEX128;
        break;
    case TSR_COMPLEX32:
    case TSR_COMPLEX64:
    case TSR_COMPLEX128:
        c = d;
        break;
    default:
        if (!tsr__dtype_valid(d))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)d);
        return tsr__fail(TSR_ERR_RUNTIME, "Unknown Complex ScalarType for %s",
                         tsr__dtypes[d].message_name);
    }
    *out = c;
    return TSR_OK;
}

/* Prefixes of legacy tensor type names, as tensor.type() prints them.
 * The dtype part follows: "<prefix><MessageName>Tensor". */
static const char *const legacy_prefixes[] = {
    "",
    "torch.",
    "torch.cuda.",
    "torch.sparse.",
    "torch.cuda.sparse.",
    "torch.xpu.",
    "torch.mps.",
    "torch.meta.",
    "torch.hpu.",
    "torch.mtia.",
    "torch.lazy.",
    "torch.xla.",
    "torch.opencl.",
};

static bool lookup_plain(const char *name, tsr_dtype *out)
{
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        const tsr__dtype_info *info = &tsr__dtypes[d];
        if (strcmp(name, info->name) == 0 || (info->alias && strcmp(name, info->alias) == 0)) {
            *out = (tsr_dtype)d;
            return true;
        }
    }
    return false;
}

static bool lookup_legacy(const char *name, tsr_dtype *out)
{
    static const char suffix[] = "Tensor";
    size_t len = strlen(name);
    for (size_t p = 0; p < TSR__ARRAY_SIZE(legacy_prefixes); p++) {
        size_t plen = strlen(legacy_prefixes[p]);
        if (len <= plen + sizeof(suffix) - 1 || strncmp(name, legacy_prefixes[p], plen) != 0)
            continue;
        const char *core_name = name + plen;
        size_t core_len = len - plen - (sizeof(suffix) - 1);
        if (strcmp(core_name + core_len, suffix) != 0)
            continue;
        for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
            const char *msg = tsr__dtypes[d].message_name;
            if (strlen(msg) == core_len && strncmp(core_name, msg, core_len) == 0) {
                *out = (tsr_dtype)d;
                return true;
            }
        }
    }
    return false;
}

tsr_status tsr_dtype_from_name(const char *name, tsr_dtype *out)
{
    if (name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "dtype name must not be NULL");
    const char *bare = strncmp(name, "torch.", 6) == 0 ? name + 6 : name;
    tsr_dtype d;
    if (lookup_plain(bare, &d) || lookup_legacy(name, &d)) {
        *out = d;
        return TSR_OK;
    }
    return tsr__fail(TSR_ERR_TYPE, "invalid dtype name: '%.200s'", name);
}
