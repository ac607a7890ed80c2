/* The default device: the process-wide setting, per-thread scopes that
 * nest and pop, the limits, and which factories honour it (empty, zeros,
 * ones, full, from_data, empty_strided) and which do not (*_like, views,
 * and any call with an explicit device). */
#include <pthread.h>
#include <string.h>

#include "test.h"

static const tsr_device CPU = {TSR_DEVICE_CPU, -1};
static const tsr_device META = {TSR_DEVICE_META, -1};

static void expect_default(tsr_device want)
{
    tsr_device d = {TSR_DEVICE_CUDA, 99};
    ASSERT_OK(tsr_get_default_device(NULL, &d));
    ASSERT_EQ(d.type, want.type);
    ASSERT_EQ(d.index, want.index);
}

/* The device an empty() without a device option lands on. */
static tsr_device_type factory_device(void)
{
    const int64_t sizes[1] = {2};
    tsr_tensor *t = NULL;
    if (tsr_tensor_empty(NULL, 1, sizes, NULL, &t) != TSR_OK)
        return TSR_DEVICE_TYPE_COUNT;
    tsr_device_type type = tsr_tensor_device(t).type;
    tsr_tensor_release(t);
    return type;
}

static void test_scopes(void)
{
    expect_default(CPU);
    ASSERT_FAIL(tsr_default_device_pop(), TSR_ERR_RUNTIME,
                "tsr_default_device_pop: no default device scope is open on this thread");
    ASSERT_OK(tsr_default_device_push(META));
    expect_default(META);
    ASSERT_EQ(factory_device(), TSR_DEVICE_META);
    ASSERT_OK(tsr_default_device_push((tsr_device){TSR_DEVICE_CPU, 0}));
    expect_default((tsr_device){TSR_DEVICE_CPU, 0}); /* as given, like PyTorch */
    ASSERT_EQ(factory_device(), TSR_DEVICE_CPU);
    ASSERT_OK(tsr_default_device_pop());
    expect_default(META);
    ASSERT_OK(tsr_default_device_pop());
    expect_default(CPU);
    ASSERT_FAIL(tsr_default_device_pop(), TSR_ERR_RUNTIME, NULL);

    for (int i = 0; i < TSR_DEFAULT_DEVICE_DEPTH; i++)
        ASSERT_OK(tsr_default_device_push(i % 2 ? META : CPU));
    ASSERT_FAIL(tsr_default_device_push(META), TSR_ERR_LIMIT,
                "default device scopes nest at most 64 deep on a thread");
    expect_default(META);
    for (int i = 0; i < TSR_DEFAULT_DEVICE_DEPTH; i++)
        ASSERT_OK(tsr_default_device_pop());
    expect_default(CPU);

    ASSERT_FAIL(tsr_default_device_push((tsr_device){TSR_DEVICE_TYPE_COUNT, -1}),
                TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_default_device_push((tsr_device){TSR_DEVICE_CPU, -2}), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(tsr_default_device_push((tsr_device){TSR_DEVICE_CPU, TSR_DEVICE_INDEX_MAX + 1}),
                TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_get_default_device(NULL, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
}

static void test_process_wide(void)
{
    ASSERT_OK(tsr_set_default_device(&META));
    expect_default(META);
    ASSERT_EQ(factory_device(), TSR_DEVICE_META);
    /* A scope wins over the process-wide value, and pops back to it. */
    ASSERT_OK(tsr_default_device_push(CPU));
    expect_default(CPU);
    ASSERT_OK(tsr_default_device_pop());
    expect_default(META);
    /* opencl:3 is stored as given; without a client its index stays. */
    tsr_device cl = {TSR_DEVICE_OPENCL, 3};
    ASSERT_OK(tsr_set_default_device(&cl));
    expect_default(cl);
    tsr_device bad = {TSR_DEVICE_OPENCL, -5};
    ASSERT_FAIL(tsr_set_default_device(&bad), TSR_ERR_INVALID_ARGUMENT, NULL);
    expect_default(cl);
    ASSERT_OK(tsr_set_default_device(NULL));
    expect_default(CPU);
}

static void test_factories(void)
{
    const int64_t sizes[2] = {2, 3}, strides[2] = {3, 1};
    const int64_t data[6] = {1, 2, 3, 4, 5, 6};
    tsr_tensor *cpu_t = NULL, *t = NULL;
    ASSERT_OK(tsr_tensor_ones(NULL, 2, sizes, NULL, &cpu_t));

    ASSERT_OK(tsr_set_default_device(&META));
    ASSERT_OK(tsr_tensor_zeros(NULL, 2, sizes, NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_META);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_tensor_full(NULL, 2, sizes, tsr_scalar_int(3), NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_META);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_tensor_from_data(NULL, 2, sizes, TSR_INT64, data, NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_META);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_tensor_empty_strided(NULL, 2, sizes, strides, NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_META);
    tsr_tensor_release(t);

    /* *_like follows its input, not the default. */
    ASSERT_OK(tsr_tensor_zeros_like(cpu_t, NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_CPU);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_tensor_full_like(cpu_t, tsr_scalar_int(2), NULL, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_CPU);
    tsr_tensor_release(t);
    /* An explicit device wins. */
    tsr_tensor_options o = {0};
    o.has_device = true;
    o.device = CPU;
    ASSERT_OK(tsr_tensor_empty(NULL, 2, sizes, &o, &t));
    ASSERT_EQ(tsr_tensor_device(t).type, TSR_DEVICE_CPU);
    tsr_tensor_release(t);
    t = NULL;

    /* A default accelerator needs a client like an explicit one, of
     * whatever type: without a session nothing says which types the
     * daemon serves. */
    tsr_device cl = {TSR_DEVICE_OPENCL, -1}, cuda = {TSR_DEVICE_CUDA, 0};
    ASSERT_OK(tsr_set_default_device(&cl));
    ASSERT_FAIL(tsr_tensor_empty(NULL, 2, sizes, NULL, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_OK(tsr_set_default_device(&cuda));
    ASSERT_FAIL(tsr_tensor_ones(NULL, 2, sizes, NULL, &t), TSR_ERR_INVALID_ARGUMENT,
                "cannot allocate on cuda:0 without a client: cuda tensors live in tesserad's "
                "memory (pass the tsr_client from tsr_client_open)");
    ASSERT_TRUE(t == NULL);
    ASSERT_OK(tsr_set_default_device(NULL));
    tsr_tensor_release(cpu_t);
}

/* Scopes are per thread; the process-wide value is seen by all. */
static void *other_thread(void *arg)
{
    tsr_device *seen = arg;
    tsr_get_default_device(NULL, &seen[0]);
    tsr_default_device_pop(); /* nothing pushed on this thread: fails */
    tsr_default_device_push(CPU);
    tsr_get_default_device(NULL, &seen[1]);
    tsr_default_device_pop();
    return NULL;
}

static void test_threads(void)
{
    tsr_device seen[2] = {{TSR_DEVICE_CUDA, 9}, {TSR_DEVICE_CUDA, 9}};
    ASSERT_OK(tsr_default_device_push(META));
    pthread_t th;
    ASSERT_EQ(pthread_create(&th, NULL, other_thread, seen), 0);
    ASSERT_EQ(pthread_join(th, NULL), 0);
    ASSERT_EQ(seen[0].type, TSR_DEVICE_CPU); /* not this thread's scope */
    ASSERT_EQ(seen[1].type, TSR_DEVICE_CPU);
    expect_default(META); /* its push and pop did not touch ours */
    ASSERT_OK(tsr_default_device_pop());

    ASSERT_OK(tsr_set_default_device(&META));
    ASSERT_EQ(pthread_create(&th, NULL, other_thread, seen), 0);
    ASSERT_EQ(pthread_join(th, NULL), 0);
    ASSERT_EQ(seen[0].type, TSR_DEVICE_META);
    ASSERT_EQ(seen[1].type, TSR_DEVICE_CPU);
    ASSERT_OK(tsr_set_default_device(NULL));
}

int main(void)
{
    test_scopes();
    test_process_wide();
    test_factories();
    test_threads();
    TEST_DONE();
}
