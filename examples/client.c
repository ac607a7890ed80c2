/* client: the README's example program. It opens a session with tesserad
 * ($TESSERA_SOCKET, else the system socket), fills a 3x4 float16 tensor on
 * opencl:0 and takes its transpose. Every status is checked: on failure
 * the library's message goes to standard error, what is held is released
 * and the program exits 1. tests/api/check_readme_client.sh keeps the
 * README's copy equal to all that follows this comment. */
#include <inttypes.h>
#include <stdio.h>

#include <tessera/tessera.h>

int main(void)
{
    tsr_client *c = NULL;
    tsr_tensor *t = NULL, *tt = NULL;
    int64_t sizes[2] = {3, 4};
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_FLOAT16,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    int rc = 1;

    if (tsr_client_open(NULL, &c) != TSR_OK || /* $TESSERA_SOCKET */
        tsr_tensor_full(c, 2, sizes, tsr_scalar_float(1.5), &o, &t) != TSR_OK ||
        tsr_tensor_t(t, &tt) != TSR_OK) { /* a view */
        fprintf(stderr, "client: %s\n", tsr_last_error());
        goto out;
    }
    const int64_t *strides = tsr_tensor_strides(tt);
    printf("transpose strides: (%" PRId64 ", %" PRId64 ")\n", strides[0], strides[1]);
    rc = 0;
out:
    tsr_tensor_release(tt); /* all three accept NULL */
    tsr_tensor_release(t);
    tsr_client_close(c);
    return rc;
}
