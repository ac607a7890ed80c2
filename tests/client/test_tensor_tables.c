/* The known-answer tables (the tables under data/, from PyTorch) on cpu and on meta:
 * factories, *_like strides, view chains with their values, fills of every
 * dtype PyTorch 1.13 has, and size/stride with dims out of range. */
#include "client/support_tensor.h"
#include "test.h"

int main(void)
{
    const tensor_env cpu = {NULL, {TSR_DEVICE_CPU, -1}};
    const tensor_env meta = {NULL, {TSR_DEVICE_META, -1}};
    ASSERT_EQ(tt_run_tables(&cpu, "data"), 0);
    ASSERT_EQ(tt_run_tables(&meta, "data"), 0);
    TEST_DONE();
}
