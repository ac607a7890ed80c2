/* The MPI environment: a duplicate of MPI_COMM_WORLD whose errors return,
 * this rank's place on its node, the device its shards live on, and the
 * MPI types that partial sums are reduced in. The environment initialises
 * MPI only when nobody has, and then finalises it too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/env.h"

#define DEFAULT_TIMEOUT_S 300.0

tsr_status tsr__mpi_fail(int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof(text), "MPI error %d", code);
    return tsr__global_fail(TSR_ERR_RUNTIME, "%s failed: %s", what, text);
}

static int local_rank_of(MPI_Comm world, int *out)
{
    const char *env = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v >= 0 && v <= INT32_MAX) {
            *out = (int)v;
            return MPI_SUCCESS;
        }
    }
    MPI_Comm node;
    int rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_rank(node, out);
    MPI_Comm_free(&node);
    return rc;
}

/* The rendezvous timeout: the options', else $TESSERA_GLOBAL_TIMEOUT's,
 * else the default. */
static tsr_status timeout_of(const tsr_global_env_options *o, double *out)
{
    if (o->timeout_ms) {
        *out = (double)o->timeout_ms / 1000.0;
        return TSR_OK;
    }
    const char *text = getenv("TESSERA_GLOBAL_TIMEOUT");
    if (!text || !*text) {
        *out = DEFAULT_TIMEOUT_S;
        return TSR_OK;
    }
    char *end;
    double v = strtod(text, &end);
    if (*end || !isfinite(v) || v < 0 || v > 1e9)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "global env: TESSERA_GLOBAL_TIMEOUT=%.40s is no number of seconds "
                                "(0 for no limit)",
                                text);
    *out = v;
    return TSR_OK;
}

tsr_status tsr_global_env_open(const tsr_global_env_options *options, tsr_global_env **out)
{
    tsr_global_env_options defaults = {0};
    const tsr_global_env_options *o = options ? options : &defaults;
    if (!out)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global env: NULL out");
    for (size_t k = 0; k < sizeof(o->abi_reserved) / sizeof(o->abi_reserved[0]); k++)
        if (o->abi_reserved[k])
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                    "global env: reserved option words must be zero");
    double timeout_s = 0; /* checked before MPI starts: it cannot start twice */
    tsr_status bad = timeout_of(o, &timeout_s);
    if (bad)
        return bad;
    tsr_global_env *env = calloc(1, sizeof(*env));
    if (env && !(env->pool = tsr__pool_new())) {
        free(env);
        env = NULL;
    }
    if (!env)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "global env: out of memory");
    int inited = 0, rc;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided;
        rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
        if (rc != MPI_SUCCESS) {
            tsr__pool_close(env->pool);
            free(env);
            return tsr__global_fail(TSR_ERR_RUNTIME, "MPI_Init_thread failed (code %d)", rc);
        }
        env->finalize = true;
    }
    /* Only our duplicate returns errors: the program's own MPI_COMM_WORLD
     * keeps the handler it has. */
    env->world = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &env->world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(env->world, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(env->world, &env->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(env->world, &env->size);
    if (rc == MPI_SUCCESS)
        rc = local_rank_of(env->world, &env->local_rank);
    if (rc != MPI_SUCCESS) {
        tsr_status st = tsr__mpi_fail(rc, "global env: joining MPI_COMM_WORLD");
        tsr_global_env_close(env);
        return st;
    }
    env->client = o->client;
    env->has_device_index = o->has_device_index;
    env->device_index = o->device_index;
    env->timeout_s = timeout_s;
    *out = env;
    return TSR_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A call's name in messages: "global to_global"; `what` as it is where
 * it names itself so already ("global add"). */
static const char *label_of(const char *what, char *buf, size_t n)
{
    if (strncmp(what, "global ", 7) == 0)
        return what;
    snprintf(buf, n, "global %s", what);
    return buf;
}

static tsr_status broken_fail(const tsr_global_env *env, const char *what)
{
    char label[96];
    return tsr__global_fail(TSR_ERR_RUNTIME,
                            "%s: the world stopped at an earlier collective (%s): a rank had "
                            "died or was stuck; end the program",
                            label_of(what, label, sizeof label), env->broken_at);
}

/* Waits for the non-blocking collective req at most the environment's
 * timeout; past it the world is broken (MPI cannot take the request back:
 * it stays pending, and so does what it writes). `verb` says what the
 * ranks failed to do in time ("arrived", "agreed"). */
static tsr_status wait_timed(tsr_global_env *env, MPI_Request *req, const char *what,
                             const char *verb, const char *call)
{
    int rc = MPI_SUCCESS, done = 0;
    double start = now_s();
    for (;;) {
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        if (env->timeout_s > 0 && now_s() - start > env->timeout_s) {
            char label[96];
            env->broken = true;
            snprintf(env->broken_at, sizeof(env->broken_at), "%s", what);
            return tsr__global_fail(TSR_ERR_RUNTIME,
                                    "%s: not every rank %s within %g s "
                                    "(TESSERA_GLOBAL_TIMEOUT): a rank has died or is stuck",
                                    label_of(what, label, sizeof label), verb, env->timeout_s);
        }
        double waited = now_s() - start;
        if (waited > 0.002) { /* the others are late: poll every 0.1, then 1 ms */
            struct timespec pause = {0, waited > 0.05 ? 1000000 : 100000};
            nanosleep(&pause, NULL);
        }
    }
    return rc == MPI_SUCCESS ? TSR_OK : tsr__mpi_fail(rc, call);
}

tsr_status tsr__agree(tsr_global_env *env, MPI_Comm comm, tsr_status st, const char *what)
{
    if (env->broken)
        return st ? st : broken_fail(env, what);
    /* On the heap: a request abandoned at the timeout may still write it. */
    int *failed = malloc(sizeof *failed);
    if (!failed) /* the others then wait in vain: the timeout ends it */
        return st ? st : tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    *failed = st != TSR_OK;
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, failed, 1, MPI_INT, MPI_MAX, comm, &req);
    tsr_status waited =
        rc != MPI_SUCCESS
            ? tsr__mpi_fail(rc, "MPI_Iallreduce of the ranks' readiness")
            : wait_timed(env, &req, what, "agreed", "MPI_Test of the ranks' readiness");
    int any = *failed;
    /* Kept where the request may still write it: after a timeout or a
     * failed test (never where the all-reduce did not start). */
    if (rc != MPI_SUCCESS || waited == TSR_OK)
        free(failed);
    if (st)
        return st;
    if (waited)
        return waited;
    if (any)
        return tsr__global_fail(TSR_ERR_RUNTIME, "%s: another rank failed (its error says why)",
                                what);
    return TSR_OK;
}

tsr_status tsr__rendezvous(tsr_global_env *env, const char *what)
{
    if (env->broken)
        return broken_fail(env, what);
    /* A rank that comes after the others gave up still completes this
     * barrier, through the requests they left pending; the agreement
     * that follows every rendezvous (tsr__agree, timed too) is where it
     * then stops, at its own timeout, instead of in a collective that
     * the others never enter. */
    MPI_Request req;
    int rc = MPI_Ibarrier(env->world, &req);
    if (rc != MPI_SUCCESS)
        return tsr__mpi_fail(rc, "MPI_Ibarrier");
    return wait_timed(env, &req, what, "arrived", "MPI_Test of the rendezvous");
}

tsr_status tsr__list_comm(tsr_global_env *env, const tsr_placement *placement, MPI_Comm *out)
{
    for (int k = 0; k < env->ncomms; k++)
        if (tsr_placement_equal(env->comms[k].placement, placement)) {
            *out = env->comms[k].comm;
            return TSR_OK;
        }
    /* The copy first: a rank short of memory must not leave the others
     * holding a communicator it has not (their caches would differ). */
    tsr_placement *copy = NULL;
    tsr_status st = tsr_placement_copy(placement, &copy) == TSR_OK
                        ? TSR_OK
                        : tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory");
    if ((st = tsr__agree(env, env->world, st, "boxing"))) {
        tsr_placement_destroy(copy);
        return st;
    }
    int64_t index = tsr_placement_index_of(placement, env->rank);
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_split(env->world, index >= 0 ? 0 : MPI_UNDEFINED, (int)index, &comm);
    if (rc != MPI_SUCCESS) {
        tsr_placement_destroy(copy);
        return tsr__mpi_fail(rc, "boxing: MPI_Comm_split");
    }
    if (env->ncomms == TSR__COMM_CACHE) { /* the oldest goes, on every rank alike */
        tsr_placement_destroy(env->comms[0].placement);
        if (env->comms[0].comm != MPI_COMM_NULL)
            MPI_Comm_free(&env->comms[0].comm);
        memmove(&env->comms[0], &env->comms[1], (TSR__COMM_CACHE - 1) * sizeof(env->comms[0]));
        env->ncomms--;
    }
    env->comms[env->ncomms].placement = copy;
    env->comms[env->ncomms].comm = comm;
    env->ncomms++;
    *out = comm;
    return TSR_OK;
}

void tsr_global_env_close(tsr_global_env *env)
{
    if (!env)
        return;
    for (int k = 0; k < env->ncomms; k++) {
        tsr_placement_destroy(env->comms[k].placement);
        if (env->comms[k].comm != MPI_COMM_NULL && !env->broken)
            MPI_Comm_free(&env->comms[k].comm);
    }
    /* A broken world has a barrier pending that the missing ranks never
     * join: freeing it or finalising would wait for them. */
    if (env->world != MPI_COMM_NULL && !env->broken)
        MPI_Comm_free(&env->world);
    if (env->finalize && !env->broken)
        MPI_Finalize();
    tsr__pool_close(env->pool);
    free(env);
}

int32_t tsr_global_env_rank(const tsr_global_env *env)
{
    return env->rank;
}

int32_t tsr_global_env_world_size(const tsr_global_env *env)
{
    return env->size;
}

int32_t tsr_global_env_local_rank(const tsr_global_env *env)
{
    return env->local_rank;
}

tsr_status tsr_global_env_device(const tsr_global_env *env, tsr_device_type type, tsr_device *out)
{
    if (type == TSR_DEVICE_CPU) {
        *out = (tsr_device){TSR_DEVICE_CPU, -1};
        return TSR_OK;
    }
    /* Any accelerator type the daemon serves; which ones is its business. */
    const char *name = tsr_device_type_name(type);
    if (type == TSR_DEVICE_META || !name)
        return tsr__global_fail(TSR_ERR_NOT_SUPPORTED, "global tensors cannot live on %s devices",
                                name ? name : "invalid");
    if (!env->client)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "a %s placement needs a client in the global env's options", name);
    int32_t count = 0;
    tsr_status st = tsr_device_count(env->client, type, &count);
    if (st)
        return st;
    if (count < 1)
        return tsr__global_fail(TSR_ERR_NO_DEVICE, "rank %d: the daemon has no %s device",
                                env->rank, name);
    int32_t index = env->has_device_index ? env->device_index : env->local_rank % count;
    if (index < 0 || index >= count)
        return tsr__global_fail(TSR_ERR_NO_DEVICE, "rank %d: %s:%d does not exist (%d %s devices)",
                                env->rank, name, (int)index, (int)count, name);
    *out = (tsr_device){type, index};
    return TSR_OK;
}

tsr_status tsr_global_env_all_device_placement(const tsr_global_env *env, tsr_device_type type,
                                               tsr_placement **out)
{
    return tsr_placement_create_range(type, env->size, out);
}

/* The dtypes whose partial sums can be reduced, in sum_type's order. */
static const tsr_dtype sum_dtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_INT8, TSR_UINT8,
                                       TSR_INT16,   TSR_INT32,   TSR_INT64};

/* MPI's types are not constant expressions in every implementation, so
 * the table above names the dtypes and this maps them, in the same order. */
static MPI_Datatype sum_type(size_t row)
{
    MPI_Datatype types[] = {MPI_FLOAT,   MPI_DOUBLE,  MPI_INT8_T, MPI_UINT8_T,
                            MPI_INT16_T, MPI_INT32_T, MPI_INT64_T};
    _Static_assert(sizeof(types) / sizeof(types[0]) == sizeof(sum_dtypes) / sizeof(sum_dtypes[0]),
                   "one MPI type per summable dtype");
    return types[row];
}

bool tsr__summable(tsr_dtype dtype)
{
    for (size_t k = 0; k < sizeof(sum_dtypes) / sizeof(sum_dtypes[0]); k++)
        if (sum_dtypes[k] == dtype)
            return true;
    return false;
}

tsr_status tsr__sum_type(tsr_dtype dtype, MPI_Datatype *out)
{
    char names[128] = "";
    size_t len = 0;
    for (size_t k = 0; k < sizeof(sum_dtypes) / sizeof(sum_dtypes[0]); k++) {
        if (sum_dtypes[k] == dtype) {
            *out = sum_type(k);
            return TSR_OK;
        }
        len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0, "%s%s",
                                k ? ", " : "", tsr_dtype_name(sum_dtypes[k]));
    }
    return tsr__global_fail(TSR_ERR_NOT_SUPPORTED,
                            "partial_sum cannot be reduced for dtype %s (supported: %s)",
                            tsr_dtype_name(dtype), names);
}
