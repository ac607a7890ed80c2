/* User kernels (tessera/kernel.h): programs and kernels as the daemon's
 * PROGRAM_* and KERNEL_* messages (docs/protocol.md) see them. The
 * arguments are checked here against what the daemon said of the kernel
 * (KERNEL_INFO), so a wrong kind fails when it is set; the daemon checks
 * them again at the launch. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "libclient/client.h"
#include "libclient/connection.h"
#include "libclient/tensor_internal.h"
#include "tessera/kernel.h"

struct tsr_program {
    atomic_long refs;
    tsr_client *client;
    tsr_device device; /* resolved */
    uint32_t id;
    bool done; /* built or broken, and log read */
    tsr_status status;
    char *message; /* the failure's message, when broken */
    char log[TSR__WIRE_BUILD_LOG];
};

struct tsr_kernel {
    atomic_long refs;
    tsr_program *program;
    char name[TSR__WIRE_KERNEL_NAME];
    tsr__wire_kernel_info info;
    uint64_t set; /* bit a: argument a was set */
    tsr__wire_kernel_launch launch;
    /* A tensor of its own over each tensor argument's memory: the block
     * the argument names stays the argument's until it is set again or
     * the kernel goes, whatever the caller does with its tensor
     * meanwhile (released, its block back in the cache and handed to
     * another tensor; given a new storage by an out= of another shape). */
    tsr_tensor *held[TSR__WIRE_KERNEL_ARGS];
};

_Static_assert(TSR__WIRE_KERNEL_ARGS <= 64, "one bit per argument in tsr_kernel.set");

/* The daemon takes one source at a time per session: threads that create
 * programs at once take turns sending theirs (creating one is rare). */
static pthread_mutex_t sending = PTHREAD_MUTEX_INITIALIZER;

static tsr_status send_source(tsr_client *client, uint32_t program, const char *source,
                              uint64_t bytes)
{
    tsr__wire_program_source *chunk = malloc(sizeof *chunk);
    if (!chunk)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    tsr_status st = TSR_OK;
    for (uint64_t at = 0; st == TSR_OK && at < bytes;) {
        memset(chunk, 0, sizeof *chunk);
        uint64_t n = bytes - at;
        chunk->length = (uint32_t)(n < TSR__WIRE_SOURCE_CHUNK ? n : TSR__WIRE_SOURCE_CHUNK);
        chunk->program = program;
        chunk->offset = at;
        memcpy(chunk->data, source + at, chunk->length);
        st = tsr__client_call(client, TSR__OP_PROGRAM_SOURCE, chunk, NULL);
        at += chunk->length;
    }
    free(chunk);
    return st;
}

/* PROGRAM_CREATE, then the program's bytes. */
static tsr_status program_create(tsr_client *client, tsr_device device, const void *data,
                                 size_t bytes, uint32_t format, const char *options,
                                 tsr_program **out)
{
    tsr__wire_program_create req = {.source_bytes = bytes, .format = format};
    if (options && strlen(options) >= sizeof req.options - 32)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "program options are too long (at most %u bytes)",
                         (unsigned)(sizeof req.options - 32));
    if (req.source_bytes == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "a program's source is empty");
    tsr_device resolved;
    tsr_status st = tsr__client_resolve_device(client, device, &resolved);
    if (st == TSR_OK)
        st = tsr__client_daemon_device(client, resolved, &req.device);
    if (st != TSR_OK)
        return st;
    tsr__wire_text_set(req.options, sizeof req.options, options ? options : "");
    tsr_program *p = calloc(1, sizeof *p);
    if (!p)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    tsr__wire_program made;
    pthread_mutex_lock(&sending);
    st = tsr__client_call(client, TSR__OP_PROGRAM_CREATE, &req, &made);
    if (st != TSR_OK) {
        pthread_mutex_unlock(&sending);
        free(p);
        return st;
    }
    atomic_init(&p->refs, 1);
    tsr__client_retain(client);
    p->client = client;
    p->device = resolved;
    p->id = made.program;
    st = send_source(client, p->id, data, req.source_bytes);
    pthread_mutex_unlock(&sending);
    if (st != TSR_OK) {
        tsr_program_release(p);
        return st;
    }
    *out = p;
    return TSR_OK;
}

tsr_status tsr_program_create(tsr_client *client, tsr_device device, const char *source,
                              const char *options, tsr_program **out)
{
    if (!client || !source || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_program_create: NULL argument");
    return program_create(client, device, source, strlen(source), TSR__WIRE_PROGRAM_FORMAT_OPENCL_C,
                          options, out);
}

tsr_status tsr_program_create_spirv(tsr_client *client, tsr_device device, const void *module,
                                    size_t bytes, const char *options, tsr_program **out)
{
    if (!client || !module || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_program_create_spirv: NULL argument");
    return program_create(client, device, module, bytes, TSR__WIRE_PROGRAM_FORMAT_SPIRV, options,
                          out);
}

/* Asks the daemon for the program's state; a build that ended is
 * recorded (p->done) with its log. */
static tsr_status ask_state(tsr_program *p)
{
    tsr__wire_program req = {.program = p->id};
    tsr__wire_program_status *rep = malloc(sizeof *rep);
    if (!rep)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    tsr_status st = tsr__client_call(p->client, TSR__OP_PROGRAM_STATUS, &req, rep);
    if (st == TSR_OK &&
        (rep->state == TSR__WIRE_PROGRAM_BUILT || rep->state == TSR__WIRE_PROGRAM_BROKEN)) {
        uint32_t len = rep->log_length < sizeof p->log ? rep->log_length : sizeof p->log - 1;
        memcpy(p->log, rep->log, len);
        p->log[len] = '\0';
        p->status = rep->state == TSR__WIRE_PROGRAM_BUILT ? TSR_OK
                    : rep->status > TSR_OK && rep->status < TSR_STATUS_COUNT
                        ? (tsr_status)rep->status
                        : TSR_ERR_DEVICE;
        p->done = true;
    }
    free(rep);
    return st;
}

/* Sleeps until the daemon raises the ring's builds_ended past `seen` (one
 * of the session's builds ended) or `until` (ns) passes, looking every
 * TSR__SLEEP_STEP_NS whether the daemon hung up, as a ring request's wait
 * does. */
static tsr_status sleep_for_build(tsr_client *c, uint32_t seen, uint64_t until)
{
    _Atomic uint32_t *word = &c->ring->header.builds_ended;
    uint64_t checked = tsr__now_ns();
    while (atomic_load(word) == seen) {
        uint64_t now = tsr__now_ns();
        if (now >= until)
            return TSR_OK;
        uint64_t left = until - now < TSR__SLEEP_STEP_NS ? until - now : TSR__SLEEP_STEP_NS;
        struct timespec step = {.tv_sec = 0, .tv_nsec = (long)left};
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &step, NULL, 0);
        if (tsr__step_passed(&checked) && tsr__socket_hung_up(c))
            return tsr__daemon_gone(c);
    }
    return TSR_OK;
}

tsr_status tsr_program_wait(tsr_program *p)
{
    if (!p)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_program_wait: NULL program");
    /* The state is asked once, then again each time the daemon says a
     * build of the session ended (the ring's builds_ended, read before
     * asking so that an end in between is not slept through), and at
     * least once every client timeout, so that a daemon that stopped
     * answering fails the wait as it fails any request. */
    tsr_client *c = p->client;
    while (!p->done) {
        uint32_t seen = c->ring ? atomic_load(&c->ring->header.builds_ended) : 0;
        tsr_status st = ask_state(p);
        if (st != TSR_OK)
            return st;
        if (p->done)
            break;
        uint64_t until = tsr__now_ns() + (uint64_t)c->timeout_ms * 1000000u;
        if (!c->ring) {
            struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
            nanosleep(&ms, NULL); /* no ring (a monitor's session): ask again soon */
        } else if ((st = sleep_for_build(c, seen, until)) != TSR_OK) {
            return st;
        }
    }
    if (p->status != TSR_OK)
        return tsr__fail(p->status, "the program did not build: %s", p->log);
    return TSR_OK;
}

const char *tsr_program_build_log(tsr_program *p)
{
    return p && p->done ? p->log : "";
}

void tsr_program_retain(tsr_program *p)
{
    if (p)
        atomic_fetch_add(&p->refs, 1);
}

void tsr_program_release(tsr_program *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    tsr__wire_program req = {.program = p->id};
    (void)tsr__client_call(p->client, TSR__OP_PROGRAM_RELEASE, &req, NULL);
    tsr__client_release(p->client);
    free(p);
}

tsr_status tsr_kernel_create(tsr_program *p, const char *name, tsr_kernel **out)
{
    if (!p || !name || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_kernel_create: NULL argument");
    tsr__wire_kernel_query q = {.program = p->id};
    if (strlen(name) >= sizeof q.name)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "a kernel name is at most %u bytes",
                         (unsigned)sizeof q.name - 1);
    tsr_status st = tsr_program_wait(p);
    if (st != TSR_OK)
        return st;
    tsr__wire_text_set(q.name, sizeof q.name, name);
    tsr_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    st = tsr__client_call(p->client, TSR__OP_KERNEL_INFO, &q, &k->info);
    if (st == TSR_OK && k->info.nargs > TSR__WIRE_KERNEL_ARGS)
        st = tsr__fail(TSR_ERR_PROTOCOL, "KERNEL_INFO: %u arguments", (unsigned)k->info.nargs);
    if (st != TSR_OK) {
        free(k);
        return st;
    }
    for (uint32_t a = 0; a < k->info.nargs; a++) {
        k->info.args[a].name[TSR__WIRE_ARG_TEXT - 1] = '\0';
        k->info.args[a].type[TSR__WIRE_ARG_TEXT - 1] = '\0';
    }
    atomic_init(&k->refs, 1);
    tsr_program_retain(p);
    k->program = p;
    tsr__wire_text_set(k->name, sizeof k->name, name);
    k->launch.program = p->id;
    k->launch.kernel = k->info.kernel;
    k->launch.nargs = k->info.nargs;
    *out = k;
    return TSR_OK;
}

uint32_t tsr_kernel_num_args(const tsr_kernel *k)
{
    return k ? k->info.nargs : 0;
}

/* Argument `index` of the kernel. */
static tsr_status arg_at(const tsr_kernel *k, uint32_t index, const tsr__wire_kernel_arg **out)
{
    if (!k)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "NULL kernel");
    if (index >= k->info.nargs)
        return tsr__fail(TSR_ERR_INDEX, "kernel %s takes %u arguments: there is no argument %u",
                         k->name, (unsigned)k->info.nargs, (unsigned)index);
    *out = &k->info.args[index];
    return TSR_OK;
}

tsr_status tsr_kernel_arg_info(const tsr_kernel *k, uint32_t index, tsr_kernel_arg *out)
{
    const tsr__wire_kernel_arg *a = NULL;
    tsr_status st = arg_at(k, index, &a);
    if (st != TSR_OK)
        return st;
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_kernel_arg_info: NULL output");
    memset(out, 0, sizeof *out);
    out->kind = (tsr_kernel_arg_kind)a->kind;
    out->size = a->size;
    memcpy(out->name, a->name, sizeof a->name);
    memcpy(out->type_name, a->type, sizeof a->type);
    return TSR_OK;
}

static const char *kind_text(uint32_t kind)
{
    switch (kind) {
    case TSR__KARG_GLOBAL:
        return "a __global pointer (set it with tsr_kernel_set_arg_tensor)";
    case TSR__KARG_CONSTANT:
        return "a __constant pointer (set it with tsr_kernel_set_arg_tensor)";
    case TSR__KARG_LOCAL:
        return "a __local pointer (set it with tsr_kernel_set_arg_local)";
    default:
        return "a value (set it with tsr_kernel_set_arg_scalar)";
    }
}

/* The argument, if it takes one of the kinds `a` or `b`. */
static tsr_status arg_of_kind(tsr_kernel *k, uint32_t index, uint32_t a, uint32_t b,
                              const char *given, const tsr__wire_kernel_arg **out)
{
    const tsr__wire_kernel_arg *arg = NULL;
    tsr_status st = arg_at(k, index, &arg);
    if (st != TSR_OK)
        return st;
    if (arg->kind != a && arg->kind != b)
        return tsr__fail(TSR_ERR_TYPE, "kernel %s: argument %u (%s %s) is %s, not %s", k->name,
                         (unsigned)index, arg->type, arg->name, kind_text(arg->kind), given);
    *out = arg;
    return TSR_OK;
}

/* Argument `index` becomes v; `hold` (owned, NULL for a value or a local
 * size) replaces what the argument held. */
static void mark_set(tsr_kernel *k, uint32_t index, const tsr__wire_kernel_value *v,
                     tsr_tensor *hold)
{
    k->launch.args[index] = *v;
    k->set |= UINT64_C(1) << index;
    tsr_tensor_release(k->held[index]);
    k->held[index] = hold;
}

tsr_status tsr_kernel_set_arg_tensor(tsr_kernel *k, uint32_t index, const tsr_tensor *t)
{
    const tsr__wire_kernel_arg *arg = NULL;
    tsr_status st = arg_of_kind(k, index, TSR__KARG_GLOBAL, TSR__KARG_CONSTANT, "a tensor", &arg);
    if (st != TSR_OK)
        return st;
    if (!t)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_kernel_set_arg_tensor: NULL tensor");
    tsr_device want = k->program->device;
    if (!t->storage || t->storage->client != k->program->client ||
        t->storage->device.type != want.type || t->storage->device.index != want.index) {
        char have[TSR_DEVICE_STR_MAX], need[TSR_DEVICE_STR_MAX];
        tsr_device_str(tsr_tensor_device(t), have, sizeof have);
        tsr_device_str(want, need, sizeof need);
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "kernel %s: argument %u (%s) must be a tensor on %s of this client, "
                         "not on %s",
                         k->name, (unsigned)index, arg->name, need, have);
    }
    tsr_tensor *hold = NULL;
    if ((st = tsr__tensor_view_of(t, &t->geometry, &hold)) != TSR_OK)
        return st;
    int64_t offset = t->geometry.offset;
    tsr__wire_kernel_value v = {
        .kind = arg->kind,
        .handle = t->storage->handle,
        .bytes = (uint64_t)offset * tsr_dtype_itemsize(t->dtype),
    };
    mark_set(k, index, &v, hold);
    return TSR_OK;
}

/* The OpenCL C scalar type names a dtype stands for. */
static bool dtype_matches(tsr_dtype d, const char *type)
{
    static const struct {
        tsr_dtype dtype;
        const char *names;
    } table[] = {
        {TSR_INT8, " char "},   {TSR_UINT8, " uchar "},   {TSR_BOOL, " uchar char "},
        {TSR_INT16, " short "}, {TSR_UINT16, " ushort "}, {TSR_FLOAT16, " half "},
        {TSR_INT32, " int "},   {TSR_UINT32, " uint "},   {TSR_FLOAT32, " float "},
        {TSR_INT64, " long "},  {TSR_UINT64, " ulong "},  {TSR_FLOAT64, " double "},
    };
    char word[TSR__WIRE_ARG_TEXT + 2];
    size_t n = strlen(type);
    word[0] = ' ';
    memcpy(word + 1, type, n);
    word[n + 1] = ' ';
    word[n + 2] = '\0';
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (table[k].dtype == d)
            return strstr(table[k].names, word) != NULL;
    return false;
}

tsr_status tsr_kernel_set_arg_scalar(tsr_kernel *k, uint32_t index, tsr_dtype dtype,
                                     const void *value)
{
    const tsr__wire_kernel_arg *arg = NULL;
    tsr_status st = arg_of_kind(k, index, TSR__KARG_VALUE, TSR__KARG_VALUE, "a scalar", &arg);
    if (st != TSR_OK)
        return st;
    if (!value || (unsigned)dtype >= TSR_DTYPE_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_kernel_set_arg_scalar: invalid value");
    if (!dtype_matches(dtype, arg->type))
        return tsr__fail(TSR_ERR_TYPE, "kernel %s: argument %u (%s %s) does not take a %s", k->name,
                         (unsigned)index, arg->type, arg->name, tsr_dtype_name(dtype));
    return tsr_kernel_set_arg_bytes(k, index, value, tsr_dtype_itemsize(dtype));
}

tsr_status tsr_kernel_set_arg_bytes(tsr_kernel *k, uint32_t index, const void *value, size_t size)
{
    const tsr__wire_kernel_arg *arg = NULL;
    tsr_status st = arg_of_kind(k, index, TSR__KARG_VALUE, TSR__KARG_VALUE, "a scalar", &arg);
    if (st != TSR_OK)
        return st;
    if (arg->size == 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "kernel %s: argument %u has type %s, which is "
                         "not supported",
                         k->name, (unsigned)index, arg->type);
    if (!value || size != arg->size)
        return tsr__fail(TSR_ERR_TYPE, "kernel %s: argument %u (%s %s) takes %u bytes, not %zu",
                         k->name, (unsigned)index, arg->type, arg->name, (unsigned)arg->size, size);
    tsr__wire_kernel_value v = {.kind = TSR__KARG_VALUE, .size = (uint32_t)size};
    memcpy(v.value, value, size);
    mark_set(k, index, &v, NULL);
    return TSR_OK;
}

tsr_status tsr_kernel_set_arg_local(tsr_kernel *k, uint32_t index, size_t bytes)
{
    const tsr__wire_kernel_arg *arg = NULL;
    tsr_status st =
        arg_of_kind(k, index, TSR__KARG_LOCAL, TSR__KARG_LOCAL, "a local memory size", &arg);
    if (st != TSR_OK)
        return st;
    if (bytes == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "kernel %s: argument %u: local memory of 0 bytes", k->name,
                         (unsigned)index);
    tsr__wire_kernel_value v = {.kind = TSR__KARG_LOCAL, .bytes = bytes};
    mark_set(k, index, &v, NULL);
    return TSR_OK;
}

tsr_status tsr_kernel_launch(tsr_kernel *k, uint32_t work_dim, const size_t *global,
                             const size_t *local)
{
    if (!k || !global)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_kernel_launch: NULL argument");
    if (work_dim < 1 || work_dim > 3)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "work_dim must be 1, 2 or 3, not %u",
                         (unsigned)work_dim);
    for (uint32_t a = 0; a < k->info.nargs; a++)
        if (!(k->set & (UINT64_C(1) << a)))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel %s: argument %u (%s) is not set",
                             k->name, (unsigned)a, k->info.args[a].name);
    k->launch.work_dim = work_dim;
    for (uint32_t d = 0; d < 3; d++) {
        k->launch.global[d] = d < work_dim ? global[d] : 0;
        k->launch.local[d] = d < work_dim && local ? local[d] : 0;
    }
    return tsr__client_launch_op(k->program->client, k->program->device, TSR__OP_KERNEL_LAUNCH,
                                 &k->launch);
}

void tsr_kernel_retain(tsr_kernel *k)
{
    if (k)
        atomic_fetch_add(&k->refs, 1);
}

void tsr_kernel_release(tsr_kernel *k)
{
    if (!k || atomic_fetch_sub(&k->refs, 1) != 1)
        return;
    for (uint32_t a = 0; a < TSR__WIRE_KERNEL_ARGS; a++)
        tsr_tensor_release(k->held[a]);
    tsr_program_release(k->program);
    free(k);
}
