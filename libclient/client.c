/* Opening and closing a session with tesserad (tessera/client.h).
 *
 * Owns the life of tsr_client: connecting, the handshake (which hands over
 * the request ring and its doorbell), reading the daemon's device registry
 * once, the visible-devices map, the reference count, and tearing it all
 * down. After tsr_client_open returns, the registry, `accelerator` and the
 * visible map never change; a client that fails to open is freed whole.
 * The top of the connection: nothing else here calls into this file. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/ring.h"
#include "libclient/connection.h"

#define DEFAULT_TIMEOUT_MS 10000

static tsr_status connect_socket(const char *path, int *out)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "socket path too long: %s", path);
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tsr__fail(TSR_ERR_CONNECTION, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
        *out = fd;
        return TSR_OK;
    }
    int e = errno;
    close(fd);
    if (e == EACCES || e == EPERM)
        return tsr__fail(
            TSR_ERR_PERMISSION,
            "cannot connect to tesserad at %s: %s (is this user in the socket's group?)", path,
            strerror(e));
    return tsr__fail(TSR_ERR_CONNECTION,
                     "cannot connect to tesserad at %s: %s; start the daemon with `tesserad "
                     "--socket %s`, or set TESSERA_SOCKET to the socket of a running one",
                     path, strerror(e), path);
}

/* "2,0": client ordinal k is the daemon's visible[k]. */
static tsr_status parse_visible(tsr_client *c, const char *text)
{
    if (!text) {
        c->visible_count =
            c->daemon_accelerators < TSR__MAX_VISIBLE ? c->daemon_accelerators : TSR__MAX_VISIBLE;
        for (int32_t k = 0; k < c->visible_count; k++)
            c->visible[k] = k;
        return TSR_OK;
    }
    const char *p = text;
    c->visible_count = 0;
    while (*p) {
        if (*p < '0' || *p > '9')
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': expected device ordinals separated "
                             "by commas, such as 2,0",
                             text);
        long v = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if ((v = v * 10 + (*p - '0')) > 100000)
                break;
        if (v >= c->daemon_accelerators && c->daemon_accelerators == 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': device %ld does not exist "
                             "(tesserad has no accelerators)",
                             text, v);
        if (v >= c->daemon_accelerators)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': %s:%ld does not exist (tesserad "
                             "has %d %s devices)",
                             text, tsr_device_type_name(c->accelerator), v,
                             (int)c->daemon_accelerators, tsr_device_type_name(c->accelerator));
        for (int32_t k = 0; k < c->visible_count; k++)
            if (c->visible[k] == v)
                return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                                 "TESSERA_VISIBLE_DEVICES='%.64s': device %ld is listed twice",
                                 text, v);
        if (c->visible_count == TSR__MAX_VISIBLE)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "TESSERA_VISIBLE_DEVICES: too many entries");
        c->visible[c->visible_count++] = (int32_t)v;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': expected device ordinals separated "
                             "by commas, such as 2,0",
                             text);
    }
    return TSR_OK;
}

static tsr_status handshake(tsr_client *c, const char *name, bool monitor)
{
    tsr__wire_hello hello = {.version_min = TSR__WIRE_VERSION_MIN,
                             .version_max = TSR__WIRE_VERSION,
                             .pid = (uint32_t)getpid(),
                             .flags = monitor ? TSR__WIRE_HELLO_MONITOR : 0};
    char comm[TSR__WIRE_TEXT] = "";
    if (!name) {
        FILE *f = fopen("/proc/self/comm", "re");
        if (f) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        name = comm;
    }
    tsr__wire_text_set(hello.name, sizeof hello.name, name);
    tsr__wire_welcome welcome;
    int fds[2];
    int nfds = monitor ? 0 : 2; /* a monitor gets no ring */
    tsr_status st = tsr__socket_call(c, TSR__OP_HELLO, &hello, sizeof hello, &welcome,
                                     sizeof welcome, fds, &nfds);
    if (st != TSR_OK)
        return st;
    if (monitor) { /* every request takes the socket */
        if (welcome.device_count < 2 || welcome.device_count > 4096)
            return tsr__fail(TSR_ERR_PROTOCOL,
                             "tesserad answered a monitoring connection with a session");
        c->session_id = welcome.session_id;
        c->version = welcome.version;
        c->device_count = welcome.device_count;
        return TSR_OK;
    }
    c->doorbell_fd = fds[1];
    if (welcome.ring_bytes != sizeof(tsr__ring) || welcome.ring_slots != TSR__RING_SLOTS ||
        welcome.ring_slot_size != TSR__RING_SLOT_SIZE || welcome.device_count < 2 ||
        welcome.device_count > 4096) {
        close(fds[0]);
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "tesserad offered a ring or registry this client cannot use");
    }
    void *ring = NULL;
    st = tsr__map_shared(fds[0], sizeof(tsr__ring), "request ring", &ring);
    close(fds[0]);
    if (st != TSR_OK)
        return st;
    c->ring = ring;
    c->session_id = welcome.session_id;
    c->version = welcome.version;
    c->device_count = welcome.device_count;
    return TSR_OK;
}

static tsr_status read_registry(tsr_client *c)
{
    c->devices = calloc(c->device_count, sizeof *c->devices);
    if (!c->devices)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t k = 0; k < c->device_count; k++) {
        tsr__wire_position pos = {.position = k};
        tsr__wire_device_info *d = &c->devices[k];
        tsr_status st = tsr__client_call(c, TSR__OP_DEVICE_GET, &pos, d);
        if (st != TSR_OK)
            return st;
        if (!tsr__wire_text_ok(d->name, sizeof d->name) ||
            !tsr__wire_text_ok(d->vendor, sizeof d->vendor) ||
            !tsr__wire_text_ok(d->driver_version, sizeof d->driver_version) ||
            !tsr__wire_text_ok(d->api_version, sizeof d->api_version) ||
            !tsr__wire_text_ok(d->cpuset, sizeof d->cpuset) ||
            !tsr__wire_text_ok(d->pci_bus_id, sizeof d->pci_bus_id) ||
            !tsr__wire_text_ok(d->render_node, sizeof d->render_node))
            return tsr__fail(TSR_ERR_PROTOCOL, "garbled device entry %u from tesserad",
                             (unsigned)k);
        /* Everything between cpu (first) and meta (last) is an
         * accelerator, all of one type, numbered from 0 in order. */
        if (k > 0 && k + 1 < c->device_count) {
            if (c->daemon_accelerators == 0 && (unsigned)d->device.type < TSR_DEVICE_TYPE_COUNT &&
                d->device.type != TSR_DEVICE_CPU && d->device.type != TSR_DEVICE_META)
                c->accelerator = (tsr_device_type)d->device.type;
            if (d->device.type != (int32_t)c->accelerator)
                return tsr__fail(TSR_ERR_PROTOCOL,
                                 "device entry %u from tesserad is not an accelerator of the "
                                 "registry's one type",
                                 (unsigned)k);
            if (d->device.index != c->daemon_accelerators)
                return tsr__fail(TSR_ERR_PROTOCOL, "device entries out of order");
            if ((d->flags & TSR__WIRE_INFO_DAEMON_INDEX) && d->daemon_index < 0)
                return tsr__fail(TSR_ERR_PROTOCOL, "garbled device entry %u from tesserad",
                                 (unsigned)k);
            c->daemon_accelerators++;
        }
    }
    return TSR_OK;
}

static void client_free(tsr_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->doorbell_fd >= 0)
        close(c->doorbell_fd);
    if (c->ring)
        munmap(c->ring, sizeof(tsr__ring));
    tsr__memory_fini(c);
    free(c->devices);
    pthread_mutex_destroy(&c->sock_lock);
    free(c);
}

tsr_status tsr_client_open(const tsr_client_options *options, tsr_client **out)
{
    tsr_client_options o = options ? *options : (tsr_client_options){0};
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_client_open: out is NULL");
    const char *path = o.socket_path;
    if (!path)
        path = getenv("TESSERA_SOCKET");
    if (!path || !*path)
        path = TSR_DEFAULT_SOCKET;
    if (!tsr__abi_reserved_zero(o.abi_reserved, TSR__ARRAY_SIZE(o.abi_reserved)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr_client_options has reserved words set: zero-initialise it");
    if (o.timeout_ms < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "negative timeout_ms");
    if (o.flags & ~TSR_CLIENT_MONITOR)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr_client_options.flags 0x%llx: unknown bits (TSR_CLIENT_MONITOR is "
                         "the only one)",
                         (unsigned long long)(o.flags & ~TSR_CLIENT_MONITOR));
    tsr_client *c = calloc(1, sizeof *c);
    if (!c)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    c->refs = 1;
    c->fd = c->doorbell_fd = -1;
    c->opener = (int)getpid();
    c->fork_generation = tsr__fork_generation();
    c->timeout_ms = o.timeout_ms ? o.timeout_ms : DEFAULT_TIMEOUT_MS;
    c->spin_ns = TSR__SPIN_NS;
    c->wait_spin_ns = TSR__WAIT_SPIN_NS;
    c->next_request = 1;
    c->accelerator = TSR_DEVICE_TYPE_COUNT;
    pthread_mutex_init(&c->sock_lock, NULL);
    tsr__memory_init(c);
    tsr__queues_init(c);
    tsr_status st = connect_socket(path, &c->fd);
    if (st == TSR_OK)
        st = handshake(c, o.name, (o.flags & TSR_CLIENT_MONITOR) != 0);
    if (st == TSR_OK)
        st = read_registry(c);
    if (st == TSR_OK)
        st = parse_visible(c, o.visible_devices ? o.visible_devices
                                                : getenv("TESSERA_VISIBLE_DEVICES"));
    if (st != TSR_OK) {
        client_free(c);
        return st;
    }
    *out = c;
    return TSR_OK;
}

void tsr__client_retain(tsr_client *c)
{
    atomic_fetch_add(&c->refs, 1u);
}

void tsr__client_release(tsr_client *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1u) == 1)
        client_free(c);
}

void tsr_client_close(tsr_client *c)
{
    tsr__client_release(c);
}

uint32_t tsr_client_session_id(const tsr_client *c)
{
    return c ? c->session_id : 0;
}

uint32_t tsr_client_protocol_version(const tsr_client *c)
{
    return c ? c->version : 0;
}

tsr_status tsr_client_ping(tsr_client *c, tsr_transport transport)
{
    if (!c)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_client_ping: client is NULL");
    if (transport == TSR_TRANSPORT_RING && !c->ring)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr_client_ping: a monitoring connection has no ring; ping the socket");
    if (transport == TSR_TRANSPORT_RING)
        return tsr__ring_call(c, TSR__OP_PING, NULL, 0, NULL, 0);
    if (transport == TSR_TRANSPORT_SOCKET)
        return tsr__socket_call(c, TSR__OP_PING, NULL, 0, NULL, 0, NULL, NULL);
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid transport %d", (int)transport);
}
