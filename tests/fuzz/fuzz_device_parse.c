/* Fuzz target: device strings.
 *
 * The input is one device string. It goes through tsr_device_parse,
 * tsr_device_type_from_name and tsr_device_make (with an index argument
 * picked from the input's bytes), and every success must round-trip:
 * parse(str(d)) == d, repr names the same type, and make agrees with
 * parse. Failures must leave the output alone and set a message. */
#include "fuzz.h"

static const int64_t index_args[] = {-2, -1, 0, 1, 7, 127, 128, INT64_MAX, INT64_MIN};

static void check_round_trip(tsr_device d)
{
    FUZZ_CHECK((unsigned)d.type < TSR_DEVICE_TYPE_COUNT);
    FUZZ_CHECK(tsr_device_type_is_parseable(d.type));
    FUZZ_CHECK(d.index >= -1 && d.index <= TSR_DEVICE_INDEX_MAX);
    FUZZ_CHECK(tsr_device_equal(d, d));

    char str[TSR_DEVICE_STR_MAX];
    size_t len = tsr_device_str(d, str, sizeof(str));
    FUZZ_CHECK(len < sizeof(str) && strlen(str) == len);
    FUZZ_CHECK(tsr_device_str(d, NULL, 0) == len);

    /* snprintf rules: a short buffer gets a terminated prefix. */
    char small[3];
    FUZZ_CHECK(tsr_device_str(d, small, sizeof(small)) == len);
    FUZZ_CHECK(strlen(small) < sizeof(small) && strncmp(small, str, strlen(small)) == 0);

    tsr_device back = {TSR_DEVICE_TYPE_COUNT, -7};
    FUZZ_CHECK(tsr_device_parse(str, &back) == TSR_OK);
    FUZZ_CHECK(tsr_device_equal(back, d));

    char repr[TSR_DEVICE_STR_MAX], prefix[TSR_DEVICE_STR_MAX];
    len = tsr_device_repr(d, repr, sizeof(repr));
    FUZZ_CHECK(len < sizeof(repr) && strlen(repr) == len);
    snprintf(prefix, sizeof(prefix), "device(type='%s'", tsr_device_type_name(d.type));
    FUZZ_CHECK(strncmp(repr, prefix, strlen(prefix)) == 0);
}

static void check_parse(const char *text, tsr_device *parsed, bool *ok)
{
    const tsr_device sentinel = {TSR_DEVICE_TYPE_COUNT, -7};
    tsr_device d = sentinel;
    tsr_status st = tsr_device_parse(text, &d);
    *ok = st == TSR_OK;
    if (!*ok) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(d.type == sentinel.type && d.index == sentinel.index);
        return;
    }
    check_round_trip(d);
    *parsed = d;
}

static void check_type_name(const char *text)
{
    tsr_device_type t = TSR_DEVICE_TYPE_COUNT;
    tsr_status st = tsr_device_type_from_name(text, &t);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(t == TSR_DEVICE_TYPE_COUNT);
        return;
    }
    FUZZ_CHECK((unsigned)t < TSR_DEVICE_TYPE_COUNT);
    FUZZ_CHECK(strcmp(tsr_device_type_name(t), text) == 0);
}

static void check_make(const char *text, unsigned mix, bool parse_ok, tsr_device parsed)
{
    tsr_index_arg how = (tsr_index_arg)(mix % 3);
    int64_t index = index_args[(mix / 3) % (sizeof(index_args) / sizeof(index_args[0]))];
    const tsr_device sentinel = {TSR_DEVICE_TYPE_COUNT, -7};
    tsr_device d = sentinel;
    tsr_status st = tsr_device_make(text, how, index, &d);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(d.type == sentinel.type && d.index == sentinel.index);
        return;
    }
    check_round_trip(d);
    /* Whatever make accepts, the parser accepts as a type (with its index
     * when the index came from the string). */
    FUZZ_CHECK(parse_ok && d.type == parsed.type);
    switch (how) {
    case TSR_INDEX_OMITTED:
        FUZZ_CHECK(tsr_device_equal(d, parsed));
        break;
    case TSR_INDEX_NONE:
        FUZZ_CHECK(d.index == -1 && parsed.index == -1);
        break;
    case TSR_INDEX_GIVEN:
        FUZZ_CHECK(index >= 0 && d.index == index && parsed.index == -1);
        break;
    }
}

static void check_accelerator(unsigned mix)
{
    tsr_device_type accel = (tsr_device_type)(mix % (TSR_DEVICE_TYPE_COUNT + 1));
    int64_t index = index_args[mix % (sizeof(index_args) / sizeof(index_args[0]))];
    tsr_device d = {TSR_DEVICE_TYPE_COUNT, -7};
    tsr_status st = tsr_device_for_accelerator(accel, index, &d);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(d.type == TSR_DEVICE_TYPE_COUNT && d.index == -7);
        return;
    }
    FUZZ_CHECK(accel != TSR_DEVICE_TYPE_COUNT && index >= 0);
    FUZZ_CHECK(d.type == accel && d.index == index);
}

static void check_tensor_type_name(tsr_device d, unsigned mix)
{
    tsr_dtype dtype = (tsr_dtype)(mix % (TSR_DTYPE_COUNT + 1));
    char buf[128];
    size_t len = tsr_tensor_type_name(dtype, d.type, mix & 1, buf, sizeof(buf));
    FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
    if (len < sizeof(buf))
        FUZZ_CHECK(strlen(buf) == len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_cstring(data, size);
    unsigned mix = 0;
    for (size_t i = 0; i < size; i++)
        mix = mix * 31 + data[i];

    tsr_device parsed = {TSR_DEVICE_CPU, -1};
    bool parse_ok;
    check_parse(text, &parsed, &parse_ok);
    check_type_name(text);
    check_make(text, mix, parse_ok, parsed);
    check_accelerator(mix);
    if (parse_ok)
        check_tensor_type_name(parsed, mix);
    free(text);
    return 0;
}
