/* Operations on global tensors under mpirun with 1, 2 and 4 ranks: the SBP
 * deduction table of each op family (every pair of S(0), S(1), B and P on
 * a 1-D placement, even and uneven splits), results against the same
 * computation done on one rank on the whole tensors (the result boxed to
 * B and taken with to_local), 2-D placements for add, matmul, the
 * reductions, and the errors with their messages. */
#include <math.h>
#include <mpi.h>

#include "support_ops.h"

/* r against the same operation (op, or mm) done on this rank alone on the
 * whole operands. */
static void check_result(const tsr_global_tensor *r, tsr_op op, bool mm, const spec *in, int n,
                         const char *what)
{
    tsr_tensor *t[3] = {NULL, NULL, NULL}, *ref = NULL;
    for (int j = 0; j < n; j++)
        t[j] = whole(in[j].dtype, in[j].ndim, in[j].shape, in[j].seed);
    ASSERT_OK(mm ? tsr_matmul(t[0], t[1], &ref)
                 : tsr_elementwise(op, (const tsr_tensor *const *)t, (size_t)n, NULL, &ref));
    ASSERT_TRUE(r && ref && matches(r, ref, what));
    tsr_tensor_release(ref);
    for (int j = 0; j < n; j++)
        tsr_tensor_release(t[j]);
}

/* The partial signatures of an op family (mpi/ops.c's linearity). */
enum family { NONLINEAR, ADDITIVE, MUL, DIV };

/* The deduction table on a 1-D placement for two operands of one shape:
 * what the result is, and whether both inputs keep their signature (or,
 * a B, are sliced locally). */
static tsr_sbp expect_binary(enum family f, tsr_sbp a, tsr_sbp b, bool *direct)
{
    tsr_sbp_kind ka = a.kind, kb = b.kind;
    const tsr_sbp_kind S = TSR_SBP_SPLIT, Bk = TSR_SBP_BROADCAST, Pk = TSR_SBP_PARTIAL_SUM;
    tsr_sbp P = tsr_sbp_partial_sum();
    *direct = false;
    if (ka != Pk && kb != Pk) {
        /* S(i) with S(j): b all-to-all to S(i); B with S(i): sliced */
        *direct = !(ka == S && kb == S && a.dim != b.dim);
        return ka == S ? a : b;
    }
    if (f == ADDITIVE && ka == Pk && kb == Pk)
        *direct = true;
    if ((f == MUL && ((ka == Pk && kb == Bk) || (ka == Bk && kb == Pk))) ||
        (f == DIV && ka == Pk && kb == Bk))
        *direct = true;
    if (*direct)
        return P;
    /* P * P and P / P: b all-reduced (one input moves); P * S(i): b
     * gathered rather than a reduce-scattered (the same bytes, and the
     * first input keeps its signature). */
    if ((f == MUL || f == DIV) && ka == Pk && kb != Bk)
        return P;
    /* Otherwise P is reduce-scattered to the split, or to S(0). */
    return ka == S ? a : kb == S ? b : tsr_sbp_split(0);
}

static void binary_case(const char *name, enum family f, tsr_dtype dtype, int ndim,
                        const int64_t *shape, tsr_sbp sa, tsr_sbp sb)
{
    char what[256];
    snprintf(what, sizeof(what), "%s %s [%lld, %lld]: %s, %s", name, tsr_dtype_name(dtype),
             (long long)shape[0], (long long)shape[1], kind_text(sa), kind_text(sb));
    tsr_op op;
    ASSERT_OK(tsr_op_from_name(name, &op));
    int divisor = f == DIV ? -3 : 2;
    tsr_global_tensor *x = operand(dtype, ndim, shape, world_list, &sa, 1);
    tsr_global_tensor *y = operand(dtype, ndim, shape, world_list, &sb, divisor);
    const tsr_global_tensor *in[2] = {x, y};
    tsr_sbp in_sbp[2 * TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
    bool direct;
    tsr_sbp want = expect_binary(f, sa, sb, &direct);
    ASSERT_OK(tsr_global_elementwise_sbp(op, in, 2, in_sbp, out_sbp));
    if (!tsr_sbp_equal(out_sbp[0], want))
        fprintf(stderr, "rank %d: %s: deduced %s, expected %s\n", rank, what, kind_text(out_sbp[0]),
                kind_text(want));
    ASSERT_TRUE(tsr_sbp_equal(out_sbp[0], want));
    if (direct) {
        /* No input is communicated: each keeps its signature, or is a B
         * sliced (or kept at the first rank, B -> P) locally. */
        for (int j = 0; j < 2; j++)
            ASSERT_TRUE(tsr_sbp_equal(in_sbp[j * TSR_PLACEMENT_MAX_DIMS], j ? sb : sa) ||
                        (j ? sb : sa).kind == TSR_SBP_BROADCAST);
    }
    tsr_global_tensor *r = NULL;
    tsr_status st = tsr_global_elementwise(op, in, 2, &r);
    if (st)
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, tsr_last_error());
    ASSERT_EQ(st, TSR_OK);
    ASSERT_TRUE(r && tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], want));
    const spec sp[2] = {{dtype, ndim, shape, 1}, {dtype, ndim, shape, divisor}};
    check_result(r, op, false, sp, 2, what);
    tsr_global_tensor_release(r);
    tsr_global_tensor_release(x);
    tsr_global_tensor_release(y);
}

/* Every pair of signatures for each family, [5, 3] (uneven over 2 and 4)
 * and [8, 4] (even). */
static void test_binary_table(void)
{
    static const struct {
        const char *name;
        enum family f;
        bool ints, even;
    } ops[] = {
        {"add", ADDITIVE, true, true},
        {"sub", ADDITIVE, false, false},
        {"mul", MUL, true, true},
        {"div", DIV, true, false},
        {"maximum", NONLINEAR, true, false},
        {"minimum", NONLINEAR, false, false},
        {"eq", NONLINEAR, false, false},
        {"lt", NONLINEAR, true, false},
    };
    static const int64_t uneven[2] = {5, 3}, even[2] = {8, 4};
    const tsr_sbp *l = four_sbps();
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                binary_case(ops[o].name, ops[o].f, TSR_FLOAT32, 2, uneven, l[a], l[b]);
                if (ops[o].ints)
                    binary_case(ops[o].name, ops[o].f, TSR_INT32, 2, uneven, l[a], l[b]);
                if (ops[o].even)
                    binary_case(ops[o].name, ops[o].f, TSR_FLOAT64, 2, even, l[a], l[b]);
            }
}

/* Operands of other shapes: a split dim that one operand broadcasts. */
static void broadcast_case(const int64_t *xs, int xn, tsr_sbp sx, const int64_t *ys, int yn,
                           tsr_sbp sy, tsr_sbp want_x, tsr_sbp want_y, tsr_sbp want)
{
    tsr_op op;
    ASSERT_OK(tsr_op_from_name("add", &op));
    tsr_global_tensor *x = operand(TSR_FLOAT32, xn, xs, world_list, &sx, 1);
    tsr_global_tensor *y = operand(TSR_FLOAT32, yn, ys, world_list, &sy, 2);
    const tsr_global_tensor *in[2] = {x, y};
    tsr_sbp in_sbp[2 * TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
    ASSERT_OK(tsr_global_elementwise_sbp(op, in, 2, in_sbp, out_sbp));
    ASSERT_TRUE(tsr_sbp_equal(in_sbp[0], want_x));
    ASSERT_TRUE(tsr_sbp_equal(in_sbp[TSR_PLACEMENT_MAX_DIMS], want_y));
    ASSERT_TRUE(tsr_sbp_equal(out_sbp[0], want));
    tsr_global_tensor *r = NULL;
    ASSERT_OK(tsr_global_elementwise(op, in, 2, &r));
    const spec sp[2] = {{TSR_FLOAT32, xn, xs, 1}, {TSR_FLOAT32, yn, ys, 2}};
    check_result(r, op, false, sp, 2, "broadcast add");
    tsr_global_tensor_release(r);
    tsr_global_tensor_release(x);
    tsr_global_tensor_release(y);
}

static void test_broadcasting(void)
{
    const tsr_sbp S0 = tsr_sbp_split(0), S1 = tsr_sbp_split(1), B = tsr_sbp_broadcast();
    static const int64_t m[2] = {5, 3}, row[1] = {3}, row2[2] = {1, 3}, col[2] = {5, 1};
    /* Aligned from the right, y's dim 0 is x's dim 1: S(1) with S(0). */
    broadcast_case(m, 2, S1, row, 1, S0, S1, S0, S1);
    /* x's dim 0 has no partner in y: y must be whole. */
    broadcast_case(m, 2, S0, row, 1, S0, S0, B, S0);
    broadcast_case(m, 2, S0, row, 1, B, S0, B, S0);
    /* A size-1 dim split in one operand and full in the other: boxed to B. */
    broadcast_case(m, 2, S0, row2, 2, S0, S0, B, S0);
    broadcast_case(m, 2, S1, row2, 2, S1, S1, S1, S1);
    broadcast_case(m, 2, S0, col, 2, S0, S0, S0, S0);
    broadcast_case(col, 2, B, m, 2, S1, B, S1, S1);
}

/* Unary ops keep a split or a broadcast; neg keeps P, abs reduces it. */
static void test_unary(void)
{
    static const int64_t shape[2] = {5, 3};
    const tsr_sbp *l = four_sbps();
    const char *names[] = {"neg", "abs", "sqrt"};
    for (int u = 0; u < 3; u++)
        for (int a = 0; a < 4; a++) {
            tsr_op op;
            ASSERT_OK(tsr_op_from_name(names[u], &op));
            tsr_global_tensor *x =
                operand(TSR_FLOAT32, 2, shape, world_list, &l[a], u == 2 ? -1 : 1);
            const tsr_global_tensor *in[1] = {x};
            tsr_global_tensor *r = NULL;
            ASSERT_OK(tsr_global_elementwise(op, in, 1, &r));
            tsr_sbp want = l[a].kind != TSR_SBP_PARTIAL_SUM || u == 0 ? l[a] : tsr_sbp_split(0);
            ASSERT_TRUE(r && tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], want));
            const spec sp[1] = {{TSR_FLOAT32, 2, shape, u == 2 ? -1 : 1}};
            check_result(r, op, false, sp, 1, names[u]);
            tsr_global_tensor_release(r);
            tsr_global_tensor_release(x);
        }
}

/* where(cond, a, b): three inputs, P reduced. */
static void test_where(void)
{
    static const int64_t shape[2] = {5, 3};
    const tsr_sbp *l = four_sbps();
    tsr_op op;
    ASSERT_OK(tsr_op_from_name("where", &op));
    for (int a = 0; a < 4; a++) {
        tsr_sbp cs = l[a].kind == TSR_SBP_PARTIAL_SUM ? tsr_sbp_broadcast() : l[a];
        tsr_global_tensor *c = operand(TSR_BOOL, 2, shape, world_list, &cs, 3);
        tsr_global_tensor *x = operand(TSR_FLOAT64, 2, shape, world_list, &l[a], 1);
        tsr_global_tensor *y = operand(TSR_FLOAT64, 2, shape, world_list, &l[(a + 1) % 4], 2);
        const tsr_global_tensor *in[3] = {c, x, y};
        tsr_global_tensor *r = NULL;
        ASSERT_OK(tsr_global_elementwise(op, in, 3, &r));
        ASSERT_TRUE(r && tsr_global_tensor_sbp(r)[0].kind != TSR_SBP_PARTIAL_SUM);
        const spec sp[3] = {
            {TSR_BOOL, 2, shape, 3}, {TSR_FLOAT64, 2, shape, 1}, {TSR_FLOAT64, 2, shape, 2}};
        check_result(r, op, false, sp, 3, "where");
        tsr_global_tensor_release(r);
        tsr_global_tensor_release(c);
        tsr_global_tensor_release(x);
        tsr_global_tensor_release(y);
    }
}

/* add on a 2 x 2 grid: every pair of a few 2-D signatures; the deduction
 * per grid dimension where it is direct. */
static void test_grid_add(void)
{
    if (world != 4)
        return;
    int64_t hg[2] = {2, 2};
    int32_t rg[4] = {0, 1, 2, 3};
    tsr_placement *grid = NULL;
    ASSERT_OK(tsr_placement_create(TSR_DEVICE_CPU, 2, hg, rg, &grid));
    const tsr_sbp S0 = tsr_sbp_split(0), S1 = tsr_sbp_split(1), B = tsr_sbp_broadcast(),
                  P = tsr_sbp_partial_sum();
    const tsr_sbp sigs[][2] = {{S0, S1}, {S0, S0}, {S0, B}, {B, S1}, {P, B}, {S1, P}, {B, B}};
    const int nsig = (int)(sizeof(sigs) / sizeof(sigs[0]));
    static const int64_t shape[2] = {5, 3};
    tsr_op op;
    ASSERT_OK(tsr_op_from_name("add", &op));
    for (int a = 0; a < nsig; a++)
        for (int b = 0; b < nsig; b++) {
            tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, grid, sigs[a], 1);
            tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, grid, sigs[b], 2);
            const tsr_global_tensor *in[2] = {x, y};
            tsr_global_tensor *r = NULL;
            ASSERT_OK(tsr_global_elementwise(op, in, 2, &r));
            /* Per grid dimension, the 1-D table's direct rows. */
            for (int d = 0; r && d < 2; d++) {
                bool direct;
                tsr_sbp want = expect_binary(ADDITIVE, sigs[a][d], sigs[b][d], &direct);
                if (direct)
                    ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(r)[d], want));
            }
            ASSERT_TRUE(r && tsr_placement_equal(tsr_global_tensor_placement(r), grid));
            const spec sp[2] = {{TSR_FLOAT32, 2, shape, 1}, {TSR_FLOAT32, 2, shape, 2}};
            check_result(r, op, false, sp, 2, "grid add");
            tsr_global_tensor_release(r);
            tsr_global_tensor_release(x);
            tsr_global_tensor_release(y);
        }
    tsr_placement_destroy(grid);
}

/* A placement of some ranks only: the others take part in the boxing and
 * hold an empty shard of the result. */
static void test_subset(void)
{
    int32_t last = world - 1, pair[2] = {world - 1, 0};
    int64_t one = 1, two = world > 1 ? 2 : 1;
    tsr_placement *single = NULL, *ends = NULL;
    ASSERT_OK(tsr_placement_create(TSR_DEVICE_CPU, 1, &one, &last, &single));
    ASSERT_OK(tsr_placement_create(TSR_DEVICE_CPU, 1, &two, pair, &ends));
    const tsr_placement *ps[2] = {single, ends};
    static const int64_t shape[2] = {5, 3};
    const tsr_sbp S0 = tsr_sbp_split(0), P = tsr_sbp_partial_sum();
    tsr_op op;
    ASSERT_OK(tsr_op_from_name("mul", &op));
    for (int k = 0; k < 2; k++) {
        tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, ps[k], &S0, 1);
        tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, ps[k], &P, 2);
        const tsr_global_tensor *in[2] = {x, y};
        tsr_global_tensor *r = NULL;
        ASSERT_OK(tsr_global_elementwise(op, in, 2, &r));
        ASSERT_TRUE(r && tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], S0));
        tsr_tensor *mine = r ? tsr_global_tensor_to_local(r) : NULL;
        if (r && tsr_placement_index_of(ps[k], rank) < 0)
            ASSERT_EQ(tsr_tensor_numel(mine), 0);
        tsr_tensor_release(mine);
        const spec sp[2] = {{TSR_FLOAT32, 2, shape, 1}, {TSR_FLOAT32, 2, shape, 2}};
        check_result(r, op, false, sp, 2, "mul on some ranks");
        tsr_global_tensor_release(r);
        tsr_global_tensor_release(x);
        tsr_global_tensor_release(y);
    }
    tsr_placement_destroy(single);
    tsr_placement_destroy(ends);
}

/* matmul: OneFlow's six signatures kept as they are; every other pair
 * boxed to one of them; results against one rank's mm. */
static void test_matmul(void)
{
    const tsr_sbp S0 = tsr_sbp_split(0), S1 = tsr_sbp_split(1), B = tsr_sbp_broadcast(),
                  P = tsr_sbp_partial_sum();
    const tsr_sbp rows[6][3] = {{S0, B, S0}, {B, S1, S1}, {S1, S0, P},
                                {B, B, B},   {P, B, P},   {B, P, P}};
    static const int64_t as[2][2] = {{5, 4}, {4, 8}}, bs[2][2] = {{4, 3}, {8, 4}};
    const tsr_sbp *l = four_sbps();
    const tsr_dtype dtypes[2] = {TSR_FLOAT64, TSR_INT64};
    for (int s = 0; s < 2; s++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                tsr_dtype dt = dtypes[(a + b + s) % 2];
                tsr_global_tensor *x = operand(dt, 2, as[s], world_list, &l[a], 1);
                tsr_global_tensor *y = operand(dt, 2, bs[s], world_list, &l[b], 2);
                tsr_sbp in_sbp[2 * TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
                ASSERT_OK(tsr_global_matmul_sbp(x, y, in_sbp, out_sbp));
                int row = -1, kept = -1;
                for (int k = 0; k < 6; k++) {
                    if (tsr_sbp_equal(rows[k][0], in_sbp[0]) &&
                        tsr_sbp_equal(rows[k][1], in_sbp[TSR_PLACEMENT_MAX_DIMS]) &&
                        tsr_sbp_equal(rows[k][2], out_sbp[0]))
                        row = k;
                    if (tsr_sbp_equal(rows[k][0], l[a]) && tsr_sbp_equal(rows[k][1], l[b]))
                        kept = k;
                }
                ASSERT_TRUE(row >= 0);
                if (kept >= 0)
                    ASSERT_EQ(row, kept);
                tsr_global_tensor *r = NULL;
                ASSERT_OK(tsr_global_matmul(x, y, &r));
                ASSERT_TRUE(r && tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], out_sbp[0]));
                const spec sp[2] = {{dt, 2, as[s], 1}, {dt, 2, bs[s], 2}};
                check_result(r, 0, true, sp, 2, "matmul");
                tsr_global_tensor_release(r);
                tsr_global_tensor_release(x);
                tsr_global_tensor_release(y);
            }
}

/* Whether (a, b) -> out is one of matmul's signatures for these shapes
 * (global.h's list, derived here again). */
static bool matmul_signature(tsr_sbp a, tsr_sbp b, tsr_sbp out, int na, const int64_t *as, int nb,
                             const int64_t *bs, int no, const int64_t *os)
{
    bool sa = a.kind == TSR_SBP_SPLIT, sb = b.kind == TSR_SBP_SPLIT;
    bool ba = a.kind == TSR_SBP_BROADCAST, bb = b.kind == TSR_SBP_BROADCAST;
    bool pa = a.kind == TSR_SBP_PARTIAL_SUM, pb = b.kind == TSR_SBP_PARTIAL_SUM;
    if (out.kind == TSR_SBP_BROADCAST)
        return ba && bb;
    if (out.kind == TSR_SBP_PARTIAL_SUM)
        return (pa && bb) || (ba && pb) ||
               (na >= 2 && nb >= 2 && sa && sb && a.dim == na - 1 && b.dim == nb - 2);
    if (na < 2 || nb < 2)
        return false;
    if (out.dim == no - 2)
        return sa && a.dim == na - 2 && bb;
    if (out.dim == no - 1)
        return ba && sb && b.dim == nb - 1;
    int da = out.dim - (no - na), db = out.dim - (no - nb);
    bool want_a = da >= 0 && as[da] == os[out.dim], want_b = db >= 0 && bs[db] == os[out.dim];
    return (want_a ? sa && a.dim == da : ba) && (want_b ? sb && b.dim == db : bb);
}

/* Batched, broadcast and vector products: every pair of input signatures
 * (each input's splits, B, P), the chosen signature one of matmul's (the
 * inputs' own where it is one), the result equal to one rank's. */
static void test_matmul_batched(void)
{
    static const struct {
        int na, nb;
        int64_t as[4], bs[4];
    } shapes[] = {
        {3, 3, {2, 5, 4}, {2, 4, 3}}, {3, 2, {3, 5, 4}, {4, 3}}, {4, 3, {3, 1, 5, 4}, {2, 4, 3}},
        {2, 3, {5, 4}, {2, 4, 6}},    {1, 2, {4}, {4, 3}},       {3, 1, {2, 5, 4}, {4}},
    };
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
        int na = shapes[sh].na, nb = shapes[sh].nb;
        const int64_t *as = shapes[sh].as, *bs = shapes[sh].bs;
        tsr_sbp la[6], lb[6];
        int ka = 0, kb = 0;
        for (int d = 0; d < na; d++)
            la[ka++] = tsr_sbp_split(d);
        for (int d = 0; d < nb; d++)
            lb[kb++] = tsr_sbp_split(d);
        la[ka++] = lb[kb++] = tsr_sbp_broadcast();
        la[ka++] = lb[kb++] = tsr_sbp_partial_sum();
        for (int i = 0; i < ka; i++)
            for (int j = 0; j < kb; j++) {
                tsr_global_tensor *x = operand(TSR_FLOAT64, na, as, world_list, &la[i], 1);
                tsr_global_tensor *y = operand(TSR_FLOAT64, nb, bs, world_list, &lb[j], 2);
                tsr_sbp in_sbp[2 * TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
                ASSERT_OK(tsr_global_matmul_sbp(x, y, in_sbp, out_sbp));
                tsr_global_tensor *r = NULL;
                ASSERT_OK(tsr_global_matmul(x, y, &r));
                if (!r) {
                    tsr_global_tensor_release(x);
                    tsr_global_tensor_release(y);
                    continue;
                }
                int no = tsr_global_tensor_ndim(r);
                const int64_t *os = tsr_global_tensor_sizes(r);
                ASSERT_TRUE(matmul_signature(in_sbp[0], in_sbp[TSR_PLACEMENT_MAX_DIMS], out_sbp[0],
                                             na, as, nb, bs, no, os));
                bool own = false;
                tsr_sbp outs[8];
                int nout = 0;
                for (int d = 0; d < no; d++)
                    outs[nout++] = tsr_sbp_split(d);
                outs[nout++] = tsr_sbp_broadcast();
                outs[nout++] = tsr_sbp_partial_sum();
                for (int k = 0; k < nout; k++)
                    own |= matmul_signature(la[i], lb[j], outs[k], na, as, nb, bs, no, os);
                if (own)
                    ASSERT_TRUE(tsr_sbp_equal(in_sbp[0], la[i]) &&
                                tsr_sbp_equal(in_sbp[TSR_PLACEMENT_MAX_DIMS], lb[j]));
                ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], out_sbp[0]));
                const spec sp[2] = {{TSR_FLOAT64, na, as, 1}, {TSR_FLOAT64, nb, bs, 2}};
                check_result(r, 0, true, sp, 2, "batched matmul");
                tsr_global_tensor_release(r);
                tsr_global_tensor_release(x);
                tsr_global_tensor_release(y);
            }
    }
}

/* The reprs of two placements into pa and pb (256 bytes each). */
static void two_reprs(const tsr_placement *a, const tsr_placement *b, char *pa, char *pb)
{
    tsr_placement_repr(a, pa, 256);
    tsr_placement_repr(b, pb, 256);
}

static void test_errors(void)
{
    tsr_op add, eq;
    ASSERT_OK(tsr_op_from_name("add", &add));
    ASSERT_OK(tsr_op_from_name("eq", &eq));
    const tsr_sbp B = tsr_sbp_broadcast(), P = tsr_sbp_partial_sum(), S0 = tsr_sbp_split(0);
    const tsr_sbp BB[2] = {B, B};
    static const int64_t m[2] = {5, 3}, two[1] = {2}, four[1] = {4}, cube[3] = {2, 2, 2};
    tsr_global_tensor *x = operand(TSR_FLOAT32, 2, m, world_list, &S0, 1), *r = NULL;

    /* Placements must be equal: the world as a list and as a 1 x n grid. */
    tsr_placement *grid = world_as_grid();
    ASSERT_TRUE(grid != NULL);
    tsr_global_tensor *g = operand(TSR_FLOAT32, 2, m, grid, BB, 2);
    const tsr_global_tensor *xg[2] = {x, g};
    char pa[256], pb[256], want[1024];
    two_reprs(world_list, grid, pa, pb);
    snprintf(want, sizeof(want),
             "global add: expected all tensors to be on the same placement, but found at least "
             "two placements, %s (input 0) and %s (input 1)",
             pa, pb);
    ASSERT_FAIL(tsr_global_elementwise(add, xg, 2, &r), TSR_ERR_RUNTIME, want);

    /* PyTorch's broadcasting message, from the logical shapes. */
    tsr_global_tensor *v = operand(TSR_FLOAT32, 1, two, world_list, &B, 2);
    const tsr_global_tensor *xv[2] = {x, v};
    ASSERT_FAIL(tsr_global_elementwise(add, xv, 2, &r), TSR_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                "dimension 1");
    ASSERT_FAIL(tsr_global_elementwise(add, xv, 1, &r), TSR_ERR_INVALID_ARGUMENT,
                "global add: takes 2 inputs, got 1");
    ASSERT_FAIL(tsr_global_elementwise(9999, xv, 2, &r), TSR_ERR_INVALID_ARGUMENT,
                "global elementwise: no operation 9999");

    /* A partial sum of bools cannot be reduced, and eq needs it reduced. */
    tsr_global_tensor *pb4 = operand(TSR_BOOL, 1, four, world_list, &P, 1);
    tsr_global_tensor *bb4 = operand(TSR_BOOL, 1, four, world_list, &B, 2);
    const tsr_global_tensor *pp[2] = {pb4, bb4};
    ASSERT_FAIL(tsr_global_elementwise(eq, pp, 2, &r), TSR_ERR_NOT_SUPPORTED,
                "global eq: no SBP signature applies to inputs (oneflow.sbp.partial_sum,) bool, "
                "(oneflow.sbp.broadcast,) bool: a partial sum of a dtype with no sum cannot be "
                "reduced (signatures: (B, B) -> B; (S(0), S(0)) -> S(0))");

    /* matmul: torch.matmul's own shape messages. */
    tsr_global_tensor *c = operand(TSR_FLOAT32, 3, cube, world_list, &B, 1);
    ASSERT_FAIL(tsr_global_matmul(c, x, &r), TSR_ERR_RUNTIME,
                "mat1 and mat2 shapes cannot be multiplied (4x2 and 5x3)");
    ASSERT_FAIL(tsr_global_matmul(x, x, &r), TSR_ERR_RUNTIME,
                "mat1 and mat2 shapes cannot be multiplied (5x3 and 5x3)");
    ASSERT_FAIL(tsr_global_matmul(x, g, &r), TSR_ERR_RUNTIME, NULL);
    ASSERT_TRUE(r == NULL);

    tsr_global_tensor_release(c);
    tsr_global_tensor_release(pb4);
    tsr_global_tensor_release(bb4);
    tsr_global_tensor_release(v);
    tsr_global_tensor_release(g);
    tsr_global_tensor_release(x);
    tsr_placement_destroy(grid);
}

/* Whether in -> out is one of a reduction's signatures on one placement
 * dimension (global.h's list, derived here again). */
static bool reduce_signature(const char *name, tsr_sbp in, tsr_sbp out, int ndim,
                             const bool *reduced, bool keepdim)
{
    bool sumlike = !strcmp(name, "sum") || !strcmp(name, "mean") || !strcmp(name, "nansum");
    bool linear = !strcmp(name, "sum") || !strcmp(name, "mean");
    if (in.kind == TSR_SBP_BROADCAST)
        return out.kind == TSR_SBP_BROADCAST;
    if (in.kind == TSR_SBP_PARTIAL_SUM)
        return linear && out.kind == TSR_SBP_PARTIAL_SUM;
    if (reduced[in.dim])
        return sumlike && out.kind == TSR_SBP_PARTIAL_SUM;
    int o = 0;
    for (int i = 0; i < in.dim && i < ndim; i++)
        o += !reduced[i] || keepdim;
    return out.kind == TSR_SBP_SPLIT && out.dim == o;
}

/* Reductions: every input signature of [5, 3] (uneven over 2 and 4 ranks)
 * and [8, 4] (with dtype=float64 where the reduction takes one), each
 * reduction over every dim, dim 0, dim -1, keepdim or not: the chosen signature is one of the reduction's (the input's own
 * where it is one), and the result, boxed to B, is the reduction of the
 * whole tensor on one rank. */
static void test_reduce(void)
{
    static const char *names[] = {"sum",  "mean", "nansum", "prod",   "amax",
                                  "amin", "all",  "any",    "argmax", "argmin"};
    static const int64_t shapes[2][2] = {{5, 3}, {8, 4}};
    static const int64_t dim_lists[3][1] = {{0}, {0}, {-1}};
    const tsr_sbp *l = four_sbps();
    for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
        for (int sh = 0; sh < 2; sh++)
            for (int a = 0; a < 4; a++)
                for (int dl = 0; dl < 3; dl++)
                    for (int keep = 0; keep < 2; keep++) {
                        const char *name = names[n];
                        bool one_dim = !strcmp(name, "prod") || !strcmp(name, "all") ||
                                       !strcmp(name, "any") || !strncmp(name, "arg", 3);
                        int ndims = dl == 0 ? 0 : 1;
                        if (one_dim && ndims == 0 && keep)
                            continue; /* PyTorch's dim=None takes no keepdim there */
                        const char *op = name;
                        bool has_dtype = n < 4;
                        tsr_dtype dt = !strcmp(name, "mean") || a == 3 ? TSR_FLOAT64 : TSR_INT64;
                        tsr_global_tensor *x = operand(dt, 2, shapes[sh], world_list, &l[a], 1);
                        tsr_sbp in_sbp[TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
                        tsr_dtype want_dt = has_dtype && sh == 1 ? TSR_FLOAT64 : TSR_NO_DTYPE;
                        ASSERT_OK(tsr_global_reduce_sbp(op, x, dim_lists[dl], ndims, keep, want_dt,
                                                        in_sbp, out_sbp));
                        bool reduced[2] = {ndims == 0 || dim_lists[dl][0] == 0,
                                           ndims == 0 || dim_lists[dl][0] == -1};
                        ASSERT_TRUE(
                            reduce_signature(name, in_sbp[0], out_sbp[0], 2, reduced, keep));
                        for (int k = 0; k < 4; k++) /* the input's own signature is kept */
                            if (reduce_signature(name, l[a], l[k], 2, reduced, keep))
                                ASSERT_TRUE(tsr_sbp_equal(in_sbp[0], l[a]));
                        tsr_global_tensor *r = NULL;
                        ASSERT_OK(
                            tsr_global_reduce(op, x, dim_lists[dl], ndims, keep, want_dt, &r));
                        ASSERT_TRUE(r && tsr_sbp_equal(tsr_global_tensor_sbp(r)[0], out_sbp[0]));
                        tsr_tensor *w = whole(dt, 2, shapes[sh], 1), *ref = NULL;
                        tsr_status st;
                        if (!strcmp(name, "sum"))
                            st = tsr_sum(w, dim_lists[dl], ndims, keep, want_dt, &ref);
                        else if (!strcmp(name, "mean"))
                            st = tsr_mean(w, dim_lists[dl], ndims, keep, want_dt, &ref);
                        else if (!strcmp(name, "nansum"))
                            st = tsr_nansum(w, dim_lists[dl], ndims, keep, want_dt, &ref);
                        else if (!strcmp(name, "prod"))
                            st = tsr_prod(w, dim_lists[dl], ndims, keep, want_dt, &ref);
                        else if (!strcmp(name, "amax"))
                            st = tsr_amax(w, dim_lists[dl], ndims, keep, &ref);
                        else if (!strcmp(name, "amin"))
                            st = tsr_amin(w, dim_lists[dl], ndims, keep, &ref);
                        else if (!strcmp(name, "all"))
                            st = tsr_all(w, dim_lists[dl], ndims, keep, &ref);
                        else if (!strcmp(name, "any"))
                            st = tsr_any(w, dim_lists[dl], ndims, keep, &ref);
                        else if (!strcmp(name, "argmax"))
                            st = tsr_argmax(w, dim_lists[dl], ndims, keep, &ref);
                        else
                            st = tsr_argmin(w, dim_lists[dl], ndims, keep, &ref);
                        ASSERT_OK(st);
                        char what[96];
                        snprintf(what, sizeof(what), "%s of [%lld, %lld] %s dims %d%s keepdim %d",
                                 name, (long long)shapes[sh][0], (long long)shapes[sh][1],
                                 kind_text(l[a]), ndims ? (int)dim_lists[dl][0] : 99,
                                 ndims ? "" : " (all)", keep);
                        ASSERT_TRUE(r && ref && matches(r, ref, what));
                        tsr_tensor_release(ref);
                        tsr_tensor_release(w);
                        tsr_global_tensor_release(r);
                        tsr_global_tensor_release(x);
                    }
}

/* Reductions' errors: PyTorch's, from the logical shape, and the global
 * ones. */
static void test_reduce_errors(void)
{
    const char *add = "add", *sum = "sum", *amax = "amax", *mean = "mean";
    static const int64_t m[2] = {5, 3}, e[2] = {0, 3};
    const tsr_sbp S0 = tsr_sbp_split(0), B = tsr_sbp_broadcast();
    tsr_global_tensor *x = operand(TSR_INT64, 2, m, world_list, &S0, 1), *r = NULL;
    tsr_global_tensor *empty = operand(TSR_FLOAT32, 2, e, world_list, &B, 1);
    const int64_t two[1] = {2}, zero[1] = {0};
    ASSERT_FAIL(tsr_global_reduce(add, x, NULL, 0, false, TSR_NO_DTYPE, &r),
                TSR_ERR_INVALID_ARGUMENT,
                "global reduce: \"add\" is not a reduction (sum, mean, nansum, prod, nanmean, "
                "amax, amin, all, any, argmax, argmin)");
    ASSERT_FAIL(tsr_global_reduce(sum, x, two, 1, false, TSR_NO_DTYPE, &r), TSR_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    ASSERT_FAIL(tsr_global_reduce(amax, x, NULL, 0, false, TSR_FLOAT64, &r),
                TSR_ERR_INVALID_ARGUMENT, "global amax: takes no dtype");
    ASSERT_FAIL(tsr_global_reduce(mean, x, NULL, 0, false, TSR_NO_DTYPE, &r), TSR_ERR_RUNTIME,
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                "point or complex dtype. Got: Long");
    ASSERT_FAIL(tsr_global_reduce(amax, empty, zero, 1, false, TSR_NO_DTYPE, &r), TSR_ERR_INDEX,
                "amax(): Expected reduction dim 0 to have non-zero size.");
    ASSERT_TRUE(r == NULL);
    tsr_global_tensor_release(empty);
    tsr_global_tensor_release(x);
}

/* out= into every signature of out (kept: computed straight into it where
 * the result has it, boxed otherwise), into a float64 out, in place from
 * both sides; the refusals: a dtype out cannot take, another shape,
 * another placement. */
static void test_out_and_in_place(void)
{
    tsr_op add, mul;
    ASSERT_OK(tsr_op_from_name("add", &add));
    ASSERT_OK(tsr_op_from_name("mul", &mul));
    static const int64_t shape[2] = {5, 3}, three[1] = {3};
    const tsr_sbp *l = four_sbps();
    const spec sp[2] = {{TSR_FLOAT32, 2, shape, 1}, {TSR_FLOAT32, 2, shape, 2}};
    for (int i = 0; i < 4; i++)
        for (int o = 0; o < 4; o++) {
            char what[96];
            snprintf(what, sizeof(what), "add(out=) %s into %s", kind_text(l[i]), kind_text(l[o]));
            tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[i], 1);
            tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, world_list, &l[i], 2);
            tsr_global_tensor *out = operand(TSR_FLOAT32, 2, shape, world_list, &l[o], 3);
            const tsr_global_tensor *in[2] = {x, y};
            ASSERT_OK(tsr_global_elementwise_out(add, in, 2, out));
            ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(out)[0], l[o]));
            check_result(out, add, false, sp, 2, what);
            tsr_global_tensor_release(out);
            tsr_global_tensor_release(y);
            tsr_global_tensor_release(x);
        }

    /* float32 inputs into a float64 out: computed in float32, then cast. */
    tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[0], 1);
    tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, world_list, &l[2], 2);
    tsr_global_tensor *o64 = operand(TSR_FLOAT64, 2, shape, world_list, &l[1], 3);
    const tsr_global_tensor *xy[2] = {x, y};
    ASSERT_OK(tsr_global_elementwise_out(mul, xy, 2, o64));
    tsr_tensor *t[2] = {whole(TSR_FLOAT32, 2, shape, 1), whole(TSR_FLOAT32, 2, shape, 2)}, *ref;
    tsr_tensor_options f64 = {.has_dtype = true, .dtype = TSR_FLOAT64};
    ASSERT_OK(tsr_tensor_empty(NULL, 2, shape, &f64, &ref));
    ASSERT_OK(tsr_elementwise(mul, (const tsr_tensor *const *)t, 2, ref, NULL));
    ASSERT_TRUE(matches(o64, ref, "mul(out=float64)"));
    tsr_tensor_release(ref);
    tsr_tensor_release(t[0]);
    tsr_tensor_release(t[1]);

    /* The refusals, before anything moves. */
    tsr_global_tensor *i64 = operand(TSR_INT64, 2, shape, world_list, &l[0], 3);
    tsr_status st = tsr_global_elementwise_out(add, xy, 2, i64);
    ASSERT_EQ(st, TSR_ERR_RUNTIME);
    ASSERT_TRUE(strstr(tsr_last_error(), "can't be cast to the desired output type Long") != NULL);
    tsr_global_tensor *short_out = operand(TSR_FLOAT32, 1, three, world_list, &l[2], 3);
    ASSERT_FAIL(tsr_global_elementwise_out(add, xy, 2, short_out), TSR_ERR_RUNTIME,
                "output with shape [3] doesn't match the broadcast shape [5, 3]");
    /* A local out= of no elements would be resized; a global one is not. */
    static const int64_t none[1] = {0};
    tsr_global_tensor *empty_out = operand(TSR_FLOAT32, 1, none, world_list, &l[2], 3);
    ASSERT_FAIL(tsr_global_elementwise_out(add, xy, 2, empty_out), TSR_ERR_RUNTIME,
                "global add: out= has the logical shape [0] but the result's is [5, 3] (a global "
                "out= is not resized)");
    tsr_global_tensor_release(empty_out);
    tsr_placement *grid = world_as_grid();
    ASSERT_TRUE(grid != NULL);
    const tsr_sbp BB[2] = {l[2], l[2]};
    tsr_global_tensor *on_grid = operand(TSR_FLOAT32, 2, shape, grid, BB, 3);
    char pa[256], pb[256], want[700];
    two_reprs(world_list, grid, pa, pb);
    snprintf(want, sizeof(want),
             "global add: out= is on %s, the inputs on %s: expected all tensors to be on the same "
             "placement",
             pb, pa);
    ASSERT_FAIL(tsr_global_elementwise_out(add, xy, 2, on_grid), TSR_ERR_RUNTIME, want);

    /* In place: S(0) += B keeps S(0) (B sliced, written into x's shard);
     * B += S(0) computes S(0) and gathers it back into y's. */
    const tsr_global_tensor *only_y[1] = {y}, *only_x[1] = {x};
    ASSERT_OK(tsr_global_elementwise_(add, x, only_y, 1));
    ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(x)[0], l[0]));
    check_result(x, add, false, sp, 2, "add_ S(0) += B");
    /* y (seed 2) += x (now seed 1 + seed 2): a second sum. */
    ASSERT_OK(tsr_global_elementwise_(add, y, only_x, 1));
    ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(y)[0], l[2]));
    tsr_tensor *w1 = whole(TSR_FLOAT32, 2, shape, 1), *w2 = whole(TSR_FLOAT32, 2, shape, 2);
    tsr_tensor *twice = NULL;
    ASSERT_OK(tsr_add(w1, w2, tsr_scalar_int(1), &twice));
    ASSERT_OK(tsr_add_(twice, w2, tsr_scalar_int(1)));
    ASSERT_TRUE(matches(y, twice, "add_ B += S(0)"));
    ASSERT_FAIL(tsr_global_elementwise_(add, x, NULL, 1), TSR_ERR_INVALID_ARGUMENT,
                "global elementwise: in place needs self and at most 2 others");

    tsr_tensor_release(twice);
    tsr_tensor_release(w1);
    tsr_tensor_release(w2);
    tsr_global_tensor_release(on_grid);
    tsr_placement_destroy(grid);
    tsr_global_tensor_release(short_out);
    tsr_global_tensor_release(i64);
    tsr_global_tensor_release(o64);
    tsr_global_tensor_release(y);
    tsr_global_tensor_release(x);
}

int main(void)
{
    if (!open_world())
        return 1;
    test_binary_table();
    test_broadcasting();
    test_unary();
    test_where();
    test_grid_add();
    test_subset();
    test_matmul();
    test_matmul_batched();
    test_errors();
    test_reduce();
    test_reduce_errors();
    test_out_and_in_place();
    return finish();
}
