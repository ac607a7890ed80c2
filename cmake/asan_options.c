/* AddressSanitizer defaults for the programs that may load PoCL: tesserad,
 * the tests that open OpenCL in-process and tessera-bench. CMake compiles
 * this file into them only when TESSERA_SANITIZE is on.
 *
 * use_sigaltstack=0: PoCL compiles kernels with LLVM, and LLVM installs its
 * own heap-allocated alternate signal stack on each thread where it runs.
 * ASan, which also puts one on every thread, then tries to munmap LLVM's
 * stack at thread exit and aborts ("failed to deallocate ... unable to
 * unmap") when the daemon stops. Without ASan's stack nothing is unmapped
 * that ASan did not map; a stack overflow still crashes, without a report.
 *
 * $ASAN_OPTIONS is applied after these defaults and may override them. */

/* The sanitizer runtime, a shared library under gcc, looks the function up
 * dynamically: it must be exported although the project builds with hidden
 * visibility. */
#define TSR__ASAN_EXPORT __attribute__((visibility("default"), used))

TSR__ASAN_EXPORT const char *__asan_default_options(void);

TSR__ASAN_EXPORT const char *__asan_default_options(void)
{
    return "use_sigaltstack=0";
}
