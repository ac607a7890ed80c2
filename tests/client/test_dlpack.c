/* DLPack exchange of cpu tensors (tessera/dlpack.h): each dtype's DLPack
 * type (DLPack's codes written out here, not taken from the library),
 * strides and offsets of views, zero copy both ways (pointer identity,
 * writes through one side read through the other), the storage kept alive
 * by an export, foreign memory released through its deleter exactly once
 * when the last view goes, and the refusals with their messages. */
#include <stdlib.h>
#include <string.h>

#include "tessera/dlpack.h"
#include "test.h"

/* DLPack's type codes (dlpack.h 0.6; bool is 0.8's kDLBool). */
static const struct {
    tsr_dtype dtype;
    uint8_t code, bits;
} types[] = {
    {TSR_BOOL, 6, 8},     {TSR_UINT8, 1, 8},      {TSR_INT8, 0, 8},       {TSR_INT16, 0, 16},
    {TSR_INT32, 0, 32},   {TSR_INT64, 0, 64},     {TSR_UINT16, 1, 16},    {TSR_UINT32, 1, 32},
    {TSR_UINT64, 1, 64},  {TSR_FLOAT16, 2, 16},   {TSR_BFLOAT16, 4, 16},  {TSR_FLOAT32, 2, 32},
    {TSR_FLOAT64, 2, 64}, {TSR_COMPLEX32, 5, 32}, {TSR_COMPLEX64, 5, 64}, {TSR_COMPLEX128, 5, 128},
};

static tsr_tensor *arange_f32(int ndim, const int64_t *sizes)
{
    float v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (float)i;
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, ndim, sizes, TSR_FLOAT32, v, NULL, &t));
    return t;
}

static void *data_ptr(const tsr_tensor *t)
{
    void *p = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(t, &p));
    return p;
}

/* Every mappable dtype out and back: DLPack's code and width, kDLCPU,
 * shape and strides, and the same memory both ways. */
static void test_dtypes(void)
{
    const int64_t sizes[2] = {2, 3};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        tsr_tensor_options o = {.has_dtype = true, .dtype = types[i].dtype};
        tsr_tensor *t = NULL, *back = NULL;
        DLManagedTensor *m = NULL;
        ASSERT_OK(tsr_tensor_zeros(NULL, 2, sizes, &o, &t));
        ASSERT_OK(tsr_tensor_to_dlpack(t, 0, &m));
        if (m == NULL)
            continue;
        const DLTensor *dl = &m->dl_tensor;
        ASSERT_EQ(dl->dtype.code, types[i].code);
        ASSERT_EQ(dl->dtype.bits, types[i].bits);
        ASSERT_EQ(dl->dtype.lanes, 1);
        ASSERT_EQ(dl->device.device_type, kDLCPU);
        ASSERT_EQ(dl->device.device_id, 0);
        ASSERT_EQ(dl->ndim, 2);
        ASSERT_EQ(dl->shape[0], 2);
        ASSERT_EQ(dl->shape[1], 3);
        ASSERT_EQ(dl->strides[0], 3);
        ASSERT_EQ(dl->strides[1], 1);
        ASSERT_EQ(dl->byte_offset, 0);
        ASSERT_TRUE(dl->data == data_ptr(t));
        ASSERT_OK(tsr_tensor_from_dlpack(NULL, m, &back));
        ASSERT_EQ(tsr_tensor_dtype(back), types[i].dtype);
        ASSERT_EQ(tsr_tensor_device(back).type, TSR_DEVICE_CPU);
        ASSERT_TRUE(data_ptr(back) == data_ptr(t));
        tsr_tensor_release(back);
        tsr_tensor_release(t);
    }
}

/* A transposed view and a slice with a storage offset: strides in
 * elements, the first element as `data`, byte_offset 0; importing them
 * views the same elements. */
static void test_views(void)
{
    const int64_t sizes[2] = {3, 4};
    tsr_tensor *t = arange_f32(2, sizes), *tr = NULL, *sl = NULL, *back = NULL;
    ASSERT_OK(tsr_tensor_t(t, &tr));
    DLManagedTensor *m = NULL;
    ASSERT_OK(tsr_tensor_to_dlpack(tr, 0, &m));
    ASSERT_EQ(m->dl_tensor.shape[0], 4);
    ASSERT_EQ(m->dl_tensor.strides[0], 1);
    ASSERT_EQ(m->dl_tensor.strides[1], 4);
    ASSERT_TRUE(m->dl_tensor.data == data_ptr(t));
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, m, &back));
    float got[12];
    ASSERT_OK(tsr_tensor_copy_to_host(back, got, sizeof(got)));
    ASSERT_TRUE(got[0] == 0.0f && got[1] == 4.0f && got[2] == 8.0f && got[3] == 1.0f);
    tsr_tensor_release(back);

    /* t[1:, 2:]: storage offset 6, shape (2, 2), strides (4, 1). */
    tsr_tensor *rows = NULL;
    ASSERT_OK(tsr_tensor_slice(t, 0, true, 1, false, 0, 1, &rows));
    ASSERT_OK(tsr_tensor_slice(rows, 1, true, 2, false, 0, 1, &sl));
    tsr_tensor_release(rows);
    ASSERT_EQ(tsr_tensor_storage_offset(sl), 6);
    ASSERT_OK(tsr_tensor_to_dlpack(sl, 0, &m));
    ASSERT_TRUE(m->dl_tensor.data == (float *)data_ptr(t) + 6);
    ASSERT_EQ(m->dl_tensor.byte_offset, 0);
    ASSERT_EQ(m->dl_tensor.strides[0], 4);
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, m, &back));
    ASSERT_EQ(tsr_tensor_storage_offset(back), 0);
    ASSERT_OK(tsr_tensor_copy_to_host(back, got, 4 * sizeof(float)));
    ASSERT_TRUE(got[0] == 6.0f && got[1] == 7.0f && got[2] == 10.0f && got[3] == 11.0f);
    /* Zero copy: a write through the import is seen by the original. */
    *(float *)data_ptr(back) = -1.0f;
    ASSERT_TRUE(((float *)data_ptr(t))[6] == -1.0f);
    tsr_tensor_release(back);
    tsr_tensor_release(sl);
    tsr_tensor_release(tr);
    tsr_tensor_release(t);
}

/* The export holds the storage: the tensor may go first. */
static void test_export_keeps_storage(void)
{
    const int64_t n = 8;
    tsr_tensor *t = arange_f32(1, &n);
    DLManagedTensor *m = NULL;
    ASSERT_OK(tsr_tensor_to_dlpack(t, 0, &m));
    tsr_tensor_release(t);
    const float *data = m->dl_tensor.data;
    ASSERT_TRUE(data[0] == 0.0f && data[7] == 7.0f);
    m->deleter(m); /* frees the storage (the sanitizer build checks) */
}

/* Foreign memory: a producer's DLManagedTensor with a counting deleter. */
typedef struct producer {
    DLManagedTensor managed;
    int64_t shape[2], strides[2];
    double buffer[8];
    int deleted;
} producer;

static void producer_deleter(DLManagedTensor *self)
{
    ((producer *)self->manager_ctx)->deleted++;
}

/* A 2x3 float64 matrix, column-major, starting 2 elements (16 bytes) into
 * the buffer, which holds 100 + i at index i. */
static void producer_init(producer *p)
{
    memset(p, 0, sizeof(*p));
    for (int i = 0; i < 8; i++)
        p->buffer[i] = 100.0 + i;
    p->shape[0] = 2;
    p->shape[1] = 3;
    p->strides[0] = 1;
    p->strides[1] = 2;
    p->managed.dl_tensor = (DLTensor){.data = p->buffer,
                                      .device = {kDLCPU, 0},
                                      .ndim = 2,
                                      .dtype = {kDLFloat, 64, 1},
                                      .shape = p->shape,
                                      .strides = p->strides,
                                      .byte_offset = 16};
    p->managed.manager_ctx = p;
    p->managed.deleter = producer_deleter;
}

static void test_foreign(void)
{
    producer p;
    producer_init(&p);
    tsr_tensor *t = NULL, *tr = NULL;
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, &p.managed, &t));
    ASSERT_EQ(tsr_tensor_dtype(t), TSR_FLOAT64);
    ASSERT_EQ(tsr_tensor_strides(t)[1], 2);
    ASSERT_TRUE(data_ptr(t) == &p.buffer[2]);
    double got[6];
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, sizeof(got)));
    ASSERT_TRUE(got[0] == 102.0 && got[1] == 104.0 && got[2] == 106.0 && got[3] == 103.0 &&
                got[5] == 107.0);
    /* A write through Tessera lands in the producer's buffer. */
    ASSERT_OK(tsr_tensor_fill_(t, tsr_scalar_float(-2.0)));
    ASSERT_TRUE(p.buffer[1] == 101.0 && p.buffer[2] == -2.0 && p.buffer[7] == -2.0);
    /* The last view, not the first tensor, calls the deleter, once. */
    ASSERT_OK(tsr_tensor_t(t, &tr));
    tsr_tensor_release(t);
    ASSERT_EQ(p.deleted, 0);
    tsr_tensor_release(tr);
    ASSERT_EQ(p.deleted, 1);

    /* NULL strides: row-major. */
    producer_init(&p);
    p.managed.dl_tensor.strides = NULL;
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, &p.managed, &t));
    ASSERT_EQ(tsr_tensor_strides(t)[0], 3);
    ASSERT_TRUE(tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT));
    tsr_tensor_release(t);
    ASSERT_EQ(p.deleted, 1);

    /* A 0-dim tensor and a NULL deleter. */
    producer_init(&p);
    p.managed.dl_tensor.ndim = 0;
    p.managed.deleter = NULL;
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, &p.managed, &t));
    ASSERT_EQ(tsr_tensor_numel(t), 1);
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, sizeof(double)));
    ASSERT_TRUE(got[0] == 102.0);
    tsr_tensor_release(t);
}

/* What DLPack cannot say, and what Tessera cannot take: clear errors, and
 * a refused import leaves the deleter to its owner. */
static void test_refusals(void)
{
    const int64_t n = 2;
    DLManagedTensor *m = NULL;
    const tsr_dtype unmappable[] = {TSR_FLOAT8_E4M3FN,   TSR_FLOAT8_E5M2,    TSR_FLOAT8_E4M3FNUZ,
                                    TSR_FLOAT8_E5M2FNUZ, TSR_FLOAT8_E8M0FNU, TSR_FLOAT4_E2M1FN_X2};
    for (size_t i = 0; i < sizeof(unmappable) / sizeof(unmappable[0]); i++) {
        tsr_tensor_options o = {.has_dtype = true, .dtype = unmappable[i]};
        tsr_tensor *t = NULL;
        ASSERT_OK(tsr_tensor_zeros(NULL, 1, &n, &o, &t));
        char want[96];
        snprintf(want, sizeof(want), "DLPack has no type code for %s",
                 tsr_dtype_name(unmappable[i]));
        ASSERT_FAIL(tsr_tensor_to_dlpack(t, 0, &m), TSR_ERR_NOT_SUPPORTED, want);
        tsr_tensor_release(t);
    }
    tsr_tensor_options meta = {.has_device = true, .device = {TSR_DEVICE_META, -1}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_empty(NULL, 1, &n, &meta, &t));
    ASSERT_FAIL(tsr_tensor_to_dlpack(t, 0, &m), TSR_ERR_RUNTIME, "Cannot pack tensors on meta");
    tsr_tensor_release(t);
    t = arange_f32(1, &n);
    ASSERT_FAIL(tsr_tensor_to_dlpack(t, 6, &m), TSR_ERR_INVALID_ARGUMENT,
                "unknown DLPack export flags 0x6");
    ASSERT_TRUE(m == NULL);
    tsr_tensor_release(t);
    t = NULL;

    producer p;
    producer_init(&p);
    p.managed.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 4};
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_NOT_SUPPORTED,
                "DLPack vector types are not supported (lanes 4; Tessera needs 1)");
    p.managed.dl_tensor.dtype = (DLDataType){kDLFloat, 8, 1};
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_NOT_SUPPORTED,
                "DLPack type (code 2, bits 8, lanes 1) has no Tessera dtype");
    p.managed.dl_tensor.dtype = (DLDataType){kDLFloat, 64, 1};
    p.managed.dl_tensor.device = (DLDevice){kDLCUDA, 0};
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_NOT_SUPPORTED,
                "DLPack device type 2 is not supported: Tessera imports kDLCPU memory and the "
                "kDLOpenCL tensors it exported");
    p.managed.dl_tensor.device = (DLDevice){kDLCPU, 0};
    p.strides[0] = -1;
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_NOT_SUPPORTED,
                "DLPack tensor has a negative stride (-1): Tessera's strides are non-negative");
    p.strides[0] = 1;
    p.shape[1] = -3;
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_INVALID_ARGUMENT,
                "DLPack tensor has a negative size (-3)");
    p.shape[1] = 3;
    p.managed.dl_tensor.ndim = TSR_MAX_DIMS + 1;
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    p.managed.dl_tensor.ndim = 2;
    p.managed.dl_tensor.data = NULL;
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, &p.managed, &t), TSR_ERR_INVALID_ARGUMENT,
                "DLPack tensor has elements but no data");
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, NULL, &t), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_TRUE(t == NULL);
    ASSERT_EQ(p.deleted, 0);
}

int main(void)
{
    test_dtypes();
    test_views();
    test_export_keeps_storage();
    test_foreign();
    test_refusals();
    TEST_DONE();
}
