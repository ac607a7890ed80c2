/* Your own OpenCL C on Tessera's tensors: y = a * x + y on opencl:0,
 * between two built-in operations, checked on the host. */
#include <stdio.h>
#include <tessera/tessera.h>

static const char *SOURCE =
    "__kernel void saxpy(__global float *y, __global const float *x, float a, uint n) {\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

int main(void)
{
    enum { N = 1000 };
    const tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    tsr_client *c = NULL;
    tsr_program *prog = NULL;
    tsr_kernel *k = NULL;
    tsr_tensor *x = NULL, *y = NULL;
    int rc = 1;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        goto out;
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true,
                              .device = dev};
    int64_t sizes[1] = {N};
    tsr_scalar one = {.kind = TSR_INT64, .v.i = 1};
    if (tsr_program_create(c, dev, SOURCE, NULL, &prog) != TSR_OK ||
        tsr_program_wait(prog) != TSR_OK) /* the message holds the compiler's log */
        goto out;
    if (tsr_tensor_ones(c, 1, sizes, &f32, &x) != TSR_OK || tsr_add(x, x, one, &y) != TSR_OK)
        goto out; /* x = 1, y = 2 */
    float a = 3;
    uint32_t n = N;
    size_t global[1] = {N};
    if (tsr_kernel_create(prog, "saxpy", &k) != TSR_OK ||
        tsr_kernel_set_arg_tensor(k, 0, y) != TSR_OK ||
        tsr_kernel_set_arg_tensor(k, 1, x) != TSR_OK ||
        tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &a) != TSR_OK ||
        tsr_kernel_set_arg_scalar(k, 3, TSR_UINT32, &n) != TSR_OK ||
        tsr_kernel_launch(k, 1, global, NULL) != TSR_OK) /* y = 3 * 1 + 2 */
        goto out;
    if (tsr_add_(y, x, one) != TSR_OK) /* after the kernel, in order: y = 6 */
        goto out;
    float host[N];
    if (tsr_tensor_copy_to_host(y, host, sizeof host) != TSR_OK) /* waits for both */
        goto out;
    printf("y[0] = %g, y[%d] = %g\n", host[0], N - 1, host[N - 1]);
    rc = host[0] == 6.0f && host[N - 1] == 6.0f ? 0 : 1;
out:
    if (rc)
        fprintf(stderr, "user_kernel: %s\n", tsr_last_error());
    tsr_kernel_release(k); /* all of these accept NULL */
    tsr_program_release(prog);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    tsr_client_close(c);
    return rc;
}
