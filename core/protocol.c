/* The wire protocol's table and frame checks (see protocol.h). Pure: no
 * I/O, no allocation; both the client and the daemon link it, and the
 * protocol fuzz target drives tsr__wire_check directly. */
#include "core/protocol.h"

#include <string.h>

#include "core/error.h"

#define TSR__WIRE_SIZE_ASSERT(type, bytes) \
    _Static_assert(sizeof(type) == (bytes), #type " must be " #bytes " bytes on the wire")
TSR__WIRE_SIZE_ASSERT(tsr__wire_header, 24);
TSR__WIRE_SIZE_ASSERT(tsr__wire_device, 8);
TSR__WIRE_SIZE_ASSERT(tsr__wire_error, 1032);
TSR__WIRE_SIZE_ASSERT(tsr__wire_hello, 80);
TSR__WIRE_SIZE_ASSERT(tsr__wire_welcome, 32);
TSR__WIRE_SIZE_ASSERT(tsr__wire_device_info, 1424);
TSR__WIRE_SIZE_ASSERT(tsr__wire_set_device, 16);
TSR__WIRE_SIZE_ASSERT(tsr__wire_get_device, 16);
TSR__WIRE_SIZE_ASSERT(tsr__wire_alloc, 24);
TSR__WIRE_SIZE_ASSERT(tsr__wire_block, 40);
TSR__WIRE_SIZE_ASSERT(tsr__wire_segment_info, 16);
TSR__WIRE_SIZE_ASSERT(tsr__wire_memory_stats, 104);
TSR__WIRE_SIZE_ASSERT(tsr__wire_session_usage, 24);
TSR__WIRE_SIZE_ASSERT(tsr__wire_session_info, 568);
TSR__WIRE_SIZE_ASSERT(tsr__wire_region, 424);
TSR__WIRE_SIZE_ASSERT(tsr__wire_fill, 440);
TSR__WIRE_SIZE_ASSERT(tsr__kernel_operand, 224);
TSR__WIRE_SIZE_ASSERT(tsr__kernel, 1144);
TSR__WIRE_SIZE_ASSERT(tsr__wire_launched, 8);
TSR__WIRE_SIZE_ASSERT(tsr__wire_process_usage, 32);
TSR__WIRE_SIZE_ASSERT(tsr__wire_process, 1392);
TSR__WIRE_SIZE_ASSERT(tsr__wire_stats_request, 16);
TSR__WIRE_SIZE_ASSERT(tsr__wire_session_stats, 160);
TSR__WIRE_SIZE_ASSERT(tsr__wire_device_status, 688);
TSR__WIRE_SIZE_ASSERT(tsr__wire_daemon_stats, 88);
TSR__WIRE_SIZE_ASSERT(tsr__wire_topology, 80);
TSR__WIRE_SIZE_ASSERT(tsr__wire_export, 440);
TSR__WIRE_SIZE_ASSERT(tsr__wire_share_key, 24);
TSR__WIRE_SIZE_ASSERT(tsr__wire_imported, 480);
TSR__WIRE_SIZE_ASSERT(tsr__wire_share_info, 112);
TSR__WIRE_SIZE_ASSERT(tsr__wire_program_create, 536);
TSR__WIRE_SIZE_ASSERT(tsr__wire_program, 8);
TSR__WIRE_SIZE_ASSERT(tsr__wire_program_source, 3984);
TSR__WIRE_SIZE_ASSERT(tsr__wire_program_status, 3088);
TSR__WIRE_SIZE_ASSERT(tsr__wire_kernel_query, 72);
TSR__WIRE_SIZE_ASSERT(tsr__wire_kernel_arg, 64);
TSR__WIRE_SIZE_ASSERT(tsr__wire_kernel_info, 2056);
TSR__WIRE_SIZE_ASSERT(tsr__wire_kernel_value, 40);
TSR__WIRE_SIZE_ASSERT(tsr__wire_kernel_launch, 1344);
TSR__WIRE_SIZE_ASSERT(tsr__wire_gemm, 168);

/* tsr__wire_empty stands for "no payload". */
#define TSR__WIRE_PAYLOAD(type) \
    (__builtin_types_compatible_p(type, tsr__wire_empty) ? 0u : (uint32_t)sizeof(type))

static const tsr__wire_op_info wire_ops[TSR__OP_MAX] = {
#define TSR__WIRE_ROW(op, code, req, rep, where, doc) \
    [code] = {.name = #op,                            \
              .request_size = TSR__WIRE_PAYLOAD(req), \
              .reply_size = TSR__WIRE_PAYLOAD(rep),   \
              .transports = (where),                  \
              .summary = (doc)},
    TSR__WIRE_OPS(TSR__WIRE_ROW)
#undef TSR__WIRE_ROW
};

#define TSR__WIRE_FITS(op, code, req, rep, where, doc)                                \
    _Static_assert(sizeof(tsr__wire_header) + sizeof(req) <= TSR__WIRE_FRAME_MAX &&   \
                       sizeof(tsr__wire_header) + sizeof(rep) <= TSR__WIRE_FRAME_MAX, \
                   #op " must fit in a frame");
TSR__WIRE_OPS(TSR__WIRE_FITS)
#undef TSR__WIRE_FITS
_Static_assert(sizeof(tsr__wire_header) + sizeof(tsr__wire_error) <= TSR__WIRE_FRAME_MAX,
               "an error reply must fit in a frame");

const tsr__wire_op_info *tsr__wire_op(uint32_t opcode)
{
    if (opcode >= TSR__OP_MAX || wire_ops[opcode].name == NULL)
        return NULL;
    return &wire_ops[opcode];
}

void tsr__wire_header_init(tsr__wire_header *header, uint32_t opcode, uint32_t flags,
                           uint32_t payload_len, uint64_t request_id)
{
    *header = (tsr__wire_header){.magic = TSR__WIRE_MAGIC,
                                 .version = (uint16_t)TSR__WIRE_VERSION,
                                 .opcode = (uint16_t)opcode,
                                 .flags = flags,
                                 .length = payload_len,
                                 .request_id = request_id};
}

uint32_t tsr__wire_error_size(uint32_t text_len)
{
    return (uint32_t)offsetof(tsr__wire_error, text) + text_len;
}

tsr_status tsr__wire_check(const void *frame, size_t len, uint32_t transport, bool expect_reply,
                           tsr__wire_header *header)
{
    tsr__wire_header h;
    if (frame == NULL || len < sizeof h)
        return tsr__fail(TSR_ERR_PROTOCOL, "truncated frame: %zu bytes, a header is %zu", len,
                         sizeof h);
    if (len > TSR__WIRE_FRAME_MAX)
        return tsr__fail(TSR_ERR_PROTOCOL, "oversized frame: %zu bytes, at most %u", len,
                         TSR__WIRE_FRAME_MAX);
    memcpy(&h, frame, sizeof h);
    if (h.magic != TSR__WIRE_MAGIC)
        return tsr__fail(TSR_ERR_PROTOCOL, "bad frame magic 0x%08x", (unsigned)h.magic);
    if (h.version < TSR__WIRE_VERSION_MIN || h.version > TSR__WIRE_VERSION)
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "frame of protocol version %u; this side speaks %u to %u",
                         (unsigned)h.version, TSR__WIRE_VERSION_MIN, TSR__WIRE_VERSION);
    const tsr__wire_op_info *op = tsr__wire_op(h.opcode);
    if (op == NULL)
        return tsr__fail(TSR_ERR_PROTOCOL, "unknown opcode %u", (unsigned)h.opcode);
    if ((op->transports & transport) == 0)
        return tsr__fail(TSR_ERR_PROTOCOL, "%s may not travel through the %s", op->name,
                         transport == TSR__WIRE_RING ? "ring" : "socket");
    if (h.flags & ~TSR__WIRE_FLAGS_KNOWN)
        return tsr__fail(TSR_ERR_PROTOCOL, "unknown frame flags 0x%x", (unsigned)h.flags);
    bool is_reply = (h.flags & TSR__WIRE_REPLY) != 0;
    if ((h.flags & TSR__WIRE_ERROR) && !is_reply)
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "%s request with the error flag, which only replies carry", op->name);
    if (is_reply != expect_reply)
        return tsr__fail(TSR_ERR_PROTOCOL, "%s %s where a %s was expected", op->name,
                         is_reply ? "reply" : "request", expect_reply ? "reply" : "request");
    if (h.length != len - sizeof h)
        return tsr__fail(TSR_ERR_PROTOCOL, "%s frame says %u payload bytes but carries %zu",
                         op->name, (unsigned)h.length, len - sizeof h);
    if (h.flags & TSR__WIRE_ERROR) {
        if (h.length < tsr__wire_error_size(0) || h.length > sizeof(tsr__wire_error))
            return tsr__fail(TSR_ERR_PROTOCOL, "%s error reply of %u bytes", op->name,
                             (unsigned)h.length);
    } else {
        uint32_t want = expect_reply ? op->reply_size : op->request_size;
        if (h.length != want)
            return tsr__fail(TSR_ERR_PROTOCOL, "%s %s of %u payload bytes; it has %u", op->name,
                             expect_reply ? "reply" : "request", (unsigned)h.length,
                             (unsigned)want);
    }
    *header = h;
    return TSR_OK;
}

uint32_t tsr__wire_error_fill(tsr__wire_error *err, tsr_status status, const char *message)
{
    size_t n = message ? strnlen(message, sizeof err->text) : 0;
    err->status = (int32_t)status;
    err->length = (uint32_t)n;
    if (n)
        memcpy(err->text, message, n);
    return tsr__wire_error_size((uint32_t)n);
}

tsr_status tsr__wire_error_raise(const void *payload, uint32_t len)
{
    tsr__wire_error err;
    if (len < tsr__wire_error_size(0) || len > sizeof err)
        return tsr__fail(TSR_ERR_PROTOCOL, "garbled error reply (%u bytes)", (unsigned)len);
    memcpy(&err, payload, len);
    if (err.status <= TSR_OK || err.status >= (int32_t)TSR_STATUS_COUNT ||
        err.length != len - tsr__wire_error_size(0))
        return tsr__fail(TSR_ERR_PROTOCOL, "garbled error reply (status %d, %u text bytes)",
                         (int)err.status, (unsigned)err.length);
    char text[TSR__WIRE_MESSAGE_MAX + 1];
    memcpy(text, err.text, err.length);
    text[err.length] = '\0';
    return tsr__fail_text((tsr_status)err.status, text);
}

bool tsr__wire_text_ok(const char *field, size_t size)
{
    return memchr(field, '\0', size) != NULL;
}

void tsr__wire_text_set(char *field, size_t size, const char *text)
{
    if (size == 0)
        return;
    size_t n = text ? strnlen(text, size - 1) : 0;
    memcpy(field, text ? text : "", n);
    memset(field + n, 0, size - n);
}
