#!/usr/bin/env python3
"""Writes the seed corpus of the `dispatch` fuzz target (fuzz_dispatch.c):

    python3 tests/fuzz/gen_dispatch_corpus.py [OUT_DIR]   (default: corpus/dispatch beside it)

Hand-made message sequences in the target's own encoding: a session's
handshake, then every message of the protocol once, an allocation's life
(ALLOC, FILL, LAUNCH, FREE, EMPTY_CACHE), matrix products (GEMM), sessions of one uid running into
their limits, the ring transport and a client that goes away, a refused
handshake. Files are named seed-NN-<first 8 hex digits of their SHA-1>;
the directory's old seed-* files are replaced, crash-* and other
regression inputs are kept.

An input's first byte picks the daemon configuration (configs[] in
fuzz_dispatch.c; 0: the devices and limits inputs had before there was a
choice, the others small caps of each kind). Each message then starts with
a byte t: session slot t >> 5 (peers[]: 0, 1 and 3 uid 1000, 2 and 5 uid
1001, 4 uid 1002, 6 root, 7 of tessera-admin; a slot's first message
connects it, which the session caps may refuse), opcode 1 + (t & 15) (15:
the next byte picks it), HELLO while the session has not said it unless
t & 0x10; then a byte `how`: ring transport when how & 7 == 7, a wrong
length when how & 0xe0 == 0xe0, the client leaves after it when
how & 0x1e == 0x1e. The payload's bytes follow (see build() in
fuzz_dispatch.c).
"""

import seeds

(HELLO, PING, DEVICE_GET, SET_DEVICE, GET_DEVICE, ALLOC, FREE, SEGMENT_MAP, MEMORY_STATS,
 EMPTY_CACHE, SESSION_LIST, FILL, LAUNCH, PROCESS_LIST, SESSION_STATS, DEVICE_STATUS,
 TOPOLOGY, DAEMON_STATS, EXPORT, IMPORT, REVOKE, SHARE_LIST) = range(1, 23)
(PROGRAM_CREATE, PROGRAM_SOURCE, PROGRAM_STATUS, PROGRAM_RELEASE, KERNEL_INFO,
 KERNEL_LAUNCH, GEMM) = range(23, 30)

# configs[] in fuzz_dispatch.c
DEFAULT, SESSIONS, TIGHT, FULL, COUNTS, ONE = range(6)

OPENCL0, OPENCL1, CPU = b"\x00", b"\x01", b"\x04"
LIVE0 = b"\x00"  # a handle: the session's first live block
IMPORT1 = b"\xd0"  # a handle: the newest import (of any session)


def msg(opcode, payload=b"", session=0, how=0):
    t = (session << 5) | 0x10
    head = bytes([t | (opcode - 1)]) if opcode < 16 else bytes([t | 15, opcode - 1])
    return head + bytes([how]) + payload


def hello(session=0, name=b"fuzz"):
    return bytes([session << 5, 0, 0, len(name)]) + name


def monitor(session=0, name=b"tessera"):  # HELLO with the MONITOR flag
    return bytes([session << 5, 0, 0xd8, len(name)]) + name


def size_small(n):  # 64 * a + b, for n < 4096
    return bytes([n // 64, n % 64])


def size_mark(k):  # the allocator's boundaries and the caps (marks[] in fuzz_dispatch.c)
    return bytes([0x80 | k, 0])


# ALLOC's flags byte after the size: a block among others, or alone in a
# segment of its own (what EXPORT takes)
SHARED, ALONE = b"\x80", b"\x00"


(MARK_1MIB, MARK_2MIB, MARK_10MIB, MARK_DEVICE0, MARK_LEFT0, MARK_LEFT1,
 MARK_HEADROOM) = 3, 4, 5, 9, 12, 13, 15


def tiles(ndim, shifts, kind=0):
    # a region that tiles the block (fuzz_tiles): trailing sizes 1 << shift,
    # kind 0 exact, 1 a row past the end, 2 an element past, 3 the end from
    # the second row
    return bytes([0xe0 | (ndim - 1)] + list(shifts) + [kind])


def fill(itemsize_code=2, count=b"\xc0", region=None):
    # handle, itemsize (2: 4 bytes), a 1-d contiguous region of `count`
    # elements (0xc0: the whole block) unless a region is given, the value
    region = region if region is not None else b"\x01" + count + b"\x00"
    return LIVE0 + bytes([itemsize_code]) + region + bytes(range(1, 17))


def launch(op_code=2, dtype=6, region=b"\x01\x04\x00", inputs=2):
    # op 1 + op_code modulo the operations (2: ADD, 47: WHERE), operand
    # count as the op wants, common dtype, first operand on the first live
    # block, a 1-d region of 4 elements unless a region is given, the
    # inputs on live blocks with the output's strides
    body = bytes([op_code, 0, dtype]) + LIVE0 + region
    body += b"\x00"  # output: dtype common, handle and offset from above
    body += (b"\x03" + LIVE0 + b"\x00") * inputs
    return body + bytes(16)


def gemm(dtype=11, flags=4, dims=(1, 2, 3, 4), blocks=(0, 1, 2), ld=0, at=b"\x00\x00"):
    # build_gemm: dtype, flags, batch m n k, then C, A, B: a live block of
    # the session, ld past the row's length by ld % 3, offset and batch
    # stride (fuzz_extent), then alpha and beta's bytes interleaved
    ops = b"".join(bytes([b, ld]) + at for b in blocks)
    return bytes([dtype, flags]) + bytes(dims) + ops + bytes(32)


def export(flags=0, uid_slot=0, gid_slot=0):
    # the first live block as float32 (dtype 11), a 1-d region over all of
    # it, flags (1 read-only, 2 allow_uid, 4 allow_gid), the uid and group
    # of peers[uid_slot] and peers[gid_slot]
    return LIVE0 + b"\x0b" + b"\x01\xc0\x00" + bytes([flags, uid_slot, gid_slot])


def key(newest=0):  # the newest export's key, or the one `newest` before it
    return bytes([newest])


def fill_import():  # the first import, whole, in float32
    return IMPORT1 + b"\x02" + b"\x01\xc0\x00" + bytes(range(1, 17))


SEEDS = [
    # every message once
    (DEFAULT, hello() + msg(PING) + msg(DEVICE_GET, b"\x01") + msg(SET_DEVICE, b"\x01" + OPENCL1)
     + msg(GET_DEVICE, b"\x01" + OPENCL0) + msg(ALLOC, OPENCL0 + size_mark(2) + SHARED)
     + msg(SEGMENT_MAP, b"\x00") + msg(MEMORY_STATS, OPENCL0) + msg(SESSION_LIST, b"\x00")
     + msg(FILL, fill()) + msg(LAUNCH, launch()) + msg(PROCESS_LIST, b"\x00")
     + msg(SESSION_STATS, b"\x00" + OPENCL0) + msg(DEVICE_STATUS, OPENCL0)
     + msg(TOPOLOGY, OPENCL0) + msg(FREE, LIVE0) + msg(EMPTY_CACHE, OPENCL0)),
    # an allocation's life on each device
    (DEFAULT, hello() + msg(ALLOC, OPENCL0 + size_small(4000) + SHARED) + msg(FILL, fill(0))
     + msg(FILL, fill(4, b"\x03")) + msg(MEMORY_STATS, OPENCL0) + msg(FREE, LIVE0)
     + msg(ALLOC, OPENCL1 + size_mark(3) + SHARED) + msg(FILL, fill(3)) + msg(FREE, LIVE0)
     + msg(FREE, b"\xc0") + msg(EMPTY_CACHE, OPENCL1) + msg(MEMORY_STATS, OPENCL1)),
    # two sessions of one uid and one of another against the limits (24 MiB
    # a session, 40 MiB a uid) on the 64 MiB device, which sessions see as
    # opencl:1: large segments until refused
    (DEFAULT, hello(0) + hello(1) + hello(2)
     + msg(ALLOC, OPENCL1 + size_mark(6) + SHARED, 0) + msg(ALLOC, OPENCL1 + size_mark(6) + SHARED, 0)
     + msg(ALLOC, OPENCL1 + size_mark(6) + SHARED, 1) + msg(ALLOC, OPENCL1 + size_mark(5) + SHARED, 1)
     + msg(ALLOC, OPENCL1 + size_mark(6) + SHARED, 2) + msg(SESSION_STATS, b"\xa1" + OPENCL1, 2)
     + msg(FREE, LIVE0, 0) + msg(ALLOC, OPENCL1 + size_mark(5) + SHARED, 1)
     + msg(EMPTY_CACHE, OPENCL1, 0) + msg(DEVICE_STATUS, OPENCL1, 2)),
    # the ring, a message the ring does not carry (the session ends), a new
    # session, and a client that leaves with memory held
    (DEFAULT, hello() + msg(ALLOC, OPENCL0 + size_small(100) + SHARED, how=7) + msg(FILL, fill(), how=7)
     + msg(DEVICE_GET, b"\x00", how=7) + hello() + msg(ALLOC, OPENCL1 + size_mark(4) + SHARED)
     + msg(PING, how=0x1e)),
    # a refused handshake (versions the daemon does not speak), then a HELLO
    # twice and messages of no session's devices
    (DEFAULT, bytes([0x00, 0x00, 0xf0, 0, 0, 0, 9, 0, 0, 0, 9, 0]) + hello()
     + msg(HELLO, b"\x00\x00") + msg(ALLOC, CPU + size_small(64) + SHARED)
     + msg(ALLOC, b"\x06" + size_small(64) + SHARED) + msg(MEMORY_STATS, b"\x05")),
    # the session caps (sessions.max 4, 2 a uid, 1 on its handshake): slot 0
    # waits on its handshake, so 1 (the same uid) is refused until it says
    # HELLO; 3 is the uid's third; 5 comes after four; root and
    # tessera-admin go beyond, and see every session
    (SESSIONS, msg(PING, session=0) + msg(PING, session=1) + hello(0) + hello(1) + hello(3)
     + hello(2) + hello(4) + hello(5) + hello(6) + hello(7)
     + msg(SESSION_LIST, b"\x00", 7) + msg(PROCESS_LIST, b"\x00", 6)
     + msg(ALLOC, OPENCL0 + size_mark(MARK_HEADROOM) + SHARED, 2) + msg(ALLOC, OPENCL0 + size_small(64) + SHARED, 2)
     + msg(PING, session=0, how=0x1e) + hello(3) + msg(SESSION_STATS, b"\xa3" + OPENCL0, 6)),
    # limits near a segment's size: 40% of the device per session, 4 MiB a
    # uid, 5 for uid 1001 and for group 100, 6 MiB lent of 8 (the session's
    # opencl:1), each reached in turn by sessions of 2 MiB segments; three
    # segments, three threads and sixteen allocations a session
    (TIGHT, hello(0) + msg(ALLOC, OPENCL0 + size_small(64) + SHARED)
     + b"".join(msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED) for _ in range(3))
     + hello(1) + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 1)
     + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 1)
     + hello(3) + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 3)
     + hello(4) + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 4)
     + hello(2) + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 2) + msg(MEMORY_STATS, OPENCL1, 2)
     + hello(5) + msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, 5)
     + msg(SESSION_STATS, b"\x00" + OPENCL1, 4)),
    (TIGHT, hello(5) + b"".join(msg(SET_DEVICE, bytes([t]) + OPENCL0, 5) for t in range(4))
     + b"".join(msg(ALLOC, OPENCL1 + size_small(0) + SHARED, 5) for _ in range(17))
     + msg(FREE, LIVE0, 5) + msg(ALLOC, OPENCL1 + size_small(0) + SHARED, 5)),
    # a device that fills up before any limit (8 MiB, none set), shared by
    # three sessions
    (FULL, hello(0) + hello(2) + hello(4)
     + b"".join(msg(ALLOC, OPENCL0 + size_mark(MARK_1MIB) + SHARED, k) for k in (0, 2, 4, 0, 2, 4, 0, 2))
     + msg(ALLOC, OPENCL0 + size_mark(MARK_LEFT0) + SHARED, 4) + msg(FREE, LIVE0, 0)
     + msg(EMPTY_CACHE, OPENCL0, 0) + msg(ALLOC, OPENCL0 + size_mark(MARK_LEFT0) + SHARED, 4)
     + msg(DEVICE_STATUS, OPENCL0, 2)),
    # six segments a session (two of 10 MiB on each 24 MiB device, two
    # small ones, then one too many); root limited to 2 MiB, group 101 to 8;
    # six threads
    (COUNTS, hello(0)
     + b"".join(msg(ALLOC, dev + size_mark(MARK_10MIB) + SHARED) for dev in (OPENCL0, OPENCL1) * 2)
     + msg(ALLOC, OPENCL1 + size_small(64) + SHARED)
     + b"".join(msg(ALLOC, dev + size_mark(MARK_1MIB) + SHARED) for dev in (OPENCL1, OPENCL1, OPENCL0))
     + b"".join(msg(SET_DEVICE, bytes([t]) + OPENCL1) for t in range(8))
     + hello(6) + b"".join(msg(ALLOC, OPENCL0 + size_mark(MARK_1MIB) + SHARED, 6) for _ in range(3))
     + msg(PING, how=0x1e) + hello(2) + hello(5)
     + b"".join(msg(ALLOC, OPENCL1 + size_mark(MARK_1MIB) + SHARED, k) for k in (2, 5) * 5)),
    # the largest regions the region check lets through, and the least it
    # refuses: a FILL and a LAUNCH tiling a block in 1 to 4 dimensions
    (DEFAULT, hello() + msg(ALLOC, OPENCL0 + size_small(4000) + SHARED)
     + msg(FILL, fill(2, region=tiles(3, (2, 1)))) + msg(FILL, fill(0, region=tiles(2, (3,), 1)))
     + msg(FILL, fill(3, region=tiles(4, (1, 1, 1), 3))) + msg(FILL, fill(4, region=tiles(1, (), 2)))
     + msg(LAUNCH, launch(region=tiles(2, (2,)))) + msg(LAUNCH, launch(region=tiles(3, (1, 0), 1)))
     + msg(LAUNCH, launch(47, inputs=3))
     + msg(ALLOC, OPENCL1 + size_mark(MARK_2MIB) + SHARED) + msg(FILL, fill(1, region=tiles(2, (3,))))),
    # one session at a time (and the administrators' reserve), one device
    # seen, two segments, two threads, eight allocations
    (ONE, hello(0) + hello(2) + hello(6) + hello(7) + hello(1)
     + b"".join(msg(ALLOC, OPENCL0 + size_mark(MARK_1MIB) + SHARED) for _ in range(5)) + msg(FREE, LIVE0)
     + b"".join(msg(ALLOC, OPENCL0 + size_small(0) + SHARED) for _ in range(6))
     + b"".join(msg(SET_DEVICE, bytes([t]) + OPENCL0) for t in range(3))
     + msg(ALLOC, OPENCL1 + size_small(0) + SHARED) + msg(PROCESS_LIST, b"\x00", 7)),
    # monitors beside sessions at their caps: the caps' connections may
    # still watch, monitors ask only, and go
    (SESSIONS, hello(0) + hello(2) + hello(4) + hello(5) + monitor(1) + monitor(3)
     + hello(6) + monitor(7) + msg(PROCESS_LIST, b"\x00", 1) + msg(DAEMON_STATS, session=3)
     + msg(DEVICE_STATUS, OPENCL0, 1) + msg(ALLOC, OPENCL0 + size_small(64) + SHARED, 1)
     + msg(PING, session=1, how=0x1e) + monitor(1) + msg(SESSION_LIST, b"\x00", 7)),
    # reductions (core/kernel.h, "A reduction"), checked in full: sum of
    # int32 and mean of float32 pass, argmax and max with a dim (three
    # operands) are refused (their positions are float32, not int64); sum
    # tiling a block, amax
    (DEFAULT, hello() + msg(ALLOC, OPENCL0 + size_small(4000) + SHARED)
     + msg(LAUNCH, launch(57, inputs=1)) + msg(LAUNCH, launch(59, dtype=11, inputs=1))
     + msg(LAUNCH, launch(66, dtype=11, inputs=1)) + msg(LAUNCH, launch(68, dtype=11))
     + msg(LAUNCH, launch(57, region=tiles(2, (2,)), inputs=1))
     + msg(LAUNCH, launch(63, inputs=1))),
    # sharing: an export imported by a session of its uid (and refused to
    # another uid), written through the import, freed by its exporter while
    # imported (no import after), then let go by the importer
    (DEFAULT, hello(0) + hello(1) + hello(2) + msg(ALLOC, OPENCL0 + size_small(4000) + SHARED, 0)
     + msg(EXPORT, export(), 0) + msg(IMPORT, key(), 1) + msg(IMPORT, key(), 2)
     + msg(FILL, fill_import(), 1) + msg(FREE, LIVE0, 0) + msg(IMPORT, key(), 1)
     + msg(FREE, IMPORT1, 1) + msg(EMPTY_CACHE, OPENCL0, 0) + msg(DEVICE_STATUS, OPENCL0, 1)),
    # read-only and uid-named exports (a kernel writing the read-only one
    # is refused), a revocation, an exporter that
    # leaves while imported (its memory stays until the importers go), and
    # two sessions importing from each other
    (DEFAULT, hello(0) + hello(1) + hello(2) + hello(3) + msg(ALLOC, OPENCL0 + size_small(4000) + SHARED, 0)
     + msg(EXPORT, export(1), 0) + msg(EXPORT, export(2, uid_slot=2), 0)
     + msg(IMPORT, key(0), 2) + msg(IMPORT, key(1), 1) + msg(FILL, fill_import(), 1)
     + msg(LAUNCH, bytes([2, 0, 6, 0]) + b"\x01\x04\x00" + b"\x00" + IMPORT1
           + (b"\x03" + IMPORT1 + b"\x00") * 2 + bytes(16), 1)
     + msg(REVOKE, key(1), 0) + msg(IMPORT, key(1), 3) + msg(PING, session=0, how=0x1e)
     + msg(IMPORT, key(0), 3) + msg(PROCESS_LIST, b"\x00", 3) + msg(SHARE_LIST, b"\xc0", 3)
     + msg(SHARE_LIST, b"\x01", 2)
     + msg(ALLOC, OPENCL1 + size_small(64) + ALONE, 1) + msg(EXPORT, export(), 1)
     + msg(ALLOC, OPENCL1 + size_small(64) + SHARED, 3) + msg(EXPORT, export(), 3)
     + msg(IMPORT, key(1), 3) + msg(IMPORT, key(0), 1) + msg(PING, session=1, how=0x1e)
     + msg(PING, session=3, how=0x1e) + msg(PING, session=2, how=0x1e)),
    # host memory (cpu tensors): a new block of 4096 bytes, a float32 view
    # of it exported read-only, imported by another session of the uid
    # (which cannot fill it: it is no device's), freed by its exporter while
    # imported, then let go
    (DEFAULT, hello(0) + hello(1)
     + msg(EXPORT, b"\xe0" + bytes(8) + b"\x01" + b"\x01\xc0\x00" + bytes([8, 0, 0]), 0)
     + msg(EXPORT, b"\xd0" + b"\x0b" + b"\x01\xc0\x00" + bytes([1, 0, 0]), 0)
     + msg(IMPORT, key(0), 1) + msg(FILL, fill_import(), 1) + msg(SHARE_LIST, b"\x00", 1)
     + msg(IMPORT, key(1), 1) + msg(FREE, IMPORT1, 1) + msg(PING, session=0, how=0x1e)
     + msg(SHARE_LIST, b"\x00", 1) + msg(FREE, IMPORT1, 1)),
    # user kernels (build_user in fuzz_dispatch.c): a program of 40 bytes
    # whose source comes whole (its build fails here: no worker), chunks
    # after it and out of order refused, its status,
    # a kernel's description and launch refused, a second program's
    # creation on a device that does not exist, the release
    (DEFAULT, hello()
     + msg(PROGRAM_CREATE, b"\x00\x00\x01\x08\x00\x02")   # opencl:0, 1 * 32 + 8 bytes, "OO"
     + msg(PROGRAM_SOURCE, b"\x01\x02\x08\x00")           # 40 bytes at 0
     + msg(PROGRAM_SOURCE, b"\x01\x01\x00\x00")           # 16 more at 0: refused
     + msg(PROGRAM_SOURCE, b"\x01\x01\x00\x05")           # 16 at 5 * 4096: refused
     + msg(PROGRAM_STATUS, b"\x01")
     + msg(KERNEL_INFO, b"\x01") + msg(KERNEL_LAUNCH, b"\x01\x00\x01\x00\x08")
     + msg(PROGRAM_CREATE, b"\x00\x02\x00\x01\x00\x00")   # opencl:2 does not exist
     + msg(PROGRAM_RELEASE, b"\x01") + msg(PROGRAM_STATUS, b"\x01")),
    # matrix products over three blocks: float32, int32 and uint16 (which no
    # device computes), transposed, C over A, a batch whose matrices
    # overlap, a leading dimension past the row, offsets at the blocks'
    # ends, and an unknown flag
    (DEFAULT, hello() + b"".join(msg(ALLOC, OPENCL0 + size_small(256) + SHARED) for _ in range(3))
     + msg(GEMM, gemm()) + msg(GEMM, gemm(dtype=6, flags=3)) + msg(GEMM, gemm(dtype=3))
     + msg(GEMM, gemm(blocks=(0, 0, 1))) + msg(GEMM, gemm(dims=(2, 2, 3, 4)))
     + msg(GEMM, gemm(ld=2)) + msg(GEMM, gemm(at=b"\xc0\xc1"))
     + msg(GEMM, gemm(flags=0x18))),
]


def main():
    seeds.write("dispatch", [bytes([config]) + messages for config, messages in SEEDS])


if __name__ == "__main__":
    main()
