/* User kernels: OpenCL C of the caller's own, built and run by the daemon
 * on an accelerator's queue, in order with the built-in operations.
 *
 *   tsr_program *prog;
 *   tsr_program_create(client, dev, source, "-cl-fast-relaxed-math", &prog);
 *   if (tsr_program_wait(prog) != TSR_OK)   // the message holds the log
 *       puts(tsr_last_error());
 *   tsr_kernel *k;
 *   tsr_kernel_create(prog, "saxpy", &k);
 *   tsr_kernel_set_arg_tensor(k, 0, y);
 *   tsr_kernel_set_arg_tensor(k, 1, x);
 *   float a = 2;
 *   tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &a);
 *   size_t global[1] = {n};
 *   tsr_kernel_launch(k, 1, global, NULL);   // asynchronous
 *   tsr_synchronize(client, dev);            // errors of the kernel surface here
 *
 * Building is asynchronous: tsr_program_create sends the source and
 * returns; tsr_program_wait waits for the build and fails with the
 * compiler's log (its end, when long) in the message. The daemon adds
 * -cl-kernel-arg-info to the options, so that each kernel's arguments are
 * known: setting an argument of the wrong kind (a tensor for a scalar, a
 * float for a double, a local size for a pointer) fails at once, not at
 * the launch.
 *
 * A tensor argument is the address of the tensor's first element: its
 * storage advanced by its storage offset. The kernel sees the storage
 * from there to the end of its allocation; strides and sizes are the
 * caller's to pass as scalars where the kernel needs them.
 *
 * A launch goes on the device's queue after every operation this client
 * queued there before it, and the operations queued after it wait for it
 * (tsr_synchronize, host copies and every other ordering rule of ops.h
 * hold as for built-in operations). A kernel's failure (a fault of the
 * driver, a worker that crashed or ran past the daemon's time limit) is
 * reported by the next tsr_synchronize of the device, or the next launch.
 *
 * Kernels run outside the daemon, in a worker process of the caller's uid
 * and device: a kernel that writes out of bounds or crashes reaches only
 * memory of that uid's tensors passed to it, and ends only that worker
 * (its programs then fail with that reason: create them again). The
 * daemon's limits (kernels.* in tesserad.conf) bound the source size,
 * programs per session, build time and memory, and each kernel's run
 * time.
 *
 * Programs and kernels are reference-counted; a kernel holds its program.
 * A kernel's arguments are its own state: one thread at a time sets them
 * and launches it. */
#ifndef TESSERA_KERNEL_H
#define TESSERA_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/client.h"
#include "tessera/device.h"
#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_program tsr_program;
typedef struct tsr_kernel tsr_kernel;

/* What a kernel argument takes. */
typedef enum tsr_kernel_arg_kind {
    TSR_KERNEL_ARG_GLOBAL,   /* a __global pointer: a tensor */
    TSR_KERNEL_ARG_CONSTANT, /* a __constant pointer: a tensor */
    TSR_KERNEL_ARG_LOCAL,    /* a __local pointer: a size in bytes */
    TSR_KERNEL_ARG_SCALAR,   /* by value: a scalar (or a vector of up to 16 bytes) */
} tsr_kernel_arg_kind;

typedef struct tsr_kernel_arg {
    tsr_kernel_arg_kind kind;
    uint32_t size;            /* SCALAR: its bytes (0: a type not supported); else 0 */
    char name[32];            /* as the source names it */
    char type_name[32];       /* "float*", "uint", "float4" */
    uint64_t abi_reserved[4]; /* zero; room for later members (export.h) */
} tsr_kernel_arg;

/* Creates a program on an accelerator from OpenCL C source (NUL-terminated)
 * and build options (NULL: none) and starts its build. */
TSR_API tsr_status tsr_program_create(tsr_client *client, tsr_device device, const char *source,
                                      const char *options, tsr_program **out);
/* The same from a SPIR-V module of `bytes` bytes (a whole number of
 * 32-bit words, starting with the magic number 0x07230203), on a device
 * whose driver loads SPIR-V (OpenCL's khr il_program extension); the
 * options apply as to a source's build. Errors: TSR_ERR_NOT_SUPPORTED
 * naming the missing extension on a device without it (PoCL's CPU device
 * among them), TSR_ERR_INVALID_ARGUMENT for a module that is no SPIR-V. */
TSR_API tsr_status tsr_program_create_spirv(tsr_client *client, tsr_device device,
                                            const void *module, size_t bytes, const char *options,
                                            tsr_program **out);
/* Waits for the build: TSR_OK, or its failure with the compiler's log in
 * the message. */
TSR_API tsr_status tsr_program_wait(tsr_program *program);
/* The compiler's log (its end, when long) once the build is done, else "";
 * valid until the program is released. */
TSR_API const char *tsr_program_build_log(tsr_program *program);
TSR_API void tsr_program_retain(tsr_program *program);
TSR_API void tsr_program_release(tsr_program *program);

/* The kernel `name` of a built program (waits for the build). */
TSR_API tsr_status tsr_kernel_create(tsr_program *program, const char *name, tsr_kernel **out);
TSR_API uint32_t tsr_kernel_num_args(const tsr_kernel *kernel);
TSR_API tsr_status tsr_kernel_arg_info(const tsr_kernel *kernel, uint32_t index,
                                       tsr_kernel_arg *out);
/* A tensor on the program's device, for a __global or __constant pointer.
 * The kernel holds the tensor's memory (as a view of its own holds it)
 * until the argument is set again or the kernel is released: the tensor
 * may be released before the launch. */
TSR_API tsr_status tsr_kernel_set_arg_tensor(tsr_kernel *kernel, uint32_t index,
                                             const tsr_tensor *tensor);
/* A scalar of `dtype` at `value`, for a by-value argument of that many
 * bytes whose type matches (float: TSR_FLOAT32, int: TSR_INT32, ulong:
 * TSR_UINT64, ...; a vector type takes a matching raw size: see
 * tsr_kernel_set_arg_bytes). */
TSR_API tsr_status tsr_kernel_set_arg_scalar(tsr_kernel *kernel, uint32_t index, tsr_dtype dtype,
                                             const void *value);
/* Raw bytes for a by-value argument of exactly `size` bytes (vectors). */
TSR_API tsr_status tsr_kernel_set_arg_bytes(tsr_kernel *kernel, uint32_t index, const void *value,
                                            size_t size);
/* `bytes` of local memory (per work-group) for a __local pointer. */
TSR_API tsr_status tsr_kernel_set_arg_local(tsr_kernel *kernel, uint32_t index, size_t bytes);
/* Queues the kernel over work_dim (1..3) dimensions of global sizes, in
 * work-groups of local sizes (NULL: the driver picks); every argument
 * must be set. */
TSR_API tsr_status tsr_kernel_launch(tsr_kernel *kernel, uint32_t work_dim, const size_t *global,
                                     const size_t *local);
TSR_API void tsr_kernel_retain(tsr_kernel *kernel);
TSR_API void tsr_kernel_release(tsr_kernel *kernel);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_KERNEL_H */
