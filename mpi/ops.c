/* Operations on global tensors: OneFlow's SBP deduction, automatic boxing
 * of the inputs, then the local operation on every rank's shards.
 *
 * An operation lists its signatures for one placement dimension (what
 * each input must be and what the output then is), as OneFlow's ops do in
 * their GetSbp functions; on a 2-D placement every pair of them is a
 * signature (OneFlow's nd-sbp product). Of those, the one whose input
 * conversions cost least is taken (the cost model is in docs/global.md),
 * ties going to the one that converts fewer inputs, then to the first
 * listed. Every rank computes the same choice from the same metadata, so
 * the conversions (to_global, collective) happen in the same order
 * everywhere; the operation itself is local to each shard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/global_internal.h"

#define MAX_IN 3
/* B, one split per output dim, and at most three partial signatures. */
#define MAX_CAND (TSR_MAX_DIMS + 4)

/* One signature on one placement dimension. */
typedef struct sig1 {
    tsr_sbp in[MAX_IN];
    tsr_sbp out;
} sig1;

typedef struct deduction {
    const char *name; /* for messages: "add", "matmul" */
    int n;
    const tsr_global_tensor *const *in; /* NULL where numbers[j] is the input */
    const tsr_scalar *numbers;          /* Python numbers (elementwise), else NULL */
    const tsr_global_tensor *lead;      /* the first global tensor among in */
    sig1 cand[MAX_CAND];
    int ncand;
    /* The result: its dtype and shape (from the meta run), and the chosen
     * signature per placement dimension. */
    tsr_dtype dtype;
    int ndim;
    int64_t sizes[TSR_MAX_DIMS];
    tsr_sbp in_sbp[MAX_IN][TSR_PLACEMENT_MAX_DIMS];
    tsr_sbp out_sbp[TSR_PLACEMENT_MAX_DIMS];
    const struct reduction *red; /* a reduction's arguments, else NULL */
    tsr_tensor *into;            /* an elementwise out= shard (or its meta twin), else NULL */
} deduction;

/* A reduction's arguments (tsr_global_reduce), its local function and how
 * it distributes over splits and partial sums. */
typedef enum red_kind {
    RED_OTHER, /* a reduced dim must be whole on each rank: max, all, argmax, ... */
    RED_SPLIT, /* S(reduced) -> P: nansum (a partial of it is no nansum) */
    RED_SUM,   /* S(reduced) -> P and P -> P: sum */
    RED_MEAN,  /* as sum, the partials divided by the reduced count: mean */
} red_kind;

typedef struct reduction {
    const int64_t *dims;
    int ndims;
    bool keepdim;
    tsr_dtype dtype;
    red_kind kind;
    tsr_status (*fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor **);
    tsr_status (*fn_dtype)(const tsr_tensor *, const int64_t *, int, bool, tsr_dtype,
                           tsr_tensor **);
    bool reduced[TSR_MAX_DIMS]; /* per input dim */
    int64_t count;              /* elements reduced into each result element */
} reduction;

static tsr_sbp B(void)
{
    return tsr_sbp_broadcast();
}
static tsr_sbp P(void)
{
    return tsr_sbp_partial_sum();
}
static tsr_sbp S(int32_t d)
{
    return tsr_sbp_split(d);
}

static void add_cand(deduction *d, const tsr_sbp *in, tsr_sbp out)
{
    sig1 *c = &d->cand[d->ncand++];
    memcpy(c->in, in, (size_t)d->n * sizeof(tsr_sbp));
    c->out = out;
}

/* How elementwise operations distribute over partial sums. */
typedef enum linearity {
    LIN_NONE,  /* P must be reduced first */
    LIN_ALL,   /* every input P -> P: add, sub, neg */
    LIN_ONE,   /* one input P, the others B -> P: mul */
    LIN_FIRST, /* the first input P, the others B -> P: div */
} linearity;

static linearity linearity_of(const char *name)
{
    if (!strcmp(name, "add") || !strcmp(name, "sub") || !strcmp(name, "neg"))
        return LIN_ALL;
    if (!strcmp(name, "mul"))
        return LIN_ONE;
    if (!strcmp(name, "div"))
        return LIN_FIRST;
    return LIN_NONE;
}

/* OneFlow's broadcast elementwise signatures (its binary broadcast GetSbp,
 * extended to any number of inputs): all B -> B; for each output dim i,
 * every input that has dim i at full size S(its dim), the others (a
 * missing or size-1 dim that broadcasts) B -> S(i); and the partial ones
 * where the operation is linear and the result has a sum. A Python number
 * is B in every signature, as the scalar of OneFlow's scalar ops is: its
 * splits pass through (x + 2 of S(i) is S(i)), and of the partial rows
 * only those where it is not P remain: x * 2 and x / 2 keep P (OneFlow's
 * scalar_mul and scalar_div), x + 2 and x - 2 do not (scalar_add: the
 * number would be added once per rank). */
static void elementwise_candidates(deduction *d, linearity lin)
{
    tsr_sbp in[MAX_IN];
    bool numbers = false;
    for (int j = 0; j < d->n; j++) {
        in[j] = B();
        numbers |= !d->in[j];
    }
    add_cand(d, in, B());
    for (int i = 0; i < d->ndim; i++) {
        for (int j = 0; j < d->n; j++) {
            const tsr_global_tensor *x = d->in[j];
            int dj = x ? i - (d->ndim - x->ndim) : -1;
            in[j] = dj >= 0 && x->sizes[dj] == d->sizes[i] ? S(dj) : B();
        }
        add_cand(d, in, S(i));
    }
    if (lin == LIN_NONE || !tsr__summable(d->dtype))
        return;
    if (lin == LIN_ALL) {
        for (int j = 0; j < d->n; j++)
            in[j] = P();
        if (!numbers)
            add_cand(d, in, P());
        return;
    }
    for (int p = 0; p < (lin == LIN_ONE ? d->n : 1); p++) {
        for (int j = 0; j < d->n; j++)
            in[j] = j == p ? P() : B();
        if (d->in[p])
            add_cand(d, in, P());
    }
}

/* OneFlow's matmul signatures (its matmul, batch_matmul and
 * broadcast_matmul), for a [..., m, k] @ [..., k, n] of PyTorch's
 * torch.matmul with batch dims that broadcast: for each batch dim i of the
 * result, S of each input's dim that lines up with i at full size, B of
 * one that broadcasts -> S(i); then (S(m), B) -> S(m), (B, S(n)) -> S(n),
 * (S(k), S(k)) -> P, (B, B) -> B, (P, B) -> P, (B, P) -> P. A vector (a
 * 1-D operand) has only the last three. */
static void matmul_candidates(deduction *d)
{
    const tsr_global_tensor *a = d->in[0], *b = d->in[1];
    int na = a->ndim, nb = b->ndim, no = d->ndim;
    bool summable = tsr__summable(d->dtype);
    tsr_sbp in[2];
    if (na >= 2 && nb >= 2) {
        for (int i = 0; i < no - 2; i++) {
            int da = i - (no - na), db = i - (no - nb);
            in[0] = da >= 0 && a->sizes[da] == d->sizes[i] ? S(da) : B();
            in[1] = db >= 0 && b->sizes[db] == d->sizes[i] ? S(db) : B();
            add_cand(d, in, S(i));
        }
        in[0] = S(na - 2), in[1] = B();
        add_cand(d, in, S(no - 2));
        in[0] = B(), in[1] = S(nb - 1);
        add_cand(d, in, S(no - 1));
        if (summable) {
            in[0] = S(na - 1), in[1] = S(nb - 2);
            add_cand(d, in, P());
        }
    }
    in[0] = B(), in[1] = B();
    add_cand(d, in, B());
    if (summable) {
        in[0] = P(), in[1] = B();
        add_cand(d, in, P());
        in[0] = B(), in[1] = P();
        add_cand(d, in, P());
    }
}

/* Bytes moved, over all k ranks of one placement dimension, to convert a
 * tensor of n bytes from f to t on the same ranks: what the collective
 * boxing.c runs for that pair moves. Local conversions are free. One rank
 * counts as two, so that a program deduces the same signatures whether it
 * runs on one rank or on several. */
static double convert_cost(tsr_sbp f, tsr_sbp t, int64_t k, double n)
{
    if (k < 2)
        k = 2;
    if (tsr_sbp_equal(f, t) || f.kind == TSR_SBP_BROADCAST)
        return 0; /* B -> S(i): each rank keeps its slice */
    if (f.kind == TSR_SBP_SPLIT && t.kind == TSR_SBP_SPLIT)
        return n * (double)(k - 1) / (double)k; /* all-to-all */
    if (f.kind == TSR_SBP_SPLIT || t.kind == TSR_SBP_SPLIT)
        return n * (double)(k - 1); /* all-gather, reduce-scatter */
    return 2 * n * (double)(k - 1); /* P -> B: all-reduce */
}

static int short_sbp(tsr_sbp s, char *buf, size_t n)
{
    if (s.kind == TSR_SBP_SPLIT)
        return snprintf(buf, n, "S(%d)", (int)s.dim);
    return snprintf(buf, n, "%s", s.kind == TSR_SBP_BROADCAST ? "B" : "P");
}

/* "(S(0), B) -> S(0); (B, B) -> B" for the messages. */
static void cand_text(const deduction *d, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int c = 0; c < d->ncand && len < n; c++) {
        len += (size_t)snprintf(buf + len, n - len, "%s(", c ? "; " : "");
        for (int j = 0; j < d->n && len < n; j++) {
            if (j && len < n)
                len += (size_t)snprintf(buf + len, n - len, ", ");
            if (len < n)
                len += (size_t)short_sbp(d->cand[c].in[j], buf + len, n - len);
        }
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, ") -> ");
        if (len < n)
            len += (size_t)short_sbp(d->cand[c].out, buf + len, n - len);
    }
}

/* The cheapest signature over the placement's dimensions; among equals,
 * the one that converts fewer inputs, then the one that keeps the earlier
 * inputs as they are (S(0) + S(1) is S(0)), then the first listed. As in
 * OneFlow's deduction, no input is converted to P (B -> P and S(i) -> P
 * are valid boxing, but they only defer a reduction), and an input that
 * is partial in some dimension and of a dtype with no sum can only keep
 * its signature (boxing could not reduce it). */
static tsr_status choose(deduction *d)
{
    const tsr_placement *p = d->lead->placement;
    int pd = tsr_placement_ndim(p);
    const int64_t *h = tsr_placement_hierarchy(p);
    int64_t combos = 1;
    for (int a = 0; a < pd; a++)
        combos *= d->ncand;
    int64_t best = -1;
    double best_cost = 0;
    int best_moved = 0, best_mask = 0;
    for (int64_t c = 0; c < combos; c++) {
        int idx[TSR_PLACEMENT_MAX_DIMS];
        for (int a = pd - 1, rest = (int)c; a >= 0; a--) {
            idx[a] = rest % d->ncand;
            rest /= d->ncand;
        }
        double cost = 0;
        int moved = 0, mask = 0; /* input 0 the highest bit */
        bool ok = true;
        for (int j = 0; j < d->n; j++) {
            const tsr_global_tensor *x = d->in[j];
            if (!x)
                continue; /* a number: B everywhere, nothing to move */
            double bytes =
                (double)tsr__numel(x->ndim, x->sizes) * (double)tsr_dtype_itemsize(x->dtype);
            bool changed = false, partial = false;
            for (int a = 0; a < pd; a++) {
                tsr_sbp t = d->cand[idx[a]].in[j];
                changed |= !tsr_sbp_equal(x->sbp[a], t);
                partial |= x->sbp[a].kind == TSR_SBP_PARTIAL_SUM;
                ok &= t.kind != TSR_SBP_PARTIAL_SUM || x->sbp[a].kind == TSR_SBP_PARTIAL_SUM;
                cost += convert_cost(x->sbp[a], t, h[a], bytes);
            }
            ok &= !(changed && partial && !tsr__summable(x->dtype));
            moved += changed;
            mask |= changed << (d->n - 1 - j);
        }
        if (ok && (best < 0 || cost < best_cost ||
                   (cost == best_cost &&
                    (moved < best_moved || (moved == best_moved && mask < best_mask))))) {
            best = c;
            best_cost = cost;
            best_moved = moved;
            best_mask = mask;
        }
    }
    if (best < 0) {
        char sigs[1024], have[256] = "";
        size_t len = 0;
        for (int j = 0; j < d->n && len < sizeof(have); j++) {
            if (j)
                len += (size_t)snprintf(have + len, sizeof(have) - len, ", ");
            if (len < sizeof(have) && !d->in[j])
                len += (size_t)snprintf(have + len, sizeof(have) - len, "a number");
            else if (len < sizeof(have))
                len += tsr_sbp_tuple_repr(d->in[j]->sbp, pd, have + len, sizeof(have) - len);
            if (len < sizeof(have) && d->in[j])
                len += (size_t)snprintf(have + len, sizeof(have) - len, " %s",
                                        tsr_dtype_name(d->in[j]->dtype));
        }
        cand_text(d, sigs, sizeof(sigs));
        return tsr__global_fail(TSR_ERR_NOT_SUPPORTED,
                                "global %s: no SBP signature applies to inputs %s: a partial "
                                "sum of a dtype with no sum cannot be reduced (signatures: %s)",
                                d->name, have, sigs);
    }
    for (int a = pd - 1, rest = (int)best; a >= 0; a--) {
        const sig1 *s = &d->cand[rest % d->ncand];
        rest /= d->ncand;
        for (int j = 0; j < d->n; j++)
            d->in_sbp[j][a] = s->in[j];
        d->out_sbp[a] = s->out;
    }
    return TSR_OK;
}

/* Checks every rank answers alike: the inputs (a NULL one is a Python
 * number where `numbers` says there are some, and one at least is a
 * global tensor: *lead, the first), their placements. */
static tsr_status check_inputs(const char *name, const tsr_global_tensor *const *in, size_t n,
                               bool numbers, const tsr_global_tensor **lead)
{
    size_t first = n;
    for (size_t j = 0; j < n; j++) {
        if (!in[j] && !numbers)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global %s: input %zu is NULL", name,
                                    j);
        if (in[j] && first == n)
            first = j;
    }
    if (first == n)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "global %s: no global tensor among the inputs", name);
    for (size_t j = first + 1; j < n; j++)
        if (in[j] && (!tsr_placement_equal(in[first]->placement, in[j]->placement) ||
                      in[first]->env != in[j]->env)) {
            char pa[256], pb[256];
            tsr_placement_repr(in[first]->placement, pa, sizeof(pa));
            tsr_placement_repr(in[j]->placement, pb, sizeof(pb));
            return tsr__global_fail(TSR_ERR_RUNTIME,
                                    "global %s: expected all tensors to be on the same placement, "
                                    "but found at least two placements, %s (input %zu) and %s "
                                    "(input %zu)",
                                    name, pa, first, pb, j);
        }
    *lead = in[first];
    return TSR_OK;
}

/* A meta tensor of x's logical shape and dtype. */
static tsr_status meta_of(const tsr_global_tensor *x, tsr_tensor **out)
{
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = x->dtype, .has_device = true, .device = {TSR_DEVICE_META, -1}};
    return tsr_tensor_empty(NULL, x->ndim, x->sizes, &opt, out);
}

static tsr_status reduce_local(const reduction *red, const tsr_tensor *a, bool partial,
                               tsr_tensor **r);

/* The local operation: the reduction of d->red, else matmul when is_mm,
 * else elementwise op. partial: the result is a partial sum on some
 * placement dimension (a mean is then a sum divided by the whole count). */
static tsr_status run_local(const deduction *d, bool is_mm, tsr_op op, tsr_tensor *const *in,
                            bool partial, tsr_tensor **r)
{
    if (d->red)
        return reduce_local(d->red, in[0], partial, r);
    return is_mm ? tsr_matmul(in[0], in[1], r)
                 : tsr_elementwise_scalar(op, (const tsr_tensor *const *)in, d->numbers,
                                          (size_t)d->n, d->into, r);
}

/* The operation on the logical shapes (meta tensors): the result's dtype
 * and shape, and PyTorch's errors, identical on every rank, before any
 * communication. */
static tsr_status meta_run(deduction *d, bool is_mm, tsr_op op)
{
    tsr_tensor *m[MAX_IN] = {NULL}, *r = NULL;
    tsr_status st = TSR_OK;
    for (int j = 0; j < d->n && !st; j++)
        st = d->in[j] ? meta_of(d->in[j], &m[j]) : TSR_OK;
    if (!st)
        st = run_local(d, is_mm, op, m, false, &r);
    if (!st) {
        d->dtype = tsr_tensor_dtype(r);
        d->ndim = tsr_tensor_ndim(r);
        memcpy(d->sizes, tsr_tensor_sizes(r), (size_t)d->ndim * sizeof(int64_t));
    }
    tsr_tensor_release(r);
    for (int j = 0; j < d->n; j++)
        tsr_tensor_release(m[j]);
    return st;
}

/* The ranks' outcomes of an operation, agreed on: a rank whose own part
 * failed (its shard's memory, its device) keeps its error, and the
 * others fail with it at once instead of going on to a collective that
 * rank never joins (they would wait there for the rendezvous timeout).
 * Every rank of the world runs every global operation, so every rank
 * gets here: one all-reduce of a flag per operation. */
static tsr_status agree_done(const deduction *d, tsr_status st)
{
    char what[64];
    snprintf(what, sizeof what, "global %s", d->name);
    return tsr__agree(d->lead->env, d->lead->env->world, st, what);
}

/* Boxes the inputs to the chosen signature (collective), runs the local
 * operation on the shards and makes the result's record; the ranks agree
 * on the outcome. */
static tsr_status execute(const deduction *d, bool is_mm, tsr_op op, tsr_global_tensor **out)
{
    if (d->into) /* the shard of an out= tensor: written in place, no record */
        out = NULL;
    const tsr_placement *p = d->lead->placement;
    int pd = tsr_placement_ndim(p);
    tsr_global_tensor *boxed[MAX_IN] = {NULL};
    tsr_tensor *local[MAX_IN] = {NULL}, *r = NULL;
    tsr_global_tensor *g = NULL;
    tsr_status st = TSR_OK;
    for (int j = 0; j < d->n && !st; j++) {
        if (!d->in[j])
            continue; /* a number: local[j] stays NULL */
        bool same = true;
        for (int a = 0; a < pd; a++)
            same &= tsr_sbp_equal(d->in[j]->sbp[a], d->in_sbp[j][a]);
        if (!same)
            st = tsr_global_tensor_to_global(d->in[j], p, d->in_sbp[j], &boxed[j]);
        if (!st)
            local[j] = (same ? d->in[j] : boxed[j])->local;
    }
    if (!st && d->into) {
        st = tsr_placement_index_of(p, d->lead->env->rank) < 0
                 ? TSR_OK
                 : run_local(d, false, op, local, false, &r);
        for (int j = 0; j < d->n; j++)
            tsr_global_tensor_release(boxed[j]);
        return agree_done(d, st);
    }
    if (!st)
        st = tsr__global_new(d->lead->env, d->dtype, d->ndim, d->sizes, p, d->out_sbp, &g);
    if (!st && g->index < 0) {
        st = tsr__global_set_empty(g);
    } else if (!st) {
        bool partial = false;
        for (int a = 0; a < pd; a++)
            partial |= d->out_sbp[a].kind == TSR_SBP_PARTIAL_SUM;
        st = run_local(d, is_mm, op, local, partial, &r);
        int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
        if (!st)
            tsr_global_shard_geometry(d->ndim, d->sizes, p, d->out_sbp, g->index, sz, off);
        if (!st && (tsr_tensor_ndim(r) != d->ndim ||
                    memcmp(tsr_tensor_sizes(r), sz, (size_t)d->ndim * sizeof(int64_t)))) {
            char got[TSR__DIMS_TEXT_MAX], want[TSR__DIMS_TEXT_MAX];
            st = tsr__global_fail(
                TSR_ERR_RUNTIME, "global %s: rank %d computed a shard of shape %s, not %s", d->name,
                d->lead->env->rank, tsr__dims_text(got, tsr_tensor_sizes(r), tsr_tensor_ndim(r)),
                tsr__dims_text(want, sz, d->ndim));
        }
        if (!st) {
            g->local = r;
            r = NULL;
        }
    }
    tsr_tensor_release(r);
    for (int j = 0; j < d->n; j++)
        tsr_global_tensor_release(boxed[j]);
    if ((st = agree_done(d, st))) {
        tsr_global_tensor_release(g);
        return st;
    }
    *out = g;
    return TSR_OK;
}

static tsr_status deduce_elementwise(tsr_op op, const tsr_global_tensor *const *inputs,
                                     const tsr_scalar *numbers, size_t ninputs, deduction *d)
{
    const char *name = tsr_op_name(op);
    if (!name)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global elementwise: no operation %u",
                                (unsigned)op);
    d->name = name;
    if (!inputs || (int)ninputs != tsr_op_arity(op))
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global %s: takes %d inputs, got %zu",
                                name, tsr_op_arity(op), inputs ? ninputs : 0);
    tsr_status st = check_inputs(name, inputs, ninputs, numbers != NULL, &d->lead);
    if (st)
        return st;
    d->n = (int)ninputs;
    d->in = inputs;
    d->numbers = numbers;
    if ((st = meta_run(d, false, op)))
        return st;
    elementwise_candidates(d, linearity_of(name));
    return choose(d);
}

static tsr_status deduce_matmul(const tsr_global_tensor *a, const tsr_global_tensor *b,
                                const tsr_global_tensor **pair, deduction *d)
{
    d->name = "matmul";
    pair[0] = a;
    pair[1] = b;
    tsr_status st = check_inputs("matmul", pair, 2, false, &d->lead);
    if (st)
        return st;
    d->n = 2;
    d->in = pair;
    if ((st = meta_run(d, true, 0)))
        return st;
    matmul_candidates(d);
    return choose(d);
}

static void copy_choice(const deduction *d, tsr_sbp *in_sbp, tsr_sbp *out_sbp)
{
    int pd = tsr_placement_ndim(d->lead->placement);
    for (int j = 0; j < d->n; j++)
        memcpy(in_sbp + (size_t)j * TSR_PLACEMENT_MAX_DIMS, d->in_sbp[j],
               (size_t)pd * sizeof(tsr_sbp));
    memcpy(out_sbp, d->out_sbp, (size_t)pd * sizeof(tsr_sbp));
}

tsr_status tsr_global_elementwise_scalar_sbp(tsr_op op, const tsr_global_tensor *const *inputs,
                                             const tsr_scalar *numbers, size_t ninputs,
                                             tsr_sbp *in_sbp, tsr_sbp *out_sbp)
{
    deduction d = {0};
    if (!in_sbp || !out_sbp)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global elementwise: NULL argument");
    tsr_status st = deduce_elementwise(op, inputs, numbers, ninputs, &d);
    if (!st)
        copy_choice(&d, in_sbp, out_sbp);
    return st;
}

tsr_status tsr_global_elementwise_sbp(tsr_op op, const tsr_global_tensor *const *inputs,
                                      size_t ninputs, tsr_sbp *in_sbp, tsr_sbp *out_sbp)
{
    return tsr_global_elementwise_scalar_sbp(op, inputs, NULL, ninputs, in_sbp, out_sbp);
}

tsr_status tsr_global_elementwise_scalar(tsr_op op, const tsr_global_tensor *const *inputs,
                                         const tsr_scalar *numbers, size_t ninputs,
                                         tsr_global_tensor **result)
{
    deduction d = {0};
    if (!result)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global elementwise: NULL argument");
    tsr_status st = deduce_elementwise(op, inputs, numbers, ninputs, &d);
    return st ? st : execute(&d, false, op, result);
}

tsr_status tsr_global_elementwise(tsr_op op, const tsr_global_tensor *const *inputs, size_t ninputs,
                                  tsr_global_tensor **result)
{
    return tsr_global_elementwise_scalar(op, inputs, NULL, ninputs, result);
}

/* out= (and in place: out is input 0): the operation on the logical
 * shapes with out's meta twin gives PyTorch's out= refusals (a result
 * dtype that cannot be cast to out's); then, where the deduced result has
 * out's signature, each rank's shard is computed straight into out's
 * (tsr_elementwise's out=, casting as it does), else into a new global
 * tensor that is boxed to out's signature and copied in. */
tsr_status tsr_global_elementwise_scalar_out(tsr_op op, const tsr_global_tensor *const *inputs,
                                             const tsr_scalar *numbers, size_t ninputs,
                                             tsr_global_tensor *out)
{
    deduction d = {0};
    if (!out)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global elementwise: NULL out");
    tsr_status st = deduce_elementwise(op, inputs, numbers, ninputs, &d);
    if (st)
        return st;
    if (!tsr_placement_equal(out->placement, d.lead->placement) || out->env != d.lead->env) {
        char pi[256], po[256];
        tsr_placement_repr(d.lead->placement, pi, sizeof(pi));
        tsr_placement_repr(out->placement, po, sizeof(po));
        return tsr__global_fail(TSR_ERR_RUNTIME,
                                "global %s: out= is on %s, the inputs on %s: expected all tensors "
                                "to be on the same placement",
                                d.name, po, pi);
    }
    tsr_tensor *meta_out = NULL, *m[MAX_IN] = {NULL};
    st = meta_of(out, &meta_out);
    for (int j = 0; j < d.n && !st; j++)
        st = d.in[j] ? meta_of(d.in[j], &m[j]) : TSR_OK;
    if (!st)
        st = tsr_elementwise_scalar(op, (const tsr_tensor *const *)m, numbers, (size_t)d.n,
                                    meta_out, NULL);
    if (!st && (tsr_tensor_ndim(meta_out) != out->ndim ||
                memcmp(tsr_tensor_sizes(meta_out), out->sizes, (size_t)out->ndim * 8) ||
                d.ndim != out->ndim || memcmp(d.sizes, out->sizes, (size_t)out->ndim * 8))) {
        char have[TSR__DIMS_TEXT_MAX], want[TSR__DIMS_TEXT_MAX];
        st = tsr__global_fail(TSR_ERR_RUNTIME,
                              "global %s: out= has the logical shape %s but the result's is %s "
                              "(a global out= is not resized)",
                              d.name, tsr__dims_text(have, out->sizes, out->ndim),
                              tsr__dims_text(want, d.sizes, d.ndim));
    }
    tsr_tensor_release(meta_out);
    for (int j = 0; j < d.n; j++)
        tsr_tensor_release(m[j]);
    if (st)
        return st;
    bool direct = true;
    for (int a = 0; a < tsr_placement_ndim(out->placement); a++)
        direct &= tsr_sbp_equal(d.out_sbp[a], out->sbp[a]);
    if (direct) {
        d.into = out->local;
        return execute(&d, false, op, NULL);
    }
    tsr_global_tensor *r = NULL, *boxed = NULL;
    st = execute(&d, false, op, &r);
    if (!st)
        st = tsr_global_tensor_to_global(r, out->placement, out->sbp, &boxed);
    if (!st) /* the copy into out's shard may fail on one rank alone */
        st = agree_done(&d, out->index >= 0 ? tsr_tensor_copy_(out->local, boxed->local) : TSR_OK);
    tsr_global_tensor_release(boxed);
    tsr_global_tensor_release(r);
    return st;
}

tsr_status tsr_global_elementwise_out(tsr_op op, const tsr_global_tensor *const *inputs,
                                      size_t ninputs, tsr_global_tensor *out)
{
    return tsr_global_elementwise_scalar_out(op, inputs, NULL, ninputs, out);
}

tsr_status tsr_global_elementwise_scalar_(tsr_op op, tsr_global_tensor *self,
                                          const tsr_global_tensor *const *others,
                                          const tsr_scalar *numbers, size_t nothers)
{
    const tsr_global_tensor *in[MAX_IN] = {self};
    tsr_scalar nums[MAX_IN] = {{0}};
    if (!self || nothers > MAX_IN - 1 || (nothers && !others))
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "global elementwise: in place needs self and at most %d others",
                                MAX_IN - 1);
    for (size_t j = 0; j < nothers; j++) {
        in[j + 1] = others[j];
        if (numbers)
            nums[j + 1] = numbers[j];
    }
    return tsr_global_elementwise_scalar_out(op, in, numbers ? nums : NULL, nothers + 1, self);
}

tsr_status tsr_global_elementwise_(tsr_op op, tsr_global_tensor *self,
                                   const tsr_global_tensor *const *others, size_t nothers)
{
    return tsr_global_elementwise_scalar_(op, self, others, NULL, nothers);
}

tsr_status tsr_global_matmul_sbp(const tsr_global_tensor *a, const tsr_global_tensor *b,
                                 tsr_sbp *in_sbp, tsr_sbp *out_sbp)
{
    deduction d = {0};
    const tsr_global_tensor *pair[2];
    if (!in_sbp || !out_sbp)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global matmul: NULL argument");
    tsr_status st = deduce_matmul(a, b, pair, &d);
    if (!st)
        copy_choice(&d, in_sbp, out_sbp);
    return st;
}

tsr_status tsr_global_matmul(const tsr_global_tensor *a, const tsr_global_tensor *b,
                             tsr_global_tensor **result)
{
    deduction d = {0};
    const tsr_global_tensor *pair[2];
    if (!result)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global matmul: NULL argument");
    tsr_status st = deduce_matmul(a, b, pair, &d);
    return st ? st : execute(&d, true, 0, result);
}

/* ---- Reductions ----------------------------------------------------- */

/* The reductions tsr_global_reduce takes, by the op table's names. */
static const struct {
    const char *name;
    red_kind kind;
    tsr_status (*fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor **);
    tsr_status (*fn_dtype)(const tsr_tensor *, const int64_t *, int, bool, tsr_dtype,
                           tsr_tensor **);
} reductions[] = {
    {"sum", RED_SUM, NULL, tsr_sum},           {"mean", RED_MEAN, NULL, tsr_mean},
    {"nansum", RED_SPLIT, NULL, tsr_nansum},   {"prod", RED_OTHER, NULL, tsr_prod},
    {"nanmean", RED_OTHER, NULL, tsr_nanmean}, {"amax", RED_OTHER, tsr_amax, NULL},
    {"amin", RED_OTHER, tsr_amin, NULL},       {"all", RED_OTHER, tsr_all, NULL},
    {"any", RED_OTHER, tsr_any, NULL},         {"argmax", RED_OTHER, tsr_argmax, NULL},
    {"argmin", RED_OTHER, tsr_argmin, NULL},
};

/* The local reduction of a shard. A mean whose result is partial is the
 * shard's sum divided by the whole reduced count (OneFlow's reduce_mean:
 * a sum, then a division that distributes over the partial sums). */
static tsr_status reduce_local(const reduction *red, const tsr_tensor *a, bool partial,
                               tsr_tensor **r)
{
    if (red->kind != RED_MEAN || !partial)
        return red->fn ? red->fn(a, red->dims, red->ndims, red->keepdim, r)
                       : red->fn_dtype(a, red->dims, red->ndims, red->keepdim, red->dtype, r);
    tsr_tensor *sum = NULL;
    tsr_status st = tsr_sum(a, red->dims, red->ndims, red->keepdim,
                            red->dtype == TSR_NO_DTYPE ? tsr_tensor_dtype(a) : red->dtype, &sum);
    if (!st)
        st = tsr_div_scalar(sum, tsr_scalar_int(red->count), TSR_ROUNDING_NONE, r);
    tsr_tensor_release(sum);
    return st;
}

/* Per placement dimension: B -> B; S(i) of a kept dim i -> S(its place in
 * the result); for sums, S(i) of a reduced dim -> P, and P -> P for sum
 * and mean (the partial ones only where the result's dtype has a sum). A
 * reduced dim split over ranks is gathered first for the others, and a
 * partial sum reduced first. */
static void reduce_candidates(deduction *d)
{
    const reduction *red = d->red;
    const tsr_global_tensor *x = d->in[0];
    tsr_sbp in = B();
    add_cand(d, &in, B());
    for (int i = 0, o = 0; i < x->ndim; i++) {
        in = S(i);
        if (!red->reduced[i])
            add_cand(d, &in, S(o));
        else if (red->kind != RED_OTHER && tsr__summable(d->dtype))
            add_cand(d, &in, P());
        o += !red->reduced[i] || red->keepdim;
    }
    if ((red->kind == RED_SUM || red->kind == RED_MEAN) && tsr__summable(d->dtype)) {
        in = P();
        add_cand(d, &in, P());
    }
}

static tsr_status deduce_reduce(const char *name, const tsr_global_tensor *x, const int64_t *dims,
                                int ndims, bool keepdim, tsr_dtype dtype, reduction *red,
                                const tsr_global_tensor **one, deduction *d)
{
    size_t k = 0;
    while (name && k < sizeof(reductions) / sizeof(reductions[0]) &&
           strcmp(reductions[k].name, name))
        k++;
    if (!name || k == sizeof(reductions) / sizeof(reductions[0]))
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "global reduce: \"%s\" is not a reduction (sum, mean, nansum, "
                                "prod, nanmean, amax, amin, all, any, argmax, argmin)",
                                name ? name : "(null)");
    d->name = reductions[k].name;
    one[0] = x;
    tsr_status st = check_inputs(name, one, 1, false, &d->lead);
    if (st)
        return st;
    if (ndims < 0 || (ndims > 0 && !dims))
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global %s: %d dims at %p", name, ndims,
                                (const void *)dims);
    if (reductions[k].fn && dtype != TSR_NO_DTYPE)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global %s: takes no dtype", name);
    *red = (reduction){.dims = dims,
                       .ndims = ndims,
                       .keepdim = keepdim,
                       .dtype = dtype,
                       .kind = reductions[k].kind,
                       .fn = reductions[k].fn,
                       .fn_dtype = reductions[k].fn_dtype,
                       .count = 1};
    d->n = 1;
    d->in = one;
    d->red = red;
    if ((st = meta_run(d, false, 0))) /* PyTorch's errors: dims, dtypes, empty */
        return st;
    for (int i = 0; i < x->ndim; i++)
        red->reduced[i] = ndims == 0;
    for (int j = 0; j < ndims; j++) { /* in range and distinct: the meta run checked */
        int64_t dim = dims[j] < 0 ? dims[j] + (x->ndim ? x->ndim : 1) : dims[j];
        if (x->ndim)
            red->reduced[dim] = true;
    }
    for (int i = 0; i < x->ndim; i++)
        red->count *= red->reduced[i] ? x->sizes[i] : 1;
    reduce_candidates(d);
    return choose(d);
}

tsr_status tsr_global_reduce_sbp(const char *op, const tsr_global_tensor *x, const int64_t *dims,
                                 int ndims, bool keepdim, tsr_dtype dtype, tsr_sbp *in_sbp,
                                 tsr_sbp *out_sbp)
{
    deduction d = {0};
    reduction red;
    const tsr_global_tensor *one[1];
    if (!in_sbp || !out_sbp)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global reduce: NULL argument");
    tsr_status st = deduce_reduce(op, x, dims, ndims, keepdim, dtype, &red, one, &d);
    if (!st)
        copy_choice(&d, in_sbp, out_sbp);
    return st;
}

tsr_status tsr_global_reduce(const char *op, const tsr_global_tensor *x, const int64_t *dims,
                             int ndims, bool keepdim, tsr_dtype dtype, tsr_global_tensor **result)
{
    deduction d = {0};
    reduction red;
    const tsr_global_tensor *one[1];
    if (!result)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "global reduce: NULL argument");
    tsr_status st = deduce_reduce(op, x, dims, ndims, keepdim, dtype, &red, one, &d);
    return st ? st : execute(&d, false, 0, result);
}
