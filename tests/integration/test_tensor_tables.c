/* The tensor layer's known-answer tables from PyTorch (tests/client/data)
 * on opencl tensors in a real daemon's shared memory: factories, *_like
 * strides, view chains and their values, fills of every dtype. The same
 * tables run on cpu and meta in tests/client. */
#include "client/support_tensor.h"
#include "support_daemon.h"
#include "test.h"

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (c) {
        const tensor_env explicit_index = {c, {TSR_DEVICE_OPENCL, 0}};
        const tensor_env current = {c, {TSR_DEVICE_OPENCL, -1}};
        ASSERT_EQ(tt_run_tables(&explicit_index, "../client/data"), 0);
        ASSERT_EQ(tt_run_tables(&current, "../client/data"), 0);
        tsr_memory_stats m;
        ASSERT_OK(tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &m));
        ASSERT_EQ(m.allocated, 0); /* every tensor was released */
        ASSERT_TRUE(m.allocations > 1000);
        ASSERT_TRUE(m.cache_hits > m.allocations / 2);
        tsr_client_close(c);
    }
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
