/* A helper of test_top.sh: N client sessions on the daemon of
 * $TESSERA_SOCKET, named PREFIX-01 to PREFIX-N, session k holding k times
 * 64 KiB on opencl:0 (so that sorting by memory has an order to find).
 * Prints "ready N" once all are open and holds them until its standard
 * input ends; then closes them and exits with 0.
 * Usage: top_sessions N PREFIX
 * Exit status 1 when a session cannot be opened or cannot allocate. */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/tessera.h"

#define MAX_SESSIONS 256
#define STEP_BYTES 65536

int main(int argc, char **argv)
{
    int n = argc == 3 ? atoi(argv[1]) : 0;
    if (n < 1 || n > MAX_SESSIONS) {
        fprintf(stderr, "usage: top_sessions N PREFIX (N from 1 to %d)\n", MAX_SESSIONS);
        return 2;
    }
    static tsr_client *clients[MAX_SESSIONS];
    static tsr_tensor *tensors[MAX_SESSIONS];
    int rc = 0, open = 0;
    for (; open < n; open++) {
        char name[64];
        snprintf(name, sizeof name, "%s-%02d", argv[2], open + 1);
        tsr_client_options o = {.name = name};
        if (tsr_client_open(&o, &clients[open]) != TSR_OK) {
            fprintf(stderr, "top_sessions: %s: %s\n", name, tsr_last_error());
            rc = 1;
            break;
        }
        int64_t elements = (int64_t)(open + 1) * STEP_BYTES / 4;
        tsr_tensor_options to = {.has_dtype = true,
                                 .dtype = TSR_FLOAT32,
                                 .has_device = true,
                                 .device = {TSR_DEVICE_OPENCL, 0}};
        if (tsr_tensor_empty(clients[open], 1, &elements, &to, &tensors[open]) != TSR_OK) {
            fprintf(stderr, "top_sessions: %s: %s\n", name, tsr_last_error());
            open++;
            rc = 1;
            break;
        }
    }
    if (rc == 0) {
        printf("ready %d\n", n);
        fflush(stdout);
        while (getchar() != EOF)
            ;
    }
    for (int k = open - 1; k >= 0; k--) {
        tsr_tensor_release(tensors[k]);
        tsr_client_close(clients[k]);
    }
    return rc;
}
