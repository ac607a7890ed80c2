/* tessera-kernel-worker: runs one uid's user kernels on one OpenCL
 * device, outside the daemon (docs/architecture.md, "User kernels").
 *
 *   tessera-kernel-worker serve FD P:D CACHE
 *       the worker: FD is its end of the daemon's socketpair
 *       (daemon/worker_wire.h), P:D the platform and device index of the
 *       device, CACHE the directory of its uid's compiled programs ("":
 *       none; opencl/cache.h, keyed by the device, its driver, the
 *       options and the source). It holds its own context and in-order
 *       queue, maps only the segments the daemon passes with launches,
 *       and answers requests in order until the daemon closes the socket:
 *       a launch from the driver's thread that completes it, which first
 *       publishes a success in the session's ring (worker_wire.h).
 *   tessera-kernel-worker build P:D
 *       the compiler: it loads the driver and opens a context on the
 *       device, then waits on stdin (a socket) for a job (compile_job:
 *       its limits and options, and the source as a descriptor), limits
 *       its own address space and processor time to the job's, and
 *       writes to stdout a header (opencl/compiler_answer.h), the log,
 *       the descriptions of the program's kernels and its binary; then
 *       waits for the next job, until stdin closes. It dumps no core. The
 *       worker starts it at its first build and keeps it for the next
 *       ones (a driver's compiler is several times faster once it has
 *       built a program), kills it at a build's wall-clock limit, and
 *       starts the next one shortly after such a build has been answered
 *       (compiler_due), so that the driver's start is behind the next
 *       build rather than in it. A compiler warms its driver's compiler
 *       up while it waits for its first job (warm_up).
 *
 * The daemon exec's this program (it never forks itself into it), so a
 * worker holds nothing of the daemon's memory: a user kernel that writes
 * far out of bounds or follows a garbage pointer can reach only its own
 * uid's segments, and its crash ends only this process. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/ring.h"
#include "core/siphash.h"
#include "daemon/worker_wire.h"
#include "kernels/hugemem.h"
#include "opencl/cache.h"
#include "opencl/compiler_answer.h"
#include "opencl/errors.h"

#define ANSWER_PIPE (1 << 20) /* the compiler's output pipe, bytes */

/* What a compiler waiting on stdin is sent for its build, with the
 * source's descriptor (SCM_RIGHTS). */
typedef struct compile_job {
    uint64_t memory;  /* address space beyond the driver's, bytes; 0: none */
    uint32_t seconds; /* its processor time from now */
    uint32_t format;  /* TSR__WIRE_PROGRAM_FORMAT_*: OpenCL C or SPIR-V */
    char options[TSR__WIRE_PROGRAM_OPTIONS];
} compile_job;

static void describe_kernel(cl_kernel k, tsr__worker_kernel *out, tsr__worker_built *r);
static bool describe_program(cl_program prog, tsr__worker_built *r);

static cl_platform_id platform;
static cl_device_id device;

static const char *cl_name(cl_int err)
{
    static char buf[TSR__CL_ERROR_NAME_MAX];
    return tsr__cl_error_name(err, buf, sizeof buf);
}

/* The device named "P:D". */
static bool locate(const char *where)
{
    unsigned p, d;
    char tail;
    if (sscanf(where, "%u:%u%c", &p, &d, &tail) != 2)
        return false;
    cl_uint np = 0, nd = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || p >= np)
        return false;
    cl_platform_id *ps = calloc(np, sizeof *ps);
    bool ok = ps && clGetPlatformIDs(np, ps, NULL) == CL_SUCCESS;
    if (ok)
        platform = ps[p];
    free(ps);
    if (!ok || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || d >= nd)
        return false;
    cl_device_id *ds = calloc(nd, sizeof *ds);
    ok = ds && clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, nd, ds, NULL) == CL_SUCCESS;
    if (ok)
        device = ds[d];
    free(ds);
    return ok;
}

/* Where the compiler writes its answers: its stdout as the worker gave it,
 * moved aside (build_main), so that what the driver or a library prints
 * to stdout goes to stderr and never into an answer. */
static int answer_out = 1;

static bool write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* ---- the compiler ------------------------------------------------------- */

/* The compiler's job, from stdin: the job and the source's text (NUL
 * added). False when the worker went away or sent something else. */
static bool receive_job(compile_job *job, char **src, size_t *len)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = job, .iov_len = sizeof *job};
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof control.buf};
    ssize_t got;
    while ((got = recvmsg(0, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (got != (ssize_t)sizeof *job || !c || c->cmsg_level != SOL_SOCKET ||
        c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return false;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    job->options[sizeof job->options - 1] = '\0';
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || !(*src = malloc((size_t)st.st_size + 1))) {
        close(fd);
        return false;
    }
    *len = 0;
    while (*len < (size_t)st.st_size) {
        ssize_t n = pread(fd, *src + *len, (size_t)st.st_size - *len, (off_t)*len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    close(fd);
    (*src)[*len] = '\0';
    return *len == (size_t)st.st_size;
}

/* The address space this process maps, in bytes; 0 when unknown. */
static uint64_t mapped_now(void)
{
    char text[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    unsigned long long pages = strtoull(text, NULL, 10);
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && pages <= UINT64_MAX / (uint64_t)page ? pages * (uint64_t)page : 0;
}

/* Processor time this process has used, whole seconds rounded up. */
static rlim_t cpu_used(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1);
}

/* A process's first build pays the driver's compiler its one-time start
 * (PoCL: the OpenCL C headers, the optimiser's set-up), about a third of a
 * small program's build that PoCL's own cache serves here (37-43 ms first,
 * 27-35 ms after). A compiler that is still waiting for its first job
 * takes that on a program of its own, whose source never changes, so the
 * driver's cache holds one copy of it: such a build then took 27-28 ms.
 * A job that is there already is not made to wait for it. (What a real
 * compile pays once more, PoCL's library of built-in functions, about
 * 0.9 s, the warm-up does not take on: it would cost that much processor
 * time for every compiler, whether a real compile follows or not.) */
static void warm_up(cl_context ctx)
{
    const char *source = "__kernel void tessera_warm_up(__global int *a) { a[0] = 1; }\n";
    struct pollfd job = {.fd = 0, .events = POLLIN};
    if (!ctx || poll(&job, 1, 0) != 0)
        return;
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (prog) {
        clBuildProgram(prog, 1, &device, "", NULL, NULL);
        clReleaseProgram(prog);
    }
}

/* One job: limits the process to it (soft limits, renewed for each job
 * from what the process maps and has used by then: a compiler serves
 * its worker's builds one after another), builds, and writes the answer
 * to stdout. False when stdout is gone. */
static bool compile_one(cl_context ctx, bool located, const compile_job *job, const char *src,
                        size_t len)
{
    struct rlimit cpu, as;
    getrlimit(RLIMIT_CPU, &cpu);
    getrlimit(RLIMIT_AS, &as);
    if (job->seconds) {
        rlim_t want = cpu_used() + job->seconds;
        setrlimit(RLIMIT_CPU,
                  &(struct rlimit){cpu.rlim_max < want ? cpu.rlim_max : want, cpu.rlim_max});
    }
    uint64_t memory = job->memory;
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's shadow memory alone is terabytes of address
     * space: a sanitized build cannot limit it (the time limit holds). */
    memory = 0;
#endif
    if (memory) {
        /* On top of what the process maps now: a GPU driver maps as much
         * address space as the device has memory, which the compiler's
         * own needs have nothing to do with. */
        uint64_t base = mapped_now();
        uint64_t want = base > UINT64_MAX - memory ? UINT64_MAX : base + memory;
        setrlimit(
            RLIMIT_AS,
            &(struct rlimit){(rlim_t)want < as.rlim_max ? (rlim_t)want : as.rlim_max, as.rlim_max});
    }
    cl_int err = CL_SUCCESS;
    cl_program prog = NULL;
    tsr__compiler_header h = {0};
    tsr__worker_built *described = NULL;
    char *log = NULL, *bin = NULL;
    size_t log_len = 0, bin_len = 0;
    if (!located) {
        h.status = TSR_ERR_DEVICE;
        log = strdup("the kernel compiler could not open the device");
        log_len = log ? strlen(log) : 0;
        goto out;
    }
    if (ctx && job->format == TSR__WIRE_PROGRAM_FORMAT_SPIRV) {
        /* cl_khr_il_program's entry point (core only from OpenCL 2.1);
         * the daemon sends SPIR-V only to a device that reports it. */
        typedef cl_program (*il_fn)(cl_context, const void *, size_t, cl_int *);
        il_fn create_il =
            (il_fn)clGetExtensionFunctionAddressForPlatform(platform, "clCreateProgramWithILKHR");
        if (create_il)
            prog = create_il(ctx, src, len, &err);
        else
            err = CL_INVALID_OPERATION;
    } else if (ctx) {
        const char *s = src;
        prog = clCreateProgramWithSource(ctx, 1, &s, &len, &err);
    }
    if (prog) {
        cl_int berr = clBuildProgram(prog, 1, &device, job->options, NULL, NULL);
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len);
        if (log_len && (log = malloc(log_len)) &&
            clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, log_len, log, NULL) ==
                CL_SUCCESS)
            log_len = strnlen(log, log_len);
        else
            log_len = 0;
        if (berr != CL_SUCCESS) {
            h.status = TSR_ERR_INVALID_ARGUMENT;
            if (!log_len) {
                free(log);
                char msg[96];
                snprintf(msg, sizeof msg, "the program did not build: %s", cl_name(berr));
                log = strdup(msg);
                log_len = log ? strlen(log) : 0;
            }
        } else if (!(described = calloc(1, sizeof *described))) {
            h.status = TSR_ERR_OUT_OF_MEMORY;
        } else if (!describe_program(prog, described)) {
            h.status = described->status;
            free(log);
            log = strdup(described->log);
            log_len = log ? strlen(log) : 0;
        } else {
            /* Described now, the binary after: the worker answers the
             * build with the descriptions before it has the binary. */
            h.status = TSR_OK;
            h.flags = TSR__COMPILER_BINARY_NEXT;
        }
    } else {
        h.status = TSR_ERR_DEVICE;
        char msg[96];
        snprintf(msg, sizeof msg, "the kernel compiler could not start: %s", cl_name(err));
        log = strdup(msg);
        log_len = log ? strlen(log) : 0;
    }
out:
    /* The worker keeps the log's end only (what says most of a long
     * one): no more of it travels. */
    if (log_len > TSR__COMPILER_LOG_MAX) {
        memmove(log, log + (log_len - TSR__COMPILER_LOG_MAX), TSR__COMPILER_LOG_MAX);
        log_len = TSR__COMPILER_LOG_MAX;
    }
    h.log_length = (uint32_t)log_len;
    h.nkernels = h.status == TSR_OK ? described->nkernels : 0;
    bool ok = write_all(answer_out, &h, sizeof h) &&
              write_all(answer_out, log ? log : "", log_len) &&
              write_all(answer_out, h.nkernels ? described->kernels : NULL,
                        h.nkernels * sizeof described->kernels[0]);
    if (ok && (h.flags & TSR__COMPILER_BINARY_NEXT)) {
        /* PoCL generates the binary's code here, for every kernel. */
        tsr__compiler_header bh = {.status = TSR_OK};
        char why[128] = "";
        err = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bin_len, &bin_len, NULL);
        if (err == CL_SUCCESS && (!bin_len || bin_len > TSR__COMPILER_BINARY_MAX))
            snprintf(why, sizeof why, "the program's binary is %s (%zu bytes)",
                     bin_len ? "too large" : "empty", bin_len);
        else if (err == CL_SUCCESS && !(bin = malloc(bin_len)))
            snprintf(why, sizeof why, "out of memory for the program's binary");
        else if (err == CL_SUCCESS)
            err = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
        if (err != CL_SUCCESS)
            snprintf(why, sizeof why, "the driver gave no binary of the program: %s", cl_name(err));
        if (why[0]) {
            bh.status = TSR_ERR_DEVICE;
            bh.log_length = (uint32_t)strlen(why);
        } else {
            bh.binary_length = bin_len;
        }
        ok = write_all(answer_out, &bh, sizeof bh) && write_all(answer_out, why, bh.log_length) &&
             write_all(answer_out, bin ? bin : "", bh.binary_length);
    }
    if (prog)
        clReleaseProgram(prog);
    free(log);
    free(bin);
    free(described);
    /* Back to what the process had: the next job's limits count from
     * where it starts. */
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &as);
    return ok;
}

static int build_main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    /* The answers' pipe away from stdout, which becomes stderr. */
    answer_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (answer_out < 0 || dup2(2, 1) < 0)
        _exit(3);
    /* The driver starts before the first job comes: nothing of the
     * user's is in this process until then. */
    cl_int err = CL_SUCCESS;
    cl_context ctx = NULL;
    bool located = locate(argv[2]);
    if (located)
        ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    warm_up(ctx);
    /* Jobs until the worker closes stdin. The driver's compiler, once it
     * has built a program, builds the next one in a tenth of the time
     * (PoCL: about 1 s against 0.1 s for a small program here, since its
     * first build loads its library of built-in functions): a process per
     * build paid that every time. Each job's source is the same uid's as
     * the last one's. */
    for (bool first = true;; first = false) {
        compile_job job;
        char *src = NULL;
        size_t len = 0;
        if (!receive_job(&job, &src, &len))
            _exit(first ? 3 : 0);
        bool ok = compile_one(ctx, located, &job, src, len);
        free(src);
        if (!ok)
            _exit(4);
    }
}

/* ---- the worker --------------------------------------------------------- */

typedef struct program {
    uint32_t id;
    cl_program prog; /* NULL: its binary is not loaded (yet, or refused: why) */
    cl_kernel kernels[TSR__WORKER_KERNELS];
    uint32_t nkernels;
    char why[TSR__WORKER_MESSAGE];
} program;

static cl_context context;
static cl_command_queue queue;
static tsr__kcache *cache;
static uint64_t device_hash; /* of the device's name, vendor and driver version */
static bool host_unified;
static char self_path[4096], where[64];
static program *programs;
static size_t nprograms, programs_cap;

/* Ends the worker where err says that the device's context is gone: a
 * GPU's driver loses it with a kernel that faults (an access out of
 * bounds), and every later call fails (an NVIDIA H200: the next enqueue
 * CL_OUT_OF_RESOURCES, a program's load the driver's own -9999). Ended,
 * the launches it had fail with the worker's end, and the next program
 * gets a fresh worker and context. Only _exit: it may run on a driver's
 * thread, where exit's handlers must not. */
static void lost(cl_int err, const char *what)
{
    char name[TSR__CL_ERROR_NAME_MAX];
    fprintf(stderr, "tessera-kernel-worker: %s on %s: %s\n", what, where,
            tsr__cl_error_name(err, name, sizeof name));
    _exit(TSR__WORKER_EXIT_KERNEL_FAILED);
}

/* Whether the context still works: a write of four bytes into a buffer
 * of its own, blocking (after what the queue holds). Main thread only. */
static bool context_works(void)
{
    static cl_mem probe;
    cl_int err = CL_SUCCESS, v = 0;
    if (!probe)
        probe = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof v, NULL, &err);
    return err == CL_SUCCESS && clEnqueueWriteBuffer(queue, probe, CL_TRUE, 0, sizeof v, &v, 0,
                                                     NULL, NULL) == CL_SUCCESS;
}

/* ... for errors of a call that only a lost context explains: a vendor's
 * own code, or CL_OUT_OF_RESOURCES on a device of its own memory where
 * the context no longer works (a kernel too large for the device says
 * so too, and leaves the context working). Main thread only. */
static void lost_if(cl_int err, const char *what)
{
    if (err < -1100 || (err == CL_OUT_OF_RESOURCES && !host_unified && !context_works()))
        lost(err, what);
}

static program *find_program(uint32_t id)
{
    for (size_t k = 0; k < nprograms; k++)
        if (programs[k].id == id)
            return &programs[k];
    return NULL;
}

static void drop_program(uint32_t id)
{
    program *p = find_program(id);
    if (!p)
        return;
    for (uint32_t k = 0; k < p->nkernels; k++)
        clReleaseKernel(p->kernels[k]);
    if (p->prog)
        clReleaseProgram(p->prog);
    *p = programs[--nprograms];
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_log(tsr__worker_built *r, const char *text, size_t len)
{
    /* The end of a long log says most: keep it. */
    if (len >= TSR__WIRE_BUILD_LOG)
        text += len - (TSR__WIRE_BUILD_LOG - 1), len = TSR__WIRE_BUILD_LOG - 1;
    memcpy(r->log, text, len);
    r->log[len] = '\0';
    r->log_length = (uint32_t)len;
}

static void fail_build(tsr__worker_built *r, tsr_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_build(tsr__worker_built *r, tsr_status status, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    r->status = status;
    set_log(r, text, strlen(text));
}

/* The compiler (build_main), kept from one build to the next: its pid,
 * its stdin (the jobs go there) and its stdout; pid 0: none. */
static struct {
    pid_t pid;
    int job, answer;
} compiler = {0, -1, -1};

/* When the next build's compiler is due to start (now_ms; 0: not due):
 * COMPILER_DELAY_MS after the answer to a build whose compiler ended (its
 * time limit, a crash), or at once when a request comes first
 * (serve_main). Started with the answer, its fork, its
 * driver's start and the last compiler's exit took the processors while
 * the daemon and the client took the answer in: from the worker's answer
 * to the client's tsr_program_wait returning took 1.5-8 ms on a 2-core
 * machine, against 0.3-0.4 ms with the start 20 ms later. */
#define COMPILER_DELAY_MS 20
static uint64_t compiler_due;

static bool start_compiler(void)
{
    compiler_due = 0;
    int sv[2], pipefd[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return false;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        close(sv[0]);
        close(sv[1]);
        return false;
    }
    /* Room for a whole answer of a usual program (PoCL's binary of a few
     * small kernels is about 90 KiB, past a pipe's default 64 KiB): the
     * compiler then writes it in one go, without waiting for the worker
     * to read part of it. Where the system allows less, the default. */
    fcntl(pipefd[1], F_SETPIPE_SZ, ANSWER_PIPE);
    char *argv[] = {self_path, "build", where, NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* it dies with the worker */
        if (getppid() != parent)
            _exit(127);
        if (dup2(sv[1], 0) < 0 || dup2(pipefd[1], 1) < 0)
            _exit(127);
        execv(self_path, argv);
        _exit(127);
    }
    close(sv[1]);
    close(pipefd[1]);
    if (pid < 0) {
        close(sv[0]);
        close(pipefd[0]);
        return false;
    }
    compiler.pid = pid;
    compiler.job = sv[0];
    compiler.answer = pipefd[0];
    return true;
}

/* The compiler is gone (or must go): no job goes to it any more. */
static void compiler_forget(void)
{
    if (compiler.job >= 0)
        close(compiler.job);
    if (compiler.answer >= 0)
        close(compiler.answer);
    compiler.pid = 0;
    compiler.job = compiler.answer = -1;
}

/* Ends the compiler now (one out of step with its answers). */
static void compiler_kill(void)
{
    pid_t pid = compiler.pid;
    compiler_forget();
    if (pid > 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
}

/* Reads exactly `len` bytes of the compiler's answer into buf by
 * `deadline` (now_ms). 1: read; 0: its end came first; -1: the deadline
 * passed. */
static int read_answer(void *buf, size_t len, uint64_t deadline)
{
    size_t got = 0;
    while (got < len) {
        uint64_t t = now_ms();
        if (t >= deadline)
            return -1;
        struct pollfd pfd = {.fd = compiler.answer, .events = POLLIN};
        int n = poll(&pfd, 1, (int)(deadline - t));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return -1;
        ssize_t k = read(compiler.answer, (char *)buf + got, len - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        got += (size_t)k;
    }
    return 1;
}

/* One record of the compiler's answer (opencl/compiler_answer.h), whole,
 * by `deadline`, into *out (malloc'ed); or false with r saying why, the
 * compiler killed and reaped. A record whose sizes are out of bounds ends
 * the compiler: what it wrote after is not to be believed. */
static bool compiler_record(uint64_t deadline, uint32_t build_ms, tsr__worker_built *r, char **out,
                            size_t *out_len)
{
    tsr__compiler_header h;
    char *buf = NULL;
    uint64_t want = 0;
    if (compiler.pid <= 0) {
        fail_build(r, TSR_ERR_DEVICE, "the kernel compiler is gone");
        return false;
    }
    int got = read_answer(&h, sizeof h, deadline);
    if (got == 1 && tsr__compiler_answer_length(&h, &want)) {
        if (!(buf = malloc(want))) {
            fail_build(r, TSR_ERR_OUT_OF_MEMORY, "out of memory reading the kernel compiler");
            got = -2;
        } else {
            memcpy(buf, &h, sizeof h);
            got = read_answer(buf + sizeof h, want - sizeof h, deadline);
            if (got == 1) {
                *out = buf;
                *out_len = want;
                return true;
            }
        }
    }
    free(buf);
    pid_t pid = compiler.pid;
    compiler_forget();
    if (got != 0)
        kill(pid, SIGKILL);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (got == -2)
        return false;
    if (got == -1 || (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGXCPU))
        fail_build(
            r, TSR_ERR_LIMIT,
            "the kernel compiler ran past its time limit (kernels.build_time_limit_ms, %u ms) "
            "and was stopped",
            (unsigned)build_ms);
    else if (got == 1)
        fail_build(r, TSR_ERR_DEVICE, "the kernel compiler's answer is malformed");
    else if (WIFSIGNALED(wstatus))
        fail_build(r, TSR_ERR_DEVICE, "the kernel compiler crashed (signal %d: %s)%s",
                   WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)),
                   WTERMSIG(wstatus) == SIGKILL || WTERMSIG(wstatus) == SIGSEGV ||
                           WTERMSIG(wstatus) == SIGABRT
                       ? " (or ran out of its memory limit, kernels.build_memory)"
                       : "");
    else
        fail_build(r, TSR_ERR_DEVICE, "the kernel compiler failed (exit status %d)",
                   WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    return false;
}

/* Gives the compiler (started now if there is none, or if the last one
 * ended while it waited) the build of the source memfd `src`, and reads
 * the first record of its answer into *out (malloc'ed); false with r
 * saying why. The rest of the answer, if the record says a binary
 * follows, is read with compiler_record by *deadline. */
static bool run_compiler(const tsr__worker_build *b, int src, tsr__worker_built *r, char **out,
                         size_t *out_len, uint64_t *deadline)
{
    if (compiler.pid && waitpid(compiler.pid, NULL, WNOHANG) != 0)
        compiler_forget(); /* killed from outside while it waited */
    compile_job job = {
        .memory = b->build_memory, .seconds = b->build_ms / 1000u + 1u, .format = b->format};
    memcpy(job.options, b->options, sizeof job.options);
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control = {0};
    struct iovec iov = {.iov_base = &job, .iov_len = sizeof job};
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &src, sizeof src);
    /* A compiler whose socket is closed ended while it waited: the job
     * goes to a new one. One that dies after it took the job answers
     * nothing: the read below sees the end of its output, and waitpid
     * why. */
    for (int tries = 0;; tries++) {
        if (!compiler.pid && !start_compiler()) {
            fail_build(r, TSR_ERR_RUNTIME, "could not start the kernel compiler: %s",
                       strerror(errno));
            return false;
        }
        ssize_t sent;
        while ((sent = sendmsg(compiler.job, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
            ;
        if (sent >= 0 || tries > 0 || (errno != EPIPE && errno != ECONNRESET))
            break;
        compiler_kill();
    }
    *deadline = now_ms() + b->build_ms;
    return compiler_record(*deadline, b->build_ms, r, out, out_len);
}

/* The cache entry of a source built with `options` on this device. */
static uint64_t program_name(const char *options, const void *source, size_t length)
{
    uint64_t h = tsr__fnv1a(device_hash, options, strlen(options) + 1);
    h = tsr__fnv1a(h, &length, sizeof length);
    return tsr__fnv1a(h, source, length);
}

static void hash_device(void)
{
    static const cl_device_info what[] = {CL_DEVICE_NAME, CL_DEVICE_VENDOR, CL_DRIVER_VERSION,
                                          CL_DEVICE_VERSION};
    uint64_t h = TSR__FNV_START;
    h = tsr__fnv1a(h, "tessera user program 1", 23);
    for (size_t k = 0; k < sizeof what / sizeof what[0]; k++) {
        char text[512] = "";
        clGetDeviceInfo(device, what[k], sizeof text - 1, text, NULL);
        h = tsr__fnv1a(h, text, strlen(text) + 1);
    }
    device_hash = h;
}

/* "float4" -> 16; 0 for what a scalar argument cannot be. */
static uint32_t value_size(const char *type)
{
    static const struct {
        const char *name;
        uint32_t size;
    } base[] = {{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"half", 2},  {"int", 4},
                {"uint", 4}, {"float", 4}, {"long", 8},  {"ulong", 8},  {"double", 8}};
    for (size_t k = 0; k < sizeof base / sizeof base[0]; k++) {
        size_t n = strlen(base[k].name);
        if (strncmp(type, base[k].name, n) != 0)
            continue;
        const char *rest = type + n;
        if (!*rest)
            return base[k].size;
        char *end;
        long width = strtol(rest, &end, 10);
        if (*end || (width != 2 && width != 3 && width != 4 && width != 8 && width != 16))
            continue;
        uint32_t bytes = base[k].size * (uint32_t)(width == 3 ? 4 : width);
        return bytes <= 16 ? bytes : 0;
    }
    return 0;
}

static void describe_kernel(cl_kernel k, tsr__worker_kernel *out, tsr__worker_built *r)
{
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof out->name, out->name, NULL);
    out->name[sizeof out->name - 1] = '\0';
    cl_uint nargs = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    if (nargs > TSR__WIRE_KERNEL_ARGS) {
        fail_build(r, TSR_ERR_NOT_SUPPORTED,
                   "kernel %s takes %u arguments; at most %u are supported", out->name,
                   (unsigned)nargs, TSR__WIRE_KERNEL_ARGS);
        return;
    }
    out->nargs = nargs;
    for (cl_uint a = 0; a < nargs; a++) {
        tsr__wire_kernel_arg *arg = &out->args[a];
        cl_kernel_arg_address_qualifier aq = 0;
        char type[128] = "", name[128] = "";
        cl_int err =
            clGetKernelArgInfo(k, a, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL);
        if (err == CL_SUCCESS)
            err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL);
        if (err == CL_SUCCESS)
            err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_NAME, sizeof name, name, NULL);
        if (err != CL_SUCCESS) {
            fail_build(r, TSR_ERR_DEVICE, "kernel %s: no argument information (%s)", out->name,
                       cl_name(err));
            return;
        }
        type[sizeof type - 1] = name[sizeof name - 1] = '\0';
        snprintf(arg->type, sizeof arg->type, "%s", type);
        snprintf(arg->name, sizeof arg->name, "%s", name);
        arg->kind = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? TSR__KARG_GLOBAL
                    : aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? TSR__KARG_CONSTANT
                    : aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? TSR__KARG_LOCAL
                                                           : TSR__KARG_VALUE;
        arg->size = arg->kind == TSR__KARG_VALUE ? value_size(type) : 0;
    }
}

/* Creates the kernels of a built program into ks and describes them into
 * r; false (r says why, no kernel kept) where that fails. */
static bool program_kernels(cl_program prog, cl_kernel *ks, cl_uint *n, tsr__worker_built *r)
{
    *n = 0;
    cl_int err = clCreateKernelsInProgram(prog, TSR__WORKER_KERNELS, ks, n);
    if (err == CL_INVALID_VALUE)
        fail_build(r, TSR_ERR_NOT_SUPPORTED, "a program may hold at most %u kernels",
                   TSR__WORKER_KERNELS);
    else if (err != CL_SUCCESS)
        fail_build(r, TSR_ERR_DEVICE, "the device refused the compiled program: %s", cl_name(err));
    for (cl_uint k = 0; k < *n && r->status == TSR_OK; k++)
        describe_kernel(ks[k], &r->kernels[k], r);
    if (r->status == TSR_OK) {
        r->nkernels = *n;
        return true;
    }
    for (cl_uint k = 0; k < *n; k++)
        clReleaseKernel(ks[k]);
    *n = 0;
    return false;
}

static bool describe_program(cl_program prog, tsr__worker_built *r)
{
    cl_kernel ks[TSR__WORKER_KERNELS];
    cl_uint n;
    if (!program_kernels(prog, ks, &n, r))
        return false;
    for (cl_uint k = 0; k < n; k++)
        clReleaseKernel(ks[k]);
    return true;
}

/* Loads a built program's binary into the worker's context as program
 * p->id, its kernels in the order of r's descriptions (by name); false,
 * with r saying why, where the device refuses it. */
static bool load_program(program *p, const tsr__worker_build *b, const unsigned char *bin,
                         size_t bin_len, tsr__worker_built *r)
{
    cl_int err, berr;
    p->prog = clCreateProgramWithBinary(context, 1, &device, &bin_len, &bin, &berr, &err);
    if (p->prog)
        err = clBuildProgram(p->prog, 1, &device, b->options, NULL, NULL);
    if (err != CL_SUCCESS) {
        lost_if(err, "the device refused a compiled program");
        fail_build(r, TSR_ERR_DEVICE, "the device refused the compiled program: %s", cl_name(err));
        if (p->prog)
            clReleaseProgram(p->prog);
        p->prog = NULL;
        return false;
    }
    if (!r->nkernels)
        return program_kernels(p->prog, p->kernels, &p->nkernels, r) ||
               (clReleaseProgram(p->prog), p->prog = NULL, false);
    /* Described by the compiler: the same kernels, looked up by name. */
    for (uint32_t k = 0; k < r->nkernels && err == CL_SUCCESS; k++) {
        p->kernels[k] = clCreateKernel(p->prog, r->kernels[k].name, &err);
        if (err == CL_SUCCESS)
            p->nkernels = k + 1;
    }
    if (err == CL_SUCCESS)
        return true;
    fail_build(r, TSR_ERR_DEVICE, "the device refused the compiled program's kernels: %s",
               cl_name(err));
    for (uint32_t k = 0; k < p->nkernels; k++)
        clReleaseKernel(p->kernels[k]);
    clReleaseProgram(p->prog);
    p->prog = NULL;
    p->nkernels = 0;
    return false;
}

/* The compiler's second record for a program it answered with
 * TSR__COMPILER_BINARY_NEXT: its binary into *bin, pointing into *rec
 * (malloc'ed); false with r saying why. */
static bool next_binary(uint64_t deadline, const tsr__worker_build *b, tsr__worker_built *r,
                        char **rec, const unsigned char **bin, size_t *bin_len)
{
    size_t len = 0;
    if (!compiler_record(deadline, b->build_ms, r, rec, &len))
        return false;
    tsr__compiler_answer a;
    if (!tsr__compiler_answer_parse(*rec, len, &a) || a.header.nkernels ||
        (a.header.flags & TSR__COMPILER_BINARY_NEXT)) {
        /* Out of step with what it owes: it goes. */
        compiler_kill();
        fail_build(r, TSR_ERR_DEVICE, "the kernel compiler's answer is malformed");
        return false;
    }
    if (a.header.status != TSR_OK) {
        fail_build(r, TSR_ERR_DEVICE, "%.*s", (int)a.header.log_length, a.log);
        return false;
    }
    *bin = a.binary;
    *bin_len = a.header.binary_length;
    return true;
}

static void serve_build(int sock, const tsr__worker_build *b, int src)
{
    tsr__worker_built *r = calloc(1, sizeof *r);
    if (!r)
        exit(3);
    r->op = TSR__WORKER_BUILT;
    r->program = b->program;
    char *answer = NULL;
    size_t len = 0;
    uint64_t name = 0;
    bool named = false;
    struct stat st;
    /* A mapping past the memfd's end would fault where it is read. */
    if (cache && fstat(src, &st) == 0 && (uint64_t)st.st_size == b->source_bytes) {
        void *text = mmap(NULL, b->source_bytes, PROT_READ, MAP_SHARED, src, 0);
        if (text != MAP_FAILED) {
            name = program_name(b->options, text, b->source_bytes);
            named = true;
            munmap(text, b->source_bytes);
        }
    }
    unsigned char *stored = NULL;
    size_t stored_len = 0;
    if (named && tsr__kcache_load(cache, name, &stored, &stored_len) == TSR__KCACHE_FOUND) {
        /* As the compiler would answer: a header, no log, the binary. */
        tsr__compiler_header h = {.status = TSR_OK, .binary_length = stored_len};
        answer = malloc(sizeof h + stored_len);
        if (answer) {
            memcpy(answer, &h, sizeof h);
            memcpy(answer + sizeof h, stored, stored_len);
            len = sizeof h + stored_len;
            r->flags |= TSR__WORKER_BUILT_CACHED;
        }
        free(stored);
    }
    bool compiled = !answer, binary_next = false, binary_read = false;
    const unsigned char *bin = NULL;
    size_t bin_len = 0;
    uint64_t deadline = 0;
    char *second = NULL;  /* the compiler's record with the binary */
    program *mine = NULL; /* this build's entry in programs */
    /* Room for the program first: nothing may stop the worker from
     * reading all the compiler's answer once it has asked for it. */
    bool room = nprograms < programs_cap;
    if (!room) {
        program *grown = realloc(programs, (programs_cap * 2 + 4) * sizeof *grown);
        if (grown) {
            programs = grown;
            programs_cap = programs_cap * 2 + 4;
            room = true;
        }
    }
    if (!room)
        fail_build(r, TSR_ERR_OUT_OF_MEMORY, "out of memory");
    else if (answer || run_compiler(b, src, r, &answer, &len, &deadline)) {
        tsr__compiler_answer a;
        const tsr__compiler_header *h = &a.header;
        if (!tsr__compiler_answer_parse(answer, len, &a) ||
            (compiled && h->status != TSR_OK && (h->flags & TSR__COMPILER_BINARY_NEXT))) {
            if (compiled)
                compiler_kill(); /* its next record would be read as the next answer */
            fail_build(r, TSR_ERR_DEVICE, "the kernel compiler's answer is malformed");
        } else {
            set_log(r, a.log, h->log_length);
            r->status = h->status;
            binary_next = compiled && h->status == TSR_OK && (h->flags & TSR__COMPILER_BINARY_NEXT);
        }
        if (r->status == TSR_OK) {
            if (!binary_next)
                bin = a.binary, bin_len = h->binary_length;
            r->nkernels = h->nkernels;
            memcpy(r->kernels, a.kernels, h->nkernels * sizeof r->kernels[0]);
            for (uint32_t k = 0; k < r->nkernels; k++)
                r->kernels[k].name[sizeof r->kernels[k].name - 1] = '\0';
            mine = &programs[nprograms];
            *mine = (program){.id = b->program};
            /* A program the compiler described is answered first and its
             * binary read and loaded after: the daemon's next request for
             * it comes after the load, which the answer need not wait for.
             * One without kernels, or from the disk cache, is described
             * here, from the load. */
            if (!r->nkernels && binary_next) {
                binary_read = true;
                if (!next_binary(deadline, b, r, &second, &bin, &bin_len))
                    mine = NULL;
            }
            if (mine && !r->nkernels && !load_program(mine, b, bin, bin_len, r))
                mine = NULL;
            if (mine)
                nprograms++;
            else
                bin = NULL;
        }
    }
    if (r->status == TSR_OK && binary_next && !binary_read)
        r->flags |= TSR__WORKER_BUILT_LOADING;
    size_t bytes = offsetof(tsr__worker_built, kernels) + r->nkernels * sizeof r->kernels[0];
    if (send(sock, r, bytes, MSG_NOSIGNAL) < 0)
        exit(0);
    bool ok = mine != NULL;
    if (binary_next && !binary_read) {
        binary_read = true;
        ok = next_binary(deadline, b, r, &second, &bin, &bin_len);
    }
    if (ok && mine && !mine->prog)
        ok = load_program(mine, b, bin, bin_len, r);
    /* Its launches fail with why (serve_launch). */
    if (!ok && mine)
        snprintf(mine->why, sizeof mine->why, "%.*s", (int)sizeof mine->why - 1, r->log);
    if (r->flags & TSR__WORKER_BUILT_LOADING) {
        tsr__worker_loaded done = {
            .op = TSR__WORKER_LOADED, .program = b->program, .status = ok ? TSR_OK : r->status};
        if (!ok)
            snprintf(done.message, sizeof done.message, "%.*s", (int)sizeof done.message - 1,
                     r->log);
        if (send(sock, &done, sizeof done, MSG_NOSIGNAL) < 0)
            exit(0);
    }
    free(r);
    /* What the answer need not wait for comes after it: the disk cache's
     * copy, and the next build's compiler (its fork and its driver's
     * start would otherwise share the processors with this build's
     * last steps), which is due a little later still. */
    if (ok && named && compiled && bin)
        tsr__kcache_store(cache, name, bin, bin_len);
    free(second);
    free(answer);
    if (compiled && !compiler.pid)
        compiler_due = now_ms() + COMPILER_DELAY_MS;
}

/* ---- launches ----------------------------------------------------------- */

/* Launches given to the queue and not yet answered, oldest first, in a
 * ring of INFLIGHT slots. The driver's thread that completes a launch's
 * last command answers it (launch_complete): the worker's own thread
 * does not wake between a kernel's end and the daemon hearing of it.
 * Answers leave in launch order (the daemon matches them to its requests
 * in that order), under answer_lock; the worker's thread releases a
 * launch's buffers once it is answered, and waits for every answer
 * (drain) before anything that must not overtake a launch: a build's
 * answer, a mapping's removal, a full ring. */
#define INFLIGHT 32
typedef struct inflight {
    _Atomic bool complete;
    cl_event event;
    cl_event kernel; /* the kernel's own, where event is a marker after it */
    cl_mem mems[TSR__WIRE_KERNEL_ARGS];
    tsr__ring_queue *ring; /* where its end is published, or NULL */
    uint32_t sequence, acked;
    tsr__worker_done done;
} inflight;
static inflight slots[INFLIGHT];
static _Atomic uint64_t issued; /* slots filled; written by the worker's thread only */
static _Atomic uint64_t answered;
static uint64_t freed; /* slots whose buffers are released */
static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t answer_cond = PTHREAD_COND_INITIALIZER;
static int answer_sock = -1;

static void publish(tsr__ring_queue *q, uint32_t sequence);

/* The last launch that failed here, and whether there was one: a launch
 * that the daemon sent before it read that answer is not published by the
 * worker (worker_wire.h). Under answer_lock. */
static uint32_t last_failed;
static bool any_failed;

/* Publishes the successes and sends the answers of the complete launches
 * at the head, in order (under answer_lock). */
static void answer_ready(void)
{
    uint64_t a = atomic_load(&answered), n = atomic_load(&issued);
    for (; a < n && atomic_load(&slots[a % INFLIGHT].complete); a++) {
        inflight *f = &slots[a % INFLIGHT];
        if (f->done.status != TSR_OK) {
            last_failed = f->done.launch;
            any_failed = true;
        } else if (f->ring && (!any_failed || (int32_t)(f->acked - last_failed) >= 0)) {
            publish(f->ring, f->sequence);
        }
        if (send(answer_sock, &f->done, sizeof f->done, MSG_NOSIGNAL) < 0)
            _exit(0); /* the daemon is gone (a driver's thread must not run exit's handlers) */
        atomic_store(&answered, a + 1);
    }
    pthread_cond_broadcast(&answer_cond);
}

static void complete(inflight *f)
{
    atomic_store(&f->complete, true);
    pthread_mutex_lock(&answer_lock);
    answer_ready();
    pthread_mutex_unlock(&answer_lock);
}

/* Publishes a launch's success in its session's ring, as the daemon's
 * executor does (daemon/exec.c): completed raised to its sequence, a
 * waiting client woken. The daemon publishes it again (and failures
 * alone) when it hears of it. */
static void publish(tsr__ring_queue *q, uint32_t sequence)
{
    uint32_t seen = atomic_load(&q->completed);
    while ((int32_t)(sequence - seen) > 0 &&
           !atomic_compare_exchange_weak(&q->completed, &seen, sequence))
        ;
    if (atomic_load(&q->waiting))
        syscall(SYS_futex, (uint32_t *)&q->completed, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void CL_CALLBACK launch_complete(cl_event event, cl_int status, void *data)
{
    (void)event;
    inflight *f = data;
    cl_int ran = CL_COMPLETE;
    if (f->kernel)
        clGetEventInfo(f->kernel, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof ran, &ran, NULL);
    if (status < 0 || ran < 0) {
        /* A GPU's context goes with a failed kernel; on a device that
         * computes in host memory the launch fails alone, as it did. */
        if (!host_unified)
            lost(status < 0 ? status : ran, "a kernel failed");
        char name[TSR__CL_ERROR_NAME_MAX];
        f->done.status = TSR_ERR_DEVICE;
        snprintf(f->done.message, sizeof f->done.message, "the kernel failed: %s",
                 tsr__cl_error_name(status < 0 ? status : ran, name, sizeof name));
    }
    complete(f);
}

/* Releases what the answered launches held. */
static void free_answered(void)
{
    for (uint64_t a = atomic_load(&answered); freed < a; freed++) {
        inflight *f = &slots[freed % INFLIGHT];
        for (uint32_t k = 0; k < TSR__WIRE_KERNEL_ARGS; k++)
            if (f->mems[k])
                clReleaseMemObject(f->mems[k]);
        if (f->event)
            clReleaseEvent(f->event);
        if (f->kernel)
            clReleaseEvent(f->kernel);
    }
}

static void drain(void)
{
    pthread_mutex_lock(&answer_lock);
    while (atomic_load(&answered) < atomic_load(&issued))
        pthread_cond_wait(&answer_cond, &answer_lock);
    pthread_mutex_unlock(&answer_lock);
    free_answered();
}

/* The segments the daemon put in this worker's slots (worker_wire.h),
 * each kept open and mapped at its first use: mapping a segment anew at
 * each launch cost its page faults every time. A slot is let go when the
 * daemon reuses it for another segment or sends FORGET for it (the
 * segment was released). */
/* Each mapping also keeps the buffers that launches wrapped around parts
 * of it, on a device that computes in host memory (host_unified): such a
 * buffer is the segment's own bytes, so one made for an earlier launch
 * serves a later one over the same bytes as well, and a launch is spared
 * a buffer's creation and release in the driver (each takes its locks,
 * against the driver's threads that run the kernels). At most
 * BUFFERS_MAX a mapping, the least recently used replaced once no launch
 * in flight can use it; they go with their mapping. */
#define BUFFERS_MAX 8
typedef struct buffer {
    uint64_t offset, extent;
    cl_mem mem;
    uint64_t used; /* the launch that used it last */
} buffer;
static struct mapped {
    int fd;     /* the segment's memfd; -1: the slot is empty */
    void *base; /* NULL: not mapped */
    uint64_t bytes;
    buffer buffers[BUFFERS_MAX];
    uint32_t nbuffers;
} mapped[TSR__WORKER_SEGMENTS];
static uint64_t launches;

/* Unmaps a slot's segment, with its buffers, once no launch in flight can
 * use them. */
static void mapping_drop(struct mapped *m)
{
    if (!m->base)
        return;
    drain();
    for (uint32_t k = 0; k < m->nbuffers; k++)
        clReleaseMemObject(m->buffers[k].mem);
    munmap(m->base, m->bytes);
    m->base = NULL;
    m->nbuffers = 0;
}

/* Puts the memfd `fd` in a slot, in place of what the slot held. */
static void slot_keep(uint32_t slot, int fd)
{
    struct mapped *m = &mapped[slot];
    mapping_drop(m);
    if (m->fd >= 0)
        close(m->fd);
    m->fd = fd;
}

/* The buffer over `extent` bytes at `offset` of mapping m that the
 * mapping keeps, made at its first use; NULL where it has BUFFERS_MAX that
 * this launch uses all (the caller makes one of the launch's own). */
static cl_mem mapping_buffer(struct mapped *m, uint64_t offset, uint64_t extent, cl_int *err)
{
    buffer *b = &m->buffers[0];
    for (uint32_t k = 0; k < m->nbuffers; k++) {
        buffer *c = &m->buffers[k];
        if (c->offset == offset && c->extent == extent) {
            c->used = launches;
            return c->mem;
        }
        if (c->used < b->used)
            b = c;
    }
    if (m->nbuffers < BUFFERS_MAX)
        b = &m->buffers[m->nbuffers];
    else if (b->used == launches)
        return NULL;
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, extent,
                                (char *)m->base + offset, err);
    if (!mem)
        return NULL;
    if (m->nbuffers == BUFFERS_MAX) {
        drain(); /* a launch in flight may use the one replaced */
        clReleaseMemObject(b->mem);
    } else {
        m->nbuffers++;
    }
    *b = (buffer){.offset = offset, .extent = extent, .mem = mem, .used = launches};
    return mem;
}

/* The mapping of the segment in `slot`, at least `bytes` long (mapped
 * here at its first use, or anew where a launch needs more of it); NULL
 * where the slot is empty, the memfd is shorter, or mmap fails. */
static struct mapped *segment_map(uint32_t slot, uint64_t bytes)
{
    struct mapped *m = &mapped[slot];
    if (m->base && m->bytes >= bytes)
        return m;
    struct stat st;
    if (m->fd < 0 || fstat(m->fd, &st) != 0 || (uint64_t)st.st_size < bytes)
        return NULL;
    /* where the segment's huge pages, if the daemon made them, fit whole */
    void *base = tsr__mmap_shared(m->fd, 0, bytes, PROT_READ | PROT_WRITE, 0);
    if (base == MAP_FAILED)
        return NULL;
    mapping_drop(m);
    m->base = base;
    m->bytes = bytes;
    return m;
}

/* Keeps a launch's fresh segments in their slots (its segments and
 * descriptors agree: tsr__worker_request_read) and starts it;
 * launch_complete, or an error here, answers it. */
static void serve_launch(const tsr__worker_launch *l, int *fds)
{
    for (uint32_t j = 0, k = 0; j < l->nsegments; j++)
        if (l->fresh >> j & 1u) {
            slot_keep(l->slots[j], fds[k]);
            fds[k++] = -1; /* kept: not closed after the message */
        }
    free_answered();
    if (atomic_load(&issued) - freed == INFLIGHT)
        drain();
    inflight *f = &slots[atomic_load(&issued) % INFLIGHT];
    *f = (inflight){.done = {.op = TSR__WORKER_DONE, .launch = l->launch, .status = TSR_OK}};
    tsr__worker_done *d = &f->done;
    launches++;
    struct mapped *maps[TSR__WORKER_LAUNCH_FDS] = {0};
    cl_mem *mems = f->mems;
    program *p = find_program(l->program);
    cl_int err = CL_SUCCESS;
    const char *what = NULL;
    bool enqueued = false;
    if (!p || l->kernel >= p->nkernels || !tsr__worker_launch_ok(l)) {
        d->status = p && !p->prog ? TSR_ERR_DEVICE : TSR_ERR_RUNTIME;
        snprintf(d->message, sizeof d->message, "%s",
                 p && !p->prog ? p->why : "the kernel worker got a malformed launch");
        goto answer;
    }
    if (l->ring != UINT32_MAX) {
        /* A ring that cannot be mapped leaves the publishing to the daemon. */
        struct mapped *m = segment_map(l->slots[l->ring], sizeof(tsr__ring));
        tsr__ring *ring = m ? m->base : NULL;
        if (ring) {
            f->ring = &ring->queues[l->ring_queue];
            f->sequence = l->sequence;
            f->acked = l->acked;
        }
    }
    cl_kernel k = p->kernels[l->kernel];
    for (uint32_t a = 0; a < l->nargs && err == CL_SUCCESS; a++) {
        const tsr__worker_arg *arg = &l->args[a];
        if (arg->kind == TSR__KARG_GLOBAL || arg->kind == TSR__KARG_CONSTANT) {
            /* In its bounds (tsr__worker_launch_ok), and in a segment
             * that every argument gives the same size. */
            uint32_t fi = arg->segment;
            if (!maps[fi] && !(maps[fi] = segment_map(l->slots[fi], arg->segment_bytes))) {
                d->status = TSR_ERR_RUNTIME;
                snprintf(d->message, sizeof d->message, "the kernel worker could not map memory");
                goto answer;
            }
            cl_mem mem = NULL;
            what = "clCreateBuffer";
            if (arg->extent && host_unified)
                mem = mapping_buffer(maps[fi], arg->offset, arg->extent, &err);
            if (arg->extent && !mem && err == CL_SUCCESS) {
                mem = mems[a] =
                    clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, arg->extent,
                                   (char *)maps[fi]->base + arg->offset, &err);
            }
            if (err == CL_SUCCESS) {
                err = clSetKernelArg(k, a, sizeof(cl_mem), &mem);
                what = "clSetKernelArg";
            }
        } else if (arg->kind == TSR__KARG_LOCAL) {
            err = clSetKernelArg(k, a, arg->offset, NULL);
            what = "clSetKernelArg (local memory)";
        } else {
            err = clSetKernelArg(k, a, arg->size <= 16 ? arg->size : 16, arg->value);
            what = "clSetKernelArg";
        }
    }
    if (err == CL_SUCCESS) {
        size_t global[3], local[3];
        bool any_local = false;
        for (uint32_t k3 = 0; k3 < l->work_dim; k3++) {
            global[k3] = (size_t)l->global[k3];
            local[k3] = (size_t)l->local[k3];
            any_local |= local[k3] != 0;
        }
        err = clEnqueueNDRangeKernel(queue, k, l->work_dim, NULL, global, any_local ? local : NULL,
                                     0, NULL, host_unified ? &f->event : &f->kernel);
        what = "clEnqueueNDRangeKernel";
        enqueued = err == CL_SUCCESS;
    }
    if (err == CL_SUCCESS && !host_unified) {
        /* Each buffer's map brings its bytes back into the segment; the
         * marker's event is the launch's end. */
        for (uint32_t a = 0; a < l->nargs && err == CL_SUCCESS; a++) {
            if (!mems[a] || l->args[a].kind != TSR__KARG_GLOBAL)
                continue;
            void *m = clEnqueueMapBuffer(queue, mems[a], CL_FALSE, CL_MAP_READ, 0,
                                         l->args[a].extent, 0, NULL, NULL, &err);
            if (m)
                err = clEnqueueUnmapMemObject(queue, mems[a], m, 0, NULL, NULL);
            what = "clEnqueueMapBuffer";
        }
        if (err == CL_SUCCESS) {
            err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &f->event);
            what = "clEnqueueMarkerWithWaitList";
        }
    }
    if (err == CL_SUCCESS) {
        err = clFlush(queue);
        what = "clFlush";
    }
    if (err == CL_SUCCESS) {
        atomic_store(&issued, atomic_load(&issued) + 1);
        err = clSetEventCallback(f->event, CL_COMPLETE, launch_complete, f);
        if (err == CL_SUCCESS)
            return;
        /* Counted already: answered below, in its turn. */
        clFinish(queue);
        d->status = TSR_ERR_DEVICE;
        snprintf(d->message, sizeof d->message, "clSetEventCallback failed: %s", cl_name(err));
        complete(f);
        return;
    }
    lost_if(err, what);
    d->status = TSR_ERR_DEVICE;
    snprintf(d->message, sizeof d->message, "%s failed: %s", what, cl_name(err));
    if (enqueued)
        clFinish(queue);
answer:
    atomic_store(&issued, atomic_load(&issued) + 1);
    complete(f);
}

static int serve_main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    int sock = atoi(argv[2]);
    answer_sock = sock;
    /* The daemon's socket is the worker's alone: its compilers run the
     * user's source and must not read its requests (their segments) or
     * answer for it. */
    if (fcntl(sock, F_SETFD, FD_CLOEXEC) != 0)
        return 2;
    snprintf(where, sizeof where, "%s", argv[3]);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return 3;
    self_path[n] = '\0';
    cl_int err = CL_SUCCESS;
    cl_bool unified = CL_FALSE;
    if (!locate(where) || !(context = clCreateContext(NULL, 1, &device, NULL, NULL, &err)) ||
        !(queue = clCreateCommandQueue(context, device, 0, &err)))
        return 4;
    clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    host_unified = unified == CL_TRUE;
    hash_device();
    if (argv[4][0] && tsr__kcache_open(argv[4], &cache) != TSR_OK)
        cache = NULL; /* refused: every program is compiled */
    for (uint32_t k = 0; k < TSR__WORKER_SEGMENTS; k++)
        mapped[k].fd = -1;
    static tsr__worker_request msg;
    for (;;) {
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int) * TSR__WORKER_LAUNCH_FDS)];
        } control;
        /* The next compiler starts when it is due, or now if a request
         * comes first (a build starts one if it finds none). */
        while (compiler_due && !compiler.pid) {
            uint64_t now = now_ms();
            struct pollfd p = {.fd = sock, .events = POLLIN};
            if (now >= compiler_due)
                start_compiler();
            else if (poll(&p, 1, (int)(compiler_due - now)) != 0)
                break;
        }
        struct iovec iov = {.iov_base = &msg, .iov_len = sizeof msg};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = control.buf,
                            .msg_controllen = sizeof control.buf};
        ssize_t got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_TRUNC);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0; /* the daemon is done with this worker */
        int fds[TSR__WORKER_LAUNCH_FDS];
        int nfds = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t k = 0; k < count; k++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
                if (nfds < (int)TSR__WORKER_LAUNCH_FDS)
                    fds[nfds++] = fd;
                else
                    close(fd);
            }
        }
        /* The control buffer holds a launch's descriptors: more were cut. */
        switch (tsr__worker_request_read(&msg, (size_t)got, mh.msg_flags & MSG_CTRUNC, nfds)) {
        case TSR__WORKER_BUILD:
            drain(); /* its answer comes after theirs */
            serve_build(sock, &msg.build, fds[0]);
            break;
        case TSR__WORKER_LAUNCH:
            serve_launch(&msg.launch, fds);
            break;
        case TSR__WORKER_RELEASE:
            drop_program(msg.release.program);
            break;
        case TSR__WORKER_FORGET:
            for (uint32_t k = 0; k < TSR__WORKER_SEGMENTS; k++)
                if (msg.forget.slots >> k & 1u)
                    slot_keep(k, -1);
            break;
        default:
            /* The daemon would never send this; a launch's slots would
             * no longer be what the daemon believes. */
            return 5;
        }
        for (int k = 0; k < nfds; k++)
            if (fds[k] >= 0)
                close(fds[k]);
    }
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 2 && strcmp(argv[1], "build") == 0)
        return build_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc, argv);
    fprintf(stderr, "tessera-kernel-worker: started by tesserad only\n");
    return 2;
}
