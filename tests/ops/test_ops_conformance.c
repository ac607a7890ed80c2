/* The elementwise-op cases from PyTorch (data/<family>.txt, gen_ops_cases.py) on
 * the cpu device: add, sub, mul and div in every form, copy_, fill_, to,
 * clone and contiguous, with their errors; meta stands in for the
 * accelerator in the mixed-device cases.
 *
 * Usage: test_ops_conformance [data/<family>.txt ...] (default: all). */
#include <stdio.h>

#include "ops/support_ops.h"

static const char *const families[] = {
    "data/add.txt",    "data/mul.txt",  "data/div.txt",    "data/errors.txt",
    "data/device.txt", "data/copy.txt", "data/layout.txt", "data/shell.txt",
};

int main(int argc, char **argv)
{
    const ops_env cpu = {NULL, {TSR_DEVICE_CPU, -1}, {TSR_DEVICE_META, -1}, "meta"};
    ops_stats stats = {0};
    setvbuf(stdout, NULL, _IOLBF, 0);
    ops_api_complete();
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            ops_check_file(&cpu, NULL, argv[i], &stats);
    } else {
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
            ops_check_file(&cpu, NULL, families[i], &stats);
    }
    printf("cpu: %d cases, %d passed, %d failed\n", stats.cases, stats.passed, stats.failed);
    return stats.failed ? 1 : 0;
}
