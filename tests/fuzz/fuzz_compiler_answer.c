/* Fuzz target: the kernel worker's reading of its compiler's answer
 * (opencl/compiler_answer.h), which a user's source may have taken over.
 *
 * The input is the answer's bytes. An answer that parses must have its
 * log, kernel descriptions and binary inside the input, end to end and
 * ending at its end (the length tsr__compiler_answer_length gives), and
 * every size in its bounds; an answer that fits
 * exactly also fits as complete, and so does any longer one; a shorter
 * one never does. The parts are read through, so that a range past the
 * input shows under AddressSanitizer. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "opencl/compiler_answer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes: reading past it is an error the
     * sanitizer sees. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    tsr__compiler_answer a;
    bool parsed = tsr__compiler_answer_parse(buf, size, &a);
    if (size >= sizeof(tsr__compiler_header)) {
        tsr__compiler_header h;
        memcpy(&h, buf, sizeof h);
        bool exact = tsr__compiler_answer_fits(&h, size, false);
        FUZZ_CHECK(exact == parsed);
        uint64_t want = 0;
        bool bounded = tsr__compiler_answer_length(&h, &want);
        FUZZ_CHECK(exact == (bounded && want == size));
        if (exact) {
            FUZZ_CHECK(tsr__compiler_answer_fits(&h, size, true));
            FUZZ_CHECK(tsr__compiler_answer_fits(&h, size + 1, true));
            FUZZ_CHECK(!tsr__compiler_answer_fits(&h, size - 1, true));
        }
    } else {
        FUZZ_CHECK(!parsed);
    }
    if (parsed) {
        const tsr__compiler_header *h = &a.header;
        FUZZ_CHECK(h->nkernels <= TSR__WORKER_KERNELS);
        FUZZ_CHECK(h->log_length <= TSR__COMPILER_LOG_MAX);
        FUZZ_CHECK(h->binary_length <= TSR__COMPILER_BINARY_MAX);
        FUZZ_CHECK((const uint8_t *)a.log == buf + sizeof *h);
        FUZZ_CHECK(a.kernels == a.log + h->log_length);
        FUZZ_CHECK((const char *)a.binary ==
                   a.kernels + (size_t)h->nkernels * sizeof(tsr__worker_kernel));
        FUZZ_CHECK(a.binary + h->binary_length == buf + size);
        unsigned sum = 0;
        for (const uint8_t *p = (const uint8_t *)a.log; p < buf + size; p++)
            sum += *p;
        (void)sum;
    }
    free(buf);
    return 0;
}
