/* Internal: matrix products on host memory, C = alpha * A @ B + beta * C,
 * over a batch of strided matrices. libtessera computes the cpu device's
 * products with them on its thread pool; the daemon's OpenCL backend runs
 * them on a device that is the host's own CPU (see opencl/runtime.c),
 * where they are the same code and give the same bits.
 *
 * float32, float64, complex64 and complex128 go to OpenBLAS (sgemm, dgemm,
 * cgemm, zgemm; gemv for a single column): a matrix whose rows or whose
 * columns are contiguous is handed over as it lies (row-major with its
 * leading dimension, or the transpose flag), and only one with neither
 * layout (both strides > 1, an expanded dimension) is packed first.
 * float16 and bfloat16 are converted to float32, multiplied by sgemm and
 * rounded once; the conversion runs in bulk along whichever direction of
 * an operand is contiguous (a transposed one stays transposed for
 * sgemm), and a strided row is gathered into runs that convert in bulk. Integers run a loop of our own (gemm_int.c). */
#ifndef TESSERA_KERNELS_GEMM_H
#define TESSERA_KERNELS_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/status.h"

/* A batch of matrices: element (b, i, j) at data + (b * bstride + i * rs +
 * j * cs) * itemsize. Strides are in elements and not negative. */
typedef struct tsr__mat {
    unsigned char *data;
    int64_t bstride, rs, cs;
} tsr__mat;

/* What a product computes in: its dtype and its scalars, as
 * tsr__kernel_alpha_from_element lays them out (integers as int64,
 * float16/bfloat16/float32 as float, float64 as double, complex as two
 * of those). beta_zero: C's contents are not read (a NaN there does not
 * propagate); alpha_zero: A and B are not read, C becomes beta * C. */
typedef struct tsr__gemm_args {
    tsr_dtype dtype;
    int64_t batch, m, n, k;
    uint8_t alpha[16], beta[16];
    bool alpha_zero, beta_zero;
} tsr__gemm_args;

/* The threads a product may use. parallel_for(n, grain, fn, ctx) runs
 * fn over [0, n) in chunks of at least grain, on pool_size threads, and
 * returns when all have run; NULL (pool_size 1) runs everything on the
 * calling thread. blas_threads: OpenBLAS's own threads, set before a
 * product whenever they differ (OpenBLAS keeps one number per process). */
typedef void (*tsr__gemm_range_fn)(void *ctx, int64_t begin, int64_t end);
typedef struct tsr__gemm_threads {
    void (*parallel_for)(int64_t n, int64_t grain, tsr__gemm_range_fn fn, void *ctx);
    int pool_size;
    int blas_threads;
} tsr__gemm_threads;

/* Whether dtype is one the products compute in (float16 and bfloat16
 * through float32; the integers but bool). */
bool tsr__gemm_supports(tsr_dtype dtype);

/* C[b] = alpha * A[b] @ B[b] + beta * C[b] for b < batch, A m x k, B k x
 * n, C m x n, all of args->dtype. C must not overlap A or B (the caller
 * computes into a temporary then). TSR_OK, or TSR_ERR_OUT_OF_MEMORY for
 * a packing buffer. */
tsr_status tsr__gemm(const tsr__gemm_args *args, const tsr__mat *a, const tsr__mat *b,
                     const tsr__mat *c, const tsr__gemm_threads *threads);

/* The integer product, with the same contract (gemm_int.c). */
tsr_status tsr__gemm_int(const tsr__gemm_args *args, const tsr__mat *a, const tsr__mat *b,
                         const tsr__mat *c, const tsr__gemm_threads *threads);

/* Copies the rows x cols matrix at src (strides rs, cs, in elements of
 * sdt) to a row-major one at dst, converting to ddt; or back (unpack).
 * Conversions are tsr__kernel_convert's, one call per contiguous row
 * (a column counts as one row) or per run of up to 256 elements of a
 * strided one. */
void tsr__gemm_pack(const unsigned char *src, tsr_dtype sdt, int64_t rows, int64_t cols, int64_t rs,
                    int64_t cs, void *dst, tsr_dtype ddt);
void tsr__gemm_unpack(const void *src, tsr_dtype sdt, int64_t rows, int64_t cols,
                      unsigned char *dst, tsr_dtype ddt, int64_t rs, int64_t cs);

#endif /* TESSERA_KERNELS_GEMM_H */
