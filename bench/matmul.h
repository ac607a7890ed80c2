/* tessera-bench, the matmul suite's CLBlast baseline (matmul_clblast.c):
 * CLBlast's Sgemm called directly by this program, on a context of its
 * own on the device of opencl:0, over buffers of its own. */
#ifndef TESSERA_BENCH_MATMUL_H
#define TESSERA_BENCH_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bench_clblast bench_clblast;

/* batch products of n x n float32 matrices (a filled with 1, b with 0.5;
 * a transposed where `transposed`) on the device named `device_name`:
 * SgemmStridedBatched for a batch, else Sgemm. The first product is run
 * here (CLBlast compiles its kernels then). Returns 0, or -1 after
 * noting why. */
int bench_clblast_open(const char *device_name, const char *suite, int64_t batch, int64_t n,
                       bool transposed, bench_clblast **out);
/* GFLOP/s of one product and clFinish; NAN (noted) on a failure. */
double bench_clblast_sample(bench_clblast *b);
void bench_clblast_close(bench_clblast *b);

#endif /* TESSERA_BENCH_MATMUL_H */
