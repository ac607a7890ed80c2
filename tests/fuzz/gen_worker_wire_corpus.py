#!/usr/bin/env python3
"""Writes the seed corpus of the `worker_wire` fuzz target (fuzz_worker_wire.c):

    python3 tests/fuzz/gen_worker_wire_corpus.py [OUT_DIR]   (default: corpus/worker_wire beside it)

The packets between tesserad and a kernel worker (daemon/worker_wire.h),
each behind the target's selector byte: the requests a worker reads
(BUILD, LAUNCH with fresh and kept segments and a ring, RELEASE, FORGET) and the
answers the daemon reads (BUILT with kernels, a failed build, one whose
binary is still loading, LOADED, DONE), each
sound, then broken in one way: a wrong length or descriptor count, cut
descriptors, slots that repeat, a tensor past its segment, a range that
wraps, two sizes for one segment, an unknown status, a log length past
the log, kernels that do not fill the packet. Files are named
seed-NN-<first 8 hex digits of their SHA-1>; the directory's old seed-*
files are replaced, others (crashes kept as regression inputs) stay. The
layouts are written out here from the header's structures, whose sizes
it asserts (_Static_assert in daemon/worker_wire.h), so a change there
shows as a failing build until this file follows.
"""
import struct

import seeds

BUILD, LAUNCH, RELEASE, FORGET, BUILT, DONE, LOADED = 1, 2, 3, 4, 101, 102, 103
BUILT_CACHED, BUILT_LOADING = 1, 2
GLOBAL, CONSTANT, LOCAL, VALUE = 0, 1, 2, 3
OK, ERR_DEVICE = 0, 9
OPTIONS, LOG, KERNEL_NAME, ARG_TEXT, KERNEL_ARGS, KERNELS = 512, 3072, 64, 28, 32, 16
LAUNCH_FDS = KERNEL_ARGS + 1
NO_RING = 0xFFFFFFFF


def text(s, size):
    b = s.encode()[: size - 1]
    return b + b"\0" * (size - len(b))


def worker(packet, nfds=0, cut=False):
    """A request as the worker reads it: the selector, then the packet."""
    return bytes([(nfds << 2) | (2 if cut else 0)]) + packet


def daemon(packet, launch, ident, loaded=False):
    """An answer as the daemon reads it, waiting for launch or build `ident`
    (its BUILT, or its LOADED where `loaded`)."""
    return (bytes([1 | (2 if launch else 0) | (4 if loaded else 0)]) + struct.pack("<I", ident)
            + packet)


def build(program=7, source_bytes=120, options="-cl-kernel-arg-info", fmt=0):
    return (struct.pack("<IIIIQQ", BUILD, program, 20000, fmt, source_bytes, 256 << 20)
            + text(options, OPTIONS))


def arg(kind, size=0, segment=0, segment_bytes=0, offset=0, extent=0, value=b""):
    return (struct.pack("<IIIIQQQ", kind, size, segment, 0, segment_bytes, offset, extent)
            + value.ljust(16, b"\0"))


def launch(args, slots, fresh, ring=NO_RING, ident=1, work_dim=1, global_size=(1024, 1, 1),
           local_size=(0, 0, 0), nsegments=None, nargs=None):
    nseg = len(slots) if nsegments is None else nsegments
    head = struct.pack("<8I", LAUNCH, ident, 7, 0, work_dim,
                       len(args) if nargs is None else nargs, nseg, ring)
    head += struct.pack("<%dI" % LAUNCH_FDS, *(list(slots) + [0] * (LAUNCH_FDS - len(slots))))
    head += struct.pack("<4I", 0, 5, 0, 0)  # ring_queue, sequence, acked, pad
    head += b"\0" * 4                       # to fresh's 8-byte boundary
    head += struct.pack("<Q", fresh) + struct.pack("<3Q", *global_size)
    head += struct.pack("<3Q", *local_size)
    body = b"".join(args) + b"\0" * (56 * (KERNEL_ARGS - len(args)))
    return head + body


def release(program=7):
    return struct.pack("<II", RELEASE, program)


def forget(slots=(1 << 63) | 0b101):
    return struct.pack("<IIQ", FORGET, 0, slots)


def kernel_arg(kind, size, type_name, name):
    return struct.pack("<II", kind, size) + text(type_name, ARG_TEXT) + text(name, ARG_TEXT)


def kernel(name, args):
    padded = list(args) + [b"\0" * 64] * (KERNEL_ARGS - len(args))
    return text(name, KERNEL_NAME) + struct.pack("<II", len(args), 0) + b"".join(padded)


def built(program, status, log, kernels, nkernels=None, log_length=None, flags=0):
    logb = log.encode()
    return (struct.pack("<IIiIII", BUILT, program, status,
                        len(kernels) if nkernels is None else nkernels,
                        len(logb) if log_length is None else log_length, flags)
            + text(log, LOG) + b"".join(kernels))


def done(ident, status, message):
    return struct.pack("<IIiI", DONE, ident, status, 0) + text(message, 240)


def loaded(program, status, message):
    return struct.pack("<IIiI", LOADED, program, status, 0) + text(message, 240)


saxpy = kernel("saxpy", [kernel_arg(GLOBAL, 0, "float*", "y"), kernel_arg(GLOBAL, 0, "float*", "x"),
                         kernel_arg(VALUE, 4, "float", "a")])
reduce = kernel("block_sum", [kernel_arg(GLOBAL, 0, "float*", "out"),
                              kernel_arg(CONSTANT, 0, "float*", "in"),
                              kernel_arg(LOCAL, 0, "float*", "scratch")])

# Two tensors in one segment of 1 MiB and a scalar, both segments fresh;
# the same with the ring as a third segment and nothing fresh.
MiB = 1 << 20
saxpy_args = [arg(GLOBAL, segment=0, segment_bytes=MiB, offset=0, extent=4096),
              arg(GLOBAL, segment=0, segment_bytes=MiB, offset=4096, extent=4096),
              arg(VALUE, size=4, value=struct.pack("<f", 2.0))]
reduce_args = [arg(GLOBAL, segment=0, segment_bytes=MiB, offset=0, extent=64),
               arg(CONSTANT, segment=1, segment_bytes=2 * MiB, offset=MiB, extent=MiB),
               arg(LOCAL, offset=1024)]

valid = [
    worker(build(), 1),
    worker(build(fmt=1, source_bytes=20, options=""), 1),
    worker(launch(saxpy_args, [3], 0b1), 1),
    worker(launch(saxpy_args, [3, 9], 0b00, ring=1, ident=2), 0),
    worker(launch(reduce_args, [0, 63, 5], 0b101, ring=2, ident=3, work_dim=2,
                  global_size=(256, 4, 1), local_size=(64, 1, 0)), 2),
    worker(release()),
    worker(forget()),
    daemon(built(7, OK, "", [saxpy]), False, 7),
    daemon(built(8, OK, "warning: unused variable", [saxpy, reduce], flags=BUILT_CACHED), False, 8),
    daemon(built(11, OK, "", [saxpy], flags=BUILT_LOADING), False, 11),
    daemon(loaded(11, OK, ""), False, 11, loaded=True),
    daemon(loaded(12, ERR_DEVICE, "the kernel compiler crashed (signal 9: Killed)"), False, 12,
           loaded=True),
    daemon(built(9, OK, "", []), False, 9),
    daemon(built(10, ERR_DEVICE, "<source>:3:5: error: use of undeclared identifier 'q'", []),
           False, 10),
    daemon(done(4, OK, ""), True, 4),
    daemon(done(5, ERR_DEVICE, "the kernel failed: CL_OUT_OF_RESOURCES"), True, 5),
]

broken = [
    worker(build(), 0),                               # no source descriptor
    worker(build(), 2),
    worker(build(source_bytes=0), 1),
    worker(build(fmt=2), 1),
    worker(build(options="x" * 600)[:-1] + b"x", 1),  # options without their NUL
    worker(build()[:-1], 1),                          # a byte short
    worker(build() + b"\0", 1),                       # a byte long
    worker(launch(saxpy_args, [3], 0b1), 1, cut=True),
    worker(launch(saxpy_args, [3], 0b1), 0),          # fresh without its descriptor
    worker(launch(saxpy_args, [3, 3], 0b11), 2),      # one slot twice
    worker(launch(saxpy_args, [64], 0b1), 1),         # a slot past the last
    worker(launch(saxpy_args, [3], 0b11), 2),         # fresh past nsegments
    worker(launch(saxpy_args, [3], 0, nsegments=34), 0),
    worker(launch([arg(GLOBAL, segment=0, segment_bytes=4096, offset=4000, extent=200)], [1], 0)),
    worker(launch([arg(GLOBAL, segment=0, segment_bytes=4096, offset=8, extent=(1 << 64) - 4)],
                  [1], 0)),                           # offset + extent wraps
    worker(launch([arg(GLOBAL, segment=0, segment_bytes=4096, offset=0, extent=16),
                   arg(GLOBAL, segment=0, segment_bytes=1 << 40, offset=1 << 39, extent=16)],
                  [1], 0)),                           # two sizes for one segment
    worker(launch([arg(GLOBAL, segment=1, segment_bytes=4096)], [1, 2], 0, ring=1)),  # in the ring
    worker(launch([arg(GLOBAL, segment=2, segment_bytes=4096)], [1, 2], 0)),
    worker(launch([arg(LOCAL, offset=0)], [1], 0)),
    worker(launch([arg(VALUE, size=17)], [1], 0)),
    worker(launch([arg(7)], [1], 0)),
    worker(launch([], [1], 0, work_dim=4)),
    worker(launch([], [1], 0, global_size=(0, 1, 1))),
    worker(launch([], [1], 0, nargs=33)),
    worker(launch([], [1], 0, ring=1)),
    worker(release() + b"\0"),
    worker(forget()[:-1]),
    worker(forget(), 1),                              # a descriptor FORGET never has
    worker(struct.pack("<I", 99)),
    worker(b"\x01\x00"),
    daemon(built(7, OK, "", [saxpy]), False, 8),      # another program's
    daemon(built(7, OK, "", [saxpy]), True, 7),       # a build where a launch is owed
    daemon(built(7, OK, "", [saxpy], nkernels=2), False, 7),
    daemon(built(7, OK, "", [saxpy], nkernels=17), False, 7),
    daemon(built(7, OK, "", [saxpy])[:-1], False, 7),
    daemon(built(7, OK, "", [saxpy]) + b"\0" * 40000, False, 7),
    daemon(built(7, -3, "", []), False, 7),
    daemon(built(7, 16, "", []), False, 7),
    daemon(built(7, ERR_DEVICE, "x" * (LOG - 1), [], log_length=1 << 31), False, 7),
    daemon(built(7, OK, "", [kernel("k" * 70, [kernel_arg(9, 99, "t" * 40, "n" * 40)])]), False, 7),
    daemon(built(7, OK, "", [text("k", KERNEL_NAME) + struct.pack("<II", 200, 0)
                             + b"\xff" * (64 * KERNEL_ARGS)]), False, 7),
    daemon(built(7, OK, "", [])[:3096 - 1], False, 7),
    daemon(done(4, OK, ""), True, 5),
    daemon(done(4, OK, ""), False, 4),
    daemon(done(4, 77, "z" * 300), True, 4),
    daemon(done(4, OK, "") + b"\0", True, 4),
    daemon(struct.pack("<I", DONE), True, 0),
    daemon(loaded(11, OK, ""), False, 11),                 # LOADED where BUILT is owed
    daemon(built(11, OK, "", [saxpy]), False, 11, loaded=True),  # and the other way
    daemon(loaded(11, OK, ""), False, 12, loaded=True),    # another program's
    daemon(loaded(11, OK, "")[:-1], False, 11, loaded=True),
    daemon(loaded(11, 99, "m" * 300), False, 11, loaded=True),
]


def main():
    seeds.write("worker_wire", valid + broken)


if __name__ == "__main__":
    main()
