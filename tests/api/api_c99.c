/* The public API as a strict C99 program sees it: <tessera/tessera.h>
 * compiles with -std=c99 -pedantic -Werror, and a few calls through the
 * shared library give the documented answers. */
#include <tessera/tessera.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "failed: %s (last error: %s)\n", what, tsr_last_error());
        failures++;
    }
}

int main(void)
{
    tsr_dtype d = TSR_BOOL;
    tsr_device dev;
    char buf[TSR_DEVICE_STR_MAX];

    check(tsr_version() == TSR_VERSION_NUMBER, "tsr_version() == TSR_VERSION_NUMBER");
    check(strcmp(tsr_version_string(), TSR_VERSION_STRING) == 0, "tsr_version_string()");
    check(tsr_dtype_from_name("torch.half", &d) == TSR_OK && d == TSR_FLOAT16,
          "tsr_dtype_from_name(\"torch.half\")");
    check(strcmp(tsr_dtype_name(TSR_BFLOAT16), "bfloat16") == 0, "tsr_dtype_name(TSR_BFLOAT16)");
    check(tsr_device_parse("cuda:1", &dev) == TSR_OK && dev.index == 1, "tsr_device_parse");
    check(tsr_device_str(dev, buf, sizeof(buf)) == 6 && strcmp(buf, "cuda:1") == 0,
          "tsr_device_str");
    check(tsr_dtype_from_name("float33", &d) == TSR_ERR_TYPE && d == TSR_FLOAT16,
          "a failed lookup leaves its output alone");

    /* The ABI (export.h): structs passed in keep their reserved words
     * zero, and a struct that does not is refused rather than half read. */
    {
        tsr_client_options o = {0};
        tsr_client *c = NULL;
        float f = 1.0f;
        uint16_t h = 0;
        tsr_cast_options cast = {0};
        o.socket_path = "/nonexistent/tesserad.sock";
        o.abi_reserved[6] = 1;
        check(tsr_client_open(&o, &c) == TSR_ERR_INVALID_ARGUMENT && c == NULL,
              "tsr_client_open refuses reserved words set");
        o.abi_reserved[6] = 0;
        o.flags = TSR_CLIENT_MONITOR << 1;
        check(tsr_client_open(&o, &c) == TSR_ERR_INVALID_ARGUMENT && c == NULL,
              "tsr_client_open refuses unknown flags");
        o.flags = 0;
        cast.abi_reserved[0] = 1;
        check(tsr_cast_buffer_ex(&f, TSR_FLOAT32, &h, TSR_FLOAT16, 1, &cast) ==
                      TSR_ERR_INVALID_ARGUMENT &&
                  h == 0,
              "tsr_cast_buffer_ex refuses reserved words set");
        cast.abi_reserved[0] = 0;
        check(tsr_cast_buffer_ex(&f, TSR_FLOAT32, &h, TSR_FLOAT16, 1, &cast) == TSR_OK &&
                  h == 0x3c00,
              "tsr_cast_buffer_ex with zeroed options");
    }
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
