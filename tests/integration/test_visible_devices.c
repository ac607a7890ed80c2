/* devices.visible against a real daemon with two OpenCL devices (PoCL's
 * CPU driver twice, through POCL_DEVICES), configured to show sessions only
 * its opencl:1:
 *
 *   - a session sees one device, numbered opencl:0, and everything it does
 *     there (current device, memory, kernels and their errors) happens on
 *     the daemon's opencl:1, which is how SESSION_LIST names it and the
 *     daemon_index of its properties; a session that never chose a device
 *     is reported on its own opencl:0;
 *   - the hidden device does not exist for the session, in the library and
 *     in the daemon itself (raw requests): the error is the one a device
 *     that does not exist gets;
 *   - TESSERA_VISIBLE_DEVICES picks among what the daemon shows;
 *   - a SIGHUP that changes devices.visible changes what new sessions see
 *     and nothing of the sessions already open;
 *   - the tessera command names devices as a session opened now does,
 *     asks the daemon about the device behind each (devices, info, ps,
 *     topo, top, stats), and names a device only older sessions see by the
 *     daemon's ordinal and a star. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "support_daemon.h"
#include "test.h"
#include "test_cli_support.h"

#define ELEMENTS (1 << 21) /* large enough that a kernel outlasts a hasty read */

static test_daemon tsrd;
static char conf_dir[256], conf_path[320];

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void write_conf(const char *text)
{
    FILE *f = fopen(conf_path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(conf_path);
        exit(1);
    }
}

/* The lines of the daemon's log that hold `needle`. */
static int log_count(const char *needle)
{
    return test_daemon_log_count(&tsrd, needle);
}

static bool log_has(const char *needle)
{
    return log_count(needle) > 0;
}

/* SIGHUP, then the daemon's word that the file was read again. */
static bool reload(void)
{
    char done[400];
    snprintf(done, sizeof done, "reloaded the configuration from %s", conf_path);
    int before = log_count(done);
    kill(tsrd.pid, SIGHUP);
    for (int waited = 0; waited < 10000; waited += 20, sleep_ms(20))
        if (log_count(done) > before)
            return true;
    return false;
}

/* ---- raw requests, to see what the daemon itself answers ---------------- */

typedef struct raw {
    int fd;
    uint64_t next_id;
    int32_t status; /* of the last error reply */
    char message[TSR__WIRE_MESSAGE_MAX + 1];
} raw;

/* One request over the socket: TSR_OK with the reply payload in out, the
 * status of an error reply (its text in r->message), or -1. Descriptors
 * that come with a reply are closed. */
static int raw_call(raw *r, uint32_t opcode, const void *payload, uint32_t len, void *out,
                    uint32_t out_len)
{
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX];
    } f;
    tsr__wire_header h = {.magic = TSR__WIRE_MAGIC,
                          .version = TSR__WIRE_VERSION,
                          .opcode = (uint16_t)opcode,
                          .length = len,
                          .request_id = r->next_id++};
    memcpy(f.bytes, &h, sizeof h);
    memcpy(f.bytes + sizeof h, payload, len);
    if (send(r->fd, f.bytes, sizeof h + len, MSG_NOSIGNAL) != (ssize_t)(sizeof h + len))
        return -1;
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = f.bytes, .iov_len = sizeof f.bytes};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n = poll(&p, 1, 5000) == 1 ? recvmsg(r->fd, &msg, MSG_CMSG_CLOEXEC) : -1;
    for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c))
        for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
            close(fd);
        }
    if (n < (ssize_t)sizeof h)
        return -1;
    memcpy(&h, f.bytes, sizeof h);
    if (h.flags & TSR__WIRE_ERROR) {
        tsr__wire_error e = {0};
        memcpy(&e, f.bytes + sizeof h, h.length < sizeof e ? h.length : sizeof e);
        snprintf(r->message, sizeof r->message, "%.*s", (int)e.length, e.text);
        return r->status = e.status;
    }
    if (h.length != out_len)
        return -1;
    memcpy(out, f.bytes + sizeof h, out_len);
    return TSR_OK;
}

#define RAW(r, op, in, out) raw_call((r), (op), &(in), sizeof(in), &(out), sizeof(out))

/* Connects and says HELLO; *devices: the registry entries offered. */
static bool raw_open(raw *r, uint32_t *devices)
{
    *r = (raw){.fd = -1, .next_id = 1};
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(tsrd.socket) >= sizeof addr.sun_path)
        return false;
    memcpy(addr.sun_path, tsrd.socket, strlen(tsrd.socket) + 1);
    r->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (r->fd < 0 || connect(r->fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        return false;
    tsr__wire_hello hello = {.version_min = TSR__WIRE_VERSION_MIN,
                             .version_max = TSR__WIRE_VERSION,
                             .pid = (uint32_t)getpid(),
                             .name = "raw"};
    tsr__wire_welcome w;
    if (RAW(r, TSR__OP_HELLO, hello, w) != TSR_OK)
        return false;
    *devices = w.device_count;
    return true;
}

static const char hidden_message[] =
    "invalid device ordinal: opencl:1 does not exist (this machine has: cpu, opencl:0, meta)";

/* What a session that sees only the daemon's opencl:1 is told. */
static void check_raw_one_device(raw *r, uint32_t devices)
{
    ASSERT_EQ(devices, 3); /* cpu, opencl:0, meta */
    tsr__wire_position pos = {.position = 1};
    tsr__wire_device_info info;
    ASSERT_EQ(RAW(r, TSR__OP_DEVICE_GET, pos, info), TSR_OK);
    ASSERT_EQ(info.device.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(info.device.index, 0);
    ASSERT_EQ(info.flags, TSR__WIRE_INFO_DAEMON_INDEX);
    ASSERT_EQ(info.daemon_index, 1);
    pos.position = 2;
    ASSERT_EQ(RAW(r, TSR__OP_DEVICE_GET, pos, info), TSR_OK);
    ASSERT_EQ(info.device.type, TSR_DEVICE_META);
    ASSERT_EQ(info.daemon_index, -1);
    pos.position = 3;
    ASSERT_EQ(RAW(r, TSR__OP_DEVICE_GET, pos, info), TSR_ERR_INDEX);

    /* The hidden device is refused as a device that does not exist. */
    tsr__wire_set_device set = {.thread_id = 1, .device = {TSR_DEVICE_OPENCL, 1}};
    uint8_t none[1];
    ASSERT_EQ(raw_call(r, TSR__OP_SET_DEVICE, &set, sizeof set, none, 0), TSR_ERR_NO_DEVICE);
    ASSERT_STREQ(r->message, hidden_message);
    tsr__wire_alloc alloc = {.device = {TSR_DEVICE_OPENCL, 1}, .bytes = 4096};
    tsr__wire_block block;
    ASSERT_EQ(RAW(r, TSR__OP_ALLOC, alloc, block), TSR_ERR_NO_DEVICE);
    ASSERT_STREQ(r->message, hidden_message);
    tsr__wire_memory_stats stats;
    ASSERT_EQ(RAW(r, TSR__OP_MEMORY_STATS, alloc.device, stats), TSR_ERR_NO_DEVICE);
    ASSERT_STREQ(r->message, hidden_message);
    tsr__wire_device cuda = {TSR_DEVICE_CUDA, 0};
    ASSERT_EQ(RAW(r, TSR__OP_MEMORY_STATS, cuda, stats), TSR_ERR_NO_DEVICE);
    ASSERT_STREQ(r->message, "no cuda devices here (this machine has: cpu, opencl:0, meta)");

    /* opencl:0 is served, and named as the session names it. */
    set.device.index = 0;
    ASSERT_EQ(raw_call(r, TSR__OP_SET_DEVICE, &set, sizeof set, none, 0), TSR_OK);
    tsr__wire_get_device get = {.thread_id = 1, .type = TSR_DEVICE_OPENCL};
    tsr__wire_device cur = {0, 0};
    ASSERT_EQ(RAW(r, TSR__OP_GET_DEVICE, get, cur), TSR_OK);
    ASSERT_EQ(cur.index, 0);
    alloc.device.index = 0;
    ASSERT_EQ(RAW(r, TSR__OP_ALLOC, alloc, block), TSR_OK);
    tsr__wire_segment seg = {.segment_id = block.segment_id};
    tsr__wire_segment_info seg_info = {0};
    ASSERT_EQ(RAW(r, TSR__OP_SEGMENT_MAP, seg, seg_info), TSR_OK);
    ASSERT_EQ(seg_info.device.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(seg_info.device.index, 0);
}

/* ---- through the library ------------------------------------------------ */

/* The session's row in SESSION_LIST (daemon numbering); false when absent. */
static bool own_row(tsr_client *c, tsr_session_info *row)
{
    bool found = false;
    for (uint32_t after = 0; tsr_session_list(c, after, row, &found) == TSR_OK && found;
         after = row->session_id)
        if (row->session_id == tsr_client_session_id(c))
            return true;
    return false;
}

/* The bytes a session holds on the daemon's opencl:`index`. */
static uint64_t held_on(const tsr_session_info *row, int32_t index)
{
    for (uint32_t k = 0; k < row->usage_count; k++)
        if (row->usage[k].device.type == TSR_DEVICE_OPENCL && row->usage[k].device.index == index)
            return row->usage[k].allocated;
    return 0;
}

static tsr_tensor *filled(tsr_client *c, int32_t device, tsr_dtype dtype, tsr_scalar value)
{
    int64_t n = ELEMENTS;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = dtype,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, device}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, &n, value, &o, &t));
    return t;
}

/* What the client allocates on its opencl:`device` is held on the
 * daemon's opencl:`daemon_index`, and nothing on the other device. */
static void check_lands_on(tsr_client *c, int32_t device, int32_t daemon_index)
{
    tsr_tensor *t = filled(c, device, TSR_FLOAT32, tsr_scalar_float(1));
    tsr_session_info row;
    ASSERT_TRUE(own_row(c, &row));
    ASSERT_TRUE(held_on(&row, daemon_index) >= sizeof(float) * ELEMENTS);
    ASSERT_EQ(held_on(&row, 1 - daemon_index), 0);
    /* The fill runs on the device: once it is done, the release gives the
     * memory back at once rather than behind it, and the next check sees
     * nothing left here. */
    ASSERT_OK(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, device}));
    tsr_tensor_release(t);
}

static int32_t opencl_count(tsr_client *c)
{
    int32_t n = -1;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    return n;
}

/* An add on the client's opencl:`device`, read back after tsr_synchronize
 * (which must wait for the right queue), and an integer division by zero
 * whose error the next tsr_synchronize reports. */
static void check_kernels(tsr_client *c, int32_t device)
{
    tsr_tensor *x = filled(c, device, TSR_FLOAT32, tsr_scalar_float(1.5));
    tsr_tensor *y = filled(c, device, TSR_FLOAT32, tsr_scalar_float(2.25));
    tsr_tensor *z = NULL;
    if (x && y)
        ASSERT_OK(tsr_add(x, y, tsr_scalar_int(1), &z));
    ASSERT_OK(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, device}));
    float *host = malloc(sizeof(float) * ELEMENTS);
    if (z && host && tsr_tensor_copy_to_host(z, host, sizeof(float) * ELEMENTS) == TSR_OK) {
        int64_t wrong = 0;
        for (int64_t k = 0; k < ELEMENTS; k++)
            wrong += host[k] != 3.75f;
        ASSERT_EQ(wrong, 0);
    } else {
        ASSERT_TRUE(false);
    }
    free(host);
    tsr_tensor_release(z);
    tsr_tensor_release(y);
    tsr_tensor_release(x);

    tsr_tensor *a = filled(c, device, TSR_INT32, tsr_scalar_int(7));
    tsr_tensor *b = filled(c, device, TSR_INT32, tsr_scalar_int(0));
    tsr_tensor *q = NULL;
    if (a && b)
        ASSERT_OK(tsr_div(a, b, TSR_ROUNDING_TRUNC, &q));
    ASSERT_FAIL(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, device}), TSR_ERR_RUNTIME, NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), "ZeroDivisionError") != NULL);
    ASSERT_OK(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, device})); /* reported once */
    tsr_tensor_release(q);
    tsr_tensor_release(b);
    tsr_tensor_release(a);
}

/* A small block freed with kernels still queued on it comes back from
 * the library's cache to the next allocation of its size, and the zeros
 * written there wait for those kernels: on the queue the daemon's
 * numbering names (the session's opencl:0 is the daemon's opencl:1). */
static void check_reuse_waits(tsr_client *c, int32_t device)
{
    int64_t n = 1 << 18; /* 1 MiB: the cache's largest */
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_FLOAT32,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, device}};
    tsr_tensor *x = NULL, *one = NULL, *z = NULL;
    ASSERT_OK(tsr_tensor_zeros(c, 1, &n, &o, &x));
    ASSERT_OK(tsr_tensor_ones(c, 1, &n, &o, &one));
    ASSERT_OK(tsr_synchronize(c, o.device));
    for (int k = 0; x && one && k < 400; k++) /* tens of milliseconds of kernels */
        ASSERT_OK(tsr_add_(x, one, tsr_scalar_int(1)));
    void *was = NULL, *now = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(x, &was));
    tsr_tensor_release(x);
    ASSERT_OK(tsr_tensor_zeros(c, 1, &n, &o, &z));
    ASSERT_OK(tsr_tensor_data_ptr(z, &now));
    ASSERT_TRUE(now == was); /* the same block, from the cache */
    ASSERT_OK(tsr_synchronize(c, o.device));
    float *host = malloc(sizeof(float) * (size_t)n);
    if (z && host && tsr_tensor_copy_to_host(z, host, sizeof(float) * (size_t)n) == TSR_OK) {
        int64_t wrong = 0;
        for (int64_t k = 0; k < n; k++)
            wrong += host[k] != 0.0f;
        ASSERT_EQ(wrong, 0);
    } else {
        ASSERT_TRUE(false);
    }
    free(host);
    tsr_tensor_release(z);
    tsr_tensor_release(one);
}

/* `tessera ps --json` names this process's current device `device`. */
static bool ps_shows(const char *device)
{
    char out[16384], row[64], want[64];
    const char *args[] = {"ps", "--json", NULL};
    if (test_run_cli(out, sizeof out, args) != 0)
        return false;
    snprintf(row, sizeof row, "\"pid\": %d, ", (int)getpid());
    snprintf(want, sizeof want, "\"current_device\": \"%s\"", device);
    const char *at = strstr(out, row);
    const char *next = at ? strstr(at + 1, "{\"session\"") : NULL;
    const char *dev = at ? strstr(at, want) : NULL;
    return dev && (!next || dev < next);
}

/* The first client: one device, the daemon's opencl:1, which the tessera
 * command names `shown`. */
static void check_one_device(tsr_client *c, const char *shown)
{
    ASSERT_EQ(opencl_count(c), 1);
    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    ASSERT_EQ(p.daemon_index, 1);
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_CPU, -1}, &p));
    ASSERT_EQ(p.daemon_index, -1);
    ASSERT_FAIL(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 1}), TSR_ERR_NO_DEVICE, NULL);
    ASSERT_OK(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 0}));
    tsr_device cur = {0, -1};
    ASSERT_OK(tsr_current_device(c, TSR_DEVICE_OPENCL, &cur));
    ASSERT_EQ(cur.index, 0);

    tsr_session_info row;
    ASSERT_TRUE(own_row(c, &row));
    ASSERT_EQ(row.current_device.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(row.current_device.index, 1);
    ASSERT_TRUE(ps_shows(shown));

    tsr_tensor *t = filled(c, 0, TSR_FLOAT32, tsr_scalar_float(1));
    tsr_memory_stats m;
    ASSERT_OK(tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &m));
    ASSERT_TRUE(m.allocated >= sizeof(float) * ELEMENTS);
    tsr_tensor_release(t);
    check_lands_on(c, 0, 1);
    check_kernels(c, 0);
    check_reuse_waits(c, 0);
}

/* A session that never chose a device is reported on the daemon's
 * `daemon_index`, its own opencl:0. */
static void check_idle_session(int32_t daemon_index)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_session_info row;
    ASSERT_TRUE(c && own_row(c, &row));
    if (c) {
        ASSERT_EQ(row.current_device.type, TSR_DEVICE_OPENCL);
        ASSERT_EQ(row.current_device.index, daemon_index);
        ASSERT_EQ(row.threads, 0);
    }
    tsr_client_close(c);
}

/* ---- the tessera command -------------------------------------------------- */

static char cli_out[1 << 16];

/* `tessera a0 a1 a2` (NULL ends them early); its stdout in cli_out. */
static int cli(const char *a0, const char *a1, const char *a2)
{
    const char *args[] = {a0, a1, a2, NULL};
    return test_run_cli(cli_out, sizeof cli_out, args);
}

/* Checks cli_out with a Python script (argv[1..]: args); false when the
 * script's assertion failed, after printing what was checked. */
static bool cli_json_ok(const char *what, const char *script, const char *const *args)
{
    int rc = cli_python(script, cli_out, args);
    if (rc != 0)
        fprintf(stderr, "%s: the check failed (%d) on:\n%s\n", what, rc, cli_out);
    return rc == 0;
}

/* argv: the daemon's ordinals of the devices a session sees now, in its
 * order ("1", "0,1"). */
static const char devices_json[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "want = [int(x) for x in sys.argv[1].split(',')]\n"
    "cl = [d for d in data if d['type'] == 'opencl']\n"
    "assert [d['device'] for d in cl] == ['opencl:%d' % k for k in range(len(want))], data\n"
    "assert [d['index'] for d in cl] == list(range(len(want))), data\n"
    "assert [d['daemon_index'] for d in cl] == want, data\n"
    "assert [d['daemon_index'] for d in data if d['type'] != 'opencl'] == [None, None], data\n";

/* argv: the device as the command names it (k), the daemon's ordinal, how
 * many devices the command sees, the bytes held there at least (-1: none
 * at all), and its name and memory as the client reads them ("" and -1:
 * not checked). */
static const char info_json[] =
    "import json, sys\n"
    "d = json.load(sys.stdin)\n"
    "k, daemon, n, held = (int(x) for x in sys.argv[1:5])\n"
    "assert d['device'] == 'opencl:%d' % k and d['index'] == k, d\n"
    "assert d['daemon_index'] == daemon, d\n"
    "if held >= 0:\n"
    "    assert d['allocated_bytes'] >= held and d['sessions'] >= 1, d\n"
    "    assert d['reserved_bytes'] >= d['allocated_bytes'], d\n"
    "else:\n"
    "    assert d['allocated_bytes'] == 0 and d['sessions'] == 0, d\n"
    "if sys.argv[5]:\n"
    "    assert d['name'] == sys.argv[5] and d['memory_bytes'] == int(sys.argv[6]), d\n"
    "assert sorted(d['links']) == ['opencl:%d' % j for j in range(n)], d\n"
    "assert d['links']['opencl:%d' % k] == 'X', d\n";

/* argv: this process's pid, the name of the device its sessions are on
 * and hold memory on, and the bytes one of them holds there at least. */
static const char ps_json[] =
    "import json, sys\n"
    "rows = [s for s in json.load(sys.stdin) if s['pid'] == int(sys.argv[1])]\n"
    "dev, held = sys.argv[2], int(sys.argv[3])\n"
    "assert rows, 'no session of this process'\n"
    "assert all(s['current_device'] == dev for s in rows), rows\n"
    "assert all(set(s['memory']) <= {dev} for s in rows), rows\n"
    "assert any(s['memory'].get(dev, 0) >= held for s in rows), rows\n";

/* argv: as devices_json's. */
static const char topo_json[] =
    "import json, sys\n"
    "t = json.load(sys.stdin)\n"
    "want = [int(x) for x in sys.argv[1].split(',')]\n"
    "names = ['opencl:%d' % k for k in range(len(want))]\n"
    "assert [d['device'] for d in t['devices']] == names, t\n"
    "assert [d['daemon_index'] for d in t['devices']] == want, t\n"
    "for d in t['devices']:\n"
    "    assert sorted(d['links']) == names and d['links'][d['device']] == 'X', t\n";

/* argv: a device name one of the entries has. */
static const char stats_json[] = "import json, sys\n"
                                 "data = json.load(sys.stdin)\n"
                                 "assert any(e['device'] == sys.argv[1] for e in data), data\n";

/* The daemon's ordinal of a session's opencl:k, from a list such as "0,1". */
static int32_t nth_ordinal(const char *seen, int32_t k)
{
    for (; k > 0 && seen; k--)
        if ((seen = strchr(seen, ',')) != NULL)
            seen++;
    return seen ? (int32_t)atoi(seen) : -1;
}

/* The commands while a session sees the daemon's devices `seen` (as
 * devices_json's argument) and `c`, whose opencl:0 is the daemon's
 * opencl:1, holds memory there: the commands name that device `shown`
 * ("opencl:1*" when a session opened now does not see it). */
static void check_cli(tsr_client *c, const char *seen, const char *shown)
{
    int32_t n = nth_ordinal(seen, 1) >= 0 ? 2 : 1;
    tsr_tensor *t = filled(c, 0, TSR_FLOAT32, tsr_scalar_float(1));
    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    char pid[16], held[32], count[16], memory[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(held, sizeof held, "%d", (int)(sizeof(float) * ELEMENTS));
    snprintf(count, sizeof count, "%d", (int)n);
    snprintf(memory, sizeof memory, "%llu", (unsigned long long)p.memory_bytes);

    const char *seen_arg[] = {seen, NULL}, *ps_args[] = {pid, shown, held, NULL};
    const char *shown_arg[] = {shown, NULL};

    ASSERT_EQ(cli("devices", "--json", "--all"), 0);
    ASSERT_TRUE(cli_json_ok("devices --json", devices_json, seen_arg));
    for (int32_t k = 0; k < n; k++) {
        char name[32], index[16], line[64];
        int32_t daemon = nth_ordinal(seen, k);
        snprintf(name, sizeof name, "opencl:%d", (int)k);
        snprintf(index, sizeof index, "%d", (int)daemon);
        ASSERT_EQ(cli("info", name, "--json"), 0);
        const char *one[] = {
            name + 7, index, count, daemon == 1 ? held : "-1", daemon == 1 ? p.name : "",
            memory,   NULL};
        ASSERT_TRUE(cli_json_ok("info --json", info_json, one));
        ASSERT_EQ(cli("info", name, NULL), 0);
        snprintf(line, sizeof line, "  %-26s opencl:%d\n", "daemon's ordinal", (int)daemon);
        ASSERT_TRUE(strstr(cli_out, line) != NULL);
    }
    ASSERT_EQ(cli("ps", "--json", NULL), 0);
    ASSERT_TRUE(cli_json_ok("ps --json", ps_json, ps_args));
    ASSERT_EQ(cli("topo", "--json", NULL), 0);
    ASSERT_TRUE(cli_json_ok("topo --json", topo_json, seen_arg));
    ASSERT_EQ(cli("stats", "--json", NULL), 0);
    ASSERT_TRUE(cli_json_ok("stats --json", stats_json, shown_arg));
    ASSERT_EQ(cli("topo", NULL, NULL), 0);
    ASSERT_TRUE(strstr(cli_out, "opencl:0") && (n == 2) == (strstr(cli_out, "opencl:1") != NULL));
    ASSERT_EQ(cli("top", "--once", NULL), 0);
    ASSERT_TRUE(strstr(cli_out, "opencl:0 ") != NULL && strstr(cli_out, shown) != NULL);
    ASSERT_TRUE((n == 2 || strchr(shown, '*')) == (strstr(cli_out, "opencl:1") != NULL));
    tsr_tensor_release(t);
}

/* TESSERA_VISIBLE_DEVICES numbers what the daemon shows the session. */
static void check_client_filter(int32_t daemon_shows)
{
    tsr_client *c = NULL;
    tsr_client_options o = {.visible_devices = "1"};
    if (daemon_shows == 1) {
        ASSERT_FAIL(tsr_client_open(&o, &c), TSR_ERR_INVALID_ARGUMENT,
                    "TESSERA_VISIBLE_DEVICES='1': opencl:1 does not exist (tesserad has 1 opencl "
                    "devices)");
        o.visible_devices = "0";
    }
    ASSERT_OK(tsr_client_open(&o, &c));
    if (!c)
        return;
    ASSERT_EQ(opencl_count(c), 1);
    check_lands_on(c, 0, 1); /* either way its opencl:0 is the daemon's opencl:1 */
    tsr_client_close(c);
}

/* After the reload: a new client sees both devices, in the new order. */
static void check_new_session(void)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return;
    ASSERT_EQ(opencl_count(c), 2);
    check_lands_on(c, 0, 0);
    check_lands_on(c, 1, 1);
    ASSERT_OK(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 1}));
    tsr_session_info row;
    ASSERT_TRUE(own_row(c, &row));
    ASSERT_EQ(row.current_device.index, 1);
    check_kernels(c, 1);
    check_kernels(c, 0);
    tsr_client_close(c);
}

static void cleanup_conf(void)
{
    unlink(conf_path);
    rmdir(conf_dir);
}

int main(void)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    const char *tmp = getenv("TMPDIR");
    snprintf(conf_dir, sizeof conf_dir, "%s/tessera-visible.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(conf_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(conf_path, sizeof conf_path, "%s/tesserad.conf", conf_dir);
    write_conf("devices.visible = 1\n");
    const char *extra[] = {"--config", conf_path, NULL};
    if (test_daemon_start(&tsrd, extra) != 0) {
        cleanup_conf();
        return 1;
    }
    if (log_has("devices.visible: opencl:1 does not exist")) {
        test_daemon_stop(&tsrd);
        cleanup_conf();
        TEST_SKIP("PoCL did not expose two devices with POCL_DEVICES");
    }

    tsr_client *first = NULL;
    ASSERT_OK(tsr_client_open(NULL, &first));
    raw early;
    uint32_t devices = 0;
    ASSERT_TRUE(raw_open(&early, &devices));
    if (!first || early.fd < 0)
        return 1;
    bool python = access(PYTHON, X_OK) == 0;
    if (!python)
        fprintf(stderr, "note: %s is missing: the commands' JSON is not checked\n", PYTHON);
    check_one_device(first, "opencl:0");
    check_raw_one_device(&early, devices);
    check_client_filter(1);
    check_idle_session(1);
    if (python)
        check_cli(first, "1", "opencl:0");

    /* Reload with both devices, in the daemon's order: new sessions see
     * two; the open ones keep their single device. */
    write_conf("devices.visible = 0, opencl:1\n");
    ASSERT_TRUE(reload());
    check_new_session();
    check_client_filter(2);
    check_idle_session(0);
    check_one_device(first, "opencl:1");
    check_raw_one_device(&early, devices);
    raw late;
    uint32_t late_devices = 0;
    ASSERT_TRUE(raw_open(&late, &late_devices));
    ASSERT_EQ(late_devices, 4);
    close(late.fd);
    if (python)
        check_cli(first, "0,1", "opencl:1");

    /* Hide the device the open sessions use from new ones: the command no
     * longer sees it either, and names it by the daemon's ordinal. */
    write_conf("devices.visible = 0\n");
    ASSERT_TRUE(reload());
    check_idle_session(0);
    check_one_device(first, "opencl:1*");
    check_raw_one_device(&early, devices);
    if (python)
        check_cli(first, "0", "opencl:1*");

    close(early.fd);
    tsr_client_close(first);
    if (test__failed)
        test_daemon_dump_log(&tsrd);
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
    cleanup_conf();
    TEST_DONE();
}
