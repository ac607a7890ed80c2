/* libtessera against a server it must not trust: a fake tesserad on a real
 * SOCK_SEQPACKET socket speaks the handshake and the registry, but hands
 * over a request ring or a data segment the client cannot safely map (too
 * small, or not sealed against shrinking, so it could become too small
 * later). Mapping such a file and touching it kills the process with
 * SIGBUS; the library must refuse it with an error instead. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/protocol.h"
#include "core/ring.h"
#include "test.h"

/* Which memfd is hostile, and how. With a hostile segment the ring is
 * sound but every slot is marked taken, so that the client's allocation
 * comes over the socket, where this server answers it. */
typedef enum ring_kind {
    RING_TOO_SMALL,
    RING_UNSEALED,
    SEGMENT_TOO_SMALL,
    SEGMENT_UNSEALED
} ring_kind;

#define SEGMENT_BYTES (UINT64_C(2) << 20)

typedef struct fake_server {
    int listen_fd;
    ring_kind kind;
    char path[108];
} fake_server;

static int make_memfd(off_t bytes, bool sealed)
{
    int fd = memfd_create("fake-memfd", MFD_CLOEXEC | (sealed ? MFD_ALLOW_SEALING : 0));
    if (fd < 0 || ftruncate(fd, bytes) < 0)
        return -1;
    if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
        return -1;
    return fd;
}

static int make_ring(ring_kind kind)
{
    int fd =
        make_memfd(kind == RING_TOO_SMALL ? 0 : (off_t)sizeof(tsr__ring), kind != RING_UNSEALED);
    if (fd >= 0 && (kind == SEGMENT_TOO_SMALL || kind == SEGMENT_UNSEALED)) {
        tsr__ring *ring = mmap(NULL, sizeof *ring, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (ring == MAP_FAILED)
            return -1;
        for (uint32_t k = 0; k < TSR__RING_SLOTS; k++)
            atomic_store(&ring->slots[k].state, TSR__SLOT_CLAIMED);
        munmap(ring, sizeof *ring);
    }
    return fd;
}

static void reply(int fd, const tsr__wire_header *req, const void *payload, uint32_t len,
                  const int *fds, int nfds)
{
    uint8_t buf[TSR__WIRE_FRAME_MAX];
    tsr__wire_header h = {.magic = TSR__WIRE_MAGIC,
                          .version = (uint16_t)TSR__WIRE_VERSION,
                          .opcode = req->opcode,
                          .flags = TSR__WIRE_REPLY,
                          .length = len,
                          .request_id = req->request_id};
    memcpy(buf, &h, sizeof h);
    if (len)
        memcpy(buf + sizeof h, payload, len);
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof h + len};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(2 * sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *m = CMSG_FIRSTHDR(&msg);
        m->cmsg_level = SOL_SOCKET;
        m->cmsg_type = SCM_RIGHTS;
        m->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(m), fds, (size_t)nfds * sizeof(int));
    }
    (void)sendmsg(fd, &msg, MSG_NOSIGNAL);
}

/* Serves one connection: HELLO with the hostile ring, a registry of cpu
 * and meta, and socket pings, until the client hangs up. */
static void *serve(void *arg)
{
    fake_server *s = arg;
    int fd = accept(s->listen_fd, NULL, NULL);
    if (fd < 0)
        return NULL;
    for (;;) {
        uint8_t buf[TSR__WIRE_FRAME_MAX];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < (ssize_t)sizeof(tsr__wire_header))
            break;
        tsr__wire_header req;
        memcpy(&req, buf, sizeof req);
        if (req.opcode == TSR__OP_HELLO) {
            int fds[2] = {make_ring(s->kind), eventfd(0, EFD_CLOEXEC)};
            tsr__wire_welcome w = {.version = TSR__WIRE_VERSION,
                                   .session_id = 1,
                                   .device_count = 3,
                                   .ring_slots = TSR__RING_SLOTS,
                                   .ring_slot_size = TSR__RING_SLOT_SIZE,
                                   .ring_bytes = sizeof(tsr__ring)};
            reply(fd, &req, &w, sizeof w, fds, 2);
            close(fds[0]);
            close(fds[1]);
        } else if (req.opcode == TSR__OP_DEVICE_GET) {
            tsr__wire_position pos;
            memcpy(&pos, buf + sizeof req, sizeof pos);
            tsr__wire_device_info d = {0};
            d.device.type = pos.position == 0   ? TSR_DEVICE_CPU
                            : pos.position == 1 ? TSR_DEVICE_OPENCL
                                                : TSR_DEVICE_META;
            d.device.index = pos.position == 1 ? 0 : -1;
            d.memory_bytes = SEGMENT_BYTES;
            d.numa_node = -1;
            reply(fd, &req, &d, sizeof d, NULL, 0);
        } else if (req.opcode == TSR__OP_ALLOC) {
            tsr__wire_block b = {.handle = 1,
                                 .offset = SEGMENT_BYTES / 2,
                                 .size = 4096,
                                 .segment_bytes = SEGMENT_BYTES,
                                 .segment_id = 1,
                                 .flags = TSR__WIRE_NEW_SEGMENT};
            reply(fd, &req, &b, sizeof b, NULL, 0);
        } else if (req.opcode == TSR__OP_SEGMENT_MAP) {
            int seg = make_memfd(s->kind == SEGMENT_TOO_SMALL ? 4096 : (off_t)SEGMENT_BYTES,
                                 s->kind != SEGMENT_UNSEALED);
            tsr__wire_segment_info info = {.bytes = SEGMENT_BYTES,
                                           .device = {TSR_DEVICE_OPENCL, 0}};
            reply(fd, &req, &info, sizeof info, &seg, 1);
            close(seg);
        } else {
            reply(fd, &req, NULL, 0, NULL, 0);
        }
    }
    close(fd);
    return NULL;
}

/* A tensor on the fake opencl:0 lands in the hostile segment: writing it
 * is where a client that mapped the segment would fault. */
static void check_segment_refused(tsr_client *c, const char *what)
{
    int64_t n = 4096;
    tsr_tensor_options to = {.has_dtype = true,
                             .dtype = TSR_UINT8,
                             .has_device = true,
                             .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_empty(c, 1, &n, &to, &t);
    if (st == TSR_OK) {
        fprintf(stderr, "%s: the client accepted the segment\n", what);
        void *data = NULL;
        if (tsr_tensor_data_ptr(t, &data) == TSR_OK)
            memset(data, 1, (size_t)n);
        tsr_tensor_release(t);
    }
    ASSERT_EQ(st, TSR_ERR_PROTOCOL);
    ASSERT_TRUE(strstr(tsr_last_error(), "memory segment") != NULL);
    tsr_client_close(c);
}

static void check_refused(ring_kind kind, const char *what)
{
    char dir[] = "/tmp/tessera-hostile-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    fake_server s = {.kind = kind};
    snprintf(s.path, sizeof s.path, "%s/fake.sock", dir);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, s.path, strlen(s.path) + 1);
    s.listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    ASSERT_TRUE(s.listen_fd >= 0);
    ASSERT_EQ(bind(s.listen_fd, (struct sockaddr *)&addr, sizeof addr), 0);
    ASSERT_EQ(listen(s.listen_fd, 1), 0);
    pthread_t server;
    ASSERT_EQ(pthread_create(&server, NULL, serve, &s), 0);

    tsr_client_options o = {.socket_path = s.path, .timeout_ms = 2000};
    tsr_client *c = NULL;
    tsr_status st = tsr_client_open(&o, &c);
    if (kind == SEGMENT_TOO_SMALL || kind == SEGMENT_UNSEALED) {
        ASSERT_OK(st);
        if (c)
            check_segment_refused(c, what);
    } else if (st == TSR_OK) {
        /* A client that accepted the ring touches it on its first ring
         * request: with a short file, that is where SIGBUS strikes. */
        fprintf(stderr, "%s: the client accepted the ring\n", what);
        tsr_client_ping(c, TSR_TRANSPORT_RING);
        tsr_client_close(c);
    } else {
        ASSERT_EQ(st, TSR_ERR_PROTOCOL);
        ASSERT_TRUE(strstr(tsr_last_error(), "ring") != NULL);
    }
    pthread_join(server, NULL);
    close(s.listen_fd);
    unlink(s.path);
    rmdir(dir);
}

int main(void)
{
    check_refused(RING_TOO_SMALL, "a ring memfd shorter than the ring");
    check_refused(RING_UNSEALED, "a ring memfd not sealed against shrinking");
    check_refused(SEGMENT_TOO_SMALL, "a segment memfd shorter than the segment");
    check_refused(SEGMENT_UNSEALED, "a segment memfd not sealed against shrinking");
    TEST_DONE();
}
