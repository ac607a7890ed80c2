/* tessera-bench, elementwise suite: the baselines that elementwise.c sets
 * beside Tessera's numbers: a STREAM-style add or copy on the same threads, a bare
 * OpenCL enqueue + finish on the same device, and PyTorch running the same
 * operations in a child Python. */
#ifndef TESSERA_BENCH_ELEMENTWISE_H
#define TESSERA_BENCH_ELEMENTWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- STREAM add, copy and read (elementwise_bare.c, built with -O3) -- */

typedef enum stream_kind {
    STREAM_ADD,  /* c[i] = a[i] + b[i]: 12 bytes an element */
    STREAM_COPY, /* c[i] = a[i]: 8 bytes an element */
    STREAM_READ, /* sum += a[i] (8 vector accumulators): 4 bytes an element, a and n only */
} stream_kind;

/* The loop over float arrays sized so that the bytes read and written
 * equal a given operation's. */
typedef struct stream_arrays {
    float *a, *b, *c; /* b: STREAM_ADD only */
    size_t n;         /* elements of each array */
    int threads;      /* the loop is split over this many threads */
    stream_kind kind;
    uint64_t pass_ns; /* the fastest untimed pass of stream_init */
} stream_arrays;

/* The baseline's name in rows and notes: "stream_add", "stream_copy",
 * "stream_read". */
const char *stream_name(stream_kind kind);
/* Allocates the arrays for `bytes` moved and writes them (each thread its
 * own share, as the timed loop will use it). Returns 0, or -1 after
 * printing why. */
int stream_init(stream_arrays *s, stream_kind kind, uint64_t bytes, int threads, const char *suite);
/* Seconds per pass over `reps` passes, each timed alone: a pass that took
 * more than STREAM_STALL times stream_init's fastest is run again (at most
 * `reps` times in all), and *retaken (when given) counts those. A
 * baseline is the machine's limit, and a stall is not: see
 * elementwise_bare.c. False when a thread could not be started. */
bool stream_time(const stream_arrays *s, int reps, double *seconds, int *retaken);
/* The bytes one pass moves. */
uint64_t stream_bytes(const stream_arrays *s);
void stream_free(stream_arrays *s);

/* ---- Bare OpenCL (elementwise_bare.c) -------------------------------- */

/* A context on the OpenCL device called `device_name` (the first device
 * when none has that name), a one-work-item kernel adding two floats, and
 * its buffers. */
typedef struct bare_opencl bare_opencl;

/* The OpenCL device named `name` (or the first one) over every platform,
 * as a cl_device_id. Returns 0, or -1 after printing why. */
int bare_opencl_find_device(const char *name, const char *suite, void **out);

/* Returns 0, or -1 after printing why. */
int bare_opencl_open(const char *device_name, const char *suite, bare_opencl **out);
/* clEnqueueNDRangeKernel + clFinish of the kernel; false on an error. */
bool bare_opencl_run(void *bare);
void bare_opencl_close(bare_opencl *b);
/* clCreateProgramWithSource and clBuildProgram of `source` with no
 * options on that device, their time in *ms, on a context kept from the
 * last call (made on the first; its creation left out). Returns 0, or -1
 * after printing why. bare_opencl_build_end releases the context. */
int bare_opencl_build(const char *device_name, const char *suite, const char *source, double *ms);
void bare_opencl_build_end(void);

/* ---- PyTorch (elementwise_torch.c) ----------------------------------- */

/* What the child Python runs: the suite's operations on torch's cpu
 * device, `reps` repetitions per sample. */
typedef struct torch_request {
    int threads;  /* torch.set_num_threads */
    int64_t n;    /* elements of the flat tensors */
    int64_t side; /* side of the square ones (side * side = n) */
    int64_t batch;
    int reps;
    /* NULL, or Python source that adds entries to the dict `cases` (NAME:
     * (make, op), make() returning the operands and op(them) one
     * operation), with `torch` in scope: a suite's own cases. */
    const char *cases;
} torch_request;

/* A child Python with torch, taking one request at a time. */
typedef struct torch_child torch_child;

/* Starts it with $TESSERA_BENCH_PYTHON, else /usr/bin/python3. Returns 0
 * with the child, or -1 after printing why there is none (no Python, no
 * torch). */
int torch_open(const torch_request *req, const char *suite, torch_child **out);
const char *torch_version(const torch_child *c);
/* Makes the tensors of the case called `name` (elementwise.c's names) and
 * runs it once; false, noted, when torch refused it. */
bool torch_case(torch_child *c, const char *name);
/* One sample of the current case: seconds per operation. */
bool torch_sample(torch_child *c, double *seconds);
/* Frees the current case's tensors. */
void torch_drop(torch_child *c);
/* Ends the child (NULL: nothing). */
void torch_close(torch_child *c);

#endif /* TESSERA_BENCH_ELEMENTWISE_H */
