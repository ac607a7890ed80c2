/* hello: the smallest Tessera program. It prints the library's version
 * and a summary of the dtype table, using nothing but the public API.
 *
 *   cc hello.c $(pkg-config --cflags --libs tessera) -o hello
 * or, with CMake, find_package(Tessera) and link Tessera::tessera
 * (see CMakeLists.txt next to this file). */
#include <stdio.h>

#include <tessera/tessera.h>

static const char *category_name(tsr_dtype_category category)
{
    switch (category) {
    case TSR_CATEGORY_BOOL:
        return "bool";
    case TSR_CATEGORY_INTEGRAL:
        return "integral";
    case TSR_CATEGORY_FLOATING:
        return "floating";
    case TSR_CATEGORY_COMPLEX:
        return "complex";
    }
    return "?";
}

int main(void)
{
    printf("%s: %d dtypes\n", tsr_build_info(), (int)TSR_DTYPE_COUNT);
    printf("  %-18s %s  %s\n", "name", "bytes", "kind");
    for (int i = 0; i < TSR_DTYPE_COUNT; i++) {
        tsr_dtype d = (tsr_dtype)i;
        const char *name = tsr_dtype_name(d);
        const char *alias = tsr_dtype_alias(d);
        if (!name) {
            fprintf(stderr, "hello: dtype %d has no name\n", i);
            return 1;
        }
        printf("  %-18s %5zu  %s%s%s%s\n", name, tsr_dtype_itemsize(d),
               category_name(tsr_dtype_category_of(d)), tsr_dtype_is_shell(d) ? ", shell" : "",
               alias ? ", alias " : "", alias ? alias : "");
    }

    tsr_dtype promoted;
    if (tsr_promote_types(TSR_INT32, TSR_FLOAT16, &promoted) != TSR_OK) {
        fprintf(stderr, "hello: %s\n", tsr_last_error());
        return 1;
    }
    printf("default dtype: %s\n", tsr_dtype_name(tsr_get_default_dtype()));
    printf("promote_types(int32, float16) = %s\n", tsr_dtype_name(promoted));
    return 0;
}
