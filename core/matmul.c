/* The matrix products' shape rules (see matmul.h). Every message is
 * PyTorch 1.13's, character for character; the conformance tables in
 * tests/matmul/data hold them. */
#include "core/matmul.h"

#include <string.h>

#include "core/error.h"

static const char *dtype_name(tsr_dtype d)
{
    const char *name = tsr_dtype_message_name(d);
    return name ? name : "?";
}

static tsr_status shapes_cannot_be_multiplied(const tsr_geometry *a, const tsr_geometry *b)
{
    return tsr__fail(TSR_ERR_RUNTIME,
                     "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0],
                     (long long)b->sizes[1]);
}

tsr_status tsr__matmul_check_mm(const tsr_geometry *self, const tsr_geometry *mat2)
{
    if (self->ndim != 2)
        return tsr__fail(TSR_ERR_RUNTIME, "self must be a matrix");
    if (mat2->ndim != 2)
        return tsr__fail(TSR_ERR_RUNTIME, "mat2 must be a matrix");
    if (self->sizes[1] != mat2->sizes[0])
        return shapes_cannot_be_multiplied(self, mat2);
    return TSR_OK;
}

tsr_status tsr__matmul_check_bmm(const tsr_geometry *batch1, const tsr_geometry *batch2)
{
    if (batch1->ndim != 3)
        return tsr__fail(TSR_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (batch2->ndim != 3)
        return tsr__fail(TSR_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (batch2->sizes[0] != batch1->sizes[0] || batch2->sizes[1] != batch1->sizes[2])
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected size for first two dimensions of batch2 tensor to be: [%lld, "
                         "%lld] but got: [%lld, %lld].",
                         (long long)batch1->sizes[0], (long long)batch1->sizes[2],
                         (long long)batch2->sizes[0], (long long)batch2->sizes[1]);
    return TSR_OK;
}

tsr_status tsr__matmul_check_addmm(tsr_dtype self_dtype, tsr_dtype mat1_dtype,
                                   const tsr_geometry *mat1, tsr_dtype mat2_dtype,
                                   const tsr_geometry *mat2)
{
    if (self_dtype != mat2_dtype)
        return tsr__fail(TSR_ERR_RUNTIME, "self and mat2 must have the same dtype");
    if (mat1_dtype != mat2_dtype)
        return tsr__fail(TSR_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
    if (mat1->ndim != 2)
        return tsr__fail(TSR_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", mat1->ndim);
    if (mat2->ndim != 2)
        return tsr__fail(TSR_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", mat2->ndim);
    if (mat1->sizes[1] != mat2->sizes[0])
        return shapes_cannot_be_multiplied(mat1, mat2);
    return TSR_OK;
}

tsr_status tsr__matmul_check_dot(tsr_dtype self_dtype, const tsr_geometry *self,
                                 tsr_dtype other_dtype, const tsr_geometry *other)
{
    if (self->ndim != 1 || other->ndim != 1)
        return tsr__fail(TSR_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                         self->ndim, other->ndim);
    if (self_dtype != other_dtype)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "dot : expected both vectors to have same dtype, but found %s and %s",
                         dtype_name(self_dtype), dtype_name(other_dtype));
    if (self->sizes[0] != other->sizes[0])
        return tsr__fail(TSR_ERR_RUNTIME,
                         "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have "
                         "the same number of elements, but got %lld and %lld elements "
                         "respectively",
                         (long long)self->sizes[0], (long long)other->sizes[0],
                         (long long)self->sizes[0], (long long)other->sizes[0]);
    return TSR_OK;
}

tsr_status tsr__matmul_check_mv(const tsr_geometry *self, const tsr_geometry *vec)
{
    if (self->ndim == 0)
        return tsr__fail(TSR_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    if (self->ndim != 2 || vec->ndim != 1)
        return tsr__fail(TSR_ERR_RUNTIME, "vector + matrix @ vector expected, got 1, %d, %d",
                         self->ndim, vec->ndim);
    if (self->sizes[1] != vec->sizes[0])
        return tsr__fail(TSR_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld",
                         (long long)self->sizes[0], (long long)self->sizes[0],
                         (long long)self->sizes[1], (long long)vec->sizes[0]);
    return TSR_OK;
}

tsr_status tsr__matmul_check_outer(const tsr_geometry *self, const tsr_geometry *vec2)
{
    if (self->ndim != 1)
        return tsr__fail(TSR_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D",
                         self->ndim);
    if (vec2->ndim != 1)
        return tsr__fail(TSR_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D",
                         vec2->ndim);
    return TSR_OK;
}

/* PyTorch's should_fold(t1, dim2): t1 of 3 or more dims against a vector
 * or a matrix, unless t1 is a 3-D batch of transposed matrices over a
 * batch stride of whole matrices (bmm reads those without a copy, a fold
 * would need one). */
static bool should_fold(const tsr_geometry *t1, int dim2)
{
    if (t1->ndim < 3 || (dim2 != 1 && dim2 != 2))
        return false;
    return !(t1->ndim == 3 && dim2 == 2 && t1->strides[2] != 1 &&
             t1->strides[0] == t1->sizes[1] * t1->sizes[2]);
}

static void push(tsr__matmul_plan *p, int64_t size)
{
    p->out_sizes[p->out_ndim++] = size;
}

tsr_status tsr__matmul_plan_for(const tsr_geometry *a, const tsr_geometry *b,
                                tsr__matmul_plan *plan)
{
    int da = a->ndim, db = b->ndim;
    memset(plan, 0, sizeof *plan);
    if (da == 0 || db == 0)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "both arguments to matmul need to be at least 1D, but they are %dD and "
                         "%dD",
                         da, db);
    if (da <= 2 && db <= 2) {
        static const tsr__matmul_path small[2][2] = {
            {TSR__MATMUL_DOT, TSR__MATMUL_ROW_MM},
            {TSR__MATMUL_MV, TSR__MATMUL_MM},
        };
        plan->path = small[da - 1][db - 1];
        if (da == 2)
            push(plan, a->sizes[0]);
        if (db == 2)
            push(plan, b->sizes[1]);
        return TSR_OK;
    }
    if (should_fold(a, db) || should_fold(b, da)) {
        bool transpose = db > da;
        const tsr_geometry *big = transpose ? b : a;
        plan->path = transpose ? TSR__MATMUL_FOLD_T : TSR__MATMUL_FOLD;
        /* big's sizes but its last (the transposed problem's: all but the
         * last two, then its last), then the other operand's columns */
        for (int d = 0; d < big->ndim - 2; d++)
            push(plan, big->sizes[d]);
        if (transpose) {
            if (da == 2)
                push(plan, a->sizes[0]);
            push(plan, b->sizes[db - 1]);
        } else {
            push(plan, a->sizes[da - 2]);
            if (db == 2)
                push(plan, b->sizes[1]);
        }
        return TSR_OK;
    }
    plan->path = TSR__MATMUL_BATCH;
    plan->n = da > 1 ? a->sizes[da - 2] : 1;
    plan->m1 = a->sizes[da - 1];
    plan->m2 = db > 1 ? b->sizes[db - 2] : b->sizes[0];
    plan->p = db > 1 ? b->sizes[db - 1] : 1;
    int ba = da > 2 ? da - 2 : 0, bb = db > 2 ? db - 2 : 0;
    tsr_status st =
        tsr_broadcast_shapes(ba, a->sizes, bb, b->sizes, &plan->batch_ndim, plan->batch);
    if (st != TSR_OK)
        return st;
    for (int d = 0; d < plan->batch_ndim; d++)
        push(plan, plan->batch[d]);
    if (da > 1)
        push(plan, plan->n);
    if (db > 1)
        push(plan, plan->p);
    return TSR_OK;
}
