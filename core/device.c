/* Device types and device strings.
 *
 * The parser follows c10::Device(string) step by step, so that every
 * string gets the verdict and the message PyTorch gives it: empty check,
 * the shape ^[A-Za-z_]+(:(0|[1-9][0-9]*))?$, the index conversion, then
 * the type lookup. Tessera differs in one place on purpose: indices above
 * TSR_DEVICE_INDEX_MAX are refused instead of wrapping around an int8. */
#include "tessera/device.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype.h"
#include "core/error.h"

static const struct device_type_info {
    const char *name;
    bool parseable;
} device_types[TSR_DEVICE_TYPE_COUNT] = {
    [TSR_DEVICE_CPU] = {"cpu", true},
    [TSR_DEVICE_CUDA] = {"cuda", true},
    [TSR_DEVICE_MKLDNN] = {"mkldnn", true},
    [TSR_DEVICE_OPENGL] = {"opengl", true},
    [TSR_DEVICE_OPENCL] = {"opencl", true},
    [TSR_DEVICE_IDEEP] = {"ideep", true},
    [TSR_DEVICE_HIP] = {"hip", true},
    [TSR_DEVICE_FPGA] = {"fpga", true},
    [TSR_DEVICE_MAIA] = {"maia", true},
    [TSR_DEVICE_XLA] = {"xla", true},
    [TSR_DEVICE_VULKAN] = {"vulkan", true},
    [TSR_DEVICE_METAL] = {"metal", false},
    [TSR_DEVICE_XPU] = {"xpu", true},
    [TSR_DEVICE_MPS] = {"mps", true},
    [TSR_DEVICE_META] = {"meta", true},
    [TSR_DEVICE_HPU] = {"hpu", true},
    [TSR_DEVICE_VE] = {"ve", true},
    [TSR_DEVICE_LAZY] = {"lazy", true},
    [TSR_DEVICE_IPU] = {"ipu", true},
    [TSR_DEVICE_MTIA] = {"mtia", true},
    [TSR_DEVICE_PRIVATEUSEONE] = {"privateuseone", true},
};
_Static_assert(TSR__ARRAY_SIZE(device_types) == TSR_DEVICE_TYPE_COUNT, "one row per type");

/* The order PyTorch's parser tries names in, which is also the order its
 * error message lists them. */
static const tsr_device_type parse_order[] = {
    TSR_DEVICE_CPU,    TSR_DEVICE_CUDA,   TSR_DEVICE_IPU,    TSR_DEVICE_XPU,
    TSR_DEVICE_MKLDNN, TSR_DEVICE_OPENGL, TSR_DEVICE_OPENCL, TSR_DEVICE_IDEEP,
    TSR_DEVICE_HIP,    TSR_DEVICE_VE,     TSR_DEVICE_FPGA,   TSR_DEVICE_MAIA,
    TSR_DEVICE_XLA,    TSR_DEVICE_LAZY,   TSR_DEVICE_VULKAN, TSR_DEVICE_MPS,
    TSR_DEVICE_META,   TSR_DEVICE_HPU,    TSR_DEVICE_MTIA,   TSR_DEVICE_PRIVATEUSEONE,
};

static const char type_list[] = "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                                "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
                                "privateuseone";

const char *tsr_device_type_list(void)
{
    return type_list;
}

const char *tsr_device_type_name(tsr_device_type type)
{
    return (unsigned)type < TSR_DEVICE_TYPE_COUNT ? device_types[type].name : NULL;
}

bool tsr_device_type_is_parseable(tsr_device_type type)
{
    return (unsigned)type < TSR_DEVICE_TYPE_COUNT && device_types[type].parseable;
}

/* Looks up `len` bytes of `name`; the message quotes them. */
static tsr_status type_lookup(const char *name, size_t len, tsr_device_type *out)
{
    for (size_t i = 0; i < TSR__ARRAY_SIZE(parse_order); i++) {
        const char *cand = device_types[parse_order[i]].name;
        if (strlen(cand) == len && strncmp(cand, name, len) == 0) {
            *out = parse_order[i];
            return TSR_OK;
        }
    }
    return tsr__fail(TSR_ERR_RUNTIME,
                     "Expected one of %s device type at start of device string: %.*s", type_list,
                     (int)(len > 200 ? 200 : len), name);
}

tsr_status tsr_device_type_from_name(const char *name, tsr_device_type *out)
{
    if (name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "device type name must not be NULL");
    return type_lookup(name, strlen(name), out);
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

#define QUOTED_MAX 200 /* longest input echoed back in a message */

tsr_status tsr_device_parse(const char *text, tsr_device *out)
{
    if (text == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "device string must not be NULL");
    if (text[0] == '\0')
        return tsr__fail(TSR_ERR_RUNTIME, "Device string must not be empty");

    size_t name_len = 0;
    while (is_name_char(text[name_len]))
        name_len++;
    const char *p = text + name_len;
    const char *digits = NULL;
    size_t ndigits = 0;
    bool ok = name_len > 0;
    if (ok && *p == ':') {
        digits = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        ndigits = (size_t)(p - digits);
        ok = ndigits > 0 && !(ndigits > 1 && digits[0] == '0');
    }
    if (!ok || *p != '\0')
        return tsr__fail(TSR_ERR_RUNTIME, "Invalid device string: '%.*s'", QUOTED_MAX, text);

    int32_t index = -1;
    if (digits) {
        /* std::stoi: anything past INT_MAX fails to convert. */
        long long v = 0;
        for (size_t i = 0; i < ndigits && v <= INT_MAX; i++)
            v = v * 10 + (digits[i] - '0');
        if (v > INT_MAX)
            return tsr__fail(
                TSR_ERR_RUNTIME, "Could not parse device index '%.*s' in device string '%.*s'",
                (int)(ndigits > QUOTED_MAX ? QUOTED_MAX : ndigits), digits, QUOTED_MAX, text);
        index = (int32_t)v;
    }
    tsr_device_type type = TSR_DEVICE_CPU; /* set by type_lookup on success */
    tsr_status st = type_lookup(text, name_len, &type);
    if (st != TSR_OK)
        return st;
    if (index > TSR_DEVICE_INDEX_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "Device index %d in device string '%.*s' is out of range (at most %d)",
                         index, QUOTED_MAX, text, TSR_DEVICE_INDEX_MAX);
    out->type = type;
    out->index = index;
    return TSR_OK;
}

tsr_status tsr_device_make(const char *type_text, tsr_index_arg how, int64_t index, tsr_device *out)
{
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "device output must not be NULL");
    if ((unsigned)how > TSR_INDEX_GIVEN)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid index argument kind %d", (int)how);
    /* Python parses the type string first, then refuses an index in it,
     * then checks the explicit index. */
    tsr_device d;
    tsr_status st = tsr_device_parse(type_text, &d);
    if (st != TSR_OK)
        return st;
    if (how != TSR_INDEX_OMITTED && d.index >= 0)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "type (string) must not include an index because index was passed "
                         "explicitly: %.*s",
                         QUOTED_MAX, type_text);
    if (how == TSR_INDEX_GIVEN) {
        if (index < 0)
            return tsr__fail(TSR_ERR_RUNTIME, "Device index must not be negative");
        if (index > TSR_DEVICE_INDEX_MAX)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "Device index %lld is out of range (at most %d)", (long long)index,
                             TSR_DEVICE_INDEX_MAX);
        d.index = (int32_t)index;
    }
    *out = d;
    return TSR_OK;
}

tsr_status tsr_device_for_accelerator(tsr_device_type accelerator, int64_t index, tsr_device *out)
{
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "device output must not be NULL");
    if (index < 0)
        return tsr__fail(TSR_ERR_RUNTIME, "Device index must not be negative");
    if ((unsigned)accelerator >= TSR_DEVICE_TYPE_COUNT)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Cannot access accelerator device when none is available.");
    if (index > TSR_DEVICE_INDEX_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "Device index %lld is out of range (at most %d)",
                         (long long)index, TSR_DEVICE_INDEX_MAX);
    out->type = accelerator;
    out->index = (int32_t)index;
    return TSR_OK;
}

size_t tsr_device_str(tsr_device device, char *buf, size_t n)
{
    const char *name = tsr_device_type_name(device.type);
    int len = device.index >= 0 ? snprintf(buf, n, "%s:%d", name ? name : "unknown", device.index)
                                : snprintf(buf, n, "%s", name ? name : "unknown");
    return len < 0 ? 0 : (size_t)len;
}

size_t tsr_device_repr(tsr_device device, char *buf, size_t n)
{
    const char *name = tsr_device_type_name(device.type);
    if (!name)
        name = "unknown";
    int len = device.index >= 0
                  ? snprintf(buf, n, "device(type='%s', index=%d)", name, device.index)
                  : snprintf(buf, n, "device(type='%s')", name);
    return len < 0 ? 0 : (size_t)len;
}

bool tsr_device_equal(tsr_device a, tsr_device b)
{
    return a.type == b.type && a.index == b.index;
}

size_t tsr_tensor_type_name(tsr_dtype dtype, tsr_device_type type, bool sparse, char *buf, size_t n)
{
    const char *msg = tsr_dtype_message_name(dtype);
    const char *dev = tsr_device_type_name(type);
    if (!msg || !dev) {
        if (n)
            buf[0] = '\0';
        return 0;
    }
    int len;
    if (type == TSR_DEVICE_CPU)
        len = snprintf(buf, n, "torch.%s%sTensor", sparse ? "sparse." : "", msg);
    else
        len = snprintf(buf, n, "torch.%s.%s%sTensor", dev, sparse ? "sparse." : "", msg);
    return len < 0 ? 0 : (size_t)len;
}
