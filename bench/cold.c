/* tessera-bench cold: a daemon started on an empty program cache.
 *
 * The suite starts its own tesserad with a private, empty Tessera program
 * cache and an empty PoCL cache (so nothing compiled before helps), and
 * devices.host_code off (so that a CPU device runs the programs measured
 * here, as any other device does, instead of the host's own code), and
 * measures what a new user of such a device meets:
 *   cold_ready         ms from the daemon's start to its READY=1 (the
 *                      notification systemd waits for), read from the
 *                      kernel's receive timestamp on a private
 *                      NOTIFY_SOCKET;
 *   cold_build_all     s from the first launch to the daemon's report
 *                      that every generic program of opencl:0 is built;
 *   cold_programs      how many programs that was: what every launch of
 *                      the test suite runs on (launches of 64Ki elements
 *                      or more also get programs of their own, built in
 *                      the background);
 *   cold_first_launch  then, the slowest first launch (the operation and
 *                      its synchronize) over every operation family
 *                      (where among them, with its bool condition),
 *                      dtype class and walk, in ms.
 * Each compares with the bound the design sets ("limit"). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "tessera/tessera.h"

#define SUITE "cold"
#define READY_LIMIT_MS 1000.0
#define FIRST_LAUNCH_LIMIT_MS 50.0
#define BUILD_ALL_LIMIT_S 120.0
#define READY_TIMEOUT_NS (60ull * 1000000000ull)
#define BUILD_TIMEOUT_NS (900ull * 1000000000ull)

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A datagram socket at `path` that stamps what it receives. */
static int notify_socket(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int on = 1;
    if (fd < 0 || strlen(path) >= sizeof a.sun_path) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    strcpy(a.sun_path, path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* When READY=1 arrived (CLOCK_REALTIME ns), or 0 by the deadline. */
static uint64_t wait_ready(int fd)
{
    uint64_t deadline = bench_now_ns() + READY_TIMEOUT_NS;
    while (bench_now_ns() < deadline) {
        char buf[512], control[CMSG_SPACE(sizeof(struct timespec))];
        struct iovec iov = {buf, sizeof buf - 1};
        struct msghdr m = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = control,
                           .msg_controllen = sizeof control};
        ssize_t n = recvmsg(fd, &m, 0);
        if (n < 0) {
            bench_sleep_ns(1000000);
            continue;
        }
        buf[n] = '\0';
        if (!strstr(buf, "READY=1"))
            continue;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
            }
        return realtime_ns();
    }
    return 0;
}

/* ---- first launches ------------------------------------------------------ */

typedef enum {
    OP_COPY,
    OP_FILL,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_DIVT,
    OP_DIVF,
    OP_WHERE,
    OP_COUNT
} op;
static const char *const op_names[OP_COUNT] = {"copy", "fill",      "add",       "sub",  "mul",
                                               "div",  "div_trunc", "div_floor", "where"};

typedef struct dclass {
    const char *name;
    tsr_dtype a, b; /* the inputs (copy: from b into a) */
} dclass;
static const dclass classes[] = {
    {"bool", TSR_BOOL, TSR_BOOL},          {"int32", TSR_INT32, TSR_INT32},
    {"float32", TSR_FLOAT32, TSR_FLOAT32}, {"float16", TSR_FLOAT16, TSR_FLOAT16},
    {"bfloat16", TSR_BFLOAT16, TSR_BFLOAT16}, {"float64", TSR_FLOAT64, TSR_FLOAT64},
    {"complex64", TSR_COMPLEX64, TSR_COMPLEX64}, {"int32+float32", TSR_INT32, TSR_FLOAT32},
};

typedef enum { WALK_UNIT, WALK_BROADCAST, WALK_TRANSPOSED, WALK_STRIDED, WALK_COUNT } walk;
static const char *const walk_names[WALK_COUNT] = {"unit", "broadcast", "transposed", "strided"};

#define ROWS 48
#define COLS 64

static tsr_status make(tsr_client *c, tsr_device dev, tsr_dtype dt, int64_t rows, int64_t cols,
                       tsr_tensor **out)
{
    int64_t sizes[2] = {rows, cols};
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt, .has_device = true, .device = dev};
    return tsr_tensor_ones(c, 2, sizes, &o, out);
}

/* Input b of a class in a walk: [ROWS, COLS] as a view whose innermost
 * stride is 1 (unit), 0 (broadcast), COLS... (transposed) or 2 (strided). */
static tsr_status input(tsr_client *c, tsr_device dev, tsr_dtype dt, walk w, tsr_tensor **out)
{
    tsr_tensor *base = NULL;
    tsr_status st;
    int64_t sizes[2] = {ROWS, COLS};
    switch (w) {
    case WALK_UNIT:
        return make(c, dev, dt, ROWS, COLS, out);
    case WALK_BROADCAST:
        st = make(c, dev, dt, ROWS, 1, &base);
        if (st == TSR_OK)
            st = tsr_tensor_expand(base, sizes, 2, out);
        break;
    case WALK_TRANSPOSED:
        st = make(c, dev, dt, COLS, ROWS, &base);
        if (st == TSR_OK)
            st = tsr_tensor_transpose(base, 0, 1, out);
        break;
    default:
        st = make(c, dev, dt, ROWS, 2 * COLS, &base);
        if (st == TSR_OK)
            st = tsr_tensor_slice(base, 1, true, 0, true, 2 * COLS, 2, out);
        break;
    }
    tsr_tensor_release(base);
    return st;
}

/* `mask`: where's condition (bool), NULL for the other operations. */
static tsr_status run(op o, tsr_tensor *out, tsr_tensor *a, tsr_tensor *b, tsr_tensor *mask)
{
    tsr_scalar one = tsr_scalar_int(1);
    switch (o) {
    case OP_WHERE:
        return tsr_where_out(mask, a, b, out);
    case OP_COPY:
        return tsr_tensor_copy_(out, b);
    case OP_FILL:
        return tsr_tensor_fill_(b, one);
    case OP_ADD:
        return tsr_add_out(a, b, one, out);
    case OP_SUB:
        return tsr_sub_out(a, b, one, out);
    case OP_MUL:
        return tsr_mul_out(a, b, out);
    case OP_DIV:
        return tsr_div_out(a, b, TSR_ROUNDING_NONE, out);
    case OP_DIVT:
        return tsr_div_out(a, b, TSR_ROUNDING_TRUNC, out);
    default:
        return tsr_div_out(a, b, TSR_ROUNDING_FLOOR, out);
    }
}

/* The result dtype of an operation on a class (true division of integers
 * gives the default float). */
static tsr_dtype result_of(op o, const dclass *k)
{
    if (o == OP_COPY || o == OP_FILL)
        return k->a;
    tsr_dtype r = k->a;
    if (tsr_promote_types(k->a, k->b, &r) != TSR_OK)
        return k->a;
    if (o == OP_DIV && !tsr_dtype_is_floating_point(r) && !tsr_dtype_is_complex(r))
        return TSR_FLOAT32;
    return r;
}

/* One first launch, timed with its synchronize: ms, NAN when PyTorch
 * refuses the combination (bool sub, complex floor division, ...), -1
 * when something else failed. */
static double first_launch(tsr_client *c, tsr_device dev, op o, const dclass *k, walk w)
{
    tsr_tensor *a = NULL, *b = NULL, *out = NULL, *mask = NULL;
    double ms = -1;
    if ((o == OP_WHERE && make(c, dev, TSR_BOOL, ROWS, COLS, &mask) != TSR_OK) ||
        make(c, dev, k->a, ROWS, COLS, &a) != TSR_OK ||
        input(c, dev, o == OP_FILL ? k->a : k->b, w, &b) != TSR_OK ||
        make(c, dev, result_of(o, k), ROWS, COLS, &out) != TSR_OK ||
        tsr_synchronize(c, dev) != TSR_OK)
        goto out_release;
    uint64_t t0 = bench_now_ns();
    tsr_status st = run(o, out, a, b, mask);
    if (st == TSR_OK)
        st = tsr_synchronize(c, dev);
    uint64_t t1 = bench_now_ns();
    if (st == TSR_OK)
        ms = (double)(t1 - t0) / 1e6;
    else if (st == TSR_ERR_NOT_SUPPORTED || st == TSR_ERR_TYPE || st == TSR_ERR_RUNTIME)
        ms = NAN;
out_release:
    if (ms < 0)
        bench_note(SUITE, "%s %s %s: %s", op_names[o], k->name, walk_names[w], tsr_last_error());
    tsr_tensor_release(out);
    tsr_tensor_release(b);
    tsr_tensor_release(a);
    tsr_tensor_release(mask);
    return ms;
}

/* ---- the suite ------------------------------------------------------------- */

static void add(bench_results *out, const char *name, double value, const char *unit,
                double limit)
{
    bench_row row = {.suite = SUITE,
                     .threads = 1,
                     .value = value,
                     .p99 = NAN,
                     .unit = unit,
                     .baseline_value = limit,
                     .baseline_p99 = NAN,
                     .target = isnan(limit) ? NAN : 1.0};
    snprintf(row.name, sizeof row.name, "%s", name);
    snprintf(row.device, sizeof row.device, "%s", strcmp(name, "cold_ready") ? "opencl:0" : "");
    snprintf(row.baseline, sizeof row.baseline, "%s", isnan(limit) ? "" : "limit");
    bench_add(out, &row);
}

/* mkdir DIR/NAME, into buf. */
static bool subdir(const char *dir, const char *name, char *buf, size_t n)
{
    int w = snprintf(buf, n, "%s/%s", dir, name);
    return w > 0 && (size_t)w < n && mkdir(buf, 0700) == 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0)
        bench_note(SUITE, "could not remove %s: %s", path, strerror(errno));
    return 0;
}

/* rm -r of the private directory. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Sets or restores an environment variable around the daemon's start. */
static void swap_env(const char *name, const char *value, char **saved)
{
    const char *old = getenv(name);
    *saved = old ? strdup(old) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

int bench_suite_cold(const bench_config *config, bench_results *out)
{
    if (config->socket_path)
        bench_note(SUITE, "starts a daemon of its own on empty caches (--socket is not used)");
    const char *tmp = getenv("TMPDIR");
    char dir[256], cache[300], pocl[300], notify[300];
    snprintf(dir, sizeof dir, "%s/tessera-cold.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || !subdir(dir, "programs", cache, sizeof cache) ||
        !subdir(dir, "pocl", pocl, sizeof pocl)) {
        bench_note(SUITE, "cannot make private cache directories under %s: %s", dir,
                   strerror(errno));
        return 1;
    }
    snprintf(notify, sizeof notify, "%s/notify", dir);
    int nfd = notify_socket(notify);
    if (nfd < 0) {
        bench_note(SUITE, "cannot make a notification socket at %s: %s", notify, strerror(errno));
        remove_tree(dir);
        return 1;
    }
    static const char *const names[] = {"TESSERA_KERNEL_CACHE", "POCL_CACHE_DIR", "NOTIFY_SOCKET"};
    const char *values[] = {cache, pocl, notify};
    char *saved[3];
    for (int k = 0; k < 3; k++)
        swap_env(names[k], values[k], &saved[k]);
    uint64_t started = realtime_ns();
    bench_daemon d;
    /* Programs are what is measured: a CPU device runs them too, instead
     * of the host's own code (devices.host_code). */
    int rc = bench_daemon_start_with(&d, SUITE, "--host-code=off");
    for (int k = 0; k < 3; k++) {
        swap_env(names[k], saved[k], &saved[k]);
        free(saved[k]);
    }
    uint64_t ready = rc == 0 ? wait_ready(nfd) : 0;
    close(nfd);
    if (rc != 0) {
        remove_tree(dir);
        return 1;
    }
    if (ready == 0)
        bench_note(SUITE, "tesserad sent no READY=1 within 60 s");
    else
        add(out, "cold_ready", (double)(ready - started) / 1e6, BENCH_MS, READY_LIMIT_MS);

    tsr_client *c = NULL;
    tsr_client_options o = {.socket_path = d.socket, .name = "tessera-bench"};
    tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    int32_t count = 0;
    rc = 1;
    if (tsr_client_open(&o, &c) != TSR_OK) {
        bench_note(SUITE, "cannot connect: %s", tsr_last_error());
        goto out_stop;
    }
    if (tsr_device_count(c, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        bench_note(SUITE, "no OpenCL device: only cold_ready was measured");
        rc = 0;
        goto out_stop;
    }
    /* The first launch starts the kernel executor, which builds every
     * generic program. */
    tsr_tensor *t = NULL;
    int64_t one = 1;
    tsr_tensor_options to = {.has_device = true, .device = dev};
    if (tsr_tensor_ones(c, 1, &one, &to, &t) != TSR_OK || tsr_add_(t, t, tsr_scalar_int(1)) ||
        tsr_synchronize(c, dev) != TSR_OK) {
        bench_note(SUITE, "the first launch failed: %s", tsr_last_error());
        tsr_tensor_release(t);
        goto out_stop;
    }
    tsr_tensor_release(t);
    int programs = 0;
    double seconds = NAN;
    if (!bench_daemon_wait_generic(&d, BUILD_TIMEOUT_NS, &programs, &seconds)) {
        bench_note(SUITE, "opencl:0's generic programs were not all built (see %s)", d.log);
        goto out_stop;
    }
    add(out, "cold_build_all", seconds, BENCH_S, BUILD_ALL_LIMIT_S);
    add(out, "cold_programs", programs, BENCH_PROGRAMS, NAN);
    double worst = 0;
    char which[96] = "";
    int launches = 0;
    for (int k = 0; k < (int)(sizeof classes / sizeof classes[0]); k++)
        for (int p = 0; p < OP_COUNT; p++)
            for (int w = 0; w < WALK_COUNT; w++) {
                if ((p == OP_FILL && w == WALK_BROADCAST) ||
                    (p == OP_FILL && classes[k].a != classes[k].b))
                    continue; /* a fill has one operand: nothing to broadcast or mix */
                double ms = first_launch(c, dev, (op)p, &classes[k], (walk)w);
                if (ms < 0)
                    goto out_stop;
                if (isnan(ms))
                    continue;
                launches++;
                if (ms > worst) {
                    worst = ms;
                    snprintf(which, sizeof which, "%s %s %s", op_names[p], classes[k].name,
                             walk_names[w]);
                }
            }
    bench_note(SUITE, "%d first launches; the slowest: %s, %.2f ms", launches, which, worst);
    add(out, "cold_first_launch", worst, BENCH_MS, FIRST_LAUNCH_LIMIT_MS);
    rc = 0;
out_stop:
    tsr_client_close(c);
    bench_daemon_stop(&d);
    remove_tree(dir);
    return rc;
}
