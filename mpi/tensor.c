/* Global tensors: the record (logical shape, dtype, placement, sbp, this
 * rank's shard), to_global from local shards with the ranks' shapes
 * checked against each other, and the shard helpers that give every
 * redistribution contiguous host memory to move.
 *
 * A shard is any tsr_tensor on this rank's device. MPI reads it in place
 * when the host can address it and it is contiguous (opencl memory is the
 * daemon's arena mapped here, read after tsr_synchronize), else through a
 * host copy; a new shard is written in place the same way or staged and
 * copied in. */
#include <stdlib.h>
#include <string.h>

#include "mpi/global_internal.h"

tsr_status tsr__shard_read(tsr_global_env *env, tsr_tensor *t, const void **data, void **owned)
{
    void *ptr;
    *owned = NULL;
    if (tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT) &&
        tsr_tensor_data_ptr(t, &ptr) == TSR_OK) {
        tsr_device dev = tsr_tensor_device(t);
        if (dev.type != TSR_DEVICE_CPU) {
            tsr_status st = tsr_synchronize(env->client, dev);
            if (st)
                return st;
        }
        *data = ptr;
        return TSR_OK;
    }
    size_t n = (size_t)tsr_tensor_nbytes(t);
    void *copy = malloc(n ? n : 1);
    if (!copy)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "global tensor: out of memory");
    tsr_status st = tsr_tensor_copy_to_host(t, copy, n);
    if (st) {
        free(copy);
        return st;
    }
    *data = *owned = copy;
    return TSR_OK;
}

tsr_status tsr__shard_new(tsr_global_env *env, tsr_device device, tsr_dtype dtype, int ndim,
                          const int64_t *sizes, bool zero, tsr__shard_out *out)
{
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = dtype, .has_device = true, .device = device};
    tsr_client *client = device.type == TSR_DEVICE_CPU ? NULL : env->client;
    tsr_status st = client ? tsr_tensor_empty(client, ndim, sizes, &opt, &out->tensor)
                           : tsr__pool_tensor(env->pool, dtype, ndim, sizes, &out->tensor);
    if (st)
        return st;
    out->staged = false;
    size_t n = (size_t)tsr_tensor_nbytes(out->tensor);
    if (tsr_tensor_data_ptr(out->tensor, &out->host) == TSR_OK) {
        if (device.type != TSR_DEVICE_CPU && (st = tsr_synchronize(client, device))) {
            tsr_tensor_release(out->tensor);
            return st;
        }
    } else {
        out->host = malloc(n ? n : 1);
        if (!out->host) {
            tsr_tensor_release(out->tensor);
            return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "global tensor: out of memory");
        }
        out->staged = true;
    }
    if (zero)
        memset(out->host, 0, n);
    return TSR_OK;
}

tsr_status tsr__shard_finish(tsr__shard_out *out, tsr_status st, tsr_tensor **result)
{
    if (out->staged) {
        if (!st)
            st = tsr_tensor_copy_from_host(out->tensor, out->host,
                                           (size_t)tsr_tensor_nbytes(out->tensor));
        free(out->host);
    }
    if (st) {
        tsr_tensor_release(out->tensor);
        return st;
    }
    *result = out->tensor;
    return TSR_OK;
}

tsr_status tsr__shard_to_device(tsr_global_env *env, tsr_tensor *t, tsr_device device,
                                tsr_tensor **out)
{
    if (tsr_device_equal(tsr_tensor_device(t), device)) {
        *out = tsr_tensor_retain(t);
        return TSR_OK;
    }
    const void *data;
    void *owned;
    tsr_status st = tsr__shard_read(env, t, &data, &owned);
    if (st)
        return st;
    tsr__shard_out o;
    st = tsr__shard_new(env, device, tsr_tensor_dtype(t), tsr_tensor_ndim(t), tsr_tensor_sizes(t),
                        false, &o);
    if (!st) {
        memcpy(o.host, data, (size_t)tsr_tensor_nbytes(t));
        st = tsr__shard_finish(&o, TSR_OK, out);
    }
    free(owned);
    return st;
}

tsr_status tsr__global_new(tsr_global_env *env, tsr_dtype dtype, int ndim, const int64_t *sizes,
                           const tsr_placement *placement, const tsr_sbp *sbp,
                           tsr_global_tensor **out)
{
    tsr_global_tensor *g = calloc(1, sizeof(*g));
    if (!g)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "global tensor: out of memory");
    tsr_status st = tsr_placement_copy(placement, &g->placement);
    if (st) {
        free(g);
        return st;
    }
    g->env = env;
    g->dtype = dtype;
    g->ndim = ndim;
    memcpy(g->sizes, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(g->sbp, sbp, (size_t)tsr_placement_ndim(placement) * sizeof(tsr_sbp));
    g->index = tsr_placement_index_of(placement, env->rank);
    *out = g;
    return TSR_OK;
}

tsr_status tsr__global_set_empty(tsr_global_tensor *g)
{
    tsr_device dev;
    if (tsr_global_env_device(g->env, tsr_placement_type(g->placement), &dev))
        dev = (tsr_device){TSR_DEVICE_CPU, -1};
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = g->dtype, .has_device = true, .device = dev};
    int64_t zero = 0;
    return tsr_tensor_empty(dev.type == TSR_DEVICE_CPU ? NULL : g->env->client, 1, &zero, &opt,
                            &g->local);
}

tsr_status tsr__placement_check(const tsr_global_env *env, const tsr_placement *placement,
                                const tsr_sbp *sbp, int ndim, tsr_device *device)
{
    tsr_status st = tsr_sbp_check(placement, sbp, ndim);
    if (st)
        return st;
    for (int64_t k = 0; k < tsr_placement_size(placement); k++)
        if (tsr_placement_rank(placement, k) >= env->size)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                    "placement holds rank %d but the world has %d ranks",
                                    (int)tsr_placement_rank(placement, k), env->size);
    return tsr_global_env_device(env, tsr_placement_type(placement), device);
}

/* What each rank says about its shard in to_global. */
typedef struct shard_info {
    int32_t ndim; /* -1: not in the placement; -2: a member with no shard */
    int32_t dtype;
    int64_t sizes[TSR_MAX_DIMS];
} shard_info;

/* The logical shape from the members' shards: dims no grid dimension
 * splits are any member's; a split dim adds up the shards that differ
 * from grid position 0 only along the grid dimensions splitting it. */
static void logical_shape(const tsr_placement *p, const tsr_sbp *sbp, const shard_info *info,
                          int ndim, int64_t *shape)
{
    const int64_t *h = tsr_placement_hierarchy(p);
    int pd = tsr_placement_ndim(p);
    for (int d = 0; d < ndim; d++) {
        shape[d] = 0;
        for (int64_t k = 0; k < tsr_placement_size(p); k++) {
            int64_t rest = k;
            bool counts = true;
            for (int a = pd - 1; a >= 0; a--) {
                int64_t c = rest % h[a];
                rest /= h[a];
                bool cuts = sbp[a].kind == TSR_SBP_SPLIT && sbp[a].dim == d;
                if (c && !cuts)
                    counts = false;
            }
            const shard_info *s = &info[tsr_placement_rank(p, k)];
            if (counts)
                shape[d] += s->sizes[d];
        }
        bool split = false;
        for (int a = 0; a < pd; a++)
            split |= sbp[a].kind == TSR_SBP_SPLIT && sbp[a].dim == d;
        if (!split)
            shape[d] = info[tsr_placement_rank(p, 0)].sizes[d];
    }
}

/* Every member's shard against the first member's dtype and rank, then
 * against the geometry of the logical shape. Same verdict on every rank. */
static tsr_status check_shards(const tsr_placement *p, const tsr_sbp *sbp, const shard_info *info,
                               int64_t *shape)
{
    const shard_info *first = &info[tsr_placement_rank(p, 0)];
    for (int64_t k = 0; k < tsr_placement_size(p); k++) {
        int r = tsr_placement_rank(p, k);
        if (info[r].ndim == -2)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                    "to_global: rank %d is in the placement but passed no shard",
                                    r);
        if (info[r].dtype != first->dtype || info[r].ndim != first->ndim)
            return tsr__global_fail(TSR_ERR_RUNTIME,
                                    "to_global: rank %d's shard is %s with %d dims, rank %d's is "
                                    "%s with %d dims",
                                    r, tsr_dtype_name(info[r].dtype), info[r].ndim,
                                    tsr_placement_rank(p, 0), tsr_dtype_name(first->dtype),
                                    first->ndim);
    }
    tsr_status st = tsr_sbp_check(p, sbp, first->ndim);
    if (st)
        return st;
    logical_shape(p, sbp, info, first->ndim, shape);
    for (int64_t k = 0; k < tsr_placement_size(p); k++) {
        int r = tsr_placement_rank(p, k);
        int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
        tsr_global_shard_geometry(first->ndim, shape, p, sbp, k, sz, off);
        if (memcmp(sz, info[r].sizes, (size_t)first->ndim * sizeof(int64_t))) {
            char want[TSR__DIMS_TEXT_MAX], got[TSR__DIMS_TEXT_MAX], whole[TSR__DIMS_TEXT_MAX];
            return tsr__global_fail(TSR_ERR_RUNTIME,
                                    "to_global: rank %d's shard has shape %s but its part of the "
                                    "logical shape %s is %s",
                                    r, tsr__dims_text(got, info[r].sizes, first->ndim),
                                    tsr__dims_text(whole, shape, first->ndim),
                                    tsr__dims_text(want, sz, first->ndim));
        }
    }
    return TSR_OK;
}

tsr_status tsr_global_tensor_from_local(tsr_global_env *env, tsr_tensor *local,
                                        const tsr_placement *placement, const tsr_sbp *sbp,
                                        tsr_global_tensor **out)
{
    if (!env || !placement || !sbp || !out)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "to_global: NULL argument");
    tsr_device device;
    /* This rank's device may be missing where the others' are not: the
     * ranks meet first and fail together; the shard's own checks come
     * back from every rank at once. */
    tsr_status st = tsr__placement_check(env, placement, sbp, TSR_MAX_DIMS, &device);
    bool member = tsr_placement_index_of(placement, env->rank) >= 0;
    shard_info mine = {.ndim = member ? (local ? tsr_tensor_ndim(local) : -2) : -1};
    if (member && local) {
        mine.dtype = tsr_tensor_dtype(local);
        memcpy(mine.sizes, tsr_tensor_sizes(local), (size_t)mine.ndim * sizeof(int64_t));
    }
    shard_info *info = malloc((size_t)env->size * sizeof(shard_info));
    if (!st && !info)
        st = tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "to_global: out of memory");
    tsr_status met = tsr__rendezvous(env, "to_global");
    if (!met)
        st = tsr__agree(env, env->world, st, "to_global");
    if (met || st) {
        free(info);
        return met ? met : st;
    }
    int rc = MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, info, (int)sizeof(mine), MPI_BYTE,
                           env->world);
    int64_t shape[TSR_MAX_DIMS];
    st = rc != MPI_SUCCESS ? tsr__mpi_fail(rc, "to_global: MPI_Allgather of the shard shapes")
                           : check_shards(placement, sbp, info, shape);
    const shard_info first = info[tsr_placement_rank(placement, 0)];
    free(info);
    if (st) /* the same on every rank: every rank checked the same shapes */
        return st;
    tsr_global_tensor *g = NULL;
    st = tsr__global_new(env, first.dtype, first.ndim, shape, placement, sbp, &g);
    if (!st)
        st =
            member ? tsr__shard_to_device(env, local, device, &g->local) : tsr__global_set_empty(g);
    /* The record and the shard's copy may fail on one rank alone. */
    if ((st = tsr__agree(env, env->world, st, "to_global"))) {
        tsr_global_tensor_release(g);
        return st;
    }
    *out = g;
    return TSR_OK;
}

tsr_tensor *tsr_global_tensor_to_local(const tsr_global_tensor *global)
{
    return tsr_tensor_retain(global->local);
}

void tsr_global_tensor_release(tsr_global_tensor *global)
{
    if (!global)
        return;
    tsr_tensor_release(global->local);
    tsr_placement_destroy(global->placement);
    free(global);
}

tsr_dtype tsr_global_tensor_dtype(const tsr_global_tensor *global)
{
    return global->dtype;
}

int tsr_global_tensor_ndim(const tsr_global_tensor *global)
{
    return global->ndim;
}

const int64_t *tsr_global_tensor_sizes(const tsr_global_tensor *global)
{
    return global->sizes;
}

const tsr_placement *tsr_global_tensor_placement(const tsr_global_tensor *global)
{
    return global->placement;
}

const tsr_sbp *tsr_global_tensor_sbp(const tsr_global_tensor *global)
{
    return global->sbp;
}
