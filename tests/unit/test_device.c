/* Unit tests of device types and device strings (torch.device). */
#include "test.h"

static void expect_device(const char *text, const char *str, const char *repr)
{
    tsr_device d;
    char buf[TSR_DEVICE_STR_MAX];
    ASSERT_OK(tsr_device_parse(text, &d));
    tsr_device_str(d, buf, sizeof(buf));
    ASSERT_STREQ(buf, str);
    tsr_device_repr(d, buf, sizeof(buf));
    ASSERT_STREQ(buf, repr);
}

static void expect_invalid(const char *text)
{
    char msg[256];
    tsr_device d = {TSR_DEVICE_META, 7};
    snprintf(msg, sizeof(msg), "Invalid device string: '%s'", text);
    ASSERT_FAIL(tsr_device_parse(text, &d), TSR_ERR_RUNTIME, msg);
    ASSERT_EQ(d.type, TSR_DEVICE_META); /* untouched */
    ASSERT_EQ(d.index, 7);
}

static void expect_unknown(const char *text, const char *name)
{
    char msg[512];
    tsr_device d;
    snprintf(msg, sizeof(msg), "Expected one of %s device type at start of device string: %s",
             tsr_device_type_list(), name);
    ASSERT_FAIL(tsr_device_parse(text, &d), TSR_ERR_RUNTIME, msg);
}

static void parse(void)
{
    expect_device("cpu", "cpu", "device(type='cpu')");
    expect_device("cuda:0", "cuda:0", "device(type='cuda', index=0)");
    expect_device("cuda:10", "cuda:10", "device(type='cuda', index=10)");
    expect_device("cpu:0", "cpu:0", "device(type='cpu', index=0)");
    expect_device("opencl:3", "opencl:3", "device(type='opencl', index=3)");
    expect_device("privateuseone", "privateuseone", "device(type='privateuseone')");
    expect_device("mtia:127", "mtia:127", "device(type='mtia', index=127)");
    static const char *const invalid[] = {
        "cuda:01", "cuda:-1", "cuda: 1", "cuda:1:2", "cuda:",   "cuda::0", ":0",      "cuda:1a",
        "cuda:a",  "cuda0",   " cpu",    "cpu ",     "cuda:0 ", "cu-da",   "cuda:+1", "cpu\n"};
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
        expect_invalid(invalid[i]);
    expect_unknown("CUDA", "CUDA");
    expect_unknown("Cuda:0", "Cuda");
    expect_unknown("foo:0", "foo");
    expect_unknown("_:0", "_");
    expect_unknown("cu_da", "cu_da");
    expect_unknown("metal", "metal"); /* a device type, but not one a string may name */
    tsr_device d;
    ASSERT_FAIL(tsr_device_parse("", &d), TSR_ERR_RUNTIME, "Device string must not be empty");
    ASSERT_FAIL(tsr_device_parse("cuda:99999999999", &d), TSR_ERR_RUNTIME,
                "Could not parse device index '99999999999' in device string 'cuda:99999999999'");
    ASSERT_FAIL(tsr_device_parse("cuda:2147483648", &d), TSR_ERR_RUNTIME,
                "Could not parse device index '2147483648' in device string 'cuda:2147483648'");
    /* PyTorch would wrap these around an int8; Tessera refuses them */
    ASSERT_EQ(tsr_device_parse("cuda:128", &d), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(tsr_device_parse("cuda:2147483647", &d), TSR_ERR_INVALID_ARGUMENT);
    /* the verdict on the shape comes before the name lookup */
    expect_invalid("CUDA:01");
    ASSERT_EQ(tsr_device_parse(NULL, &d), TSR_ERR_INVALID_ARGUMENT);
}

static void make(void)
{
    tsr_device d;
    char buf[TSR_DEVICE_STR_MAX];
    ASSERT_OK(tsr_device_make("cuda", TSR_INDEX_GIVEN, 2, &d));
    tsr_device_str(d, buf, sizeof(buf));
    ASSERT_STREQ(buf, "cuda:2");
    ASSERT_OK(tsr_device_make("cpu", TSR_INDEX_GIVEN, 0, &d));
    tsr_device_repr(d, buf, sizeof(buf));
    ASSERT_STREQ(buf, "device(type='cpu', index=0)");
    ASSERT_OK(tsr_device_make("cuda", TSR_INDEX_NONE, 0, &d));
    ASSERT_EQ(d.index, -1);
    ASSERT_OK(tsr_device_make("cuda:1", TSR_INDEX_OMITTED, 0, &d));
    ASSERT_EQ(d.index, 1);
    ASSERT_FAIL(tsr_device_make("cuda", TSR_INDEX_GIVEN, -1, &d), TSR_ERR_RUNTIME,
                "Device index must not be negative");
    ASSERT_FAIL(tsr_device_make("cuda:1", TSR_INDEX_GIVEN, 0, &d), TSR_ERR_RUNTIME,
                "type (string) must not include an index because index was passed explicitly: "
                "cuda:1");
    ASSERT_FAIL(tsr_device_make("cuda:1", TSR_INDEX_NONE, 0, &d), TSR_ERR_RUNTIME,
                "type (string) must not include an index because index was passed explicitly: "
                "cuda:1");
    ASSERT_FAIL(tsr_device_make("cuda:1", TSR_INDEX_GIVEN, -1, &d), TSR_ERR_RUNTIME,
                "type (string) must not include an index because index was passed explicitly: "
                "cuda:1");
    ASSERT_FAIL(tsr_device_for_accelerator(TSR_DEVICE_TYPE_COUNT, 0, &d), TSR_ERR_RUNTIME,
                "Cannot access accelerator device when none is available.");
    ASSERT_FAIL(tsr_device_for_accelerator(TSR_DEVICE_OPENCL, -2, &d), TSR_ERR_RUNTIME,
                "Device index must not be negative");
    ASSERT_OK(tsr_device_for_accelerator(TSR_DEVICE_OPENCL, 3, &d));
    ASSERT_EQ(d.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(d.index, 3);
}

static void equality_and_names(void)
{
    tsr_device a, b;
    ASSERT_OK(tsr_device_parse("cuda", &a));
    ASSERT_OK(tsr_device_parse("cuda:0", &b));
    ASSERT_FALSE(tsr_device_equal(a, b));
    ASSERT_OK(tsr_device_parse("cpu:0", &a));
    ASSERT_OK(tsr_device_parse("cpu", &b));
    ASSERT_FALSE(tsr_device_equal(a, b));
    ASSERT_OK(tsr_device_parse("cpu", &a));
    ASSERT_TRUE(tsr_device_equal(a, b));
    for (int t = 0; t < TSR_DEVICE_TYPE_COUNT; t++) {
        tsr_device_type back;
        const char *name = tsr_device_type_name((tsr_device_type)t);
        ASSERT_TRUE(name != NULL);
        if (tsr_device_type_is_parseable((tsr_device_type)t)) {
            ASSERT_OK(tsr_device_type_from_name(name, &back));
            ASSERT_EQ(back, t);
            ASSERT_TRUE(strstr(tsr_device_type_list(), name) != NULL);
        } else {
            ASSERT_EQ(tsr_device_type_from_name(name, &back), TSR_ERR_RUNTIME);
        }
    }
    ASSERT_STREQ(tsr_device_type_list(), "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
                                         "ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, "
                                         "privateuseone");
    char small[4];
    ASSERT_EQ(tsr_device_str(a, small, sizeof(small)), 3);
    ASSERT_STREQ(small, "cpu");
    ASSERT_OK(tsr_device_parse("cuda:12", &a));
    ASSERT_EQ(tsr_device_str(a, small, sizeof(small)), 7);
    ASSERT_STREQ(small, "cud");
}

int main(void)
{
    parse();
    make();
    equality_and_names();
    TEST_DONE();
}
