#!/usr/bin/env python3
"""Writes the seed corpus of the `wire` fuzz target (fuzz_wire.c):

    python3 tests/fuzz/gen_wire_corpus.py [OUT_DIR]   (default: corpus/wire beside it)

Valid frames of every message of docs/protocol.md, requests and replies,
error replies included, then frames broken in one way each: truncated,
oversized, bad magic, version or flags, unknown opcodes, lengths that
disagree, garbled error payloads. Files are named seed-NN-<first 8 hex
digits of their SHA-1>, as the other corpora are; the directory's old
seed-* files are replaced. The layouts are written out here on purpose,
from the document rather than from the C structures, so the corpus also
checks that the two agree.
"""
import struct

import seeds

MAGIC = 0x31525354  # "TSR1"
VERSION = 7
REPLY, ERROR = 0x1, 0x2
FRAME_MAX = 4096
HEADER = struct.Struct("<IHHIIQ")  # magic, version, opcode, flags, length, request_id

# The device type values of include/tessera/device.h used below.
CPU, OPENCL = 0, 4


def text(s, size):
    b = s.encode()[: size - 1]
    return b + b"\0" * (size - len(b))


def device(dtype, index):
    return struct.pack("<ii", dtype, index)


def frame(opcode, payload=b"", flags=0, request_id=1, version=VERSION, magic=MAGIC, length=None):
    n = len(payload) if length is None else length
    return HEADER.pack(magic, version, opcode, flags, n, request_id) + payload


def error_payload(status, message, length=None):
    m = message.encode()
    return struct.pack("<iI", status, len(m) if length is None else length) + m


DAEMON_INDEX = 0x1  # tsr__wire_device_info flags: daemon_index is filled
LIMITED = 0x2  # memory is the asker's limit; device_memory what the device has


def device_info(dev, memory, name, vendor, api, render, daemon_index=-1, device_memory=0):
    flags = DAEMON_INDEX | (LIMITED if device_memory else 0)
    return (dev + struct.pack("<QQIi", memory, 4096, 8, 0) + bytes([1, 1, 1, flags])
            + struct.pack("<i", daemon_index) + text(name, 256) + text(vendor, 256) + text("3.1", 256) + text(api, 256)
            + text("0-7", 256) + text("0000:01:00.0", 32) + text(render, 64)
            + struct.pack("<Q", device_memory))


def session_info(sid, more):
    usage = device(OPENCL, 0) + struct.pack("<QQ", 512, 2 << 20)
    usage += b"\0" * (24 * 15)
    return (struct.pack("<IIIIIIII", sid, 4242, 1000, 1000, more, 1, 1, 0)
            + struct.pack("<QQ", 17, 1700000000000000000) + device(OPENCL, 0)
            + text("python3", 64) + text("train.py", 64) + usage)


HELLO, PING, DEVICE_GET, SET_DEVICE, GET_DEVICE, ALLOC, FREE = 1, 2, 3, 4, 5, 6, 7
SEGMENT_MAP, MEMORY_STATS, EMPTY_CACHE, SESSION_LIST = 8, 9, 10, 11
FILL, LAUNCH = 12, 13
PROCESS_LIST, SESSION_STATS, DEVICE_STATUS, TOPOLOGY, DAEMON_STATS = 14, 15, 16, 17, 18
EXPORT, IMPORT, REVOKE, SHARE_LIST = 19, 20, 21, 22
PROGRAM_CREATE, PROGRAM_SOURCE, PROGRAM_STATUS, PROGRAM_RELEASE = 23, 24, 25, 26
KERNEL_INFO, KERNEL_LAUNCH = 27, 28
GEMM = 29


def gemm(dtype, flags, batch, m, n, k, handles, offsets, ld, bstride, alpha, beta):
    """A tsr__wire_gemm (core/protocol.h): C, A, B's handles, offsets,
    leading dimensions and batch strides; alpha and beta as 16 bytes."""
    return (struct.pack("<IIqqqq", dtype, flags, batch, m, n, k)
            + struct.pack("<QQQ", *handles) + struct.pack("<qqq", *offsets)
            + struct.pack("<qqq", *ld) + struct.pack("<qqq", *bstride)
            + alpha.ljust(16, b"\0") + beta.ljust(16, b"\0"))


def kernel(op, common, sizes, operands, scalar=b"", alpha=b""):
    """A tsr__kernel (core/kernel.h): operands are (dtype, flags, handle,
    offset, strides)."""
    k = struct.pack("<IIiI", op, common, len(sizes), len(operands))
    k += struct.pack("<25q", *(list(sizes) + [0] * (25 - len(sizes))))
    k += scalar.ljust(16, b"\0") + alpha.ljust(16, b"\0")
    for dtype, flags, handle, offset, strides in operands + [(0, 0, 0, 0, [])] * (4 - len(operands)):
        k += struct.pack("<IIQq", dtype, flags, handle, offset)
        k += struct.pack("<25q", *(list(strides) + [0] * (25 - len(strides))))
    assert len(k) == 1144
    return k


def program_source(program, offset, data):
    return struct.pack("<IIQ", program, len(data), offset) + data.ljust(3968, b"\0")


def kernel_arg(kind, size, type_name, name):
    return struct.pack("<II", kind, size) + text(type_name, 28) + text(name, 28)


def kernel_launch(program, kernel, global_size, args, local_size=()):
    """args: (kind, size, handle, bytes, value) per argument."""
    dims = len(global_size)
    out = struct.pack("<IIII", program, kernel, dims, len(args))
    out += struct.pack("<3Q", *(list(global_size) + [0] * (3 - dims)))
    out += struct.pack("<3Q", *(list(local_size) + [0] * (3 - len(local_size))))
    for kind, size, handle, nbytes, value in args:
        out += struct.pack("<IIQQ", kind, size, handle, nbytes) + value.ljust(16, b"\0")
    return out + b"\0" * (40 * (32 - len(args)))


def region(handle, itemsize, offset, sizes, strides):
    r = struct.pack("<QIiq", handle, itemsize, len(sizes), offset)
    r += struct.pack("<25q", *(list(sizes) + [0] * (25 - len(sizes))))
    r += struct.pack("<25q", *(list(strides) + [0] * (25 - len(strides))))
    return r

def process(sid, flags, pid, uid, unit, cgroup):
    """A tsr__wire_process: one session as PROCESS_LIST describes it."""
    usage = device(OPENCL, 0) + struct.pack("<QQQ", 1 << 20, 2 << 20, 4 << 30)
    usage += b"\0" * (32 * 15)
    p = (struct.pack("<IIIIIIII", sid, flags, pid, uid, uid, 1, 1, 0)
         + struct.pack("<QQQ", 17, 1700000000000000000, 4026531836) + device(OPENCL, 0)
         + text("python3", 64) + text("train.py", 64) + text(unit, 128) + text(cgroup, 512)
         + usage + struct.pack("<QQ", 250000000, 42)
         + struct.pack("<IIQQII", 2, 64, 1 << 20, 8 << 30, 60000, 60000))
    assert len(p) == 1392
    return p


def device_status(dev, flags, kind, backend):
    """A tsr__wire_device_status: the neutral part, then the backend's own."""
    s = (dev + struct.pack("<7Q", 64 << 20, 2 << 20, 1 << 20, 250000000, 1000000000,
                           16 << 20, 64 << 10)
         + struct.pack("<6I", 1, flags, kind, 2700, 1024, 0) + bytes(range(16))
         + text(backend, 16) + text("Portable Computing Language" if backend else "", 256)
         + struct.pack("<QII", 2 if backend else 0, 0, 0)
         + text("OpenCL C 1.2 pocl" if backend else "", 256)
         + struct.pack("<3Q", 42 if backend else 0, 3 if backend else 0, 19 if backend else 0)
         + struct.pack("<IIII", 1 if backend else 0, 2 if backend else 0, 1 if backend else 0, 0))
    assert len(s) == 688
    return s


session_stats = struct.pack("<18Q", 1 << 20, 1 << 20, 2 << 20, 2 << 20, 1 << 20, 1 << 20,
                            1 << 20, 1, 1 << 20, 1, 3, 2, 1, 1, 0, 1, 0, 4 << 30)
session_stats += struct.pack("<4I", 2, 3, 4243, 0)

hello = struct.pack("<IIII", 3, 3, 4242, 0) + text("python3", 64)
welcome = struct.pack("<IIIIIIQ", 3, 3, 3, 32, 2048, 0, 69696)
block = struct.pack("<QQQQII", 0x1234567800000001, 512, 512, 2 << 20, 1, 1)
stats = struct.pack("<13Q", 512, 2 << 20, 512, 48, 512, 2 << 20, 1, 0, 0, 0, 1, 64 << 20,
                    62 << 20)

monitor_hello = struct.pack("<IIII", 5, 5, 4242, 1) + text("tessera", 64)
monitor_welcome = struct.pack("<IIIIIIQ", 5, 7, 3, 0, 0, 0, 0)

valid = [
    frame(HELLO, hello),
    frame(HELLO, welcome, REPLY),
    frame(HELLO, monitor_hello),
    frame(HELLO, monitor_welcome, REPLY),
    frame(PING, request_id=2),
    frame(PING, flags=REPLY, request_id=2),
    frame(DEVICE_GET, struct.pack("<II", 1, 0), request_id=3),
    frame(DEVICE_GET, device_info(device(OPENCL, 0), 64 << 20, "pthread-cpu", "PoCL",
                                  "OpenCL 3.0 pocl", "", daemon_index=1), REPLY, 3),
    frame(DEVICE_GET, device_info(device(OPENCL, 0), 16 << 20, "pthread-cpu", "PoCL",
                                  "OpenCL 3.0 pocl", "", daemon_index=1,
                                  device_memory=64 << 20), REPLY, 3),
    frame(DEVICE_GET, device_info(device(CPU, -1), 1 << 34, "host processor", "", "", ""),
          REPLY, 4),
    frame(SET_DEVICE, struct.pack("<Q", 4243) + device(OPENCL, 0), request_id=5),
    frame(SET_DEVICE, flags=REPLY, request_id=5),
    frame(GET_DEVICE, struct.pack("<Qii", 4243, OPENCL, 0), request_id=6),
    frame(GET_DEVICE, device(OPENCL, 0), REPLY, 6),
    frame(ALLOC, device(OPENCL, 0) + struct.pack("<QII", 48, 0, 0), request_id=7),
    frame(ALLOC, device(OPENCL, 0) + struct.pack("<QII", 48, 1, 0), request_id=7),  # ALONE
    frame(ALLOC, block, REPLY, 7),
    frame(FREE, struct.pack("<Q", 0x1234567800000001), request_id=8),
    frame(FREE, flags=REPLY, request_id=8),
    frame(SEGMENT_MAP, struct.pack("<II", 1, 0), request_id=9),
    frame(SEGMENT_MAP, struct.pack("<Q", 2 << 20) + device(OPENCL, 0), REPLY, 9),
    frame(MEMORY_STATS, device(OPENCL, 0), request_id=10),
    frame(MEMORY_STATS, stats, REPLY, 10),
    frame(EMPTY_CACHE, device(OPENCL, 0), request_id=11),
    frame(EMPTY_CACHE, struct.pack("<Q", 2 << 20), REPLY, 11),
    frame(FILL, region(0x1234567800000001, 4, 0, [2, 3], [3, 1]) + struct.pack("<f", 1.0)
          .ljust(16, b"\0"), request_id=14),
    frame(FILL, struct.pack("<II", 0, 0), REPLY, 14),
    # User kernels: a program's creation, its source, its state, a kernel's
    # arguments, a launch of it (a tensor, local memory, a float), release.
    frame(PROGRAM_CREATE, device(OPENCL, 0) + struct.pack("<Q", 5000) + text("-Werror", 512)
          + struct.pack("<II", 0, 0), request_id=26),
    frame(PROGRAM_CREATE, device(OPENCL, 0) + struct.pack("<Q", 20) + text("", 512)
          + struct.pack("<II", 1, 0), request_id=26),
    frame(PROGRAM_CREATE, struct.pack("<II", 1, 0), REPLY, 26),
    frame(PROGRAM_SOURCE, program_source(1, 0, b"__kernel void k(__global float *p) {}"),
          request_id=27),
    frame(PROGRAM_SOURCE, flags=REPLY, request_id=27),
    frame(PROGRAM_STATUS, struct.pack("<II", 1, 0), request_id=28),
    frame(PROGRAM_STATUS, struct.pack("<IiII", 3, 1, 0, 6) + text("error:", 3072), REPLY, 28),
    frame(KERNEL_INFO, struct.pack("<II", 1, 0) + text("block_sum", 64), request_id=29),
    frame(KERNEL_INFO, struct.pack("<II", 0, 3) + kernel_arg(0, 0, "float*", "in")
          + kernel_arg(2, 0, "float*", "scratch") + kernel_arg(3, 4, "uint", "n")
          + b"\0" * (64 * 29), REPLY, 29),
    frame(KERNEL_LAUNCH, kernel_launch(1, 0, [4096], [(0, 0, 0x1234567800000001, 16, b""),
                                                      (2, 0, 0, 256, b""),
                                                      (3, 4, 0, 0, struct.pack("<f", 2.0))],
                                       [64]), request_id=31),
    frame(KERNEL_LAUNCH, struct.pack("<II", 3, 0), REPLY, 31),
    # GEMM: float32 C (2 x 3 batch of 4) = A (transposed) @ B, beta 0.
    frame(GEMM, gemm(11, 0x5, 4, 2, 3, 5, (0x1234567800000001, 0x1234567800000002,
                                          0x1234567800000003), (0, 8, 0), (3, 2, 3),
                     (6, 10, 15), struct.pack("<f", 1.0), b""), request_id=33),
    frame(GEMM, struct.pack("<II", 4, 0), REPLY, 33),
    frame(PROGRAM_RELEASE, struct.pack("<II", 1, 0), request_id=32),
    frame(PROGRAM_RELEASE, flags=REPLY, request_id=32),
    # LAUNCH: float32 add of a transposed input and a scalar, and a copy.
    frame(LAUNCH, kernel(3, 11, [4, 8], [(11, 0, 0x1234567800000001, 0, [8, 1]),
                                         (11, 0, 0x1234567800000002, 16, [1, 4]),
                                         (11, 1, 0, 0, [])],
                         struct.pack("<f", 2.5), struct.pack("<f", 1.0)), request_id=15),
    frame(LAUNCH, struct.pack("<II", 7, 0), REPLY, 15),
    frame(LAUNCH, kernel(1, 5, [1000], [(5, 0, 0x1234567800000001, 0, [1]),
                                        (8, 0, 0x1234567800000003, 24, [2])]), request_id=16),
    # LAUNCH of where (op 48): a bool condition, an int32 input and two
    # float32 scalars would be refused; one scalar in `scalar`, one in alpha.
    frame(LAUNCH, kernel(48, 11, [6], [(11, 0, 0x1234567800000001, 0, [1]),
                                       (0, 0, 0x1234567800000004, 0, [1]),
                                       (11, 1, 0, 0, []), (11, 1, 0, 0, [])],
                         struct.pack("<f", 1.0), struct.pack("<f", 0.0)), request_id=18),
    frame(SESSION_LIST, struct.pack("<II", 0, 0), request_id=12),
    frame(SESSION_LIST, session_info(3, 1), REPLY, 12),
    frame(SESSION_LIST, b"\0" * 568, REPLY, 13),
    # Administration: a full entry, another user's (hidden), the end of the list.
    frame(PROCESS_LIST, struct.pack("<II", 0, 0), request_id=18),
    frame(PROCESS_LIST, process(3, 0xF, 4242, 1000, "train.service",
                                "/system.slice/train.service"), REPLY, 18),
    frame(PROCESS_LIST, process(4, 0x1, 0, 0xFFFFFFFF, "", ""), REPLY, 19),
    frame(PROCESS_LIST, b"\0" * 1392, REPLY, 20),
    frame(SESSION_STATS, struct.pack("<II", 3, 0) + device(OPENCL, 0), request_id=21),
    frame(SESSION_STATS, session_stats, REPLY, 21),
    frame(DEVICE_STATUS, device(OPENCL, 0), request_id=22),
    frame(DEVICE_STATUS, device_status(device(OPENCL, 0), 0xF, 1, "opencl"), REPLY, 22),
    frame(DEVICE_STATUS, device_status(device(CPU, -1), 0, 0, ""), REPLY, 23),
    frame(TOPOLOGY, device(OPENCL, 1), request_id=24),
    frame(TOPOLOGY, device(OPENCL, 1) + struct.pack("<II", 2, 1) + bytes([2, 1]) + b"\0" * 62,
          REPLY, 24),
    frame(DAEMON_STATS, request_id=25),
    frame(DAEMON_STATS, struct.pack("<10QII", 1700000000000000000, 3600 * 10**9, 12, 1, 30, 0,
                                    2, 1, 1, 0, 3, 1), REPLY, 25),
    frame(SESSION_STATS, error_payload(1, "no open session 99"), REPLY | ERROR, 21),
    # Sharing: an export of a 2x3 float32 view, its key, an import and its
    # reply, a revocation, the list of exports.
    frame(EXPORT, region(0x1234567800000001, 4, 1, [2, 3], [1, 2]) + struct.pack("<iIII", 11, 1, 0, 0),
          request_id=30),
    frame(EXPORT, struct.pack("<Q", 0x0000000700000009) + bytes(range(16)), REPLY, 30),
    frame(IMPORT, struct.pack("<Q", 0x0000000700000009) + bytes(range(16)), request_id=31),
    frame(IMPORT, struct.pack("<QQQQIIiiiI", 12, 4096, 512, 1 << 21, 3, 1, OPENCL, 0, 11, 1000)
          + region(12, 4, 1, [2, 3], [1, 2]), REPLY, 31),
    frame(REVOKE, struct.pack("<Q", 0x0000000700000009) + bytes(16), request_id=32),
    frame(REVOKE, flags=REPLY, request_id=32),
    frame(SHARE_LIST, struct.pack("<Q", 0), request_id=33),
    frame(SHARE_LIST, struct.pack("<QIIIIiiQII", 0x0000000700000009, 7, 0x201, 1000, 1, OPENCL, 0,
                                  512, 1, 0) + struct.pack("<16I", 8, *([0] * 15)), REPLY, 33),
    frame(IMPORT, error_payload(12, "export 0000000700000009 was revoked: it can no longer be "
                                    "imported"), REPLY | ERROR, 31),
    # Error replies: each status that the daemon sends, and the extremes.
    frame(PING, error_payload(11, "PING before HELLO: open the session first"), REPLY | ERROR, 1),
    frame(HELLO, error_payload(11, "protocol version mismatch: the client speaks versions 2 to 7, "
                                   "this tesserad speaks 1 to 1; use a libtessera and tesserad "
                                   "of matching releases"), REPLY | ERROR, 1),
    frame(ALLOC, error_payload(7, "opencl:0 out of memory. Tried to allocate 8589934592.00 GiB; "
                                  "the largest allocation supported is 281474976710656 bytes"),
          REPLY | ERROR, 7),
    frame(FREE, error_payload(1, "invalid allocation handle 0xffffffffffffffff: not a live "
                                 "allocation of this session"), REPLY | ERROR, 8),
    frame(SET_DEVICE, error_payload(8, "invalid device type 9999"), REPLY | ERROR, 5),
    frame(DEVICE_GET, error_payload(4, "device position 4294967295 out of range (3 devices)"),
          REPLY | ERROR, 3),
    frame(SET_DEVICE, error_payload(13, "too many client threads with a current device (4096)"),
          REPLY | ERROR, 5),
    frame(PING, error_payload(3, ""), REPLY | ERROR, 2),
    frame(MEMORY_STATS, error_payload(15, "x" * 1024), REPLY | ERROR, 10),
    frame(EMPTY_CACHE, error_payload(9, "embedded\0nul"), REPLY | ERROR, 11),
]

ping = frame(PING, request_id=2)
alloc = frame(ALLOC, device(OPENCL, 0) + struct.pack("<QII", 48, 0, 0), request_id=7)
broken = [
    b"",
    ping[:1],
    ping[:23],
    alloc[:30],                                          # payload cut short
    frame(PING, b"\0" * (FRAME_MAX - 24)),               # exactly the largest frame
    frame(PING, b"\0" * (FRAME_MAX - 23)),               # one byte over
    frame(PING, magic=0x31525355),
    frame(PING, magic=0x54535231),                       # big-endian magic
    frame(PING, version=0),
    frame(PING, version=6),                              # the release before
    frame(PING, version=8),
    frame(0),
    frame(12),
    frame(30),                                           # one past the last opcode
    frame(GEMM, gemm(11, 0, 1, 2, 2, 2, (1, 2, 3), (0, 0, 0), (2, 2, 2), (0, 0, 0),
                     b"", b"")[:100], request_id=34),   # cut short
    frame(PROGRAM_SOURCE, program_source(1, 0, b"x")[:100], request_id=30),  # cut short
    frame(KERNEL_LAUNCH, kernel_launch(1, 0, [8], [(0, 0, 1, 0, b"")])[:1343]),
    frame(0xFFFF),
    frame(LAUNCH, kernel(3, 11, [4], [(11, 0, 1, 0, [1])])[:900], request_id=17),  # cut short
    frame(PING, flags=ERROR),                            # error flag on a request
    frame(PING, flags=0x4),
    frame(PING, flags=0x80000000 | REPLY),
    frame(PING, length=8),                               # says 8, carries 0
    frame(PING, b"\0" * 8),                              # carries 8, PING has none
    frame(PING, length=0xFFFFFFFF),
    frame(ALLOC, device(OPENCL, 0), request_id=7),       # 8 bytes where 16 belong
    frame(ALLOC, block[:16], REPLY, 7),                  # a request's size as a reply
    frame(HELLO, hello + b"\0"),
    frame(HELLO, struct.pack("<IIII", 4, 7, 1, 0) + text("x", 64)),  # valid frame, bad range
    frame(HELLO, struct.pack("<IIII", 1, 1, 1, 1) + b"A" * 64),     # flags, unterminated name
    frame(DEVICE_GET, device_info(device(OPENCL, 0), 1, "n" * 256, "v", "a", "r" * 64,
                                  daemon_index=0), REPLY, 3),  # unterminated text fields
    frame(SESSION_LIST, struct.pack("<I", 1) + b"\xff" * 564, REPLY, 12),
    frame(PROCESS_LIST, process(3, 0x3, 1, 1, "u" * 128, "c" * 512), REPLY, 18),  # unterminated
    frame(TOPOLOGY, device(OPENCL, 1), REPLY, 24),       # a request's size as a reply
    frame(DEVICE_STATUS, device_status(device(OPENCL, 0), 0xF, 9, "o" * 16), REPLY, 22),
    frame(DEVICE_STATUS, b"\0" * 624, REPLY, 22),         # version 2's size
    frame(DEVICE_STATUS, b"\0" * 648, REPLY, 22),         # version 4's size
    frame(PING, error_payload(0, "TSR_OK is no error"), REPLY | ERROR, 2),
    frame(PING, error_payload(16, "past the list"), REPLY | ERROR, 2),
    frame(PING, error_payload(-1, "negative"), REPLY | ERROR, 2),
    frame(PING, error_payload(11, "short", length=4), REPLY | ERROR, 2),
    frame(PING, error_payload(11, "long", length=900), REPLY | ERROR, 2),
    frame(PING, struct.pack("<i", 11), REPLY | ERROR, 2),  # shorter than its head
    frame(PING, error_payload(11, "y" * 1025), REPLY | ERROR, 2),
    ping + ping,                                         # two frames in one packet
]


def main():
    seeds.write("wire", valid + broken)


if __name__ == "__main__":
    main()
