/* The client of the operations walkthrough (walkthrough.sh), built against
 * the installed library with pkg-config as a user's program would be.
 *
 *   walkthrough_client HOLD_MIB [MORE_MIB]
 *
 * Connects to $TESSERA_SOCKET, prints opencl:0's total memory as this
 * client is told it ("total BYTES"), allocates HOLD_MIB on it ("holding"),
 * then, given MORE_MIB, tries to allocate that much more and prints
 * "allocated" or "refused: MESSAGE". It keeps what it holds until its
 * standard input ends, so the test decides how long the session lives. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

static tsr_status alloc_mib(tsr_client *c, int64_t mib, tsr_tensor **out)
{
    int64_t bytes = mib << 20;
    tsr_tensor_options o = {.has_dtype = true, .dtype = TSR_UINT8, .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    return tsr_tensor_zeros(c, 1, &bytes, &o, out);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: walkthrough_client HOLD_MIB [MORE_MIB]\n");
        return 2;
    }
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK) {
        fprintf(stderr, "walkthrough_client: %s\n", tsr_last_error());
        return 1;
    }
    tsr_device_properties p;
    tsr_tensor *held = NULL, *more = NULL;
    if (tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p) != TSR_OK ||
        alloc_mib(c, atoll(argv[1]), &held) != TSR_OK) {
        fprintf(stderr, "walkthrough_client: %s\n", tsr_last_error());
        return 1;
    }
    printf("total %llu\nholding\n", (unsigned long long)p.memory_bytes);
    if (argc == 3) {
        if (alloc_mib(c, atoll(argv[2]), &more) == TSR_OK)
            printf("allocated\n");
        else
            printf("refused: %s\n", tsr_last_error());
    }
    fflush(stdout);
    while (getchar() != EOF)
        ;
    tsr_tensor_release(more);
    tsr_tensor_release(held);
    tsr_client_close(c);
    return 0;
}
