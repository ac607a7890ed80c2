/* Internal: the shape rules of the matrix products (mm, bmm, addmm, dot,
 * mv, outer, matmul), PyTorch 1.13's, with its messages.
 *
 * Pure functions of sizes, strides and dtypes: each check returns TSR_OK
 * or fails with PyTorch's status and message (core/error.h), and
 * tsr__matmul_plan decides which product torch.matmul runs for two
 * shapes. Nothing here allocates or touches an element; libclient/linalg.c
 * applies the rules to tensors. The order of the checks inside each
 * function is PyTorch's, so that a call breaking two rules reports the
 * one PyTorch reports. */
#ifndef TESSERA_CORE_MATMUL_H
#define TESSERA_CORE_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/geometry.h"
#include "tessera/status.h"

/* torch.mm(self, mat2): both matrices ("self must be a matrix", "mat2
 * must be a matrix"), inner sizes equal ("mat1 and mat2 shapes cannot be
 * multiplied (2x3 and 4x5)"). */
tsr_status tsr__matmul_check_mm(const tsr_geometry *self, const tsr_geometry *mat2);

/* torch.bmm(batch1, batch2): 3-D each ("batch1 must be a 3D tensor"),
 * batch2's first two sizes [batch, k] ("Expected size for first two
 * dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."). */
tsr_status tsr__matmul_check_bmm(const tsr_geometry *batch1, const tsr_geometry *batch2);

/* torch.addmm(self, mat1, mat2)'s checks before the product: equal dtypes
 * ("self and mat2 must have the same dtype", "mat1 and mat2 must have the
 * same dtype"), matrices ("mat1 must be a matrix, got 1-D tensor"), inner
 * sizes (mm's message). self's shape is expand's business. */
tsr_status tsr__matmul_check_addmm(tsr_dtype self_dtype, tsr_dtype mat1_dtype,
                                   const tsr_geometry *mat1, tsr_dtype mat2_dtype,
                                   const tsr_geometry *mat2);

/* torch.dot(self, other): 1-D each ("1D tensors expected, but got 2D and
 * 1D tensors"), equal dtypes ("dot : expected both vectors to have same
 * dtype, but found Float and Double"), equal lengths ("inconsistent
 * tensor size, expected tensor [3] and src [4] to have the same number of
 * elements, but got 3 and 4 elements respectively"). */
tsr_status tsr__matmul_check_dot(tsr_dtype self_dtype, const tsr_geometry *self,
                                 tsr_dtype other_dtype, const tsr_geometry *other);

/* torch.mv(self, vec), which is addmv into a new 1-D result: a matrix and
 * a vector ("vector + matrix @ vector expected, got 1, 2, 2"), matching
 * sizes ("size mismatch, got 2, 2x3,4"). A 0-dim self fails first, as
 * PyTorch's self.size(0) does (TSR_ERR_INDEX "Dimension specified as 0
 * but tensor has no dimensions"). */
tsr_status tsr__matmul_check_mv(const tsr_geometry *self, const tsr_geometry *vec);

/* torch.outer(self, vec2): 1-D each ("outer: Expected 1-D argument self,
 * but got 2-D"). */
tsr_status tsr__matmul_check_outer(const tsr_geometry *self, const tsr_geometry *vec2);

/* The product torch.matmul runs for two shapes. */
typedef enum tsr__matmul_path {
    TSR__MATMUL_DOT,    /* 1-D @ 1-D */
    TSR__MATMUL_MV,     /* 2-D @ 1-D */
    TSR__MATMUL_ROW_MM, /* 1-D @ 2-D: unsqueeze(0), mm, squeeze */
    TSR__MATMUL_MM,     /* 2-D @ 2-D */
    TSR__MATMUL_FOLD,   /* >=3-D @ 1-D or 2-D: the batch folded into mm's (mv's) rows */
    TSR__MATMUL_FOLD_T, /* 1-D or 2-D @ >=3-D: the same on the transposed problem */
    TSR__MATMUL_BATCH,  /* batch dims broadcast, then bmm */
} tsr__matmul_path;

typedef struct tsr__matmul_plan {
    tsr__matmul_path path;
    int out_ndim;
    int64_t out_sizes[TSR_MAX_DIMS];
    /* TSR__MATMUL_BATCH: the broadcast batch sizes (batch_ndim of them),
     * and n, m1 (a's rows and columns), m2, p (b's). */
    int batch_ndim;
    int64_t batch[TSR_MAX_DIMS];
    int64_t n, m1, m2, p;
} tsr__matmul_plan;

/* torch.matmul(a, b)'s choice: both at least 1-D ("both arguments to
 * matmul need to be at least 1D, but they are 0D and 2D"); the batch
 * dims of BATCH broadcast (tsr_broadcast_shapes' message); a fold when
 * PyTorch's should_fold says so (not for a 3-D left operand whose last
 * two dims are transposed against a row-major batch, which bmm takes
 * without a copy). The size checks of the product itself are left to
 * the product (mm's, mv's, dot's and bmm's own messages). */
tsr_status tsr__matmul_plan_for(const tsr_geometry *a, const tsr_geometry *b,
                                tsr__matmul_plan *plan);

#endif /* TESSERA_CORE_MATMUL_H */
