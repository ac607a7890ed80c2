/* demo: a client of tesserad, start to finish.
 *
 * Connects to the daemon ($TESSERA_SOCKET or the system socket), lists the
 * devices it serves, allocates tensors on the first accelerator (opencl:0)
 * in two memory formats, shows their strides and a few views, writes
 * through the shared mapping and reads back, adds and divides tensors of
 * mixed dtypes on the device (and on cpu, for the same bits), and prints
 * the session's memory statistics. Exits 1 with the library's message on any failure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != TSR_OK) {                                                       \
            fprintf(stderr, "demo: %s: %s\n", #call, tsr_last_error());               \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static void print_dims(const char *what, const int64_t *dims, int n)
{
    printf("  %s (", what);
    for (int k = 0; k < n; k++)
        printf("%s%" PRId64, k ? ", " : "", dims[k]);
    printf(n == 1 ? ",)" : ")");
}

static void show(const char *what, const tsr_tensor *t)
{
    char device[TSR_DEVICE_STR_MAX], type[64];
    tsr_device_str(tsr_tensor_device(t), device, sizeof device);
    tsr_tensor_type(t, type, sizeof type);
    printf("  %-26s %-8s %-26s", what, device, type);
    print_dims("sizes", tsr_tensor_sizes(t), tsr_tensor_ndim(t));
    print_dims("strides", tsr_tensor_strides(t), tsr_tensor_ndim(t));
    printf("  offset %" PRId64 "  contiguous %s\n", tsr_tensor_storage_offset(t),
           tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT) ? "yes" : "no");
}

int main(void)
{
    tsr_client *client;
    CHECK(tsr_client_open(NULL, &client));
    printf("connected to tesserad: session %u, protocol %u\n", tsr_client_session_id(client),
           tsr_client_protocol_version(client));

    int32_t count;
    CHECK(tsr_device_count(client, TSR_DEVICE_OPENCL, &count));
    printf("\ndevices:\n");
    for (int32_t k = 0; k < count; k++) {
        tsr_device_properties p;
        CHECK(tsr_device_get_properties(client, (tsr_device){TSR_DEVICE_OPENCL, k}, &p));
        printf("  opencl:%d  %s (%s), %" PRIu64 " MiB, %u compute units, %s, NUMA node %d\n", k,
               p.name, p.vendor, p.memory_bytes >> 20, p.compute_units,
               p.host_unified_memory ? "shares host memory" : "discrete memory", p.numa_node);
    }
    if (count == 0) {
        printf("  none: this daemon serves cpu and meta only\n");
        tsr_client_close(client);
        return 0;
    }

    tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    CHECK(tsr_set_device(client, dev));
    printf("\ntensors on opencl:0:\n");
    int64_t sizes[4] = {2, 3, 4, 5};
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true,
                              .device = dev};
    tsr_tensor *x, *cl, *h, *xt, *col, *row, *e;
    CHECK(tsr_tensor_empty(client, 4, sizes, &f32, &x));
    show("empty(2,3,4,5)", x);
    tsr_tensor_options cl_opts = f32;
    cl_opts.has_memory_format = true;
    cl_opts.memory_format = TSR_CHANNELS_LAST;
    CHECK(tsr_tensor_empty(client, 4, sizes, &cl_opts, &cl));
    show("channels_last", cl);
    int64_t hw[2] = {3, 4};
    tsr_tensor_options f16 = f32;
    f16.dtype = TSR_FLOAT16;
    CHECK(tsr_tensor_full(client, 2, hw, tsr_scalar_float(1.5), &f16, &h));
    show("full((3,4), 1.5, float16)", h);
    CHECK(tsr_tensor_t(h, &xt));
    show(".t()", xt);
    CHECK(tsr_tensor_select(h, 1, 2, &col));
    show("[:, 2]", col);
    CHECK(tsr_tensor_narrow(h, 0, 1, 2, &row));
    show("narrow(0, 1, 2)", row);
    int64_t big[3] = {2, 3, 4};
    CHECK(tsr_tensor_expand(h, big, 3, &e));
    show("expand(2, 3, 4)", e);

    /* Write through the mapping, read back through a transposed view. */
    float *data;
    CHECK(tsr_tensor_data_ptr(x, (void **)&data));
    for (int k = 0; k < 120; k++)
        data[k] = (float)k;
    tsr_tensor *xp;
    int64_t perm[4] = {3, 2, 1, 0};
    CHECK(tsr_tensor_permute(x, perm, 4, &xp));
    float back[120];
    CHECK(tsr_tensor_copy_to_host(xp, back, sizeof back));
    printf("\nwrote 0..119 into opencl:0 memory; permute(3,2,1,0) reads back %.0f %.0f %.0f ...\n",
           back[0], back[1], back[2]);

    /* Arithmetic on opencl:0 with PyTorch's type promotion: int32 + 2 *
     * float32 is float32, int32 / int32 is the default dtype. The kernels
     * run in the daemon, asynchronously; tsr_synchronize waits for them.
     * The cpu device computes the same bits in this process. */
    int64_t two_three[2] = {2, 3};
    int32_t ints[6] = {1, 2, 3, 4, 5, -7};
    float floats[6] = {0.5f, 0.25f, -1.0f, 1e8f, 3.0f, 0.1f};
    int32_t divisors[6] = {3, 3, 3, 3, 3, 2};
    tsr_device where[2] = {dev, {TSR_DEVICE_CPU, -1}};
    float sums[2][6], quotients[2][6];
    for (int w = 0; w < 2; w++) {
        tsr_tensor_options on = {.has_device = true, .device = where[w]};
        tsr_tensor *a, *b, *d, *sum, *quotient;
        CHECK(tsr_tensor_from_data(client, 2, two_three, TSR_INT32, ints, &on, &a));
        CHECK(tsr_tensor_from_data(client, 2, two_three, TSR_FLOAT32, floats, &on, &b));
        CHECK(tsr_tensor_from_data(client, 2, two_three, TSR_INT32, divisors, &on, &d));
        CHECK(tsr_add(a, b, tsr_scalar_int(2), &sum));
        CHECK(tsr_div(a, d, TSR_ROUNDING_NONE, &quotient));
        CHECK(tsr_synchronize(client, where[w]));
        if (w == 0) {
            printf("\narithmetic on opencl:0:\n");
            show("int32 + 2 * float32", sum);
            show("int32 / int32", quotient);
        }
        CHECK(tsr_tensor_copy_to_host(sum, sums[w], sizeof sums[w]));
        CHECK(tsr_tensor_copy_to_host(quotient, quotients[w], sizeof quotients[w]));
        tsr_tensor *done[] = {quotient, sum, d, b, a};
        for (size_t k = 0; k < 5; k++)
            tsr_tensor_release(done[k]);
    }
    printf("  a + 2 * b = [");
    for (int k = 0; k < 6; k++)
        printf("%s%.9g", k ? ", " : "", sums[0][k]);
    printf("]\n  a / d     = [");
    for (int k = 0; k < 6; k++)
        printf("%s%.9g", k ? ", " : "", quotients[0][k]);
    printf("]\n  the cpu device gives the same bits: %s\n",
           memcmp(sums[0], sums[1], sizeof sums[0]) == 0 &&
                   memcmp(quotients[0], quotients[1], sizeof quotients[0]) == 0
               ? "yes"
               : "NO");

    tsr_memory_stats m;
    CHECK(tsr_memory_get_stats(client, dev, &m));
    printf("memory on opencl:0: %" PRIu64 " bytes allocated, %" PRIu64 " reserved in %" PRIu64
           " segment(s), %" PRIu64 " of %" PRIu64 " MiB free on the device\n",
           m.allocated, m.reserved, m.segments, m.device_free >> 20, m.device_capacity >> 20);

    tsr_tensor *all[] = {xp, e, row, col, xt, h, cl, x};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        tsr_tensor_release(all[k]);
    tsr_client_close(client);
    return 0;
}
