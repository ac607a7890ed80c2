/* What the kernel compiler (`tessera-kernel-worker build`, opencl/worker.c)
 * writes back to its worker for a job: one or two records, each a header,
 * log_length bytes of build log (its end, at most TSR__COMPILER_LOG_MAX),
 * nkernels descriptions of the program's kernels (tsr__worker_kernel, in
 * the order of clCreateKernelsInProgram) and binary_length bytes of the
 * program's binary. A program that built is answered with its log and
 * descriptions first, TSR__COMPILER_BINARY_NEXT set and no binary, then a
 * second record with the binary and nothing else (or, its status not
 * TSR_OK, why there is none): a driver such as PoCL generates the code a
 * binary holds only when asked for the binary, which takes longer than
 * the build itself, and the worker answers the build without waiting for
 * it. A build that failed is one record. The compiler has run a user's
 * source, so the worker believes nothing of it beyond what the header's
 * sizes say, and checks those before it reads on. */
#ifndef TESSERA_OPENCL_COMPILER_ANSWER_H
#define TESSERA_OPENCL_COMPILER_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/worker_wire.h"

#define TSR__COMPILER_BINARY_MAX (256u << 20)     /* an answer's binary, at most */
#define TSR__COMPILER_LOG_MAX TSR__WIRE_BUILD_LOG /* a record's log, at most */

/* flags: a record with the binary follows this one. */
#define TSR__COMPILER_BINARY_NEXT 1u

typedef struct tsr__compiler_header {
    int32_t status; /* TSR_OK, else why the build failed (the log says more) */
    uint32_t log_length;
    uint64_t binary_length;
    uint32_t nkernels;
    uint32_t flags; /* TSR__COMPILER_BINARY_NEXT, or 0 */
} tsr__compiler_header;

/* A record's parts, pointing into it (the kernels unaligned: copy them). */
typedef struct tsr__compiler_answer {
    tsr__compiler_header header;
    const char *log;
    const char *kernels;
    const unsigned char *binary;
} tsr__compiler_answer;

/* The whole length of the record that h heads, into *len; false where
 * a size is out of bounds. */
bool tsr__compiler_answer_length(const tsr__compiler_header *h, uint64_t *len);

/* Whether len bytes of answer, header first, hold all the header
 * announces (complete: at least that; else exactly that), each size
 * bounded before they are added. */
bool tsr__compiler_answer_fits(const tsr__compiler_header *h, size_t len, bool complete);

/* Splits the len bytes at buf into *out; false where they are not one
 * whole answer (tsr__compiler_answer_fits, exactly). */
bool tsr__compiler_answer_parse(const void *buf, size_t len, tsr__compiler_answer *out);

#endif /* TESSERA_OPENCL_COMPILER_ANSWER_H */
