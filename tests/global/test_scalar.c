/* Python numbers beside global tensors under mpirun with 1, 2 and 4 ranks
 * (tsr_global_elementwise_scalar and its out=, in-place and _sbp forms):
 * the deduction for an input of each SBP (S(0), S(1), B, P of an uneven
 * [5, 3]; a number is B, splits and broadcasts pass through, P stays P
 * only for mul and div by the number), PyTorch's promotion of a wrapped
 * number, 2-D placements, out= and in place, and the errors. Each result
 * is checked against the same computation on one rank, which is
 * libtessera's tsr_elementwise_scalar (ops-elementwise-scalar checks it
 * against the named number-taking functions: tsr_add_scalar, ...). */
#include <math.h>
#include <mpi.h>

#include "support_ops.h"

static tsr_op op_named(const char *name)
{
    tsr_op op = 0;
    ASSERT_OK(tsr_op_from_name(name, &op));
    return op;
}

/* One operand of a computation: a logical tensor (its spec) or a number. */
typedef struct arg {
    bool number;
    tsr_scalar value;
    spec t;
} arg;

/* The same operation on this rank alone, on the whole tensors. */
static tsr_tensor *reference(tsr_op op, const arg *in, int n)
{
    tsr_tensor *t[3] = {NULL, NULL, NULL}, *ref = NULL;
    tsr_scalar nums[3];
    for (int j = 0; j < n; j++) {
        nums[j] = in[j].value;
        if (!in[j].number)
            t[j] = whole(in[j].t.dtype, in[j].t.ndim, in[j].t.shape, in[j].t.seed);
    }
    ASSERT_OK(
        tsr_elementwise_scalar(op, (const tsr_tensor *const *)t, nums, (size_t)n, NULL, &ref));
    for (int j = 0; j < n; j++)
        tsr_tensor_release(t[j]);
    return ref;
}

/* The operation on global operands of signatures sbp[j] (1-D: one entry
 * each; numbers ignore theirs): the deduction, the result's signature
 * and its values. want_in/want_out: the expected signatures (NULL: any
 * without P). */
static void scalar_case(const char *name, const arg *in, int n, const tsr_placement *p,
                        const tsr_sbp (*sbp)[2], const tsr_sbp *want_out)
{
    tsr_op op = op_named(name);
    int pd = tsr_placement_ndim(p);
    tsr_global_tensor *g[3] = {NULL, NULL, NULL};
    tsr_scalar nums[3];
    char what[256];
    size_t len = (size_t)snprintf(what, sizeof(what), "%s(", name);
    for (int j = 0; j < n; j++) {
        nums[j] = in[j].value;
        if (!in[j].number)
            g[j] = operand(in[j].t.dtype, in[j].t.ndim, in[j].t.shape, p, sbp[j], in[j].t.seed);
        if (len < sizeof(what))
            len += in[j].number
                       ? (size_t)snprintf(what + len, sizeof(what) - len, "%snumber", j ? ", " : "")
                       : (size_t)snprintf(what + len, sizeof(what) - len, "%s%s %s", j ? ", " : "",
                                          tsr_dtype_name(in[j].t.dtype), kind_text(sbp[j][0]));
    }
    if (len < sizeof(what))
        snprintf(what + len, sizeof(what) - len, ")%s", pd == 2 ? " on a grid" : "");
    const tsr_global_tensor *const *gi = (const tsr_global_tensor *const *)g;
    tsr_sbp in_sbp[3 * TSR_PLACEMENT_MAX_DIMS], out_sbp[TSR_PLACEMENT_MAX_DIMS];
    ASSERT_OK(tsr_global_elementwise_scalar_sbp(op, gi, nums, (size_t)n, in_sbp, out_sbp));
    for (int j = 0; j < n; j++)
        for (int a = 0; a < pd && in[j].number; a++)
            ASSERT_TRUE(in_sbp[j * TSR_PLACEMENT_MAX_DIMS + a].kind == TSR_SBP_BROADCAST);
    tsr_global_tensor *r = NULL;
    tsr_status st = tsr_global_elementwise_scalar(op, gi, nums, (size_t)n, &r);
    if (st)
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, tsr_last_error());
    ASSERT_EQ(st, TSR_OK);
    for (int a = 0; r && a < pd; a++) {
        tsr_sbp got = tsr_global_tensor_sbp(r)[a];
        ASSERT_TRUE(tsr_sbp_equal(got, out_sbp[a]));
        bool ok = want_out ? tsr_sbp_equal(got, want_out[a]) : got.kind != TSR_SBP_PARTIAL_SUM;
        if (!ok)
            fprintf(stderr, "rank %d: %s: deduced %s on dim %d\n", rank, what, kind_text(got), a);
        ASSERT_TRUE(ok);
    }
    tsr_tensor *ref = reference(op, in, n);
    ASSERT_TRUE(r && ref && matches(r, ref, what));
    tsr_tensor_release(ref);
    tsr_global_tensor_release(r);
    for (int j = 0; j < n; j++)
        tsr_global_tensor_release(g[j]);
}

static const int64_t shape[2] = {5, 3};

static arg tensor_arg(tsr_dtype dtype, int seed)
{
    arg a = {.number = false, .value = tsr_scalar_int(0), .t = {dtype, 2, shape, seed}};
    return a;
}

static arg number_arg(tsr_scalar value)
{
    arg a = {.number = true, .value = value, .t = {TSR_FLOAT32, 0, NULL, 0}};
    return a;
}

/* A binary operation of a tensor and a number, the number first or
 * second, for an input of each 1-D signature: S(i) and B are kept, P is
 * kept by mul and div by the number and reduce-scattered to S(0) (the
 * cheapest conversion to a signature without P) otherwise. */
static void test_binary(void)
{
    static const struct {
        const char *name;
        bool first; /* the number is the first input */
        tsr_scalar value;
        tsr_dtype dtype;
        int seed;
        bool keeps_p;
    } cases[] = {
        {"add", false, {TSR_INT64, {.i = 2}}, TSR_FLOAT32, 1, false},
        {"add", false, {TSR_INT64, {.i = 300}}, TSR_INT8, 1, false},    /* int8, wrapping */
        {"sub", false, {TSR_FLOAT64, {.f = 2.5}}, TSR_INT32, 1, false}, /* float32 */
        {"sub", true, {TSR_INT64, {.i = 2}}, TSR_FLOAT32, 1, false},    /* 2 - x */
        {"mul", false, {TSR_INT64, {.i = 3}}, TSR_INT32, 1, true},
        {"mul", true, {TSR_FLOAT64, {.f = 0.5}}, TSR_FLOAT32, 2, true}, /* 0.5 * x */
        {"mul", false, {TSR_BOOL, {.b = true}}, TSR_FLOAT64, 1, true},
        {"div", false, {TSR_INT64, {.i = 4}}, TSR_INT32, 1, true},    /* true division */
        {"div", true, {TSR_INT64, {.i = 2}}, TSR_FLOAT64, -1, false}, /* 2 / x */
        {"div_floor", false, {TSR_INT64, {.i = 2}}, TSR_INT64, 1, false},
        {"pow", false, {TSR_INT64, {.i = 2}}, TSR_FLOAT32, 1, false}, /* x ** 2 */
        {"pow", true, {TSR_INT64, {.i = 2}}, TSR_FLOAT64, 1, false},  /* 2 ** x */
        {"eq", false, {TSR_INT64, {.i = 1}}, TSR_FLOAT32, 1, false},
        {"maximum", false, {TSR_FLOAT64, {.f = 0.5}}, TSR_FLOAT32, 1, false},
        {"remainder", false, {TSR_INT64, {.i = 3}}, TSR_INT32, 1, false},
        {"bitwise_and", false, {TSR_INT64, {.i = 6}}, TSR_INT64, 1, false},
    };
    const tsr_sbp *l = four_sbps();
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (int a = 0; a < 4; a++) {
            arg in[2];
            in[cases[c].first ? 1 : 0] = tensor_arg(cases[c].dtype, cases[c].seed);
            in[cases[c].first ? 0 : 1] = number_arg(cases[c].value);
            const tsr_sbp sbp[2][2] = {{l[a], l[a]}, {l[a], l[a]}};
            tsr_sbp want =
                l[a].kind != TSR_SBP_PARTIAL_SUM || cases[c].keeps_p ? l[a] : tsr_sbp_split(0);
            scalar_case(cases[c].name, in, 2, world_list, sbp, &want);
        }
}

/* where with numbers for either or both values, clamp with number
 * bounds, lerp with a number weight: nothing partial survives them. */
static void test_ternary(void)
{
    const tsr_sbp *l = four_sbps();
    for (int a = 0; a < 4; a++) {
        tsr_sbp cs = l[a].kind == TSR_SBP_PARTIAL_SUM ? tsr_sbp_broadcast() : l[a];
        const tsr_sbp sbp[3][2] = {{cs, cs}, {l[a], l[a]}, {l[(a + 1) % 4], l[(a + 1) % 4]}};
        arg w[3] = {tensor_arg(TSR_BOOL, 3), tensor_arg(TSR_FLOAT32, 1),
                    number_arg(tsr_scalar_float(0.0))};
        scalar_case("where", w, 3, world_list, sbp, NULL); /* where(c, x, 0.) */
        w[1] = number_arg(tsr_scalar_int(7));
        w[2] = tensor_arg(TSR_INT32, 2);
        const tsr_sbp sbp2[3][2] = {{cs, cs}, {l[a], l[a]}, {l[a], l[a]}};
        scalar_case("where", w, 3, world_list, sbp2, NULL); /* where(c, 7, y) */
        w[2] = number_arg(tsr_scalar_float(-1.5));
        scalar_case("where", w, 3, world_list, sbp, NULL); /* where(c, 7, -1.5) */
        arg c[3] = {tensor_arg(TSR_FLOAT32, 1), number_arg(tsr_scalar_int(-1)),
                    number_arg(tsr_scalar_float(2.5))};
        scalar_case("clamp", c, 3, world_list, sbp + 1, NULL);
        scalar_case("clamp_min", c, 2, world_list, sbp + 1, NULL);
        arg e[3] = {tensor_arg(TSR_FLOAT32, 1), tensor_arg(TSR_FLOAT32, 2),
                    number_arg(tsr_scalar_float(0.25))};
        scalar_case("lerp", e, 3, world_list, sbp + 1, NULL);
    }
}

/* A 2 x 2 grid (4 ranks): mul keeps both dims, a P dim included; add
 * reduces each P dim and keeps the others. */
static void test_grid(void)
{
    if (world != 4)
        return;
    int64_t hg[2] = {2, 2};
    int32_t rg[4] = {0, 1, 2, 3};
    tsr_placement *grid = NULL;
    ASSERT_OK(tsr_placement_create(TSR_DEVICE_CPU, 2, hg, rg, &grid));
    const tsr_sbp S0 = tsr_sbp_split(0), S1 = tsr_sbp_split(1), B = tsr_sbp_broadcast(),
                  P = tsr_sbp_partial_sum();
    const tsr_sbp sigs[][2] = {{S0, S1}, {S0, P}, {P, S1}, {B, P}, {P, P}, {S1, B}};
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
        const tsr_sbp sbp[2][2] = {{sigs[k][0], sigs[k][1]}, {B, B}};
        arg in[2] = {tensor_arg(TSR_FLOAT32, 1), number_arg(tsr_scalar_int(3))};
        scalar_case("mul", in, 2, grid, sbp, sigs[k]);
        in[1] = number_arg(tsr_scalar_float(0.5));
        scalar_case("add", in, 2, grid, sbp, NULL);
        scalar_case("div", in, 2, grid, sbp, sigs[k]);
    }
    tsr_placement_destroy(grid);
}

/* out= into each signature, in place keeping self's (a P self stays P
 * for add_ too: the sum is boxed back), and out='s refusals. */
static void test_out_and_in_place(void)
{
    tsr_op add = op_named("add"), mul = op_named("mul"), where = op_named("where");
    const tsr_sbp *l = four_sbps();
    const tsr_scalar two[2] = {tsr_scalar_int(0), tsr_scalar_int(2)};
    const arg ref_in[2] = {tensor_arg(TSR_FLOAT32, 1), number_arg(tsr_scalar_int(2))};
    for (int i = 0; i < 4; i++)
        for (int o = 0; o < 4; o++) {
            char what[96];
            snprintf(what, sizeof(what), "add(out=) %s + 2 into %s", kind_text(l[i]),
                     kind_text(l[o]));
            tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[i], 1);
            tsr_global_tensor *out = operand(TSR_FLOAT32, 2, shape, world_list, &l[o], 3);
            const tsr_global_tensor *in[2] = {x, NULL};
            ASSERT_OK(tsr_global_elementwise_scalar_out(add, in, two, 2, out));
            ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(out)[0], l[o]));
            tsr_tensor *ref = reference(add, ref_in, 2);
            ASSERT_TRUE(matches(out, ref, what));
            tsr_tensor_release(ref);
            tsr_global_tensor_release(out);
            tsr_global_tensor_release(x);
        }
    /* In place from each signature: x.mul_(3), then x.add_(2). */
    for (int i = 0; i < 4; i++) {
        tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[i], 1);
        const tsr_global_tensor *none[1] = {NULL};
        const tsr_scalar three = tsr_scalar_int(3), plus = tsr_scalar_int(2);
        ASSERT_OK(tsr_global_elementwise_scalar_(mul, x, none, &three, 1));
        ASSERT_OK(tsr_global_elementwise_scalar_(add, x, none, &plus, 1));
        ASSERT_TRUE(tsr_sbp_equal(tsr_global_tensor_sbp(x)[0], l[i]));
        tsr_tensor *w = whole(TSR_FLOAT32, 2, shape, 1);
        ASSERT_OK(tsr_mul_scalar_(w, three));
        ASSERT_OK(tsr_add_scalar_(w, plus, tsr_scalar_int(1)));
        ASSERT_TRUE(matches(x, w, "x.mul_(3).add_(2)"));
        tsr_tensor_release(w);
        tsr_global_tensor_release(x);
    }
    /* Refusals: a result out cannot take; where's number forms have no
     * out=, as in PyTorch 1.13. */
    tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[0], 1);
    tsr_global_tensor *i64 = operand(TSR_INT64, 2, shape, world_list, &l[0], 3);
    tsr_global_tensor *c = operand(TSR_BOOL, 2, shape, world_list, &l[0], 3);
    const tsr_global_tensor *xn[2] = {x, NULL}, *cxn[3] = {c, x, NULL};
    tsr_status st = tsr_global_elementwise_scalar_out(add, xn, two, 2, i64);
    ASSERT_EQ(st, TSR_ERR_RUNTIME);
    ASSERT_TRUE(strstr(tsr_last_error(), "can't be cast to the desired output type Long") != NULL);
    const tsr_scalar zero[3] = {tsr_scalar_int(0), tsr_scalar_int(0), tsr_scalar_float(0)};
    ASSERT_FAIL(tsr_global_elementwise_scalar_out(where, cxn, zero, 3, x), TSR_ERR_INVALID_ARGUMENT,
                "where: the forms with a Python number have no out=, as in PyTorch 1.13");
    tsr_global_tensor_release(c);
    tsr_global_tensor_release(i64);
    tsr_global_tensor_release(x);
}

static void test_errors(void)
{
    tsr_op add = op_named("add"), eq = op_named("eq"), pow = op_named("pow"),
           where = op_named("where"), addcmul = op_named("addcmul");
    const tsr_sbp S0 = tsr_sbp_split(0), P = tsr_sbp_partial_sum();
    tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &S0, 1);
    tsr_global_tensor *ix = operand(TSR_INT32, 2, shape, world_list, &S0, 1);
    tsr_global_tensor *pb = operand(TSR_BOOL, 2, shape, world_list, &P, 1), *r = NULL;
    const tsr_scalar nums[3] = {tsr_scalar_int(1), tsr_scalar_int(-1), tsr_scalar_int(2)};
    const tsr_global_tensor *none[2] = {NULL, NULL}, *xn[2] = {x, NULL}, *ixn[2] = {ix, NULL};
    const tsr_global_tensor *nxx[3] = {NULL, x, x}, *xnx[3] = {x, NULL, x}, *pbn[2] = {pb, NULL};

    ASSERT_FAIL(tsr_global_elementwise_scalar(add, none, nums, 2, &r), TSR_ERR_INVALID_ARGUMENT,
                "global add: no global tensor among the inputs");
    /* Without numbers, a NULL input stays an error. */
    ASSERT_FAIL(tsr_global_elementwise(add, xn, 2, &r), TSR_ERR_INVALID_ARGUMENT,
                "global add: input 1 is NULL");
    /* The local operation's refusals, from the logical shapes. */
    ASSERT_FAIL(tsr_global_elementwise_scalar(where, nxx, nums, 3, &r), TSR_ERR_INVALID_ARGUMENT,
                "where takes no Python number as input 0");
    ASSERT_FAIL(tsr_global_elementwise_scalar(addcmul, xnx, nums, 3, &r), TSR_ERR_INVALID_ARGUMENT,
                "addcmul takes no Python number as input 1");
    ASSERT_FAIL(tsr_global_elementwise_scalar(pow, ixn, nums, 2, &r), TSR_ERR_RUNTIME,
                "Integers to negative integer powers are not allowed.");
    tsr_scalar odd[2] = {tsr_scalar_int(0), tsr_scalar_int(2)};
    odd[1].kind = TSR_INT32;
    ASSERT_FAIL(tsr_global_elementwise_scalar(add, xn, odd, 2, &r), TSR_ERR_INVALID_ARGUMENT,
                "add: input 1 is a number of no kind (expected bool, int64, float64 or "
                "complex128)");
    /* A partial sum of bools cannot be reduced: the signatures named, the
     * number among the inputs. */
    ASSERT_FAIL(tsr_global_elementwise_scalar(eq, pbn, nums, 2, &r), TSR_ERR_NOT_SUPPORTED,
                "global eq: no SBP signature applies to inputs (oneflow.sbp.partial_sum,) bool, a "
                "number: a partial sum of a dtype with no sum cannot be reduced (signatures: (B, "
                "B) -> B; (S(0), B) -> S(0); (S(1), B) -> S(1))");
    /* Two placements, a number between them: the message names inputs 0
     * and 2. */
    tsr_placement *grid = world_as_grid();
    ASSERT_TRUE(grid != NULL);
    const tsr_sbp BB[2] = {tsr_sbp_broadcast(), tsr_sbp_broadcast()};
    tsr_global_tensor *c = operand(TSR_BOOL, 2, shape, world_list, &S0, 3);
    tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, grid, BB, 2);
    const tsr_global_tensor *cny[3] = {c, NULL, y};
    char pa[256], pg[256], want[700];
    tsr_placement_repr(world_list, pa, sizeof(pa));
    tsr_placement_repr(grid, pg, sizeof(pg));
    snprintf(want, sizeof(want),
             "global where: expected all tensors to be on the same placement, but found at least "
             "two placements, %s (input 0) and %s (input 2)",
             pa, pg);
    ASSERT_FAIL(tsr_global_elementwise_scalar(where, cny, nums, 3, &r), TSR_ERR_RUNTIME, want);
    ASSERT_TRUE(r == NULL);
    tsr_global_tensor_release(y);
    tsr_global_tensor_release(c);
    tsr_placement_destroy(grid);
    tsr_global_tensor_release(pb);
    tsr_global_tensor_release(ix);
    tsr_global_tensor_release(x);
}

int main(void)
{
    if (!open_world())
        return 1;
    test_binary();
    test_ternary();
    test_grid();
    test_out_and_in_place();
    test_errors();
    return finish();
}
