/* Boxing: one logical tensor from one (placement, sbp) to another.
 *
 * On one 1-D rank list the conversions are OneFlow's: S(i)->B all-gather,
 * P->B all-reduce, P->S(i) reduce-scatter, S(i)->S(j) all-to-all, and
 * B->S(i), B->P, S(i)->P local (no communication). The same grid shape and
 * sbp on other ranks is sent shard by shard, point to point. Every other
 * pair (other rank lists, 2-D grids) goes through the logical tensor: each
 * rank puts what it alone contributes into a zero buffer of the logical
 * shape and the world all-reduces it (sum for partial sums, bitwise or of bytes
 * otherwise, where every byte has one contributor), then each rank cuts
 * its new shard out. That moves more than a dedicated collective would but
 * is right for every pair; docs/global.md says which path a pair takes. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/global_internal.h"

/* The conversion in progress: source, target and this rank's part. */
typedef struct boxing {
    const tsr_global_tensor *src;
    const tsr_placement *placement;
    const tsr_sbp *sbp;
    tsr_device device;
    size_t itemsize;
    const void *in; /* the source shard's bytes (members of the source) */
    tsr__shard_out out;
} boxing;

static tsr_status fits_int(int64_t count, const char *what)
{
    if (count > INT_MAX)
        return tsr__global_fail(TSR_ERR_NOT_SUPPORTED,
                                "%s: %lld items exceed what one MPI call can move (%d)", what,
                                (long long)count, INT_MAX);
    return TSR_OK;
}

/* Shard k's geometry under the target (tgt) or the source signature. */
static void geometry(const boxing *b, bool tgt, int64_t k, int64_t *sz, int64_t *off)
{
    const tsr_global_tensor *s = b->src;
    tsr_global_shard_geometry(s->ndim, s->sizes, tgt ? b->placement : s->placement,
                              tgt ? b->sbp : s->sbp, k, sz, off);
}

/* In S(i) -> S(j), the block this rank exchanges with peer r. Sending
 * (mine: its S(i) slice): the part inside r's S(j) slice, starting at *at
 * in mine. Receiving (mine: its new S(j) slice): the part of r's S(i)
 * slice inside it, going to *at in mine. */
static void peer_block(const boxing *b, bool sending, int64_t r, const int64_t *mine, int64_t *box,
                       int64_t *at)
{
    int nd = b->src->ndim, cut = sending ? b->sbp[0].dim : b->src->sbp[0].dim;
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
    geometry(b, sending, r, sz, off);
    memcpy(box, mine, (size_t)nd * sizeof(int64_t));
    memset(at, 0, (size_t)nd * sizeof(int64_t));
    box[cut] = sz[cut];
    at[cut] = off[cut];
}

/* Byte counts and displacements, in rank order, of every rank's whole
 * shard under the target (tgt) or the source signature (mine NULL), or of
 * the S(i) -> S(j) block exchanged with each peer (peer_block; tgt means
 * sending). *total (if not NULL) gets the sum. */
static tsr_status block_counts(const boxing *b, bool tgt, const int64_t *mine, int k, int *counts,
                               int *displs, int64_t *total)
{
    int64_t at = 0, box[TSR_MAX_DIMS], start[TSR_MAX_DIMS];
    for (int r = 0; r < k; r++) {
        if (mine)
            peer_block(b, tgt, r, mine, box, start);
        else
            geometry(b, tgt, r, box, start);
        int64_t bytes = tsr__numel(b->src->ndim, box) * (int64_t)b->itemsize;
        tsr_status st = fits_int(at + bytes, "boxing");
        if (st)
            return st;
        counts[r] = (int)bytes;
        displs[r] = (int)at;
        at += bytes;
    }
    if (total)
        *total = at;
    return TSR_OK;
}

/* Packs (or unpacks) every shard's box of `whole` to (from) rank order,
 * shards as the target (tgt) or the source signature cuts them. */
static void rank_order(const boxing *b, bool tgt, int k, const int *displs, char *packed,
                       void *whole, bool pack)
{
    const tsr_global_tensor *s = b->src;
    int64_t zero[TSR_MAX_DIMS] = {0};
    for (int r = 0; r < k; r++) {
        int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
        geometry(b, tgt, r, sz, off);
        if (pack)
            tsr__box_copy(s->ndim, sz, b->itemsize, packed + displs[r], sz, zero, whole, s->sizes,
                          off);
        else
            tsr__box_copy(s->ndim, sz, b->itemsize, whole, s->sizes, off, packed + displs[r], sz,
                          zero);
    }
}

/* Host memory to pack into, from the environment's pool (unstage gives
 * it back, NULL ok). */
static void *stage(const boxing *b, int64_t bytes)
{
    return tsr__pool_get(b->src->env->pool, bytes ? (size_t)bytes : 1);
}

static void unstage(const boxing *b, void *block, int64_t bytes)
{
    tsr__pool_put(b->src->env->pool, block, bytes ? (size_t)bytes : 1);
}

/* Whether every rank's count is the same: then the plain collective,
 * whose algorithms MPI tunes for that case (the v-forms take others). */
static bool even(const int *counts, int k)
{
    for (int r = 1; r < k; r++)
        if (counts[r] != counts[0])
            return false;
    return true;
}

/* Every rank's shard into `to`, in rank order at displs. */
static tsr_status gather_into(const boxing *b, MPI_Comm comm, int k, const int *counts,
                              const int *displs, void *to)
{
    int rc = even(counts, k)
                 ? MPI_Allgather(b->in, counts[0], MPI_BYTE, to, counts[0], MPI_BYTE, comm)
                 : MPI_Allgatherv(b->in, counts[b->src->index], MPI_BYTE, to, counts, displs,
                                  MPI_BYTE, comm);
    return rc == MPI_SUCCESS ? TSR_OK : tsr__mpi_fail(rc, "boxing S->B: MPI_Allgather(v)");
}

static tsr_status all_gather(boxing *b, MPI_Comm comm, int k)
{
    int *counts = malloc(2 * (size_t)k * sizeof(int)), *displs = counts ? counts + k : NULL;
    tsr_status st = counts ? block_counts(b, false, NULL, k, counts, displs, NULL)
                           : tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory");
    /* Split along the outermost dim that is not 1, the shards are the
     * result's consecutive pieces in rank order: gathered in place. */
    bool in_place = true;
    for (int d = 0; d < b->src->sbp[0].dim; d++)
        in_place &= b->src->sizes[d] == 1;
    int64_t bytes = tsr__numel(b->src->ndim, b->src->sizes) * (int64_t)b->itemsize;
    char *packed = st || in_place ? NULL : stage(b, bytes);
    if (!st && !in_place && !packed)
        st = tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory");
    st = tsr__agree(b->src->env, comm, st, "boxing S->B");
    if (!st)
        st = gather_into(b, comm, k, counts, displs, in_place ? b->out.host : packed);
    if (!st && !in_place)
        rank_order(b, false, k, displs, packed, b->out.host, false);
    unstage(b, packed, bytes);
    free(counts);
    return st;
}

static tsr_status reduce(boxing *b, MPI_Comm comm, int k, bool scatter)
{
    MPI_Datatype type;
    tsr_status st = tsr__sum_type(b->src->dtype, &type);
    int64_t numel = tsr__numel(b->src->ndim, b->src->sizes);
    if (!st)
        st = fits_int(numel, "boxing P->B");
    if (st)
        return st;
    if (!scatter) { /* MPI reads the addend where it is: no copy first */
        int rc = MPI_Allreduce(b->in, b->out.host, (int)numel, type, MPI_SUM, comm);
        return rc == MPI_SUCCESS ? TSR_OK : tsr__mpi_fail(rc, "boxing P->B: MPI_Allreduce");
    }
    int *counts = malloc(2 * (size_t)k * sizeof(int));
    int64_t bytes = numel * (int64_t)b->itemsize;
    char *packed = stage(b, bytes);
    st = tsr__agree(b->src->env, comm,
                    !counts || !packed
                        ? tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory")
                        : TSR_OK,
                    "boxing P->S");
    if (st) {
        free(counts);
        unstage(b, packed, bytes);
        return st;
    }
    int *displs = counts + k;
    st = block_counts(b, true, NULL, k, counts, displs, NULL);
    if (!st) {
        rank_order(b, true, k, displs, packed, (void *)b->in, true);
        for (int r = 0; r < k; r++)
            counts[r] /= (int)b->itemsize;
        int rc = MPI_Reduce_scatter(packed, b->out.host, counts, type, MPI_SUM, comm);
        if (rc != MPI_SUCCESS)
            st = tsr__mpi_fail(rc, "boxing P->S: MPI_Reduce_scatter");
    }
    unstage(b, packed, bytes);
    free(counts);
    return st;
}

/* Whether every rank's shard has the same sizes under the source and
 * under the target signature: then every block of an S(i) -> S(j) is the
 * same size, on every rank alike (the choice of collective must be). */
static bool even_shards(const boxing *b, int k)
{
    int nd = b->src->ndim;
    for (int tgt = 0; tgt < 2; tgt++) {
        int64_t first[TSR_MAX_DIMS], sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
        geometry(b, tgt, 0, first, off);
        for (int r = 1; r < k; r++) {
            geometry(b, tgt, r, sz, off);
            if (memcmp(sz, first, (size_t)nd * sizeof(int64_t)))
                return false;
        }
    }
    return true;
}

/* S(i) -> S(j): each rank sends every peer the part of its slice that
 * falls in the peer's new slice, and assembles its own from what comes. */
static tsr_status all_to_all(boxing *b, MPI_Comm comm, int k)
{
    int nd = b->src->ndim;
    int64_t src_sz[TSR_MAX_DIMS], dst_sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS], zero[TSR_MAX_DIMS] = {0};
    geometry(b, false, b->src->index, src_sz, off);
    geometry(b, true, b->src->index, dst_sz, off);
    int *c = malloc(4 * (size_t)k * sizeof(int));
    int *scounts = c, *sdispls = c ? c + k : NULL, *rcounts = c ? c + 2 * k : NULL,
        *rdispls = c ? c + 3 * k : NULL;
    int64_t sent = 0, got = 0, box[TSR_MAX_DIMS], at[TSR_MAX_DIMS];
    tsr_status st = c ? block_counts(b, true, src_sz, k, scounts, sdispls, &sent)
                      : tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory");
    if (!st)
        st = block_counts(b, false, dst_sz, k, rcounts, rdispls, &got);
    /* What comes from each peer is a range of the source's split dim i in
     * the new slice: when no dim before i is longer than 1 there, the
     * ranges are consecutive in rank order and land in place. */
    bool in_place = got > 0 && b->out.host;
    for (int d = 0; d < b->src->sbp[0].dim; d++)
        in_place &= dst_sz[d] == 1;
    char *sendbuf = st ? NULL : stage(b, sent);
    char *recvbuf = st ? NULL : in_place ? (char *)b->out.host : stage(b, got);
    if (!st && (!sendbuf || !recvbuf))
        st = tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory");
    /* A rank's blocks are its own: one may not fit in an MPI count where
     * another's does. */
    st = tsr__agree(b->src->env, comm, st, "boxing S->S");
    for (int r = 0; r < k && !st; r++) {
        peer_block(b, true, r, src_sz, box, at);
        tsr__box_copy(nd, box, b->itemsize, sendbuf + sdispls[r], box, zero, b->in, src_sz, at);
    }
    if (!st) {
        int rc = even_shards(b, k) ? MPI_Alltoall(sendbuf, scounts[0], MPI_BYTE, recvbuf,
                                                  rcounts[0], MPI_BYTE, comm)
                                   : MPI_Alltoallv(sendbuf, scounts, sdispls, MPI_BYTE, recvbuf,
                                                   rcounts, rdispls, MPI_BYTE, comm);
        if (rc != MPI_SUCCESS)
            st = tsr__mpi_fail(rc, "boxing S->S: MPI_Alltoall(v)");
    }
    for (int r = 0; r < k && !st && !in_place; r++) {
        peer_block(b, false, r, dst_sz, box, at);
        tsr__box_copy(nd, box, b->itemsize, b->out.host, dst_sz, at, recvbuf + rdispls[r], box,
                      zero);
    }
    unstage(b, sendbuf, sent);
    if (!in_place)
        unstage(b, recvbuf, got);
    free(c);
    return st;
}

/* B -> S(i), B -> P and S(i) -> P: each rank keeps a part of what it has.
 * B -> P keeps the value at the placement's first rank (OneFlow's choice)
 * and zeros elsewhere; S(i) -> P puts the slice in a zero tensor. */
static void local_convert(boxing *b)
{
    const tsr_global_tensor *s = b->src;
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS], zero[TSR_MAX_DIMS] = {0};
    int64_t numel = tsr__numel(s->ndim, s->sizes);
    if (s->sbp[0].kind == TSR_SBP_BROADCAST && b->sbp[0].kind == TSR_SBP_SPLIT) {
        geometry(b, true, s->index, sz, off);
        tsr__box_copy(s->ndim, sz, b->itemsize, b->out.host, sz, zero, b->in, s->sizes, off);
    } else if (s->sbp[0].kind == TSR_SBP_BROADCAST) {
        if (s->index == 0)
            memcpy(b->out.host, b->in, (size_t)numel * b->itemsize);
    } else {
        geometry(b, false, s->index, sz, off);
        tsr__box_copy(s->ndim, sz, b->itemsize, b->out.host, s->sizes, off, b->in, sz, zero);
    }
}

static void grid_coord(const tsr_placement *p, int64_t index, int64_t *coord)
{
    const int64_t *h = tsr_placement_hierarchy(p);
    for (int a = tsr_placement_ndim(p) - 1; a >= 0; a--) {
        coord[a] = index % h[a];
        index /= h[a];
    }
}

/* Whether the rank at `index` is the one that speaks for its shard: grid
 * position 0 along every dimension of the given kind. */
static bool first_along(const tsr_placement *p, const tsr_sbp *sbp, int64_t index,
                        tsr_sbp_kind kind)
{
    int64_t coord[TSR_PLACEMENT_MAX_DIMS];
    grid_coord(p, index, coord);
    for (int a = 0; a < tsr_placement_ndim(p); a++)
        if (sbp[a].kind == kind && coord[a])
            return false;
    return true;
}

/* Any pair: through the logical tensor on every rank of the world. */
static tsr_status through_logical(boxing *b, MPI_Comm world)
{
    const tsr_global_tensor *s = b->src;
    bool partial = false;
    for (int a = 0; a < tsr_placement_ndim(s->placement); a++)
        partial |= s->sbp[a].kind == TSR_SBP_PARTIAL_SUM;
    MPI_Datatype type = MPI_BYTE;
    MPI_Op op = MPI_BOR;
    tsr_status st = partial ? tsr__sum_type(s->dtype, &type) : TSR_OK;
    if (st)
        return st;
    if (partial)
        op = MPI_SUM;
    int64_t numel = tsr__numel(s->ndim, s->sizes), unit = partial ? (int64_t)b->itemsize : 1;
    char *whole = calloc(numel ? (size_t)numel : 1, b->itemsize);
    st = tsr__agree(b->src->env, world,
                    whole ? TSR_OK
                          : tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "boxing: out of memory"),
                    "boxing");
    if (st) {
        free(whole);
        return st;
    }
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS], zero[TSR_MAX_DIMS] = {0};
    if (s->index >= 0 && first_along(s->placement, s->sbp, s->index, TSR_SBP_BROADCAST)) {
        geometry(b, false, s->index, sz, off);
        tsr__box_copy(s->ndim, sz, b->itemsize, whole, s->sizes, off, b->in, sz, zero);
    }
    /* One call moves at most INT_MAX items. */
    int64_t items = numel * (int64_t)b->itemsize / unit;
    for (int64_t at = 0; at < items && !st; at += INT_MAX) {
        int n = (int)(items - at < INT_MAX ? items - at : INT_MAX);
        int rc = MPI_Allreduce(MPI_IN_PLACE, whole + at * unit, n, type, op, world);
        if (rc != MPI_SUCCESS)
            st = tsr__mpi_fail(rc, "boxing: MPI_Allreduce of the logical tensor");
    }
    int64_t index = tsr_placement_index_of(b->placement, s->env->rank);
    if (!st && index >= 0 && first_along(b->placement, b->sbp, index, TSR_SBP_PARTIAL_SUM)) {
        geometry(b, true, index, sz, off);
        tsr__box_copy(s->ndim, sz, b->itemsize, b->out.host, sz, zero, whole, s->sizes, off);
    }
    free(whole);
    return st;
}

/* The fast paths of one 1-D rank list. */
static tsr_status on_one_list(boxing *b)
{
    const tsr_global_tensor *s = b->src;
    tsr_sbp_kind from = s->sbp[0].kind, to = b->sbp[0].kind;
    bool local = from == TSR_SBP_BROADCAST || to == TSR_SBP_PARTIAL_SUM;
    MPI_Comm comm = MPI_COMM_NULL;
    if (!local) {
        tsr_status st = tsr__list_comm(s->env, s->placement, &comm);
        if (st)
            return st;
    }
    if (s->index < 0)
        return TSR_OK;
    int k = (int)tsr_placement_size(s->placement);
    tsr_status st = TSR_OK;
    if (local)
        local_convert(b);
    else if (from == TSR_SBP_SPLIT && to == TSR_SBP_BROADCAST)
        st = all_gather(b, comm, k);
    else if (from == TSR_SBP_PARTIAL_SUM)
        st = reduce(b, comm, k, to == TSR_SBP_SPLIT);
    else
        st = all_to_all(b, comm, k);
    return st;
}

/* The same grid shape (1-D or 2-D, the same sizes), whatever the ranks. */
static bool same_shape(const tsr_placement *a, const tsr_placement *b)
{
    int nd = tsr_placement_ndim(a);
    return nd == tsr_placement_ndim(b) &&
           !memcmp(tsr_placement_hierarchy(a), tsr_placement_hierarchy(b),
                   (size_t)nd * sizeof(int64_t));
}

/* The same rank grid, whatever the device type. */
static bool same_grid(const tsr_placement *a, const tsr_placement *b)
{
    if (!same_shape(a, b))
        return false;
    for (int64_t k = 0; k < tsr_placement_size(a); k++)
        if (tsr_placement_rank(a, k) != tsr_placement_rank(b, k))
            return false;
    return true;
}

/* The same grid shape and sbp on other ranks: shard k of the source is
 * shard k of the target, sent from the one rank to the other. */
static tsr_status point_to_point(boxing *b, int64_t out_index)
{
    const tsr_global_tensor *s = b->src;
    MPI_Request req[2];
    int n = 0, rc = MPI_SUCCESS;
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS], send = 0, receive = 0;
    tsr_status st = TSR_OK;
    if (s->index >= 0) {
        geometry(b, false, s->index, sz, off);
        send = tsr__numel(s->ndim, sz) * (int64_t)b->itemsize;
        st = fits_int(send, "boxing send");
    }
    if (!st && out_index >= 0) {
        geometry(b, true, out_index, sz, off);
        receive = tsr__numel(s->ndim, sz) * (int64_t)b->itemsize;
        st = fits_int(receive, "boxing receive");
    }
    /* A shard too large for one rank's send is too large for its
     * receiver's receive too, but the pair must not go half-way. */
    st = tsr__agree(s->env, s->env->world, st, "boxing");
    if (st)
        return st;
    if (s->index >= 0)
        rc = MPI_Isend(b->in, (int)send, MPI_BYTE, tsr_placement_rank(b->placement, s->index), 0,
                       s->env->world, &req[n++]);
    if (rc == MPI_SUCCESS && out_index >= 0)
        rc = MPI_Irecv(b->out.host, (int)receive, MPI_BYTE,
                       tsr_placement_rank(s->placement, out_index), 0, s->env->world, &req[n++]);
    int done = n ? MPI_Waitall(n, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    rc = rc != MPI_SUCCESS ? rc : done;
    return rc == MPI_SUCCESS ? TSR_OK : tsr__mpi_fail(rc, "boxing: MPI_Isend/MPI_Irecv");
}

/* Everything but the record: this rank's new shard into g->local. */
static tsr_status convert(boxing *b, tsr_global_tensor *g)
{
    const tsr_global_tensor *s = b->src;
    bool shape = same_shape(s->placement, b->placement);
    bool grid = same_grid(s->placement, b->placement), same_sbp = shape;
    for (int a = 0; shape && a < tsr_placement_ndim(b->placement); a++)
        same_sbp &= tsr_sbp_equal(s->sbp[a], b->sbp[a]);
    if (grid && same_sbp)
        return g->index >= 0 ? tsr__shard_to_device(s->env, s->local, b->device, &g->local)
                             : tsr__global_set_empty(g);
    void *owned = NULL;
    tsr_status st = s->index >= 0 ? tsr__shard_read(s->env, s->local, &b->in, &owned) : TSR_OK;
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
    bool list = grid && tsr_placement_ndim(b->placement) == 1, made = false;
    if (!st && g->index >= 0) {
        /* Only conversions to P write part of the new shard (the addends
         * of all but one rank are zero); the others write it all. */
        bool zero = false;
        for (int a = 0; a < tsr_placement_ndim(b->placement); a++)
            zero |= b->sbp[a].kind == TSR_SBP_PARTIAL_SUM;
        geometry(b, true, g->index, sz, off);
        st = tsr__shard_new(s->env, b->device, s->dtype, s->ndim, sz, zero, &b->out);
        made = !st;
    }
    /* A shard this rank could not read or make: no rank goes on. */
    st = tsr__agree(s->env, s->env->world, st, "to_global");
    if (!st) {
        if (same_sbp)
            st = point_to_point(b, g->index);
        else if (list)
            st = on_one_list(b);
        else
            st = through_logical(b, s->env->world);
    }
    if (made)
        st = tsr__shard_finish(&b->out, st, &g->local);
    if (!st && g->index < 0)
        st = tsr__global_set_empty(g);
    free(owned);
    return st;
}

tsr_status tsr_global_tensor_to_global(const tsr_global_tensor *global,
                                       const tsr_placement *placement, const tsr_sbp *sbp,
                                       tsr_global_tensor **out)
{
    if (!global || !placement || !sbp || !out)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "to_global: NULL argument");
    boxing b = {.src = global,
                .placement = placement,
                .sbp = sbp,
                .itemsize = tsr_dtype_itemsize(global->dtype)};
    /* This rank's device may be missing where the others' are not: the
     * ranks meet first and fail together. */
    tsr_status st = tsr__placement_check(global->env, placement, sbp, global->ndim, &b.device);
    tsr_global_tensor *g = NULL;
    if (!st)
        st = tsr__global_new(global->env, global->dtype, global->ndim, global->sizes, placement,
                             sbp, &g);
    tsr_status met = tsr__rendezvous(global->env, "to_global");
    if (!met)
        st = tsr__agree(global->env, global->env->world, st, "to_global");
    if (met || st) {
        tsr_global_tensor_release(g);
        return met ? met : st;
    }
    /* The new shard's last steps (its copy to the device, an empty
     * shard's record, a transfer's MPI error) may fail on one rank alone:
     * the ranks agree, so that none goes on to a collective the others
     * never enter (the next input's boxing, an operation's agreement). */
    st = tsr__agree(global->env, global->env->world, convert(&b, g), "to_global");
    if (st) {
        tsr_global_tensor_release(g);
        return st;
    }
    *out = g;
    return TSR_OK;
}
