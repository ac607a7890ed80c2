/* Views beyond the tables: lifetime (views keep the storage alive after
 * their base is gone; run under ASan for leaks and use-after-free),
 * storage sharing, reshape's copy being independent, as_strided's offset
 * rule and storage check, expand's type names for dtypes 1.13 lacks,
 * data_ptr, and argument checks. */
#include <string.h>

#include "client/support_tensor.h"
#include "test.h"

static const tensor_env cpu = {NULL, {TSR_DEVICE_CPU, -1}};
static const tensor_env meta = {NULL, {TSR_DEVICE_META, -1}};

static void expect_values(const tsr_tensor *t, const int64_t *want, int64_t n)
{
    int64_t got[64], count = 0;
    ASSERT_TRUE(tt_values(t, got, 64, &count));
    ASSERT_EQ(count, n);
    ASSERT_TRUE(count == n && memcmp(got, want, sizeof(int64_t) * (size_t)n) == 0);
}

static void test_lifetime(void)
{
    const int64_t sizes[2] = {3, 4};
    tsr_tensor *base = NULL, *v = NULL, *w = NULL;
    ASSERT_OK(tt_arange(&cpu, TSR_INT32, 2, sizes, &base));
    ASSERT_OK(tsr_tensor_t(base, &v));
    ASSERT_OK(tsr_tensor_select(v, 0, 1, &w));
    ASSERT_TRUE(tsr_tensor_shares_storage(base, w));
    /* The base and the middle view go; the last view still reads the
     * storage they shared. */
    tsr_tensor_release(base);
    tsr_tensor_release(v);
    const int64_t column1[3] = {1, 5, 9};
    expect_values(w, column1, 3);

    /* retain/release pair up; NULL is accepted. */
    ASSERT_TRUE(tsr_tensor_retain(w) == w);
    tsr_tensor_release(w);
    expect_values(w, column1, 3);
    tsr_tensor_release(w);
    ASSERT_TRUE(tsr_tensor_retain(NULL) == NULL);
    tsr_tensor_release(NULL);

    /* A long chain, each intermediate released as soon as it is used. */
    const int64_t flat[1] = {24};
    ASSERT_OK(tt_arange(&cpu, TSR_INT64, 1, flat, &base));
    tsr_tensor *cur = base;
    const int64_t shape[3] = {2, 3, 4};
    ASSERT_OK(tsr_tensor_view(cur, shape, 3, &v));
    tsr_tensor_release(cur);
    cur = v;
    for (int i = 0; i < 10; i++) {
        ASSERT_OK(tsr_tensor_transpose(cur, 0, 2, &v));
        tsr_tensor_release(cur);
        cur = v;
    }
    ASSERT_EQ(tsr_tensor_sizes(cur)[0], 2);
    ASSERT_OK(tsr_tensor_unsqueeze(cur, 0, &v));
    tsr_tensor_release(cur);
    ASSERT_EQ(tsr_tensor_ndim(v), 4);
    tsr_tensor_release(v);
}

static void test_reshape_copy(void)
{
    const int64_t sizes[2] = {2, 3}, flat[1] = {6};
    tsr_tensor *base = NULL, *tr = NULL, *copy = NULL, *view = NULL;
    ASSERT_OK(tt_arange(&cpu, TSR_INT16, 2, sizes, &base));
    ASSERT_OK(tsr_tensor_t(base, &tr));
    ASSERT_OK(tsr_tensor_reshape(tr, flat, 1, &copy));
    ASSERT_FALSE(tsr_tensor_shares_storage(copy, base));
    ASSERT_EQ(tsr_tensor_dtype(copy), TSR_INT16);
    /* Writing the copy leaves the base alone. */
    const int16_t minus[6] = {-1, -2, -3, -4, -5, -6};
    ASSERT_OK(tsr_tensor_copy_from_host(copy, minus, sizeof(minus)));
    const int64_t original[6] = {0, 1, 2, 3, 4, 5};
    expect_values(base, original, 6);
    /* A reshape that can view shares. */
    ASSERT_OK(tsr_tensor_reshape(base, flat, 1, &view));
    ASSERT_TRUE(tsr_tensor_shares_storage(view, base));
    tsr_tensor_release(view);
    tsr_tensor_release(copy);
    tsr_tensor_release(tr);
    tsr_tensor_release(base);

    /* meta copies have a shape and no data. */
    ASSERT_OK(tt_arange(&meta, TSR_FLOAT32, 2, sizes, &base));
    ASSERT_OK(tsr_tensor_t(base, &tr));
    ASSERT_OK(tsr_tensor_reshape(tr, flat, 1, &copy));
    ASSERT_EQ(tsr_tensor_device(copy).type, TSR_DEVICE_META);
    ASSERT_FALSE(tsr_tensor_shares_storage(copy, base));
    ASSERT_EQ(tsr_tensor_strides(copy)[0], 1);
    tsr_tensor_release(copy);
    tsr_tensor_release(tr);
    tsr_tensor_release(base);
}

static void test_as_strided(void)
{
    const int64_t four[1] = {4}, sizes[2] = {2, 2}, strides[2] = {1, 2};
    tsr_tensor *base = NULL, *v = NULL, *sel = NULL;
    tsr_tensor_options o = {0};
    ASSERT_OK(tsr_tensor_empty(NULL, 1, four, &o, &base));
    ASSERT_FAIL(tsr_tensor_as_strided(base, 2, sizes, strides, 3, &v), TSR_ERR_RUNTIME,
                "setStorage: sizes [2, 2], strides [1, 2], storage offset 3, and itemsize 4 "
                "requiring a storage size of 28 are out of bounds for storage of size 16");
    ASSERT_TRUE(v == NULL);
    const int64_t two[1] = {2}, skip[1] = {2};
    ASSERT_OK(tsr_tensor_as_strided(base, 1, two, skip, 1, &v)); /* elements 1 and 3: fits */
    ASSERT_EQ(tsr_tensor_storage_offset(v), 1);
    tsr_tensor_release(v);
    /* A negative offset keeps the tensor's own, which still has to fit. */
    const int64_t one[1] = {1}, unit[1] = {1};
    ASSERT_OK(tsr_tensor_narrow(base, 0, 3, 1, &sel));
    ASSERT_OK(tsr_tensor_as_strided(sel, 1, one, unit, -1, &v));
    ASSERT_EQ(tsr_tensor_storage_offset(v), 3);
    tsr_tensor_release(v);
    v = NULL;
    ASSERT_FAIL(tsr_tensor_as_strided(sel, 2, sizes, strides, -1, &v), TSR_ERR_RUNTIME,
                "setStorage: sizes [2, 2], strides [1, 2], storage offset 3, and itemsize 4 "
                "requiring a storage size of 28 are out of bounds for storage of size 16");
    tsr_tensor_release(sel);
    tsr_tensor_release(base);
    /* meta storages have a size too. */
    ASSERT_OK(tsr_tensor_empty(
        NULL, 1, four, &(tsr_tensor_options){.has_device = true, .device = meta.device}, &base));
    ASSERT_FAIL(tsr_tensor_as_strided(base, 2, sizes, strides, 3, &v), TSR_ERR_RUNTIME, NULL);
    tsr_tensor_release(base);
}

static void test_expand_names(void)
{
    static const struct {
        const tensor_env *env;
        tsr_dtype dtype;
        const char *name;
    } cases[] = {
        {&cpu, TSR_FLOAT32, "torch.FloatTensor"},
        {&cpu, TSR_UINT16, "CPUUInt16Type"},
        {&cpu, TSR_FLOAT8_E4M3FN, "CPUFloat8_e4m3fnType"},
        {&cpu, TSR_FLOAT4_E2M1FN_X2, "CPUFloat4_e2m1fn_x2Type"},
        {&cpu, TSR_BOOL, "CPUBoolType"},
        {&meta, TSR_INT64, "MetaLongType"},
    };
    const int64_t sizes[2] = {2, 3}, target[1] = {3};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tsr_tensor_options o = tt_options(cases[i].env, cases[i].dtype);
        tsr_tensor *t = NULL, *v = NULL;
        ASSERT_OK(tsr_tensor_empty(NULL, 2, sizes, &o, &t));
        char want[256];
        snprintf(want, sizeof(want),
                 "expand(%s{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater "
                 "or equal to the number of dimensions in the tensor (2)",
                 cases[i].name);
        ASSERT_FAIL(tsr_tensor_expand(t, target, 1, &v), TSR_ERR_RUNTIME, want);
        tsr_tensor_release(t);
    }
}

static void test_data_ptr(void)
{
    const int64_t sizes[2] = {3, 4};
    tsr_tensor *base = NULL, *row = NULL, *m = NULL;
    ASSERT_OK(tt_arange(&cpu, TSR_FLOAT64, 2, sizes, &base));
    ASSERT_OK(tsr_tensor_select(base, 0, 2, &row));
    void *p0 = NULL, *p2 = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(base, &p0));
    ASSERT_OK(tsr_tensor_data_ptr(row, &p2));
    ASSERT_TRUE((char *)p2 - (char *)p0 == 8 * 8);
    ASSERT_TRUE(((double *)p2)[0] == 8.0);
    tsr_tensor_release(row);
    tsr_tensor_release(base);

    ASSERT_OK(tt_arange(&meta, TSR_FLOAT64, 2, sizes, &m));
    void *p = &p;
    ASSERT_FAIL(tsr_tensor_data_ptr(m, &p), TSR_ERR_RUNTIME,
                "Cannot access data pointer of Tensor that doesn't have storage");
    ASSERT_TRUE(p == &p);
    ASSERT_FAIL(tsr_tensor_data_ptr(NULL, &p), TSR_ERR_INVALID_ARGUMENT, NULL);
    char type[64];
    tsr_tensor_type(m, type, sizeof(type));
    char want[64];
    tsr_tensor_type_name(TSR_FLOAT64, TSR_DEVICE_META, false, want, sizeof(want));
    ASSERT_STREQ(type, want);
    tsr_tensor_release(m);
}

static void test_arguments(void)
{
    const int64_t sizes[2] = {2, 3};
    tsr_tensor *t = NULL, *v = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 2, sizes, NULL, &t));
    ASSERT_FAIL(tsr_tensor_t(NULL, &v), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_t(t, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_expand(NULL, sizes, 2, &v), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_as_strided(NULL, 2, sizes, sizes, 0, &v), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(tsr_tensor_reshape(t, NULL, 2, &v), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_slice(t, 0, false, 0, false, 0, 0, &v), TSR_ERR_INVALID_ARGUMENT,
                "step must be greater than zero");
    int64_t size = 0;
    ASSERT_FAIL(tsr_tensor_size(NULL, 0, &size), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_stride(t, 0, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_TRUE(v == NULL);
    ASSERT_FALSE(tsr_tensor_shares_storage(t, NULL));
    /* The attribute getters. */
    tsr_geometry g;
    tsr_tensor_geometry(t, &g);
    ASSERT_EQ(g.ndim, 2);
    ASSERT_EQ(g.strides[0], 3);
    ASSERT_EQ(tsr_tensor_itemsize(t), 4);
    ASSERT_EQ(tsr_tensor_layout(t), TSR_STRIDED);
    tsr_tensor_release(t);
}

int main(void)
{
    test_lifetime();
    test_reshape_copy();
    test_as_strided();
    test_expand_names();
    test_data_ptr();
    test_arguments();
    TEST_DONE();
}
