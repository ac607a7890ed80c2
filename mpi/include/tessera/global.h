/* Global tensors across processes: placements, SBP and boxing over MPI
 * (libtessera-mpi; libtessera itself never needs MPI).
 *
 * OneFlow's model (docs/global.md): a global tensor has a logical shape, a
 * dtype, a placement (a device type and the MPI ranks that hold it, as a
 * 1-D list or a 2-D grid) and one SBP entry per placement dimension:
 * split(dim), broadcast or partial_sum. Each rank of the placement holds
 * one shard, an ordinary tsr_tensor on its own device.
 *
 * The first part (placements, SBP values, reprs and the shard geometry) is
 * pure and needs no MPI run. The second part (tsr_global_env and the
 * tensors) is collective: every rank of the environment's communicator
 * makes the same calls in the same order, including ranks outside a
 * tensor's placement, which hold an empty shard.
 *
 * Errors are libtessera's: a tsr_status and tsr_last_error(). MPI failures
 * become TSR_ERR_RUNTIME with MPI's own text (the communicator returns
 * errors instead of aborting). */
#ifndef TESSERA_GLOBAL_H
#define TESSERA_GLOBAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/client.h"
#include "tessera/device.h"
#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/ops.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most placement dimensions (OneFlow's hierarchies used here: 1 and 2). */
#define TSR_PLACEMENT_MAX_DIMS 2

/* ---- Placements ----------------------------------------------------- */

typedef struct tsr_placement tsr_placement;

/* A placement of `type` over ranks laid out as a grid of `ndim` (1 or 2)
 * dimensions with the given sizes: ranks holds their product, row-major
 * (ranks=[[0, 1], [2, 3]] is hierarchy {2, 2}, ranks {0, 1, 2, 3}). The
 * arrays are copied. Errors: TSR_ERR_INVALID_ARGUMENT for an ndim outside
 * 1..TSR_PLACEMENT_MAX_DIMS, a size below 1, a negative or repeated rank
 * (the message names it), a device type that is not parseable (metal) or
 * is meta; TSR_ERR_OUT_OF_MEMORY. The caller owns *out. */
TSR_API tsr_status tsr_placement_create(tsr_device_type type, int ndim, const int64_t *hierarchy,
                                        const int32_t *ranks, tsr_placement **out);
/* ranks 0..nranks-1 on one dimension (what all_device_placement gives a
 * world of nranks processes). */
TSR_API tsr_status tsr_placement_create_range(tsr_device_type type, int32_t nranks,
                                              tsr_placement **out);
TSR_API void tsr_placement_destroy(tsr_placement *placement); /* NULL ok */
/* A copy (the caller owns it); TSR_ERR_OUT_OF_MEMORY. */
TSR_API tsr_status tsr_placement_copy(const tsr_placement *placement, tsr_placement **out);

TSR_API tsr_device_type tsr_placement_type(const tsr_placement *placement);
TSR_API int tsr_placement_ndim(const tsr_placement *placement);
/* ndim entries, valid while the placement lives. */
TSR_API const int64_t *tsr_placement_hierarchy(const tsr_placement *placement);
/* How many ranks, and the k-th in row-major grid order. */
TSR_API int64_t tsr_placement_size(const tsr_placement *placement);
TSR_API int32_t tsr_placement_rank(const tsr_placement *placement, int64_t k);
/* The position of `rank` in row-major grid order (OneFlow's parallel id),
 * or -1 when the placement does not hold it. */
TSR_API int64_t tsr_placement_index_of(const tsr_placement *placement, int32_t rank);
/* Same device type and same rank grid (shape and order). */
TSR_API bool tsr_placement_equal(const tsr_placement *a, const tsr_placement *b);
/* OneFlow's repr with Tessera's type names:
 * oneflow.placement(type="opencl", ranks=[0, 1, 2, 3]) and, in 2-D,
 * oneflow.placement(type="cpu", ranks=[[0, 1], [2, 3]]). Returns the full
 * length; writes at most n bytes including the NUL (snprintf rules). */
TSR_API size_t tsr_placement_repr(const tsr_placement *placement, char *buf, size_t n);

/* ---- SBP ------------------------------------------------------------ */

typedef enum tsr_sbp_kind {
    TSR_SBP_SPLIT,      /* S(dim): slices along dim, concatenated in rank order */
    TSR_SBP_BROADCAST,  /* B: every rank holds the whole tensor */
    TSR_SBP_PARTIAL_SUM /* P: the tensor is the elementwise sum of the shards */
} tsr_sbp_kind;

/* A plain value; dim is meaningful for TSR_SBP_SPLIT only (0 otherwise). */
typedef struct tsr_sbp {
    tsr_sbp_kind kind;
    int32_t dim;
} tsr_sbp;

static inline tsr_sbp tsr_sbp_split(int32_t dim)
{
    tsr_sbp s;
    s.kind = TSR_SBP_SPLIT;
    s.dim = dim;
    return s;
}
static inline tsr_sbp tsr_sbp_broadcast(void)
{
    tsr_sbp s;
    s.kind = TSR_SBP_BROADCAST;
    s.dim = 0;
    return s;
}
static inline tsr_sbp tsr_sbp_partial_sum(void)
{
    tsr_sbp s;
    s.kind = TSR_SBP_PARTIAL_SUM;
    s.dim = 0;
    return s;
}

TSR_API bool tsr_sbp_equal(tsr_sbp a, tsr_sbp b);
/* oneflow.sbp.split(dim=0), oneflow.sbp.broadcast, oneflow.sbp.partial_sum
 * (snprintf rules). */
TSR_API size_t tsr_sbp_repr(tsr_sbp sbp, char *buf, size_t n);
/* A tensor's .sbp: a tuple, "(oneflow.sbp.split(dim=0),)" or
 * "(oneflow.sbp.broadcast, oneflow.sbp.partial_sum)" (snprintf rules). */
TSR_API size_t tsr_sbp_tuple_repr(const tsr_sbp *sbp, int count, char *buf, size_t n);

/* ---- Shard geometry (pure) ------------------------------------------ */

/* Checks an SBP signature (one entry per placement dimension) against a
 * logical shape: a split dim must be in [0, ndim). Errors:
 * TSR_ERR_INVALID_ARGUMENT for an unknown kind; TSR_ERR_INDEX for a split
 * dim out of range (the message names the entry and the range). */
TSR_API tsr_status tsr_sbp_check(const tsr_placement *placement, const tsr_sbp *sbp, int ndim);

/* The shard that the placement's rank at position `index` (row-major grid
 * order, tsr_placement_index_of) holds: its sizes and its offsets in the
 * logical tensor, ndim entries each. Splits are OneFlow's: a dimension of
 * n over k parts gives the first n % k parts n / k + 1 elements and the
 * others n / k (5 over 2: 3 then 2); on a 2-D grid each grid dimension
 * splits what the previous ones left. B and P shards are the whole tensor
 * (offset 0). Errors: those of tsr_sbp_check, TSR_ERR_INDEX for an index
 * outside the placement, TSR_ERR_INVALID_ARGUMENT for a negative size or
 * more than TSR_MAX_DIMS dims. Writes the outputs only on success. */
TSR_API tsr_status tsr_global_shard_geometry(int ndim, const int64_t *shape,
                                             const tsr_placement *placement, const tsr_sbp *sbp,
                                             int64_t index, int64_t *sizes, int64_t *offsets);

/* ---- The MPI environment -------------------------------------------- */

typedef struct tsr_global_env tsr_global_env;

/* Zero-initialised options mean defaults. */
typedef struct tsr_global_env_options {
    /* The daemon session that creates accelerator shards (borrowed; it
     * must outlive the environment). NULL: cpu placements only. */
    tsr_client *client;
    /* The accelerator index this rank uses; false: its local rank on the
     * node (OMPI_COMM_WORLD_LOCAL_RANK, else an MPI-3 shared-memory split
     * of the world), modulo the devices of the placement's type. */
    bool has_device_index;
    int32_t device_index;
    /* How long a collective call waits for every rank to arrive before it
     * fails (a rank that died or is stuck must not hang the others), in
     * milliseconds; 0: $TESSERA_GLOBAL_TIMEOUT (seconds, "0" for no
     * limit), else 300 s. */
    uint64_t timeout_ms;
    uint64_t abi_reserved[7]; /* zero; room for later members (export.h) */
} tsr_global_env_options;

/* Joins MPI's world: initialises MPI when nobody has (and finalises it at
 * close), duplicates MPI_COMM_WORLD and makes its errors return. Collective
 * over the world. Errors: TSR_ERR_INVALID_ARGUMENT for reserved words that
 * are not zero or a $TESSERA_GLOBAL_TIMEOUT that is no number of seconds;
 * TSR_ERR_RUNTIME when MPI fails; TSR_ERR_OUT_OF_MEMORY.
 *
 * Every collective call (to_global, the operations that box) first meets
 * the other ranks in a non-blocking barrier. When they have not all
 * arrived within the timeout, it fails with TSR_ERR_RUNTIME "global
 * to_global: not every rank arrived within 300 s (TESSERA_GLOBAL_TIMEOUT):
 * a rank has died or is stuck", and so does every later collective call
 * of the environment ("... stopped at an earlier collective"): the
 * barrier cannot be taken back, so the world cannot communicate any more,
 * and the program should end (tsr_global_env_close then leaves out
 * MPI_Finalize, which would wait for the missing ranks). A rank that dies
 * while the others wait makes mpirun (or srun) end the job. */
TSR_API tsr_status tsr_global_env_open(const tsr_global_env_options *options, tsr_global_env **out);
/* Frees the communicator (collective); NULL ok. Tensors made through the
 * environment must be released first. */
TSR_API void tsr_global_env_close(tsr_global_env *env);
TSR_API int32_t tsr_global_env_rank(const tsr_global_env *env);
TSR_API int32_t tsr_global_env_world_size(const tsr_global_env *env);
TSR_API int32_t tsr_global_env_local_rank(const tsr_global_env *env);
/* The device a shard of this type lives on at this rank: cpu (index -1),
 * or for an accelerator type (opencl) index <local rank modulo the
 * client's devices of that type>, or the options' device_index. Errors:
 * TSR_ERR_INVALID_ARGUMENT for an accelerator with no client,
 * TSR_ERR_NO_DEVICE when the client has no such device,
 * TSR_ERR_NOT_SUPPORTED for meta. */
TSR_API tsr_status tsr_global_env_device(const tsr_global_env *env, tsr_device_type type,
                                         tsr_device *out);
/* oneflow.env.all_device_placement(type): every rank of the world. */
TSR_API tsr_status tsr_global_env_all_device_placement(const tsr_global_env *env,
                                                       tsr_device_type type, tsr_placement **out);

/* ---- Global tensors ------------------------------------------------- */

typedef struct tsr_global_tensor tsr_global_tensor;

/* to_global(local, placement, sbp): `local` is this rank's shard (for B the
 * same data on every rank, for S(i) its slice, for P its addend). The ranks
 * exchange their shards' shapes and dtypes: the logical shape is the
 * common one (S(i): the sizes along i added up), and each shard must be
 * the one tsr_global_shard_geometry gives its rank, or the call fails on
 * every rank with TSR_ERR_RUNTIME naming the first rank whose shard does
 * not fit. A shard on another device is copied to this rank's device
 * (tsr_global_env_device); otherwise it is shared. Ranks outside the
 * placement pass NULL. Collective over the environment's world. Errors:
 * those of tsr_sbp_check and tsr_global_env_device; TSR_ERR_INVALID_ARGUMENT
 * for a placement rank outside the world, or a NULL local on a member;
 * TSR_ERR_RUNTIME for MPI's failures. The caller owns *out. */
TSR_API tsr_status tsr_global_tensor_from_local(tsr_global_env *env, tsr_tensor *local,
                                                const tsr_placement *placement, const tsr_sbp *sbp,
                                                tsr_global_tensor **out);
/* to_global(global, placement, sbp): the same logical tensor redistributed
 * (boxing, docs/global.md). Collective over the world. Partial sums are
 * reduced only for float32, float64, int8, uint8, int16, int32 and int64
 * (TSR_ERR_NOT_SUPPORTED otherwise). The caller owns *out. */
TSR_API tsr_status tsr_global_tensor_to_global(const tsr_global_tensor *global,
                                               const tsr_placement *placement, const tsr_sbp *sbp,
                                               tsr_global_tensor **out);
/* to_local(): this rank's shard, one more reference (the caller owns it);
 * an empty 1-D tensor on ranks outside the placement. Never fails on a
 * valid tensor. */
TSR_API tsr_tensor *tsr_global_tensor_to_local(const tsr_global_tensor *global);
TSR_API void tsr_global_tensor_release(tsr_global_tensor *global); /* NULL ok */

TSR_API tsr_dtype tsr_global_tensor_dtype(const tsr_global_tensor *global);
TSR_API int tsr_global_tensor_ndim(const tsr_global_tensor *global);
TSR_API const int64_t *tsr_global_tensor_sizes(const tsr_global_tensor *global);
TSR_API const tsr_placement *tsr_global_tensor_placement(const tsr_global_tensor *global);
/* One entry per placement dimension, valid while the tensor lives. */
TSR_API const tsr_sbp *tsr_global_tensor_sbp(const tsr_global_tensor *global);

/* ---- Operations (OneFlow's SBP deduction) ---------------------------- */
/* Operations on global tensors are the local operations on every rank's
 * shards, once the inputs have an SBP signature the operation accepts
 * (docs/global.md, "Operations"). Per placement dimension an operation
 * lists its signatures, OneFlow's:
 *   elementwise: all B -> B; for each output dim i, S(i) of every input
 *     that has dim i at full size, B of an input that broadcasts along it
 *     (missing or size 1) -> S(i); add, sub: all P -> P; mul: (P, B) -> P
 *     and (B, P) -> P; div: (P, B) -> P; neg: P -> P (the partial ones
 *     only where the result's dtype has a sum, as boxing reduces it);
 *   matmul of [..., m, k] @ [..., k, n]: for each batch dim i of the
 *     result, S of the dim of each input that lines up with i at full
 *     size, B of one that broadcasts -> S(i); (S(m), B) -> S(m),
 *     (B, S(n)) -> S(n), (S(k), S(k)) -> P, (B, B) -> B, (P, B) -> P,
 *     (B, P) -> P (for 2-D: (S(0), B) -> S(0), (B, S(1)) -> S(1),
 *     (S(1), S(0)) -> P); with a 1-D operand only the last three;
 * on a 2-D placement every combination of them. The inputs' own
 * signatures are kept where one fits; otherwise the inputs are boxed
 * (tsr_global_tensor_to_global) to the signature whose conversions move
 * the fewest bytes, ties going to the one that converts fewer inputs,
 * then to the one that keeps the earlier inputs, then to the first
 * listed; no input is converted to P (a P input is reduced to B or to a
 * split instead). Every rank computes the same choice, so these calls
 * are collective over the world, as to_global is.
 *
 * Errors, before any communication and alike on every rank: those of
 * the local operation on the logical shapes (PyTorch's broadcasting,
 * promotion, dtype and shape messages, e.g. "The size of tensor a (3) must
 * match the size of tensor b (2) at non-singleton dimension 1");
 * TSR_ERR_RUNTIME "global add: expected all tensors to be on the same
 * placement, but found at least two placements, <repr> (input 0) and
 * <repr> (input 1)"; TSR_ERR_NOT_SUPPORTED "global eq: no SBP signature
 * applies to inputs ...", naming the signatures, where every signature
 * needs a partial sum reduced whose dtype has no sum (bool, complex).
 * Then boxing's and the local operation's own errors. */

/* Elementwise operation `op` (tsr_op_from_name; its arity of inputs, as
 * tsr_elementwise takes them: add and sub with alpha 1, div true
 * division) on global tensors of one placement. The result has the
 * placement, the deduced signature, PyTorch's result dtype and the
 * broadcast shape. The caller owns *result. */
TSR_API tsr_status tsr_global_elementwise(tsr_op op, const tsr_global_tensor *const *inputs,
                                          size_t ninputs, tsr_global_tensor **result);
/* out=: the same operation written into the existing global tensor
 * `out` (of the inputs' placement and the result's logical shape; a
 * global out= is not resized), cast to out's dtype as tsr_elementwise's
 * out= casts, with PyTorch's refusal of a result dtype that cannot be
 * cast ("result type Float can't be cast to the desired output type
 * Long"). out keeps its signature: where the deduced result has it, each
 * rank computes its shard straight into out's; otherwise the result is
 * boxed to out's signature and copied in. out may be one of the inputs.
 * Errors: those of tsr_global_elementwise; TSR_ERR_RUNTIME for another
 * placement or logical shape (the message names both). Collective. */
TSR_API tsr_status tsr_global_elementwise_out(tsr_op op, const tsr_global_tensor *const *inputs,
                                              size_t ninputs, tsr_global_tensor *out);
/* In place (add_, mul_, ...): self is input 0 and out, the nothers
 * others follow it (arity - 1 of them). As tsr_global_elementwise_out. */
TSR_API tsr_status tsr_global_elementwise_(tsr_op op, tsr_global_tensor *self,
                                           const tsr_global_tensor *const *others, size_t nothers);
/* The deduction alone (pure, no communication): the signature each input
 * would be boxed to (input j's at in_sbp[j * TSR_PLACEMENT_MAX_DIMS], one
 * entry per placement dimension) and the result's (out_sbp). */
TSR_API tsr_status tsr_global_elementwise_sbp(tsr_op op, const tsr_global_tensor *const *inputs,
                                              size_t ninputs, tsr_sbp *in_sbp, tsr_sbp *out_sbp);
/* Python numbers beside global tensors (x + 2, x * 2, 2 - x, x.pow(2),
 * torch.where(c, x, 0.)): the four functions above with a NULL input j
 * standing for numbers[j] (numbers has ninputs entries, nothers for the
 * in-place form, read only where the input is NULL), which the local
 * operation takes as tsr_elementwise_scalar does (tessera/ops.h): PyTorch's
 * promotion of a wrapped number (int32 + 2.5 is the default dtype, int8 +
 * 300 stays int8), the number's places and messages. A number is B on
 * every placement dimension, in the deduction and in the _sbp form's
 * in_sbp. So S(i) and B pass through; a P input keeps P only where the
 * operation is linear in it with the number fixed, OneFlow's scalar_mul
 * and scalar_div: x * 2, 2 * x and x / 2 (true division) give P, while
 * x + 2, x - 2, 2 / x, pow and the others box P first (reduced to a
 * split or to B, the cheaper, as for the tensor forms: adding the number
 * on every rank would add it once per rank). At least one input is a
 * global tensor ("global add: no global tensor among the inputs"); the
 * errors are otherwise those of the tensor forms. */
TSR_API tsr_status tsr_global_elementwise_scalar(tsr_op op, const tsr_global_tensor *const *inputs,
                                                 const tsr_scalar *numbers, size_t ninputs,
                                                 tsr_global_tensor **result);
TSR_API tsr_status tsr_global_elementwise_scalar_out(tsr_op op,
                                                     const tsr_global_tensor *const *inputs,
                                                     const tsr_scalar *numbers, size_t ninputs,
                                                     tsr_global_tensor *out);
TSR_API tsr_status tsr_global_elementwise_scalar_(tsr_op op, tsr_global_tensor *self,
                                                  const tsr_global_tensor *const *others,
                                                  const tsr_scalar *numbers, size_t nothers);
TSR_API tsr_status tsr_global_elementwise_scalar_sbp(tsr_op op,
                                                     const tsr_global_tensor *const *inputs,
                                                     const tsr_scalar *numbers, size_t ninputs,
                                                     tsr_sbp *in_sbp, tsr_sbp *out_sbp);
/* torch.matmul(a, b) of global tensors (tsr_matmul on the shards: 1-D,
 * 2-D and batched operands whose batch dims broadcast). The caller owns
 * *result. */
TSR_API tsr_status tsr_global_matmul(const tsr_global_tensor *a, const tsr_global_tensor *b,
                                     tsr_global_tensor **result);
TSR_API tsr_status tsr_global_matmul_sbp(const tsr_global_tensor *a, const tsr_global_tensor *b,
                                         tsr_sbp *in_sbp, tsr_sbp *out_sbp);

/* A reduction of a global tensor: op names one of sum, mean, nansum,
 * prod, nanmean, amax, amin, all, any, argmax, argmin, with
 * the local function's dims, ndims (0: every dim), keepdim and dtype
 * (TSR_NO_DTYPE; only sum, mean, nansum, prod and nanmean take one), and
 * its result dtype, shape and errors (from the logical shape, before any
 * communication). Per placement dimension the signatures are: B -> B;
 * S(i) of a dim i that is kept -> S(i's place in the result); for sum,
 * mean and nansum, S(i) of a reduced dim -> P; for sum and mean, P -> P
 * (the partial ones where the result's dtype has a sum). Any other input
 * is boxed first, as tsr_global_elementwise boxes: a reduced dim split
 * over ranks is gathered for amax and the others, a partial sum reduced.
 * A mean with a partial result is each shard's sum divided by the whole
 * reduced count (OneFlow's reduce_mean), so its rounding can differ from
 * one rank's mean by the division's; argmax and argmin count from the
 * start of the logical dim. Collective over the world. */
TSR_API tsr_status tsr_global_reduce(const char *op, const tsr_global_tensor *x,
                                     const int64_t *dims, int ndims, bool keepdim, tsr_dtype dtype,
                                     tsr_global_tensor **result);
/* The deduction alone: x's signature for the reduction (in_sbp) and the
 * result's (out_sbp), one entry per placement dimension. */
TSR_API tsr_status tsr_global_reduce_sbp(const char *op, const tsr_global_tensor *x,
                                         const int64_t *dims, int ndims, bool keepdim,
                                         tsr_dtype dtype, tsr_sbp *in_sbp, tsr_sbp *out_sbp);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_GLOBAL_H */
