/* Sharing tensors between processes (tessera/share.h) through a real
 * daemon: a tensor exported by one process and imported by another (this
 * binary run again) is the same memory, view and all; the importer's
 * kernels see the exporter's writes and the exporter sees the importer's;
 * the memory outlives an exporter that exits first, stays on the
 * exporter's account until the last import goes; read-only exports fault
 * on a write through the mapping and refuse writing kernels and fills;
 * revoked, guessed, truncated, released and other users' handles are
 * refused; cpu tensors in shared memory the same way, and opencl tensors
 * again on a daemon that treats the device's memory as its own
 * (--device-memory copy). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "tessera/dlpack.h"
#include "support_daemon.h"
#include "test.h"

#define ROWS 16
#define COLS 32
static const tsr_device OPENCL0 = {TSR_DEVICE_OPENCL, 0};
static const char *self_path;

/* A rows x cols float32 tensor on opencl:0 (with `cpu`, on the cpu, in
 * shared memory) whose element at storage index i holds i. */
static tsr_tensor *counting_on(tsr_client *c, int64_t rows, int64_t cols, bool cpu)
{
    int64_t sizes[2] = {rows, cols};
    size_t n = (size_t)(rows * cols);
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (float)i;
    tsr_tensor_options o = {.has_device = !cpu, .device = OPENCL0};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(cpu ? NULL : c, 2, sizes, TSR_FLOAT32, v, &o, &t));
    free(v);
    if (t && cpu) {
        ASSERT_FALSE(tsr_tensor_is_shared(t));
        ASSERT_OK(tsr_tensor_share_memory_(c, t));
        ASSERT_TRUE(tsr_tensor_is_shared(t));
    }
    return t;
}

/* The same on opencl:0. */
static tsr_tensor *counting(tsr_client *c, int64_t rows, int64_t cols)
{
    return counting_on(c, rows, cols, false);
}

/* The view the tests share: t.T narrowed to rows 2..11, so that sizes,
 * strides and the storage offset all travel. */
static tsr_tensor *shared_view(tsr_tensor *t)
{
    tsr_tensor *tt = NULL, *v = NULL;
    ASSERT_OK(tsr_tensor_t(t, &tt));
    ASSERT_OK(tsr_tensor_narrow(tt, 0, 2, 10, &v));
    tsr_tensor_release(tt);
    return v;
}

/* Runs this binary as `consume HANDLE MODE`; returns its exit status, or
 * 100 + the signal that killed it. */
static int run_consumer(const tsr_export_handle *h, const char *mode)
{
    char text[TSR_EXPORT_HANDLE_STR_MAX];
    tsr_export_handle_str(h, text, sizeof text);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self_path, self_path, "consume", text, mode, (char *)NULL);
        _exit(120);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* ---- the other process ------------------------------------------------------ */

static int fail(int code, const char *what)
{
    fprintf(stderr, "consumer: %s: %s\n", what, tsr_last_error());
    return code;
}

/* Checks the values of a 10 x ROWS float32 tensor against what
 * shared_view() of counting() holds; with `twice`, every element doubled. */
static int check_values(tsr_tensor *t, bool twice)
{
    float got[10 * ROWS];
    if (tsr_tensor_copy_to_host(t, got, sizeof got) != TSR_OK)
        return fail(32, "copy_to_host");
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < ROWS; j++)
            if (got[i * ROWS + j] != (float)((2 + i + j * COLS) * (twice ? 2 : 1)))
                return fail(33, "values");
    return 0;
}

/* The imported view is shared_view()'s: dtype, sizes, strides, offset
 * and values. */
static int check_view(tsr_tensor *t, bool twice)
{
    if (tsr_tensor_dtype(t) != TSR_FLOAT32 || tsr_tensor_ndim(t) != 2)
        return fail(30, "dtype or ndim");
    const int64_t *s = tsr_tensor_sizes(t), *st = tsr_tensor_strides(t);
    if (s[0] != 10 || s[1] != ROWS || st[0] != 1 || st[1] != COLS ||
        tsr_tensor_storage_offset(t) != 2)
        return fail(31, "sizes, strides or offset");
    return check_values(t, twice);
}

/* A write through a read-only mapping faults: the kernel kills the
 * writer with SIGSEGV (under AddressSanitizer, its handler reports the
 * fault and aborts), and the mapping cannot be made writable. */
static bool write_faults(float *p)
{
    pid_t pid = fork();
    if (pid == 0) {
        *(volatile float *)p = 1.0f;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    bool faulted = WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
#if defined(__SANITIZE_ADDRESS__)
    /* abort_on_error: SIGABRT; else its exit status */
    faulted |= (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) ||
               (WIFEXITED(status) && WEXITSTATUS(status) != 0);
#endif
    long page = sysconf(_SC_PAGESIZE);
    void *first = (void *)((uintptr_t)p - (uintptr_t)p % (uintptr_t)page);
    return faulted && mprotect(first, (size_t)page, PROT_READ | PROT_WRITE) != 0 && errno == EACCES;
}

/* A user kernel may not take a read-only import (the worker maps its
 * arguments writable). */
static int user_kernel_refused(tsr_client *c, tsr_tensor *t)
{
    static const char src[] = "__kernel void w(__global float *p) { p[0] = 1.0f; }";
    tsr_program *p = NULL;
    tsr_kernel *k = NULL;
    size_t global[1] = {1};
    int rc = 0;
    if (tsr_program_create(c, OPENCL0, src, NULL, &p) != TSR_OK ||
        tsr_kernel_create(p, "w", &k) != TSR_OK || tsr_kernel_set_arg_tensor(k, 0, t) != TSR_OK)
        rc = fail(42, "a user kernel could not be made");
    else if (tsr_kernel_launch(k, 1, global, NULL) != TSR_ERR_PERMISSION ||
             !strstr(tsr_last_error(), "imported read-only"))
        rc = fail(43, "a user kernel taking a read-only import was not refused");
    tsr_kernel_release(k);
    tsr_program_release(p);
    return rc;
}

/* What the consumer checks of a read-only import. */
static int check_read_only(tsr_client *c, tsr_tensor *t)
{
    if (tsr_add_(t, t, tsr_scalar_int(1)) != TSR_ERR_PERMISSION)
        return fail(25, "a kernel writing a read-only import was not refused");
    int refused = tsr_tensor_device(t).type == TSR_DEVICE_OPENCL ? user_kernel_refused(c, t) : 0;
    if (refused)
        return refused;
    if (tsr_tensor_fill_(t, tsr_scalar_int(0)) != TSR_ERR_PERMISSION)
        return fail(26, "a fill of a read-only import was not refused");
    float zeros[10 * ROWS] = {0};
    if (tsr_tensor_copy_from_host(t, zeros, sizeof zeros) != TSR_ERR_PERMISSION)
        return fail(35, "a host copy into a read-only import was not refused");
    /* Reading it is fine: a kernel with another output. */
    tsr_tensor *sum = NULL;
    int bad = tsr_add(t, t, tsr_scalar_int(1), &sum) != TSR_OK ? fail(27, "reading it")
                                                               : check_values(sum, true);
    tsr_tensor_release(sum);
    if (bad)
        return bad;
    float *p;
    if (tsr_tensor_data_ptr(t, (void **)&p) != TSR_OK)
        return fail(28, "data_ptr");
    if (!write_faults(p))
        return fail(29, "a write through a read-only mapping did not fault");
    return check_view(t, false);
}

/* A process of another uid cannot open a read-only import's memfd again
 * for writing through /proc/self/fd (the daemon makes each memfd 0600,
 * its own): the way around a read-only descriptor. The import is made
 * on a raw connection, as a hostile client would, to hold the
 * descriptor the daemon sends (libtessera closes it once mapped). */
static int reopen_refused(const tsr_export_handle *h)
{
    const char *path = getenv("TESSERA_SOCKET");
    int sock = path ? test_raw_connect(path) : -1;
    if (sock < 0 || test_raw_hello(sock, NULL, 0) != 1)
        return fail(36, "raw HELLO");
    tsr__wire_share_key key = {.id = h->id};
    memcpy(key.secret, h->secret, sizeof key.secret);
    int fd = -1;
    tsr_status st =
        test_raw_call(sock, TSR__OP_IMPORT, 2, &key, sizeof key, NULL, 0, &fd, 1, NULL, 0);
    close(sock);
    if (st != TSR_OK || fd < 0)
        return fail(38, "IMPORT sent no descriptor");
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int again = open(link, O_RDWR | O_CLOEXEC);
    int e = errno, mode = fcntl(fd, F_GETFL) & O_ACCMODE;
    close(fd);
    if (mode != O_RDONLY)
        return fail(39, "a read-only import's descriptor is writable");
    if (again >= 0) {
        close(again);
        return fail(40, "a read-only import's memfd opened again for writing");
    }
    return e == EACCES ? 0 : fail(41, "reopening failed, but not for want of permission");
}

/* An import into a process with no descriptor left: the kernel drops the
 * memfd the reply carries; the import fails with TSR_ERR_LIMIT, and the
 * library gives back the import the daemon made (the export shows none). */
static int no_room(tsr_client *c, const tsr_export_handle *h)
{
    struct rlimit was, low;
    if (getrlimit(RLIMIT_NOFILE, &was) != 0)
        return fail(44, "getrlimit");
    low = (struct rlimit){.rlim_cur = 256, .rlim_max = was.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &low) != 0)
        return fail(44, "setrlimit");
    static int held[256];
    int n = 0;
    for (int fd; n < 256 && (fd = dup(0)) >= 0;)
        held[n++] = fd;
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_import(c, h, &t);
    char why[512];
    snprintf(why, sizeof why, "%s", tsr_last_error());
    while (n > 0)
        close(held[--n]);
    setrlimit(RLIMIT_NOFILE, &was);
    tsr_tensor_release(t);
    if (st != TSR_ERR_LIMIT || !strstr(why, "lost its descriptors"))
        return fail(45, "an import without room for its descriptor was not refused so");
    tsr_share_info info = {0};
    bool more = true;
    for (uint64_t after = 0; more && info.id != h->id; after = info.id)
        if (tsr_admin_share_list(c, after, &info, &more) != TSR_OK)
            return fail(46, "share list");
    return info.id == h->id && info.imports == 0 ? 0 : fail(47, "the lost import is still held");
}

static int consume(const char *text, const char *mode)
{
    tsr_export_handle h;
    if (tsr_export_handle_parse(text, &h) != TSR_OK)
        return fail(20, "parse");
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        return fail(21, "open");
    if (strcmp(mode, "nofd") == 0) {
        int rc = no_room(c, &h);
        tsr_client_close(c);
        return rc;
    }
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_import(c, &h, &t);
    int rc = 0;
    if (strncmp(mode, "refused:", 8) == 0) /* refused:STATUS */
        rc = st == (tsr_status)atoi(mode + 8) ? 0 : fail(22, "import not refused as expected");
    else if (st != TSR_OK)
        rc = fail(23, "import");
    else if ((rc = check_view(t, false)) != 0)
        ;
    else if (strcmp(mode, "rw") == 0)
        /* A kernel of this process on the shared memory. */
        rc = tsr_add_(t, t, tsr_scalar_int(1)) != TSR_OK || tsr_synchronize(c, OPENCL0) != TSR_OK
                 ? fail(24, "add_")
                 : 0;
    else if (strcmp(mode, "ro") == 0)
        rc = check_read_only(c, t);
    else if (strcmp(mode, "ro-reopen") == 0 && (rc = check_read_only(c, t)) == 0)
        rc = reopen_refused(&h);
    tsr_tensor_release(t);
    tsr_client_close(c);
    return rc;
}

/* ---- the tests -------------------------------------------------------------- */

static void text_form(void)
{
    tsr_export_handle h = {.id = 0x0123456789abcdefULL}, back;
    for (int k = 0; k < 16; k++)
        h.secret[k] = (uint8_t)(0xf0 + k);
    char text[TSR_EXPORT_HANDLE_STR_MAX];
    ASSERT_EQ(tsr_export_handle_str(&h, text, sizeof text), 62);
    ASSERT_STREQ(text, "tsr-export-1-0123456789abcdef-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    ASSERT_OK(tsr_export_handle_parse(text, &back));
    ASSERT_TRUE(memcmp(&h, &back, sizeof h) == 0);
    char shorter[8];
    ASSERT_EQ(tsr_export_handle_str(&h, shorter, sizeof shorter), 62);
    ASSERT_STREQ(shorter, "tsr-exp");
    ASSERT_FAIL(tsr_export_handle_parse("tsr-export-1-0123456789abcdef-f0f1", &back),
                TSR_ERR_INVALID_ARGUMENT,
                "not an export handle: fewer characters where 62 are expected");
    ASSERT_FAIL(tsr_export_handle_parse(
                    "tsr-export-1-0123456789ABCDEF-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", &back),
                TSR_ERR_INVALID_ARGUMENT,
                "not an export handle: unexpected character at position 23 (lowercase "
                "hexadecimal digits and one '-' follow the prefix)");
    ASSERT_FAIL(tsr_export_handle_parse(
                    "tsr-export-1-0123456789abcdef-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff ", &back),
                TSR_ERR_INVALID_ARGUMENT,
                "not an export handle: more characters where 62 are expected");
    ASSERT_FAIL(tsr_export_handle_parse("tessera", &back), TSR_ERR_INVALID_ARGUMENT,
                "not an export handle: it must start with \"tsr-export-1-\"");
}

/* Export, import in another process, write there, see it here. */
static void across_processes(tsr_client *c, bool cpu)
{
    tsr_tensor *t = counting_on(c, ROWS, COLS, cpu), *v = shared_view(t);
    tsr_export_handle h;
    ASSERT_OK(tsr_tensor_export(v, NULL, &h));
    ASSERT_EQ(run_consumer(&h, "rw"), 0);
    /* The other process doubled the view's elements, and only those. */
    float got[ROWS * COLS];
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, sizeof got));
    int wrong = 0;
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < COLS; k++) {
            float i = (float)(r * COLS + k);
            wrong += got[r * COLS + k] != (k >= 2 && k < 12 ? 2 * i : i);
        }
    ASSERT_EQ(wrong, 0);
    /* cpu tensors are the process's own memory. */
    int64_t n = 4;
    tsr_tensor *cpu_own = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 1, &n, NULL, &cpu_own));
    ASSERT_FAIL(tsr_tensor_export(cpu_own, NULL, &h), TSR_ERR_NOT_SUPPORTED,
                "cannot export a cpu tensor in this process's own memory: move it to shared "
                "memory first (tsr_tensor_share_memory_)");
    tsr_export_options bad = {.abi_reserved = {0, 1}};
    ASSERT_EQ(tsr_tensor_export(v, &bad, &h), TSR_ERR_INVALID_ARGUMENT);
    tsr_tensor_release(cpu_own);
    tsr_tensor_release(v);
    tsr_tensor_release(t);
}

static uint64_t reserved_now(tsr_client *c)
{
    tsr_device_status s = {0};
    ASSERT_OK(tsr_admin_device_status(c, OPENCL0, &s));
    return s.reserved;
}

/* Forks a process that makes counting_on(rows, cols, cpu), exports it,
 * and exits without releasing anything once this one has imported it;
 * returns the import (NULL on failure), its handle in *h. */
static tsr_tensor *import_from_exited(tsr_client *c, int64_t rows, int64_t cols, bool cpu,
                                      tsr_export_handle *h)
{
    int handle_pipe[2], go_pipe[2];
    ASSERT_EQ(pipe(handle_pipe), 0);
    ASSERT_EQ(pipe(go_pipe), 0);
    pid_t pid = fork();
    if (pid == 0) {
        tsr_client *pc;
        char text[TSR_EXPORT_HANDLE_STR_MAX], byte;
        if (tsr_client_open(NULL, &pc) != TSR_OK)
            _exit(10);
        tsr_tensor *t = counting_on(pc, rows, cols, cpu);
        if (!t || tsr_tensor_export(t, NULL, h) != TSR_OK)
            _exit(11);
        tsr_export_handle_str(h, text, sizeof text);
        if (write(handle_pipe[1], text, sizeof text) != (ssize_t)sizeof text ||
            read(go_pipe[0], &byte, 1) != 1)
            _exit(12);
        _exit(0); /* without releasing anything */
    }
    char text[TSR_EXPORT_HANDLE_STR_MAX] = "", byte = 1;
    ASSERT_EQ(read(handle_pipe[0], text, sizeof text), (ssize_t)sizeof text);
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_export_handle_parse(text, h));
    if (c)
        ASSERT_OK(tsr_tensor_import(c, h, &t));
    ASSERT_EQ(write(go_pipe[1], &byte, 1), 1);
    int status = -1;
    waitpid(pid, &status, 0);
    ASSERT_EQ(status, 0);
    for (int k = 0; k < 2; k++) {
        close(handle_pipe[k]);
        close(go_pipe[k]);
    }
    return t;
}

/* The exporter exits first; the importer still reads and writes, and the
 * memory stays reserved until it lets go. */
static void exporter_exits_first(tsr_client *c, bool cpu)
{
    uint64_t before = reserved_now(c);
    const int64_t rows = 256, cols = 1024; /* 1 MiB */
    tsr_export_handle h;
    tsr_tensor *t = import_from_exited(c, rows, cols, cpu, &h);
    if (!t)
        return;
    /* Still the exporter's 1 MiB, on its account (cpu memory: on the
     * account of the memory cgroup of whoever first wrote its pages). */
    ASSERT_EQ(tsr_tensor_device(t).type, cpu ? TSR_DEVICE_CPU : TSR_DEVICE_OPENCL);
    ASSERT_TRUE(cpu || reserved_now(c) >= before + (uint64_t)(rows * cols * 4));
    /* Listed as released and held by this session; its exporter's session
     * as ending. The daemon sees the exporter's socket close on its own
     * time (after waitpid here on a loaded machine): asked until then. */
    tsr_share_info info = {0};
    bool more = true;
    for (int tries = 0; tries < 200 && !(info.id == h.id && info.released); tries++) {
        if (tries)
            usleep(50000);
        info = (tsr_share_info){0};
        more = true;
        for (uint64_t after = 0; more && info.id != h.id; after = info.id)
            ASSERT_OK(tsr_admin_share_list(c, after, &info, &more));
    }
    ASSERT_UEQ(info.id, h.id);
    ASSERT_TRUE(info.released && !info.revoked && !info.read_only);
    ASSERT_EQ(info.imports, 1);
    ASSERT_EQ(info.uid, geteuid());
    ASSERT_EQ(info.bytes, rows * cols * 4);
    ASSERT_EQ(info.holder_count, 1);
    ASSERT_EQ(info.holders[0], tsr_client_session_id(c));
    char out[4096], want[128];
    const char *shares[] = {"shares", "--csv", "--no-header", "-q", "session,state,imports,holders",
                            NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, shares), 0);
    snprintf(want, sizeof want, "%u,released,1,%u\n", (unsigned)info.session_id,
             (unsigned)tsr_client_session_id(c));
    ASSERT_TRUE(strstr(out, want) != NULL);
    const char *ps[] = {"ps", "--csv", "--no-header", "-q", "session,state", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    snprintf(want, sizeof want, "%u,ending\n", (unsigned)info.session_id);
    ASSERT_TRUE(strstr(out, want) != NULL);
    ASSERT_OK(tsr_add_(t, t, tsr_scalar_int(1)));
    size_t n = (size_t)(rows * cols);
    float *got = malloc(n * sizeof *got);
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, n * sizeof *got));
    int wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += got[i] != 2.0f * (float)i;
    ASSERT_EQ(wrong, 0);
    free(got);
    /* Nobody may import it now: its exporter no longer holds it. */
    tsr_tensor *again = NULL;
    ASSERT_EQ(tsr_tensor_import(c, &h, &again), TSR_ERR_INVALID_ARGUMENT);
    tsr_tensor_release(t);
    /* The last holder let go: the export, the exporter's session and its
     * memory go. */
    bool gone = false;
    for (int k = 0; k < 200 && !gone; k++) {
        gone = cpu || reserved_now(c) < before + (uint64_t)(rows * cols * 4);
        info.id = 0;
        more = true;
        for (uint64_t after = 0; more && info.id != h.id; after = info.id)
            more = tsr_admin_share_list(c, after, &info, &more) == TSR_OK && more;
        gone &= info.id != h.id;
        if (!gone)
            usleep(10000);
    }
    ASSERT_TRUE(gone);
}

/* A block exported twice and imported through both: its exporter frees
 * it and the import through one export goes; the other still holds it,
 * so the exporter's next block of the same size is somewhere else, and
 * neither side sees the other's writes. */
static void exported_twice(tsr_client *c)
{
    tsr_client *e = NULL;
    ASSERT_OK(tsr_client_open(NULL, &e));
    if (!e)
        return;
    const int64_t rows = 256, cols = 1024; /* 1 MiB, in a pool's segment */
    int64_t sizes[2] = {rows, cols};
    tsr_tensor *t = counting(e, rows, cols), *tx = NULL, *ty = NULL, *t2 = NULL;
    tsr_export_handle hx, hy;
    ASSERT_OK(tsr_tensor_export(t, NULL, &hx));
    ASSERT_OK(tsr_tensor_export(t, NULL, &hy));
    ASSERT_OK(tsr_tensor_import(c, &hx, &tx));
    ASSERT_OK(tsr_tensor_import(c, &hy, &ty));
    tsr_tensor_release(t);
    tsr_tensor_release(tx);
    ASSERT_OK(tsr_synchronize(c, OPENCL0));
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = OPENCL0};
    ASSERT_OK(tsr_tensor_full(e, 2, sizes, tsr_scalar_float(-1.0), &o, &t2));
    ASSERT_OK(tsr_synchronize(e, OPENCL0));
    ASSERT_OK(tsr_add_(ty, ty, tsr_scalar_int(1)));
    size_t n = (size_t)(rows * cols);
    float *got = malloc(n * sizeof *got);
    ASSERT_OK(tsr_tensor_copy_to_host(ty, got, n * sizeof *got));
    int wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += got[i] != 2.0f * (float)i;
    ASSERT_EQ(wrong, 0);
    ASSERT_OK(tsr_tensor_copy_to_host(t2, got, n * sizeof *got));
    wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += got[i] != -1.0f;
    ASSERT_EQ(wrong, 0);
    free(got);
    tsr_tensor_release(ty);
    tsr_tensor_release(t2);
    tsr_client_close(e);
}

/* The memfd a raw IMPORT of h sends, as a hostile importer keeps it (-1
 * on failure); *segment_bytes and *offset from the reply. */
static int raw_import_fd(const tsr_export_handle *h, uint64_t *segment_bytes, uint64_t *offset)
{
    const char *path = getenv("TESSERA_SOCKET");
    int sock = path ? test_raw_connect(path) : -1;
    if (sock < 0 || test_raw_hello(sock, NULL, 0) != 1) {
        if (sock >= 0)
            close(sock);
        return -1;
    }
    tsr__wire_share_key key = {.id = h->id};
    memcpy(key.secret, h->secret, sizeof key.secret);
    tsr__wire_imported rep;
    int fd = -1;
    tsr_status st =
        test_raw_call(sock, TSR__OP_IMPORT, 2, &key, sizeof key, &rep, sizeof rep, &fd, 1, NULL, 0);
    close(sock); /* the import goes with the session; the descriptor stays */
    if (st != TSR_OK) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *segment_bytes = rep.segment_bytes;
    *offset = rep.offset;
    return fd;
}

/* How many of the memfd's float32 words equal `value`, mapping all of it
 * (-1 when it cannot be mapped). */
static int64_t words_equal(int fd, uint64_t bytes, float value)
{
    float *all = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (all == MAP_FAILED)
        return -1;
    int64_t n = 0;
    for (uint64_t k = 0; k < bytes / sizeof *all; k++)
        n += all[k] == value;
    munmap(all, bytes);
    return n;
}

/* An importer gets the memfd of the exported block's whole segment: it
 * shows the tensor and nothing else of its exporter's. A small tensor,
 * among others in a pool's segment, moves to a segment of its own at its
 * first export (once), with its values, and its views follow it; a large
 * one with a segment to itself stays where it is. */
static void alone_in_segment(tsr_client *c)
{
    tsr_client *e = NULL;
    ASSERT_OK(tsr_client_open(NULL, &e));
    if (!e)
        return;
    const float secret_value = -7.75f; /* no tensor here holds it */
    int64_t secret_sizes[1] = {1000};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = OPENCL0};
    tsr_tensor *secret = NULL;
    ASSERT_OK(tsr_tensor_full(e, 1, secret_sizes, tsr_scalar_float(secret_value), &o, &secret));
    tsr_tensor *t = counting(e, ROWS, COLS), *v = shared_view(t), *imp = NULL;
    void *before = NULL, *after = NULL, *again = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(t, &before));
    DLManagedTensor *dl = NULL;
    ASSERT_OK(tsr_tensor_to_dlpack(t, TSR_DLPACK_HOST, &dl));
    tsr_export_handle h, h2;
    ASSERT_OK(tsr_tensor_export(t, NULL, &h));
    ASSERT_OK(tsr_tensor_data_ptr(t, &after));
    ASSERT_TRUE(after != before); /* moved */
    ASSERT_OK(tsr_tensor_export(v, NULL, &h2));
    ASSERT_OK(tsr_tensor_data_ptr(t, &again));
    ASSERT_TRUE(again == after); /* once */
    /* The values came along, the view follows, and the importer sees the
     * exporter's later kernels through it. */
    ASSERT_EQ(check_values(v, false), 0);
    ASSERT_OK(tsr_add_(v, v, tsr_scalar_int(1))); /* doubled */
    ASSERT_OK(tsr_synchronize(e, OPENCL0));
    ASSERT_OK(tsr_tensor_import(c, &h2, &imp));
    if (imp)
        ASSERT_EQ(check_view(imp, true), 0);
    tsr_tensor_release(imp);
    /* A DLPack export made before keeps the old memory, as it was. */
    if (dl) {
        const float *old = dl->dl_tensor.data;
        ASSERT_TRUE(old == before);
        ASSERT_TRUE(old[2 + COLS] == (float)(2 + COLS) && old[ROWS * COLS - 1] == ROWS * COLS - 1);
        dl->deleter(dl);
    }

    uint64_t bytes = 0, offset = 1;
    int fd = raw_import_fd(&h, &bytes, &offset);
    ASSERT_TRUE(fd >= 0);
    if (fd >= 0) {
        ASSERT_UEQ(bytes, 4096); /* 2 KiB rounded to a page */
        ASSERT_UEQ(offset, 0);
        ASSERT_EQ(words_equal(fd, bytes, secret_value), 0);
        ASSERT_EQ(words_equal(fd, bytes, 2.0f * (2 + COLS)), 1); /* the view's, doubled */
        close(fd);
    }

    /* 12 MiB, alone in the 16 MiB segment a freed tensor left: sealed
     * there, no copy, and the 4 MiB after it (the freed tensor's) cleared. */
    int64_t old_sizes[1] = {4 << 20};
    tsr_tensor *old = NULL;
    ASSERT_OK(tsr_tensor_full(e, 1, old_sizes, tsr_scalar_float(secret_value), &o, &old));
    ASSERT_OK(tsr_synchronize(e, OPENCL0));
    ASSERT_OK(tsr_tensor_data_ptr(old, &before));
    tsr_tensor_release(old);
    tsr_tensor *big = counting(e, 768, 4096);
    ASSERT_OK(tsr_tensor_data_ptr(big, &after));
    ASSERT_TRUE(after == before); /* the same segment, from the daemon's cache */
    ASSERT_OK(tsr_tensor_export(big, NULL, &h));
    ASSERT_OK(tsr_tensor_data_ptr(big, &again));
    ASSERT_TRUE(again == before);
    fd = raw_import_fd(&h, &bytes, &offset);
    ASSERT_TRUE(fd >= 0);
    if (fd >= 0) {
        ASSERT_UEQ(bytes, 16 << 20);
        ASSERT_EQ(words_equal(fd, bytes, secret_value), 0);
        ASSERT_EQ(words_equal(fd, bytes, 3145727.0f), 1); /* its last element */
        close(fd);
    }
    tsr_tensor_release(big);
    tsr_tensor_release(v);
    tsr_tensor_release(t);
    tsr_tensor_release(secret);
    tsr_client_close(e);
}

/* The daemon stops while this session holds an import of a session whose
 * process is gone, listed right after it: ending this one lets that one
 * go, freed before the stop moved on to it (a use after free that
 * AddressSanitizer reports). */
static void stop_while_imported(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0) {
        test__failed++;
        return;
    }
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_export_handle h;
    tsr_tensor *t = import_from_exited(c, ROWS, COLS, false, &h);
    /* Until the daemon has seen the exporter go. */
    tsr_share_info info = {0};
    for (int tries = 0; c && t && tries < 200 && !info.released; tries++) {
        if (tries)
            usleep(50000);
        bool more = false;
        ASSERT_OK(tsr_admin_share_list(c, 0, &info, &more));
    }
    ASSERT_TRUE(info.released);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    tsr_tensor_release(t);
    if (c)
        tsr_client_close(c);
}

/* On a device with memory of its own, an importer's kernels use a device
 * buffer of its own over the shared memory: device memory of the
 * importer's, charged to it. With 24 MiB on the device, a 10 MiB tensor
 * and one import fit, a second import does not, and it fits again once
 * the first is released. */
static void import_charged(void)
{
    test_daemon d;
    static const char *const copy[] = {"--device-memory", "copy", "--memory-limit", "24M", NULL};
    if (test_daemon_start(&d, copy) != 0) {
        test__failed++;
        return;
    }
    tsr_client *e = NULL, *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &e));
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_tensor *t = e && c ? counting(e, 640, 4096) : NULL, *i1 = NULL, *i2 = NULL;
    tsr_export_handle h;
    if (t && tsr_tensor_export(t, NULL, &h) == TSR_OK) {
        ASSERT_OK(tsr_tensor_import(c, &h, &i1));
        ASSERT_EQ(tsr_tensor_import(c, &h, &i2), TSR_ERR_OUT_OF_MEMORY);
        ASSERT_STREQ(tsr_last_error(), "IMPORT: this session's 10485760-byte device copy of the "
                                       "tensor does not fit: the device is full");
        float last = 0;
        tsr_tensor *one = NULL;
        if (i1 && tsr_tensor_select(i1, 0, 639, &one) == TSR_OK) {
            tsr_tensor *x = NULL;
            ASSERT_OK(tsr_tensor_select(one, 0, 4095, &x));
            ASSERT_OK(tsr_add_(x, x, tsr_scalar_int(1))); /* a kernel on the import */
            ASSERT_OK(tsr_tensor_copy_to_host(x, &last, sizeof last));
            tsr_tensor_release(x);
        }
        ASSERT_TRUE(last == 2.0f * (640 * 4096 - 1));
        tsr_tensor_release(one);
        tsr_tensor_release(i1);
        ASSERT_OK(tsr_synchronize(c, OPENCL0));
        ASSERT_OK(tsr_tensor_import(c, &h, &i2));
        tsr_tensor_release(i2);
    } else {
        ASSERT_TRUE(false);
    }
    tsr_tensor_release(t);
    if (c)
        tsr_client_close(c);
    if (e)
        tsr_client_close(e);
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

/* The block cache hands a freed block to a smaller tensor of the same
 * rounded size without the daemon knowing; when that tensor is exported
 * and sealed in place, what lies past it (the last tensor's) is cleared
 * too. */
static void reused_block_tail(void)
{
    tsr_client *e = NULL;
    ASSERT_OK(tsr_client_open(NULL, &e));
    if (!e)
        return;
    const float secret_value = -7.75f;
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = OPENCL0};
    int64_t n_old = 250, n_new = 150; /* 1000 and 600 bytes: both a 1024-byte block */
    tsr_tensor *old = NULL, *t = NULL;
    void *was = NULL, *now = NULL;
    ASSERT_OK(tsr_tensor_full(e, 1, &n_old, tsr_scalar_float(secret_value), &o, &old));
    ASSERT_OK(tsr_synchronize(e, OPENCL0));
    ASSERT_OK(tsr_tensor_data_ptr(old, &was));
    tsr_tensor_release(old);
    ASSERT_OK(tsr_tensor_ones(e, 1, &n_new, &o, &t));
    ASSERT_OK(tsr_tensor_data_ptr(t, &now));
    ASSERT_TRUE(now == was); /* the same block, from the cache */
    tsr_export_handle h;
    ASSERT_OK(tsr_tensor_export(t, NULL, &h));
    ASSERT_OK(tsr_tensor_data_ptr(t, &now));
    ASSERT_TRUE(now == was); /* sealed where it is */
    uint64_t bytes = 0, offset = 1;
    int fd = raw_import_fd(&h, &bytes, &offset);
    ASSERT_TRUE(fd >= 0);
    if (fd >= 0) {
        ASSERT_EQ(words_equal(fd, bytes, secret_value), 0);
        ASSERT_EQ(words_equal(fd, bytes, 1.0f), n_new);
        close(fd);
    }
    tsr_tensor_release(t);
    tsr_client_close(e);
}

/* An importer that exits with kernels on the import still running and
 * more queued: its queued kernels end (the session is gone) only after
 * the running ones, and the import goes only then. Until it goes the
 * exporter's freed block stays allocated, so the exporter's next block of
 * the same size is elsewhere and the importer's kernels never write it. */
static void importer_exits_running(tsr_client *c)
{
    enum { N = 1 << 20 }; /* float64: 8 MiB; a power of it takes ~0.1 s */
    int64_t sizes[1] = {N};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT64, .has_device = true, .device = OPENCL0};
    tsr_tensor *x = NULL, *y = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, sizes, tsr_scalar_float(3.0), &o, &x));
    ASSERT_OK(tsr_synchronize(c, OPENCL0));
    tsr_export_handle h;
    ASSERT_OK(tsr_tensor_export(x, NULL, &h));
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        tsr_client *ic = NULL;
        tsr_tensor *t = NULL;
        if (tsr_client_open(NULL, &ic) != TSR_OK || tsr_tensor_import(ic, &h, &t) != TSR_OK)
            _exit(10);
        for (int k = 0; k < 12; k++)
            if (tsr_pow_scalar_(t, tsr_scalar_float(1.0001)) != TSR_OK)
                _exit(11);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1)
            _exit(12);
        _exit(0); /* kernels running and queued, nothing released */
    }
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    int status = -1;
    waitpid(pid, &status, 0);
    ASSERT_EQ(status, 0);
    tsr_tensor_release(x);
    /* Past the first of the importer's kernels (eight run at once, four
     * wait), where its waiting ones used to end and the import with
     * them, the other seven still writing. */
    usleep(300000);
    ASSERT_OK(tsr_tensor_empty(c, 1, sizes, &o, &y));
    double *p = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(y, (void **)&p));
    if (p) {
        for (int i = 0; i < N; i++)
            p[i] = 2.0;
        usleep(500000); /* the importer's kernels, had they been let go */
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += p[i] != 2.0;
        ASSERT_EQ(wrong, 0);
    }
    tsr_tensor_release(y);
    close(ready[0]);
    close(ready[1]);
}

static void read_only(tsr_client *c, bool cpu)
{
    tsr_tensor *t = counting_on(c, ROWS, COLS, cpu), *v = shared_view(t);
    tsr_export_handle h;
    tsr_export_options o = {.flags = TSR_EXPORT_READ_ONLY};
    ASSERT_OK(tsr_tensor_export(v, &o, &h));
    ASSERT_EQ(run_consumer(&h, "ro"), 0);
    ASSERT_EQ(run_consumer(&h, "nofd"), 0);
    tsr_tensor_release(v);
    tsr_tensor_release(t);
}

static void revocation_and_hostile_handles(tsr_client *c)
{
    tsr_client *c2 = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c2));
    tsr_tensor *t = counting(c, ROWS, COLS), *v = shared_view(t);
    tsr_export_handle h;
    ASSERT_OK(tsr_tensor_export(v, NULL, &h));
    tsr_tensor *before = NULL, *after = NULL;
    ASSERT_OK(tsr_tensor_import(c2, &h, &before));
    ASSERT_OK(tsr_export_revoke(c, &h));
    char refused[32];
    snprintf(refused, sizeof refused, "refused:%d", (int)TSR_ERR_PERMISSION);
    ASSERT_EQ(run_consumer(&h, refused), 0);
    ASSERT_EQ(tsr_tensor_import(c2, &h, &after), TSR_ERR_PERMISSION);
    /* The import made before stays valid. */
    ASSERT_EQ(check_view(before, false), 0);
    tsr_tensor_release(before);

    /* A guessed secret, a guessed id: the same refusal as no export. */
    ASSERT_OK(tsr_tensor_export(v, NULL, &h));
    tsr_export_handle guess = h;
    guess.secret[7] ^= 1;
    char msg[256];
    snprintf(msg, sizeof msg,
             "no such export %016llx: the handle is not one tesserad issued, or its tensor was "
             "released",
             (unsigned long long)h.id);
    ASSERT_FAIL(tsr_tensor_import(c2, &guess, &after), TSR_ERR_INVALID_ARGUMENT, msg);
    guess = h;
    guess.id ^= 1;
    ASSERT_EQ(tsr_tensor_import(c2, &guess, &after), TSR_ERR_INVALID_ARGUMENT);
    /* Its own export is the session's own tensor. */
    ASSERT_EQ(tsr_tensor_import(c, &h, &after), TSR_ERR_INVALID_ARGUMENT);
    /* Once the exporter lets go, the handle is dead. */
    tsr_tensor_release(v);
    tsr_tensor_release(t);
    ASSERT_FAIL(tsr_tensor_import(c2, &h, &after), TSR_ERR_INVALID_ARGUMENT, msg);
    tsr_client_close(c2);
}

/* Runs this binary as `consume HANDLE MODE` under uid and gid (no
 * supplementary groups); returns its exit status. */
static int consume_as(uint32_t uid, uint32_t gid, const tsr_export_handle *h, const char *mode)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
            setresuid(uid, uid, uid) != 0)
            _exit(90);
        char text[TSR_EXPORT_HANDLE_STR_MAX];
        tsr_export_handle_str(h, text, sizeof text);
        execl(self_path, self_path, "consume", text, mode, (char *)NULL);
        _exit(91);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* Other uids: refused by default, let in when the export names their uid
 * or their group. Needs root, to be them (no user need exist for it). */
static void other_users(tsr_client *c, test_daemon *d)
{
    if (geteuid() != 0) {
        printf("other uids: skipped (not root: no second uid to run as)\n");
        return;
    }
    /* The other users must reach the socket. */
    ASSERT_EQ(chmod(d->dir, 0711), 0);
    ASSERT_EQ(chmod(d->socket, 0666), 0);
    tsr_tensor *t = counting(c, ROWS, COLS), *v = shared_view(t);
    tsr_export_handle mine, by_uid, by_gid;
    tsr_export_options ou = {.flags = TSR_EXPORT_ALLOW_UID, .allow_uid = 54321};
    tsr_export_options og = {.flags = TSR_EXPORT_ALLOW_GID, .allow_gid = 54000};
    ASSERT_OK(tsr_tensor_export(v, NULL, &mine));
    ASSERT_OK(tsr_tensor_export(v, &ou, &by_uid));
    ASSERT_OK(tsr_tensor_export(v, &og, &by_gid));
    char refused[32];
    snprintf(refused, sizeof refused, "refused:%d", (int)TSR_ERR_PERMISSION);
    ASSERT_EQ(consume_as(54321, 54321, &mine, refused), 0);
    ASSERT_EQ(consume_as(54321, 54321, &by_uid, "read"), 0);
    ASSERT_EQ(consume_as(54322, 54322, &by_uid, refused), 0);
    ASSERT_EQ(consume_as(54322, 54000, &by_gid, "read"), 0);
    ASSERT_EQ(consume_as(54322, 54322, &by_gid, refused), 0);
    /* Read-only for another uid, even through /proc/self/fd. */
    tsr_export_handle ro;
    tsr_export_options our = {.flags = TSR_EXPORT_ALLOW_UID | TSR_EXPORT_READ_ONLY,
                              .allow_uid = 54321};
    ASSERT_OK(tsr_tensor_export(v, &our, &ro));
    ASSERT_EQ(consume_as(54321, 54321, &ro, "ro-reopen"), 0);
    tsr_tensor_release(v);
    tsr_tensor_release(t);
}

int main(int argc, char **argv)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return 2;
    self_path = path;
    if (argc == 4 && strcmp(argv[1], "consume") == 0)
        return consume(argv[2], argv[3]);
    text_form();
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (c) {
        for (int cpu = 0; cpu < 2; cpu++) {
            across_processes(c, cpu);
            exporter_exits_first(c, cpu);
            read_only(c, cpu);
        }
        exported_twice(c);
        alone_in_segment(c);
        reused_block_tail();
        importer_exits_running(c);
        revocation_and_hostile_handles(c);
        other_users(c, &d);
        tsr_client_close(c);
    }
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);

    /* A device with memory of its own: each session's kernels copy the
     * shared segment in and out, so it is current between kernels and
     * the two processes still see each other's writes. */
    static const char *const copy[] = {"--device-memory", "copy", NULL};
    int failed = test__failed;
    if (test_daemon_start(&d, copy) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (c) {
        across_processes(c, false);
        exporter_exits_first(c, false);
        alone_in_segment(c);
        tsr_client_close(c);
    }
    if (test__failed != failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    import_charged();
    stop_while_imported();
    TEST_DONE();
}
