/* The elementwise-op cases from PyTorch (data/<family>.txt) on opencl:0 in a real
 * daemon: every answer must be PyTorch's, and opencl:0's must match the
 * cpu device's bit for bit (ggml's test-backend-ops). In the mixed-device
 * cases the accelerator is opencl:0 and the other storages are on cpu.
 *
 * Skipped (77) only while the library cannot run kernels on accelerators
 * at all: every case that fails fails with TSR_ERR_NOT_SUPPORTED "kernels
 * on accelerators are not available" and no kernel ran. Anything else that
 * fails is a failure.
 *
 * Usage: test_ops_opencl [--daemon-option ...] [data/<family>.txt ...]
 * (default: all families). Leading arguments that begin with "--" go to
 * the daemon; with --device-memory=copy the run also checks that opencl:0
 * is served through copies (clients told so, the daemon's log says so),
 * which takes every kernel through the path of devices whose memory is
 * their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integration/support_daemon.h"
#include "ops/support_ops.h"

static const char *const families[] = {
    "data/add.txt",    "data/mul.txt",  "data/div.txt",    "data/errors.txt",
    "data/device.txt", "data/copy.txt", "data/layout.txt", "data/shell.txt",
};

int main(int argc, char **argv)
{
    const char *extra[9] = {0};
    int nextra = 0;
    bool copy = false;
    while (argc > 1 && strncmp(argv[1], "--", 2) == 0 && nextra < 8) {
        copy |= strcmp(argv[1], "--device-memory=copy") == 0 ||
                strcmp(argv[1], "--device-memory=staged") == 0;
        extra[nextra++] = argv[1];
        argv++;
        argc--;
    }
    test_daemon d;
    if (test_daemon_start(&d, nextra ? extra : NULL) != 0)
        return 1;
    tsr_client *client = NULL;
    int32_t count = 0;
    if (tsr_client_open(NULL, &client) != TSR_OK ||
        tsr_device_count(client, TSR_DEVICE_OPENCL, &count) != TSR_OK) {
        fprintf(stderr, "connecting to the daemon failed: %s\n", tsr_last_error());
        test_daemon_dump_log(&d);
        tsr_client_close(client);
        test_daemon_stop(&d);
        return 1;
    }
    if (count == 0) {
        tsr_client_close(client);
        test_daemon_stop(&d);
        printf("skipped: the daemon sees no opencl device\n");
        return 77;
    }
    tsr_device_properties props;
    if (tsr_device_get_properties(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) != TSR_OK) {
        fprintf(stderr, "opencl:0's properties: %s\n", tsr_last_error());
        tsr_client_close(client);
        test_daemon_stop(&d);
        return 1;
    }
    if (copy && (props.host_unified_memory ||
                 test_daemon_log_count(&d, "kernels copy operands in and out") < 1)) {
        fprintf(stderr, "--device-memory=copy: opencl:0 is not served through copies\n");
        test_daemon_dump_log(&d);
        tsr_client_close(client);
        test_daemon_stop(&d);
        return 1;
    }
    printf("opencl:0: %s\n", props.host_unified_memory ? "zero copy" : "through copies");
    const ops_env cl = {client, {TSR_DEVICE_OPENCL, 0}, {TSR_DEVICE_OPENCL, 0}, "opencl:0"};
    const ops_env cpu = {client, {TSR_DEVICE_CPU, -1}, {TSR_DEVICE_META, -1}, "meta"};
    ops_stats stats = {0};
    setvbuf(stdout, NULL, _IOLBF, 0);
    ops_api_complete();
    int nfiles = argc > 1 ? argc - 1 : (int)(sizeof(families) / sizeof(families[0]));
    for (int i = 0; i < nfiles; i++)
        ops_check_file(&cl, &cpu, argc > 1 ? argv[i + 1] : families[i], &stats);
    tsr_client_close(client);
    int daemon_status = test_daemon_stop(&d);
    printf("opencl:0: %d cases, %d passed, %d failed (%d not available, %d disagree with cpu)\n",
           stats.cases, stats.passed, stats.failed, stats.unavailable, stats.device_mismatches);
    if (daemon_status != 0) {
        fprintf(stderr, "the daemon exited with status %d\n", daemon_status);
        return 1;
    }
    if (stats.failed > 0 && stats.failed == stats.unavailable && stats.launched_ok == 0) {
        printf("skipped: kernels on accelerators are not available (%d cases)\n",
               stats.unavailable);
        return 77;
    }
    return stats.failed ? 1 : 0;
}
