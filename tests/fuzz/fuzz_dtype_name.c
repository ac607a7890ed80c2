/* Fuzz target: the name lookups of dtypes, layouts, memory formats and
 * casting policies.
 *
 * The input is one name. Each lookup that accepts it must give a valid
 * value whose canonical name maps back to the same value (and for dtypes,
 * so must "torch.<name>" and the alias); each lookup that refuses it must
 * leave its output alone and set a message. */
#include "fuzz.h"

/* Defines `static bool fn(const char *text, type *out)`: looks text up,
 * checks the lookup's contract and the canonical round trip, and says
 * whether the name was accepted. */
#define DEFINE_LOOKUP_CHECK(fn, type, count, from_name, name_of)            \
    static bool fn(const char *text, type *out)                             \
    {                                                                       \
        type value = count;                                                 \
        tsr_status st = from_name(text, &value);                            \
        if (st != TSR_OK) {                                                 \
            FUZZ_CHECK_FAILED(st);                                          \
            FUZZ_CHECK(value == count);                                     \
            return false;                                                   \
        }                                                                   \
        FUZZ_CHECK((unsigned)value < (unsigned)count);                      \
        const char *canonical = name_of(value);                             \
        FUZZ_CHECK(canonical != NULL);                                      \
        type back = count;                                                  \
        FUZZ_CHECK(from_name(canonical, &back) == TSR_OK && back == value); \
        *out = value;                                                       \
        return true;                                                        \
    }

DEFINE_LOOKUP_CHECK(check_dtype_lookup, tsr_dtype, TSR_DTYPE_COUNT, tsr_dtype_from_name,
                    tsr_dtype_name)
DEFINE_LOOKUP_CHECK(check_layout, tsr_layout, TSR_LAYOUT_COUNT, tsr_layout_from_name,
                    tsr_layout_name)
DEFINE_LOOKUP_CHECK(check_memory_format, tsr_memory_format, TSR_MEMORY_FORMAT_COUNT,
                    tsr_memory_format_from_name, tsr_memory_format_name)
DEFINE_LOOKUP_CHECK(check_cast_policy, tsr_cast_policy, TSR_CAST_POLICY_COUNT,
                    tsr_cast_policy_from_name, tsr_cast_policy_name)

static void check_dtype(const char *text)
{
    tsr_dtype d;
    if (!check_dtype_lookup(text, &d))
        return;
    FUZZ_CHECK(tsr_dtype_is_valid(d));

    char prefixed[64];
    snprintf(prefixed, sizeof(prefixed), "torch.%s", tsr_dtype_name(d));
    tsr_dtype back = TSR_DTYPE_COUNT;
    FUZZ_CHECK(tsr_dtype_from_name(prefixed, &back) == TSR_OK && back == d);

    const char *alias = tsr_dtype_alias(d);
    if (alias) {
        back = TSR_DTYPE_COUNT;
        FUZZ_CHECK(tsr_dtype_from_name(alias, &back) == TSR_OK && back == d);
    }
    FUZZ_CHECK(tsr_dtype_itemsize(d) >= 1);
    FUZZ_CHECK(tsr_dtype_message_name(d) != NULL && tsr_dtype_abbr(d) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_cstring(data, size);
    tsr_layout layout;
    tsr_memory_format format;
    tsr_cast_policy policy;
    check_dtype(text);
    check_layout(text, &layout);
    check_memory_format(text, &format);
    check_cast_policy(text, &policy);
    free(text);
    return 0;
}
