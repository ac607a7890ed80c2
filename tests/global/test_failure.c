/* A rank that is stuck, late or dies must not hang the others. check_failure.sh
 * runs this program under mpiexec -n 2 once per scenario (argv[1]):
 *   stuck: rank 1 stays away from a collective for longer than the
 *     timeout (TESSERA_GLOBAL_TIMEOUT, 1 s in the script); rank 0's
 *     to_global fails with the timeout's message, its next collective fails
 *     at once naming the first, and rank 0 prints "rank 0: stuck: ok";
 *   dies: rank 1 exits while rank 0 waits in to_global (with the default
 *     300 s timeout): mpiexec ends the job, which must not hang.
 *   late: rank 1 comes to a collective after rank 0 gave up on it (and
 *     stays): rank 1 passes the barrier through rank 0's pending request,
 *     then fails at its own timeout in the agreement after it ("not every
 *     rank agreed", instead of waiting in the transfer for ever), and
 *     prints "rank 1: late: ok";
 *   timeout-option: the options' timeout_ms beats the environment's, and a
 *     bad TESSERA_GLOBAL_TIMEOUT is refused (one rank is enough). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tessera/global.h"
#include "test.h"

static void pause_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* A [4] float32 partial sum on every rank, boxed to B. */
static tsr_status box_once(tsr_global_env *env, const tsr_placement *p)
{
    int64_t four = 4;
    tsr_tensor *local = NULL;
    tsr_global_tensor *g = NULL, *b = NULL;
    tsr_sbp P = tsr_sbp_partial_sum(), B = tsr_sbp_broadcast();
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32};
    tsr_status st = tsr_tensor_full(NULL, 1, &four, tsr_scalar_float(1), &f32, &local);
    if (!st)
        st = tsr_global_tensor_from_local(env, local, p, &P, &g);
    if (!st)
        st = tsr_global_tensor_to_global(g, p, &B, &b);
    tsr_global_tensor_release(b);
    tsr_global_tensor_release(g);
    tsr_tensor_release(local);
    return st;
}

static int timeout_option(void)
{
    tsr_global_env *env = NULL;
    setenv("TESSERA_GLOBAL_TIMEOUT", "soon", 1);
    ASSERT_FAIL(tsr_global_env_open(NULL, &env), TSR_ERR_INVALID_ARGUMENT,
                "global env: TESSERA_GLOBAL_TIMEOUT=soon is no number of seconds (0 for no "
                "limit)");
    tsr_global_env_options o = {.timeout_ms = 250};
    ASSERT_OK(tsr_global_env_open(&o, &env)); /* the option wins */
    tsr_placement *p = NULL;
    ASSERT_OK(tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &p));
    ASSERT_OK(box_once(env, p));
    tsr_placement_destroy(p);
    tsr_global_env_close(env);
    TEST_DONE();
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "";
    if (strcmp(scenario, "timeout-option") == 0)
        return timeout_option();
    tsr_global_env *env = NULL;
    if (tsr_global_env_open(NULL, &env) != TSR_OK) {
        fprintf(stderr, "global env: %s\n", tsr_last_error());
        return 1;
    }
    int rank = tsr_global_env_rank(env);
    tsr_placement *p = NULL;
    ASSERT_OK(tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &p));
    if (tsr_global_env_world_size(env) != 2) {
        fprintf(stderr, "test_failure: run it with 2 ranks\n");
        return 1;
    }
    if (strcmp(scenario, "stuck") == 0) {
        if (rank == 1) {
            pause_s(4); /* well past rank 0's timeout, then gone */
            fflush(stdout);
            _exit(0);
        }
        ASSERT_FAIL(box_once(env, p), TSR_ERR_RUNTIME,
                    "global to_global: not every rank arrived within 1 s "
                    "(TESSERA_GLOBAL_TIMEOUT): a rank has died or is stuck");
        ASSERT_FAIL(box_once(env, p), TSR_ERR_RUNTIME,
                    "global to_global: the world stopped at an earlier collective (to_global): "
                    "a rank had died or was stuck; end the program");
        tsr_placement_destroy(p);
        tsr_global_env_close(env); /* no MPI_Finalize: it would wait for rank 1 */
        if (test__failed == 0)
            printf("rank 0: stuck: ok\n");
        fflush(stdout);
        _exit(test__failed ? 1 : 0);
    }
    if (strcmp(scenario, "late") == 0) {
        if (rank == 1)
            pause_s(2); /* past rank 0's timeout */
        /* rank 0 in the barrier; rank 1 past it, in the agreement */
        ASSERT_FAIL(box_once(env, p), TSR_ERR_RUNTIME,
                    rank == 0 ? "global to_global: not every rank arrived within 1 s "
                                "(TESSERA_GLOBAL_TIMEOUT): a rank has died or is stuck"
                              : "global to_global: not every rank agreed within 1 s "
                                "(TESSERA_GLOBAL_TIMEOUT): a rank has died or is stuck");
        if (rank == 0)
            pause_s(4); /* here while rank 1 comes and gives up */
        else if (test__failed == 0)
            printf("rank 1: late: ok\n");
        fflush(stdout);
        _exit(test__failed ? 1 : 0);
    }
    if (strcmp(scenario, "dies") == 0) {
        if (rank == 1)
            _exit(3);
        tsr_status st = box_once(env, p);
        printf("rank 0: dies: to_global returned %s: %s\n", tsr_status_name(st),
               st ? tsr_last_error() : "");
        return 1; /* mpiexec should have ended the job before this */
    }
    fprintf(stderr, "test_failure: no scenario \"%s\" (stuck, late, dies, timeout-option)\n",
            scenario);
    return 2;
}
