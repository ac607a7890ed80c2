/* The table of the elementwise operations, from core/ops.def: what every
 * module that names an operation (the planner, the loops, the OpenCL
 * generator, the daemon's logs) reads instead of keeping a list. */
#include "core/kernel.h"

#include <stddef.h>

const tsr__kernel_op_info tsr__kernel_ops[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, no_bool, \
          no_complex)                                                                          \
    [TSR__KOP_##ENUM] = {#name,                                                                \
                         stub,                                                                 \
                         arity,                                                                \
                         TSR__KOPF_OF(call, flags, b, i, f, h, c),                             \
                         no_bool,                                                              \
                         no_complex,                                                           \
                         TSR__KREPLACE_##call},
#include "core/ops.def"
#undef X
};
