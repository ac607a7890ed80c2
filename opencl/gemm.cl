/* The GEMM program of a dtype (core/kernel.h, "Matrix products"), after
 * what opencl/source.c writes before this file for it:
 *   TSR_GEMM_REDUCED    float16 and bfloat16: the dtype's code in
 *                       TSR_GEMM_DTYPE, and tsr_g_load / tsr_g_store, the
 *                       float32 generic program's conversions (the cpu's
 *                       bits: RNE, its NaNs)
 *   TSR_GEMM_INT        the integers: tsr_gemm_t, the dtype as stored, and
 *                       TSR_GEMM_NARROW(v), a uint64 to it (its low bits)
 *
 * WIDEN and NARROW (float16, bfloat16) surround the device BLAS's float32
 * product as the cpu's does: the operands widened to float32 scratch,
 * Sgemm there, C rounded once. A work-item moves one row: NDRange
 * (rows, batch).
 *
 * PRODUCT (integers) wraps modulo 2^bits as PyTorch's loops do: operands
 * widened to 64 bits, products summed in uint64 (whose low bits are the
 * same whatever the order), alpha and beta applied, each result narrowed
 * once, so the bits are the cpu's (libclient/gemm_int.c) exactly. A
 * work-item computes a TILE_M x TILE_N tile of C, its accumulators in
 * registers, stepping over k once: NDRange (ceil(n / TILE_N),
 * ceil(m / TILE_M), batch). */

#if defined(TSR_GEMM_REDUCED)
static void tsr_gemm_widen(__global float *dst, __global const uchar *src, long off, long ld,
                           long bs, long rows, long cols, long i, long b)
{
    long from = off + b * bs + i * ld;
    __global float *row = dst + (b * rows + i) * cols;
    for (long j = 0; j < cols; j++)
        row[j] = tsr_g_load(TSR_GEMM_DTYPE, src, from + j);
}

static void tsr_gemm_narrow(__global uchar *dst, __global const float *src, long off, long ld,
                            long bs, long rows, long cols, long i, long b)
{
    long to = off + b * bs + i * ld;
    __global const float *row = src + (b * rows + i) * cols;
    for (long j = 0; j < cols; j++)
        tsr_g_store(TSR_GEMM_DTYPE, dst, to + j, row[j]);
}
#endif

#if defined(TSR_GEMM_INT)
static void tsr_gemm_tile(__global uchar *c, __global const uchar *a, __global const uchar *b,
                          long4 off, long4 ld, long4 bs, long4 shape, long2 ab, uint flags)
{
    long j0 = (long)get_global_id(0) * TSR__KGEMM_TILE_N;
    long i0 = (long)get_global_id(1) * TSR__KGEMM_TILE_M, bi = (long)get_global_id(2);
    long m = shape.y, n = shape.z, k = shape.w;
    if (j0 >= n || i0 >= m || bi >= shape.x)
        return;
    __global const tsr_gemm_t *pa = (__global const tsr_gemm_t *)a + off.y + bi * bs.y;
    __global const tsr_gemm_t *pb = (__global const tsr_gemm_t *)b + off.z + bi * bs.z;
    __global tsr_gemm_t *pc = (__global tsr_gemm_t *)c + off.x + bi * bs.x;
    /* element steps of op(A) along i and p, of op(B) along p and j */
    long ai = flags & TSR__KGEMM_TRANS_A ? 1 : ld.y, ap = flags & TSR__KGEMM_TRANS_A ? ld.y : 1;
    long bp = flags & TSR__KGEMM_TRANS_B ? 1 : ld.z, bj = flags & TSR__KGEMM_TRANS_B ? ld.z : 1;
    int rows = (int)min((long)TSR__KGEMM_TILE_M, m - i0);
    int cols = (int)min((long)TSR__KGEMM_TILE_N, n - j0);
    ulong acc[TSR__KGEMM_TILE_M][TSR__KGEMM_TILE_N];
    for (int r = 0; r < TSR__KGEMM_TILE_M; r++)
        for (int q = 0; q < TSR__KGEMM_TILE_N; q++)
            acc[r][q] = 0;
    for (long p = 0; p < k; p++) {
        ulong av[TSR__KGEMM_TILE_M], bv[TSR__KGEMM_TILE_N];
        for (int r = 0; r < TSR__KGEMM_TILE_M; r++)
            av[r] = r < rows ? (ulong)(long)pa[(i0 + r) * ai + p * ap] : 0;
        for (int q = 0; q < TSR__KGEMM_TILE_N; q++)
            bv[q] = q < cols ? (ulong)(long)pb[p * bp + (j0 + q) * bj] : 0;
        for (int r = 0; r < TSR__KGEMM_TILE_M; r++)
            for (int q = 0; q < TSR__KGEMM_TILE_N; q++)
                acc[r][q] += av[r] * bv[q];
    }
    ulong alpha = (ulong)ab.x, beta = (ulong)ab.y;
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++) {
            __global tsr_gemm_t *e = pc + (i0 + r) * ld.x + j0 + q;
            ulong v = alpha * acc[r][q];
            if (!(flags & TSR__KGEMM_BETA_ZERO))
                v += beta * (ulong)(long)*e;
            *e = TSR_GEMM_NARROW(v);
        }
}
#endif

__kernel void tsr_kernel(__global uchar *c, __global const uchar *a, __global const uchar *b,
                         long4 off, long4 ld, long4 bs, long4 shape, long2 ab, uint4 mode)
{
    (void)b;
    (void)ab;
#if defined(TSR_GEMM_REDUCED)
    long i = (long)get_global_id(0), bi = (long)get_global_id(1);
    if (i >= shape.y || bi >= shape.x)
        return;
    if (mode.x == TSR__KGEMM_WIDEN)
        tsr_gemm_widen((__global float *)c, a, off.y, ld.y, bs.y, shape.y, shape.z, i, bi);
    else if (mode.x == TSR__KGEMM_NARROW)
        tsr_gemm_narrow(c, (__global const float *)a, off.x, ld.x, bs.x, shape.y, shape.z, i, bi);
#else
    if (mode.x == TSR__KGEMM_PRODUCT)
        tsr_gemm_tile(c, a, b, off, ld, bs, shape, ab, mode.y);
#endif
}
