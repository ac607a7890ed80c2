/* The share suite: a tensor handed to another process.
 *
 * export_import_1gib: a 1 GiB float32 tensor on opencl:0, written by this
 * process, exported (tsr_tensor_export, with its wait for the exporter's
 * kernels) and imported and mapped in a child process (tsr_tensor_import:
 * the IMPORT round trip, the descriptor, the checks and the mmap), then
 * released there: the sum of the exporter's and the importer's times, the
 * pipe between them left out. Beside it, `bare_memfd_pass`: the same
 * hand-over without Tessera, a 1 GiB memfd passed over a Unix socket with
 * SCM_RIGHTS and mapped by the other process. The daemon's resident memory
 * is read before and after: it must not grow by the tensor's size, since
 * nothing is copied (the suite fails if it grows by half of it). Then
 * the Python rows (share_python.c): the package's cost over C for an add
 * of 2^24 elements and for a 1-element op, on the same daemon. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "tessera/tessera.h"

#define SUITE "share"
#define GIB (UINT64_C(1) << 30)

static const tsr_device opencl0 = {TSR_DEVICE_OPENCL, 0};

/* The daemon's VmRSS in KiB, or -1. */
static long daemon_rss_kib(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

/* The importing child: reads handles from `in`, imports, maps and
 * releases each, and writes the nanoseconds it took to `out`; stops at
 * end of file. */
static int importer(const char *socket_path, int in, int out)
{
    tsr_client_options o = {.socket_path = socket_path, .name = "tessera-bench import"};
    tsr_client *c;
    if (tsr_client_open(&o, &c) != TSR_OK)
        return 1;
    tsr_export_handle h;
    while (read(in, &h, sizeof h) == (ssize_t)sizeof h) {
        uint64_t t0 = bench_now_ns();
        tsr_tensor *t = NULL;
        double ns = -1;
        if (tsr_tensor_import(c, &h, &t) == TSR_OK)
            ns = (double)(bench_now_ns() - t0);
        else
            fprintf(stderr, "tessera-bench: share: import: %s\n", tsr_last_error());
        tsr_tensor_release(t);
        if (write(out, &ns, sizeof ns) != (ssize_t)sizeof ns)
            break;
    }
    tsr_client_close(c);
    return 0;
}

/* The bare child: receives a descriptor on `sock`, maps the whole file,
 * unmaps it, closes it and writes the nanoseconds to `sock`. */
static int bare_importer(int sock)
{
    for (;;) {
        char byte;
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } u;
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        struct msghdr m = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        uint64_t t0 = bench_now_ns();
        if (recvmsg(sock, &m, 0) <= 0)
            return 0;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        int fd = -1;
        if (cm && cm->cmsg_type == SCM_RIGHTS)
            memcpy(&fd, CMSG_DATA(cm), sizeof fd);
        void *p = fd >= 0 ? mmap(NULL, GIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
        double ns = p == MAP_FAILED ? -1 : (double)(bench_now_ns() - t0);
        if (p != MAP_FAILED)
            munmap(p, GIB);
        if (fd >= 0)
            close(fd);
        if (write(sock, &ns, sizeof ns) != (ssize_t)sizeof ns)
            return 1;
    }
}

static int send_fd(int sock, int fd)
{
    char byte = 0;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

/* The baseline: n hand-overs of a 1 GiB memfd (written once, as the
 * tensor is). */
static int measure_bare(int n, bench_samples *s)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    int fd = memfd_create("tessera-bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    void *p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)GIB) == 0)
        p = mmap(NULL, GIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        bench_note(SUITE, "cannot make the baseline's 1 GiB memfd");
        close(sv[0]);
        close(sv[1]);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    memset(p, 1, GIB);
    int pid = bench_fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(bare_importer(sv[1]));
    }
    close(sv[1]);
    int result = pid > 0 ? 0 : -1;
    for (int k = 0; k < n && result == 0; k++) {
        uint64_t t0 = bench_now_ns();
        double theirs = -1;
        if (send_fd(sv[0], fd) != 0)
            result = -1;
        double mine = (double)(bench_now_ns() - t0);
        if (result == 0 &&
            (read(sv[0], &theirs, sizeof theirs) != (ssize_t)sizeof theirs || theirs < 0))
            result = -1;
        if (result == 0)
            bench_samples_add(s, mine + theirs);
    }
    close(sv[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    munmap(p, GIB);
    close(fd);
    return result;
}

/* n exports of one 1 GiB tensor, each imported by the child. */
static int measure_tessera(const char *socket_path, int n, int daemon_pid, bench_samples *s)
{
    tsr_client_options o = {.socket_path = socket_path, .name = "tessera-bench export"};
    tsr_client *c;
    if (tsr_client_open(&o, &c) != TSR_OK) {
        bench_note(SUITE, "%s", tsr_last_error());
        return -1;
    }
    long rss_before = daemon_rss_kib(daemon_pid);
    int64_t elements = (int64_t)(GIB / 4);
    tsr_tensor_options to = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = opencl0};
    tsr_tensor *t = NULL;
    void *data = NULL;
    if (tsr_tensor_empty(c, 1, &elements, &to, &t) != TSR_OK ||
        tsr_tensor_data_ptr(t, &data) != TSR_OK) {
        bench_note(SUITE, "a 1 GiB tensor on opencl:0: %s", tsr_last_error());
        tsr_tensor_release(t);
        tsr_client_close(c);
        return -1;
    }
    memset(data, 1, GIB);
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0)
        return -1;
    int pid = bench_fork();
    if (pid == 0) {
        close(to_child[1]);
        close(from_child[0]);
        _exit(importer(socket_path, to_child[0], from_child[1]));
    }
    close(to_child[0]);
    close(from_child[1]);
    int result = pid > 0 ? 0 : -1;
    for (int k = 0; k < n && result == 0; k++) {
        tsr_export_handle h;
        uint64_t t0 = bench_now_ns();
        if (tsr_tensor_export(t, NULL, &h) != TSR_OK) {
            bench_note(SUITE, "export: %s", tsr_last_error());
            result = -1;
            break;
        }
        double mine = (double)(bench_now_ns() - t0), theirs = -1;
        if (write(to_child[1], &h, sizeof h) != (ssize_t)sizeof h ||
            read(from_child[0], &theirs, sizeof theirs) != (ssize_t)sizeof theirs || theirs < 0)
            result = -1;
        else
            bench_samples_add(s, mine + theirs);
    }
    close(to_child[1]);
    close(from_child[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    long rss_after = daemon_rss_kib(daemon_pid);
    tsr_tensor_release(t);
    tsr_client_close(c);
    if (result == 0 && rss_before >= 0 && rss_after >= 0) {
        long grown = rss_after - rss_before;
        bench_note(SUITE, "tesserad's resident memory grew by %ld KiB over %d imports of 1 GiB",
                   grown, n);
        if (grown >= (long)(GIB / 2 / 1024)) {
            bench_note(SUITE, "tesserad's resident memory grew by half the tensor: it copies");
            result = -1;
        }
    }
    return result;
}

int bench_suite_share(const bench_config *config, bench_results *out)
{
    bench_daemon d = {.pid = -1};
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(&d, SUITE) != 0)
            return 1;
        socket_path = d.socket;
    }
    int n = config->quick ? 5 : 50;
    bench_samples tessera = {0}, bare = {0};
    bench_note(SUITE, "%d exports of a 1 GiB tensor, each imported by another process", n);
    int result = measure_tessera(socket_path, n, d.pid, &tessera);
    if (result == 0) {
        bench_note(SUITE, "%d hand-overs of a 1 GiB memfd over SCM_RIGHTS", n);
        result = measure_bare(n, &bare);
    }
    if (result == 0) {
        char dev[TSR_DEVICE_STR_MAX];
        tsr_device_str(opencl0, dev, sizeof dev);
        bench_row row = {.suite = SUITE,
                         .threads = 2,
                         .value = bench_quantile(&tessera, 0.5) / 1e3,
                         .p99 = bench_quantile(&tessera, 0.99) / 1e3,
                         .unit = BENCH_US,
                         .baseline_value = bench_quantile(&bare, 0.5) / 1e3,
                         .baseline_p99 = bench_quantile(&bare, 0.99) / 1e3,
                         .target = NAN};
        bench_add_named(out, row, "export_import_1gib", dev, "bare_memfd_pass");
    }
    bench_samples_free(&tessera);
    bench_samples_free(&bare);
    if (result == 0)
        result = bench_share_python(config, socket_path, out);
    if (d.pid > 0)
        bench_daemon_stop(&d);
    return result == 0 ? 0 : 1;
}
