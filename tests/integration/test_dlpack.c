/* DLPack exchange of opencl tensors with a real daemon: exported as
 * kDLOpenCL (the allocation and the view's byte offset) they come back
 * only to their own session, as themselves; with TSR_DLPACK_HOST, on a
 * device whose memory the host shares, they leave as kDLCPU host memory
 * after the queued kernels finished, and come back as cpu tensors over the
 * same memory. */
#include "support_daemon.h"
#include "tessera/dlpack.h"
#include "test.h"

static int deleted;

static void counting_deleter(DLManagedTensor *self)
{
    (void)self;
    deleted++;
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (c == NULL)
        return 1;
    tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(c, dev, &p));
    if (!p.host_unified_memory) {
        tsr_client_close(c);
        test_daemon_stop(&d);
        TEST_SKIP("opencl:0 does not share the host's memory");
    }

    /* x = [0, 1, ..., 7] + 10 on the device, queued. */
    float v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t n = 8;
    tsr_tensor_options o = {.has_device = true, .device = dev};
    tsr_tensor *x = NULL, *y = NULL, *tail = NULL, *back = NULL;
    ASSERT_OK(tsr_tensor_from_data(c, 1, &n, TSR_FLOAT32, v, &o, &x));
    ASSERT_OK(tsr_add_scalar(x, tsr_scalar_float(10.0), tsr_scalar_int(1), &y));
    ASSERT_OK(tsr_tensor_slice(y, 0, true, 3, false, 0, 1, &tail));
    if (tail == NULL)
        return 1;
    void *tail_data = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(tail, &tail_data));

    /* Host: kDLCPU at the first element, the kernel's result visible. */
    DLManagedTensor *m = NULL;
    ASSERT_OK(tsr_tensor_to_dlpack(tail, TSR_DLPACK_HOST, &m));
    ASSERT_EQ(m->dl_tensor.device.device_type, kDLCPU);
    ASSERT_EQ(m->dl_tensor.device.device_id, 0);
    ASSERT_TRUE(m->dl_tensor.data == tail_data);
    ASSERT_EQ(m->dl_tensor.byte_offset, 0);
    ASSERT_EQ(m->dl_tensor.shape[0], 5);
    const float *host = m->dl_tensor.data;
    ASSERT_TRUE(host[0] == 13.0f && host[4] == 17.0f);
    /* ... and back as a cpu tensor over the same memory. */
    ASSERT_OK(tsr_tensor_from_dlpack(NULL, m, &back));
    ASSERT_EQ(tsr_tensor_device(back).type, TSR_DEVICE_CPU);
    void *back_data = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(back, &back_data));
    ASSERT_TRUE(back_data == tail_data);
    tsr_tensor_release(back);

    /* Device: kDLOpenCL, the allocation plus the view's byte offset. */
    ASSERT_OK(tsr_tensor_to_dlpack(tail, 0, &m));
    ASSERT_EQ(m->dl_tensor.device.device_type, kDLOpenCL);
    ASSERT_EQ(m->dl_tensor.device.device_id, 0);
    ASSERT_EQ(m->dl_tensor.byte_offset, 3 * sizeof(float));
    ASSERT_TRUE((char *)m->dl_tensor.data + 12 == (char *)tail_data);
    /* Only its own session takes it back; a refusal leaves it ours. */
    ASSERT_FAIL(tsr_tensor_from_dlpack(NULL, m, &back), TSR_ERR_INVALID_ARGUMENT,
                "this DLPack tensor belongs to another Tessera session: import it with the "
                "client that exported it");
    ASSERT_OK(tsr_tensor_from_dlpack(c, m, &back));
    ASSERT_TRUE(tsr_tensor_shares_storage(back, y));
    ASSERT_EQ(tsr_tensor_device(back).type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(tsr_tensor_storage_offset(back), 3);
    float got[5];
    ASSERT_OK(tsr_tensor_copy_to_host(back, got, sizeof(got)));
    ASSERT_TRUE(got[0] == 13.0f && got[4] == 17.0f);
    tsr_tensor_release(back);

    /* Someone else's kDLOpenCL memory is refused, and stays theirs. */
    int64_t shape = 1;
    DLManagedTensor foreign = {.dl_tensor = {.data = v,
                                             .device = {kDLOpenCL, 0},
                                             .ndim = 1,
                                             .dtype = {kDLFloat, 32, 1},
                                             .shape = &shape},
                               .deleter = counting_deleter};
    ASSERT_FAIL(tsr_tensor_from_dlpack(c, &foreign, &back), TSR_ERR_NOT_SUPPORTED,
                "DLPack device type 4 is not supported: Tessera imports kDLCPU memory and the "
                "kDLOpenCL tensors it exported");
    ASSERT_EQ(deleted, 0);

    /* An export holds its memory, not the tensor object: a cpu tensor
     * given another storage (an out= of another shape) or moved into
     * shared memory leaves the export's memory as it was, alive (the
     * AddressSanitizer build would see it used after free). */
    for (int how = 0; how < 2; how++) {
        const int64_t four = 4, two[2] = {2, 3};
        tsr_tensor *a = NULL, *ones = NULL;
        float init[4] = {1, 2, 3, 4};
        ASSERT_OK(tsr_tensor_from_data(NULL, 1, &four, TSR_FLOAT32, init, NULL, &a));
        ASSERT_OK(tsr_tensor_to_dlpack(a, 0, &m));
        if (how == 0) {
            ASSERT_OK(tsr_tensor_ones(NULL, 2, two, NULL, &ones));
            int64_t dim0 = 0;
            ASSERT_OK(tsr_sum_out(ones, &dim0, 1, false, TSR_NO_DTYPE, a)); /* a: [3] */
            ASSERT_EQ(tsr_tensor_numel(a), 3);
        } else {
            ASSERT_OK(tsr_tensor_share_memory_(c, a));
        }
        float *e = m->dl_tensor.data;
        ASSERT_TRUE(e[0] == 1.0f && e[3] == 4.0f);
        e[3] = 5.0f; /* its own memory, still */
        ASSERT_TRUE(e[3] == 5.0f);
        void *now = NULL;
        ASSERT_OK(tsr_tensor_data_ptr(a, &now));
        ASSERT_TRUE(now != (void *)e);
        m->deleter(m);
        tsr_tensor_release(ones);
        tsr_tensor_release(a);
    }

    tsr_tensor_release(tail);
    tsr_tensor_release(y);
    tsr_tensor_release(x);
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
