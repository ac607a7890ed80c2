// The public API as a C++11 program sees it: <tessera/tessera.h> compiles
// with -std=c++11 -pedantic -Werror, its declarations have C linkage (the
// calls below link against libtessera.so), and its enums work as C++ types.
#include <tessera/tessera.h>

#include <cstdio>
#include <string>

static_assert(TSR_OK == 0, "TSR_OK is zero");
static_assert(sizeof(tsr_device) == 8, "tsr_device is a type and an index");

int main()
{
    int failures = 0;
    auto check = [&failures](bool ok, const char *what) {
        if (!ok) {
            std::fprintf(stderr, "failed: %s (last error: %s)\n", what, tsr_last_error());
            failures++;
        }
    };

    check(std::string(tsr_version_string()) == TSR_VERSION_STRING, "tsr_version_string()");
    tsr_dtype d = TSR_BOOL;
    check(tsr_dtype_from_name("cfloat", &d) == TSR_OK && d == TSR_COMPLEX64,
          "tsr_dtype_from_name(\"cfloat\")");
    tsr_dtype promoted = TSR_BOOL;
    check(tsr_promote_types(TSR_INT32, TSR_FLOAT16, &promoted) == TSR_OK && promoted == TSR_FLOAT16,
          "tsr_promote_types(int32, float16)");
    check(std::string(tsr_status_name(TSR_ERR_TYPE)) == "TSR_ERR_TYPE", "tsr_status_name");

    const int64_t sizes[2] = {2, 3};
    int64_t strides[2] = {0, 0};
    check(tsr_strides_for(2, sizes, TSR_CONTIGUOUS_FORMAT, strides) == TSR_OK && strides[0] == 3 &&
              strides[1] == 1,
          "tsr_strides_for");
    std::printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
