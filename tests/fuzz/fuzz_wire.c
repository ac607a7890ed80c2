/* Fuzz target: the wire protocol's frame checks (core/protocol.c).
 *
 * The input is one received frame, as a socket packet or a ring slot would
 * hold it. It goes through tsr__wire_check for both transports and both
 * directions, and the verdict must match an independent model of the rules
 * of docs/protocol.md, written here from the bytes (little-endian fields
 * read one by one) and a table of the documented payload sizes. A frame
 * that passes must decode to the header it carries; an error reply goes on
 * to tsr__wire_error_raise, whose verdict is modelled too, and every other
 * payload to the text-field validators. A second frame is built from the
 * input with tsr__wire_header_init (so that most inputs also reach the
 * accepting paths), and the input's bytes as a message go round an error
 * reply (tsr__wire_error_fill, tsr__wire_check, tsr__wire_error_raise).
 *
 * The table check runs on every input: a change of an opcode, a payload
 * size or a transport is a change of the wire format, and must be made
 * here and in docs/protocol.md too. */
#include "fuzz.h"

/* The fuzz build puts only include/ on the include path (tests/fuzz/
 * CMakeLists.txt), so the internal header is named from here. */
#include "../../core/protocol.h"
#include "../../core/region.h"

#define HEADER 24u
#define ERROR_HEAD 8u /* status + length before an error reply's text */

/* What docs/protocol.md says each message is. */
typedef struct doc_op {
    const char *name;
    uint32_t request, reply; /* payload bytes */
    bool ring;               /* may travel through the ring as well */
    bool monitor;            /* a monitoring connection may send it */
} doc_op;

static const doc_op doc_ops[] = {
    [1] = {"HELLO", 80, 32, false, true},
    [2] = {"PING", 0, 0, true, true},
    [3] = {"DEVICE_GET", 8, 1424, false, true},
    [4] = {"SET_DEVICE", 16, 0, true, false},
    [5] = {"GET_DEVICE", 16, 8, true, false},
    [6] = {"ALLOC", 24, 40, true, false},
    [7] = {"FREE", 8, 0, true, false},
    [8] = {"SEGMENT_MAP", 8, 16, false, false},
    [9] = {"MEMORY_STATS", 8, 104, true, false},
    [10] = {"EMPTY_CACHE", 8, 8, true, false},
    [11] = {"SESSION_LIST", 8, 568, false, true},
    [12] = {"FILL", 440, 8, true, false},
    [13] = {"LAUNCH", 1144, 8, true, false},
    [14] = {"PROCESS_LIST", 8, 1392, false, true},
    [15] = {"SESSION_STATS", 16, 160, false, true},
    [16] = {"DEVICE_STATUS", 8, 688, false, true},
    [17] = {"TOPOLOGY", 8, 80, false, true},
    [18] = {"DAEMON_STATS", 0, 88, false, true},
    [19] = {"EXPORT", 440, 24, false, false},
    [20] = {"IMPORT", 24, 480, false, false},
    [21] = {"REVOKE", 24, 0, false, false},
    [22] = {"SHARE_LIST", 8, 112, false, true},
    [23] = {"PROGRAM_CREATE", 536, 8, false, false},
    [24] = {"PROGRAM_SOURCE", 3984, 0, false, false},
    [25] = {"PROGRAM_STATUS", 8, 3088, false, false},
    [26] = {"PROGRAM_RELEASE", 8, 0, true, false},
    [27] = {"KERNEL_INFO", 72, 2056, false, false},
    [28] = {"KERNEL_LAUNCH", 1344, 8, true, false},
    [29] = {"GEMM", 168, 8, true, false},
};
#define DOC_OPS (sizeof doc_ops / sizeof doc_ops[0])

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
    return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static const doc_op *doc_op_of(uint32_t opcode)
{
    return opcode < DOC_OPS && doc_ops[opcode].name ? &doc_ops[opcode] : NULL;
}

static void check_table(void)
{
    static bool checked;
    if (checked)
        return;
    checked = true;
    for (uint32_t code = 0; code < 0x10000; code++) {
        const tsr__wire_op_info *op = tsr__wire_op(code);
        const doc_op *doc = doc_op_of(code);
        FUZZ_CHECK((op == NULL) == (doc == NULL));
        if (!op)
            continue;
        FUZZ_CHECK(strcmp(op->name, doc->name) == 0);
        FUZZ_CHECK(op->request_size == doc->request && op->reply_size == doc->reply);
        FUZZ_CHECK(op->transports == (TSR__WIRE_SOCKET | (doc->ring ? TSR__WIRE_RING : 0u) |
                                      (doc->monitor ? TSR__WIRE_MONITOR : 0u)));
        FUZZ_CHECK(op->summary != NULL && op->summary[0] != '\0');
        FUZZ_CHECK(HEADER + op->request_size <= TSR__WIRE_FRAME_MAX);
        FUZZ_CHECK(HEADER + op->reply_size <= TSR__WIRE_FRAME_MAX);
    }
    FUZZ_CHECK(sizeof(tsr__wire_header) == HEADER);
    FUZZ_CHECK(tsr__wire_error_size(0) == ERROR_HEAD);
    FUZZ_CHECK(sizeof(tsr__wire_error) == ERROR_HEAD + TSR__WIRE_MESSAGE_MAX);
}

/* The rules, from the bytes. */
static bool model_accepts(const uint8_t *f, size_t len, uint32_t transport, bool expect_reply)
{
    if (len < HEADER || len > TSR__WIRE_FRAME_MAX)
        return false;
    uint32_t version = rd16(f + 4), flags = rd32(f + 8), length = rd32(f + 12);
    const doc_op *op = doc_op_of(rd16(f + 6));
    if (rd32(f) != 0x31525354u || version < 7 || version > 7 || !op)
        return false;
    if (transport == TSR__WIRE_RING && !op->ring)
        return false;
    bool reply = flags & 1u, error = flags & 2u;
    if ((flags & ~3u) || reply != expect_reply || (error && !reply))
        return false;
    if (length != len - HEADER)
        return false;
    if (error)
        return length >= ERROR_HEAD && length <= ERROR_HEAD + TSR__WIRE_MESSAGE_MAX;
    return length == (expect_reply ? op->reply : op->request);
}

/* tsr__wire_error_raise on `len` bytes, against the model: a status of
 * the list other than TSR_OK and a text length that is the rest. */
static void check_error_raise(const uint8_t *payload, uint32_t len)
{
    tsr_status st = tsr__wire_error_raise(payload, len);
    bool valid = false;
    int32_t status = 0;
    uint32_t text_len = 0;
    if (len >= ERROR_HEAD && len <= ERROR_HEAD + TSR__WIRE_MESSAGE_MAX) {
        status = (int32_t)rd32(payload);
        text_len = rd32(payload + 4);
        valid = status > 0 && status < (int32_t)TSR_STATUS_COUNT && text_len == len - ERROR_HEAD;
    }
    if (!valid) {
        FUZZ_CHECK(st == TSR_ERR_PROTOCOL);
        FUZZ_CHECK(strncmp(tsr_last_error(), "garbled error reply (", 21) == 0);
        return;
    }
    FUZZ_CHECK(st == (tsr_status)status);
    /* The message is the text up to its first NUL, cut to the error slot. */
    const char *text = (const char *)payload + ERROR_HEAD;
    size_t want = strnlen(text, text_len);
    const char *got = tsr_last_error();
    if (want > 1023)
        want = 1023;
    FUZZ_CHECK(strlen(got) == want && memcmp(got, text, want) == 0);
}

/* A fixed text field: valid when NUL-terminated within its size; copying
 * it (or a cut of it) back with tsr__wire_text_set gives a terminated,
 * NUL-padded field. */
static void check_text(const char *field, size_t size)
{
    bool terminated = false;
    for (size_t k = 0; k < size; k++)
        terminated |= field[k] == '\0';
    FUZZ_CHECK(tsr__wire_text_ok(field, size) == terminated);
    char text[TSR__WIRE_LONG_TEXT + 1], copy[TSR__WIRE_LONG_TEXT];
    memcpy(text, field, size);
    text[size] = '\0';
    memset(copy, 0x55, sizeof copy);
    tsr__wire_text_set(copy, size, text);
    size_t n = strlen(text) < size - 1 ? strlen(text) : size - 1;
    FUZZ_CHECK(tsr__wire_text_ok(copy, size));
    FUZZ_CHECK(memcmp(copy, text, n) == 0);
    for (size_t k = n; k < size; k++)
        FUZZ_CHECK(copy[k] == '\0');
    FUZZ_CHECK(size == sizeof copy || (unsigned char)copy[size] == 0x55);
}

/* The payload validators the receivers apply to the messages with text. */
static void check_payload(uint32_t opcode, bool reply, const uint8_t *payload, uint32_t len)
{
    if (opcode == TSR__OP_HELLO && !reply) {
        tsr__wire_hello h;
        FUZZ_CHECK(len == sizeof h);
        memcpy(&h, payload, sizeof h);
        check_text(h.name, sizeof h.name);
    } else if (opcode == TSR__OP_DEVICE_GET && reply) {
        tsr__wire_device_info d;
        FUZZ_CHECK(len == sizeof d);
        memcpy(&d, payload, sizeof d);
        check_text(d.name, sizeof d.name);
        check_text(d.vendor, sizeof d.vendor);
        check_text(d.driver_version, sizeof d.driver_version);
        check_text(d.api_version, sizeof d.api_version);
        check_text(d.cpuset, sizeof d.cpuset);
        check_text(d.pci_bus_id, sizeof d.pci_bus_id);
        check_text(d.render_node, sizeof d.render_node);
    } else if (opcode == TSR__OP_PROCESS_LIST && reply) {
        tsr__wire_process w;
        FUZZ_CHECK(len == sizeof w);
        memcpy(&w, payload, sizeof w);
        check_text(w.command, sizeof w.command);
        check_text(w.name, sizeof w.name);
        check_text(w.unit, sizeof w.unit);
        FUZZ_CHECK(tsr__wire_text_ok(w.cgroup, sizeof w.cgroup) ==
                   (memchr(w.cgroup, '\0', sizeof w.cgroup) != NULL));
    } else if (opcode == TSR__OP_DEVICE_STATUS && reply) {
        tsr__wire_device_status w;
        FUZZ_CHECK(len == sizeof w);
        memcpy(&w, payload, sizeof w);
        check_text(w.backend_name, sizeof w.backend_name);
        check_text(w.platform_name, sizeof w.platform_name);
        check_text(w.backend.language_version, sizeof w.backend.language_version);
    } else if (opcode == TSR__OP_FILL && !reply) {
        /* The daemon's region check: when it accepts, every element must lie
         * inside the block, which is recomputed here the slow way. */
        tsr__wire_fill w;
        FUZZ_CHECK(len == sizeof w);
        memcpy(&w, payload, sizeof w);
        tsr__region g = {
            .itemsize = w.region.itemsize, .ndim = w.region.ndim, .offset = w.region.offset};
        memcpy(g.sizes, w.region.sizes, sizeof g.sizes);
        memcpy(g.strides, w.region.strides, sizeof g.strides);
        uint64_t block = w.region.handle & 0xffffffu, span;
        if (tsr__region_check(&g, block, &span) == TSR_OK && span) {
            unsigned __int128 last = (unsigned __int128)g.offset;
            for (int k = 0; k < g.ndim; k++)
                last += (unsigned __int128)(g.sizes[k] - 1) * (unsigned __int128)g.strides[k];
            FUZZ_CHECK((last + 1) * g.itemsize == span && span <= block);
        }
    } else if (opcode == TSR__OP_SESSION_LIST && reply) {
        tsr__wire_session_info s;
        FUZZ_CHECK(len == sizeof s);
        memcpy(&s, payload, sizeof s);
        check_text(s.command, sizeof s.command);
        check_text(s.name, sizeof s.name);
    }
}

/* One frame through tsr__wire_check both ways over both transports. */
static void check_frame(const uint8_t *f, size_t len)
{
    static const uint32_t transports[] = {TSR__WIRE_SOCKET, TSR__WIRE_RING};
    bool passed[2][2] = {{false, false}, {false, false}};
    for (int t = 0; t < 2; t++) {
        for (int dir = 0; dir < 2; dir++) {
            bool expect_reply = dir == 1;
            tsr__wire_header h;
            memset(&h, 0xa5, sizeof h);
            tsr__wire_header before = h;
            tsr_status st = tsr__wire_check(f, len, transports[t], expect_reply, &h);
            bool model = model_accepts(f, len, transports[t], expect_reply);
            FUZZ_CHECK((st == TSR_OK) == model);
            if (st != TSR_OK) {
                FUZZ_CHECK(st == TSR_ERR_PROTOCOL && tsr_last_error()[0] != '\0');
                FUZZ_CHECK(memcmp(&h, &before, sizeof h) == 0);
                continue;
            }
            passed[t][dir] = true;
            /* It decodes to what it carries, and rebuilds to the same bytes. */
            FUZZ_CHECK(memcmp(&h, f, HEADER) == 0);
            FUZZ_CHECK(h.magic == TSR__WIRE_MAGIC && h.version == TSR__WIRE_VERSION);
            FUZZ_CHECK(h.length == len - HEADER && len <= TSR__WIRE_FRAME_MAX);
            FUZZ_CHECK(h.opcode == rd16(f + 6) && h.flags == rd32(f + 8) &&
                       h.request_id == rd64(f + 16));
            tsr__wire_header again;
            tsr__wire_header_init(&again, h.opcode, h.flags, h.length, h.request_id);
            FUZZ_CHECK(memcmp(&again, f, HEADER) == 0);
            const tsr__wire_op_info *op = tsr__wire_op(h.opcode);
            FUZZ_CHECK(op != NULL && (op->transports & transports[t]));
            const uint8_t *payload = f + HEADER;
            if (h.flags & TSR__WIRE_ERROR) {
                FUZZ_CHECK(expect_reply && h.length >= tsr__wire_error_size(0) &&
                           h.length <= sizeof(tsr__wire_error));
                check_error_raise(payload, h.length);
                check_error_raise(payload, h.length - 1);
            } else {
                FUZZ_CHECK(h.length == (expect_reply ? op->reply_size : op->request_size));
                check_payload(h.opcode, expect_reply, payload, h.length);
            }
        }
    }
    /* One direction at most (the reply flag decides), and the ring takes
     * nothing that the socket refuses. */
    FUZZ_CHECK(!((passed[0][0] || passed[1][0]) && (passed[0][1] || passed[1][1])));
    FUZZ_CHECK(!passed[1][0] || passed[0][0]);
    FUZZ_CHECK(!passed[1][1] || passed[0][1]);
}

/* A frame made from the input: an opcode, flags and a request id from its
 * first bytes, the rest (or the rest fitted to the opcode's size) as
 * payload. */
static void check_built(const uint8_t *data, size_t size)
{
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX + 64];
    } frame;
    if (size < 2)
        return;
    uint32_t opcode = data[0] % 14u;
    uint32_t flags = data[1] & 0x40 ? data[1] : data[1] & 3u;
    const uint8_t *rest = data + 2;
    size_t n = size - 2;
    const doc_op *op = doc_op_of(opcode);
    if (op && (data[1] & 0x80)) {
        n = (flags & 1u) ? op->reply : op->request;
        if (flags & 2u)
            n = ERROR_HEAD + (size - 2) % (TSR__WIRE_MESSAGE_MAX + 1);
    }
    if (n > TSR__WIRE_FRAME_MAX + 64 - HEADER)
        n = TSR__WIRE_FRAME_MAX + 64 - HEADER;
    memset(frame.bytes, 0, sizeof frame.bytes);
    memcpy(frame.bytes + HEADER, rest, n < size - 2 ? n : size - 2);
    if ((flags & 2u) && (data[1] & 0x20) && n >= ERROR_HEAD) {
        /* A well-formed error payload: a listed status, the right length. */
        int32_t status = 1 + (int32_t)((size > 2 ? rest[0] : 0u) % (TSR_STATUS_COUNT - 1));
        uint32_t text_len = (uint32_t)n - ERROR_HEAD;
        memcpy(frame.bytes + HEADER, &status, sizeof status);
        memcpy(frame.bytes + HEADER + 4, &text_len, sizeof text_len);
    }
    tsr__wire_header h;
    tsr__wire_header_init(&h, opcode, flags, (uint32_t)n, size);
    memcpy(frame.bytes, &h, sizeof h);
    check_frame(frame.bytes, HEADER + n);
}

/* The input's bytes as an error message, round the wire. */
static void check_error_round_trip(const uint8_t *data, size_t size)
{
    char *message = fuzz_cstring(data, size);
    tsr_status status = (tsr_status)(1 + (size ? data[0] : 0) % (TSR_STATUS_COUNT - 1));
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX];
    } frame;
    tsr__wire_error err;
    uint32_t len = tsr__wire_error_fill(&err, status, message);
    size_t text_len = strnlen(message, TSR__WIRE_MESSAGE_MAX);
    FUZZ_CHECK(len == ERROR_HEAD + text_len && err.length == text_len);
    FUZZ_CHECK(err.status == (int32_t)status && memcmp(err.text, message, text_len) == 0);
    tsr__wire_header h;
    tsr__wire_header_init(&h, TSR__OP_PING, TSR__WIRE_REPLY | TSR__WIRE_ERROR, len, 7);
    memcpy(frame.bytes, &h, sizeof h);
    memcpy(frame.bytes + sizeof h, &err, len);
    tsr__wire_header got;
    FUZZ_CHECK(tsr__wire_check(frame.bytes, sizeof h + len, TSR__WIRE_RING, true, &got) == TSR_OK);
    FUZZ_CHECK(tsr__wire_error_raise(frame.bytes + sizeof h, got.length) == status);
    size_t want = text_len < 1023 ? text_len : 1023;
    FUZZ_CHECK(strlen(tsr_last_error()) == want && memcmp(tsr_last_error(), message, want) == 0);
    free(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_table();
    if (size > 2 * TSR__WIRE_FRAME_MAX)
        return 0;
    check_frame(data, size);
    check_error_raise(data, (uint32_t)size); /* the raw bytes as an error payload */
    check_built(data, size);
    check_error_round_trip(data, size);
    return 0;
}
