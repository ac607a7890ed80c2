/* The kernel compiler's answer to its worker (compiler_answer.h). */
#include "opencl/compiler_answer.h"

#include <string.h>

bool tsr__compiler_answer_length(const tsr__compiler_header *h, uint64_t *len)
{
    if (h->binary_length > TSR__COMPILER_BINARY_MAX || h->nkernels > TSR__WORKER_KERNELS ||
        h->log_length > TSR__COMPILER_LOG_MAX)
        return false;
    /* Each term is below 2^32 (the log, the kernels' descriptions) or
     * 2^28 (the binary): the sum cannot wrap. */
    *len = sizeof *h + (uint64_t)h->log_length +
           (uint64_t)h->nkernels * sizeof(tsr__worker_kernel) + h->binary_length;
    return true;
}

bool tsr__compiler_answer_fits(const tsr__compiler_header *h, size_t len, bool complete)
{
    uint64_t want;
    if (len < sizeof *h || !tsr__compiler_answer_length(h, &want))
        return false;
    return complete ? len >= want : len == want;
}

bool tsr__compiler_answer_parse(const void *buf, size_t len, tsr__compiler_answer *out)
{
    if (len < sizeof out->header)
        return false;
    memcpy(&out->header, buf, sizeof out->header);
    if (!tsr__compiler_answer_fits(&out->header, len, false))
        return false;
    out->log = (const char *)buf + sizeof out->header;
    out->kernels = out->log + out->header.log_length;
    out->binary =
        (const unsigned char *)out->kernels + out->header.nkernels * sizeof(tsr__worker_kernel);
    return true;
}
