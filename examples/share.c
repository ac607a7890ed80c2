/* share: one tensor, two processes (tessera/share.h).
 *
 *   ./share export            # prints a handle and keeps the tensor
 *   ./share import HANDLE     # another process: the same memory, doubled
 *
 * The exporter writes 0 .. 7 into a float32 tensor on opencl:0, exports it
 * and prints the handle; the importer, given the handle (any way: an
 * argument, a file, an environment variable), maps the same memory, adds
 * it to itself in place, and the exporter, after Enter, prints 0 2 4 ...
 * 14. Both need the same daemon ($TESSERA_SOCKET) and, by default, the
 * same uid. */
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

static int fail(const char *what)
{
    fprintf(stderr, "share: %s: %s\n", what, tsr_last_error());
    return 1;
}

static int exporter(tsr_client *c)
{
    float v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t n = 8;
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    tsr_export_handle h;
    char text[TSR_EXPORT_HANDLE_STR_MAX];
    if (tsr_tensor_from_data(c, 1, &n, TSR_FLOAT32, v, &o, &t) != TSR_OK ||
        tsr_tensor_export(t, NULL, &h) != TSR_OK)
        return fail("export");
    tsr_export_handle_str(&h, text, sizeof text);
    printf("%s\n", text);
    fflush(stdout);
    (void)getchar(); /* the importer runs meanwhile */
    if (tsr_tensor_copy_to_host(t, v, sizeof v) != TSR_OK)
        return fail("copy_to_host");
    for (int i = 0; i < 8; i++)
        printf("%g%s", v[i], i < 7 ? " " : "\n");
    tsr_tensor_release(t);
    return 0;
}

static int importer(tsr_client *c, const char *text)
{
    tsr_export_handle h;
    tsr_tensor *t = NULL;
    if (tsr_export_handle_parse(text, &h) != TSR_OK || tsr_tensor_import(c, &h, &t) != TSR_OK)
        return fail("import");
    /* Done once synchronize returns: the exporter then sees it. */
    if (tsr_add_(t, t, tsr_scalar_int(1)) != TSR_OK ||
        tsr_synchronize(c, tsr_tensor_device(t)) != TSR_OK)
        return fail("add_");
    tsr_tensor_release(t);
    return 0;
}

int main(int argc, char **argv)
{
    tsr_client *c = NULL;
    int rc;
    if (argc == 2 && strcmp(argv[1], "export") == 0) {
        rc = tsr_client_open(NULL, &c) == TSR_OK ? exporter(c) : fail("open");
    } else if (argc == 3 && strcmp(argv[1], "import") == 0) {
        rc = tsr_client_open(NULL, &c) == TSR_OK ? importer(c, argv[2]) : fail("open");
    } else {
        fprintf(stderr, "usage: share export | share import HANDLE\n");
        rc = 2;
    }
    tsr_client_close(c);
    return rc;
}
