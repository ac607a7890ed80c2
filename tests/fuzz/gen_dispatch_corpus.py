#!/usr/bin/env python3
"""Writes the seed corpus of the `dispatch` fuzz target (fuzz_dispatch.c):

    python3 tests/fuzz/gen_dispatch_corpus.py [OUT_DIR]   (default: corpus/dispatch beside it)

Hand-made message sequences in the target's own encoding: a session's
handshake, then every message of the protocol once, an allocation's life
(ALLOC, FILL, LAUNCH, FREE, EMPTY_CACHE), sessions of one uid running into
their limits, the ring transport and a client that goes away, a refused
handshake. Files are named seed-NN-<first 8 hex digits of their SHA-1>;
the directory's old seed-* files are replaced, crash-* and other
regression inputs are kept.

Each message starts with a byte t: session (t >> 5) % 3, opcode
1 + (t & 15) (15: the next byte picks it), HELLO while the session has not
said it unless t & 0x10; then a byte `how`: ring transport when
how & 7 == 7, a wrong length when how & 0xe0 == 0xe0, the client leaves
after it when how & 0x1e == 0x1e. The payload's bytes follow (see build()
in fuzz_dispatch.c).
"""
import hashlib
import os
import sys

(HELLO, PING, DEVICE_GET, SET_DEVICE, GET_DEVICE, ALLOC, FREE, SEGMENT_MAP, MEMORY_STATS,
 EMPTY_CACHE, SESSION_LIST, FILL, LAUNCH, PROCESS_LIST, SESSION_STATS, DEVICE_STATUS,
 TOPOLOGY) = range(1, 18)

OPENCL0, OPENCL1, CPU = b"\x00", b"\x01", b"\x04"
LIVE0 = b"\x00"  # a handle: the session's first live block


def msg(opcode, payload=b"", session=0, how=0):
    t = (session << 5) | 0x10
    head = bytes([t | (opcode - 1)]) if opcode < 16 else bytes([t | 15, opcode - 1])
    return head + bytes([how]) + payload


def hello(session=0, name=b"fuzz"):
    return bytes([session << 5, 0, 0, len(name)]) + name


def size_small(n):  # 64 * a + b, for n < 4096
    return bytes([n // 64, n % 64])


def size_mark(k):  # the allocator's boundaries (marks[] in fuzz_dispatch.c)
    return bytes([0x80 | k, 0])


def fill(itemsize_code=2, count=b"\xc0"):
    # handle, itemsize (2: 4 bytes), a 1-d contiguous region of `count`
    # elements (0xc0: the whole block), the value
    return LIVE0 + bytes([itemsize_code, 1]) + count + b"\x00" + bytes(range(1, 17))


def launch(op_code=2, dtype=6):
    # op 1 + op_code % 7 (2: ADD), operand count as the op wants, common
    # dtype, first operand on the first live block, a 1-d region of 4
    # elements, the two inputs on live blocks with the output's strides
    body = bytes([op_code, 0, dtype]) + LIVE0 + b"\x01\x04\x00"
    body += b"\x00"  # output: dtype common, handle and offset from above
    body += b"\x03" + LIVE0 + b"\x00"
    body += b"\x03" + LIVE0 + b"\x00"
    return body + bytes(16)


SEEDS = [
    # every message once
    hello() + msg(PING) + msg(DEVICE_GET, b"\x01") + msg(SET_DEVICE, b"\x01" + OPENCL1)
    + msg(GET_DEVICE, b"\x01" + OPENCL0) + msg(ALLOC, OPENCL0 + size_mark(2))
    + msg(SEGMENT_MAP, b"\x00") + msg(MEMORY_STATS, OPENCL0) + msg(SESSION_LIST, b"\x00")
    + msg(FILL, fill()) + msg(LAUNCH, launch()) + msg(PROCESS_LIST, b"\x00")
    + msg(SESSION_STATS, b"\x00" + OPENCL0) + msg(DEVICE_STATUS, OPENCL0)
    + msg(TOPOLOGY, OPENCL0) + msg(FREE, LIVE0) + msg(EMPTY_CACHE, OPENCL0),
    # an allocation's life on each device
    hello() + msg(ALLOC, OPENCL0 + size_small(4000)) + msg(FILL, fill(0))
    + msg(FILL, fill(4, b"\x03")) + msg(MEMORY_STATS, OPENCL0) + msg(FREE, LIVE0)
    + msg(ALLOC, OPENCL1 + size_mark(3)) + msg(FILL, fill(3)) + msg(FREE, LIVE0)
    + msg(FREE, b"\xc0") + msg(EMPTY_CACHE, OPENCL1) + msg(MEMORY_STATS, OPENCL1),
    # two sessions of one uid and one of another against the limits (24 MiB
    # a session, 40 MiB a uid) on the 64 MiB device, which sessions see as
    # opencl:1: large segments until refused
    hello(0) + hello(1) + hello(2)
    + msg(ALLOC, OPENCL1 + size_mark(6), 0) + msg(ALLOC, OPENCL1 + size_mark(6), 0)
    + msg(ALLOC, OPENCL1 + size_mark(6), 1) + msg(ALLOC, OPENCL1 + size_mark(5), 1)
    + msg(ALLOC, OPENCL1 + size_mark(6), 2) + msg(SESSION_STATS, b"\xa1" + OPENCL1, 2)
    + msg(FREE, LIVE0, 0) + msg(ALLOC, OPENCL1 + size_mark(5), 1)
    + msg(EMPTY_CACHE, OPENCL1, 0) + msg(DEVICE_STATUS, OPENCL1, 2),
    # the ring, a message the ring does not carry (the session ends), a new
    # session, and a client that leaves with memory held
    hello() + msg(ALLOC, OPENCL0 + size_small(100), how=7) + msg(FILL, fill(), how=7)
    + msg(DEVICE_GET, b"\x00", how=7) + hello() + msg(ALLOC, OPENCL1 + size_mark(4))
    + msg(PING, how=0x1e),
    # a refused handshake (versions the daemon does not speak), then a HELLO
    # twice and messages of no session's devices
    bytes([0x00, 0x00, 0xf0, 0, 0, 0, 9, 0, 0, 0, 9, 0]) + hello()
    + msg(HELLO, b"\x00\x00") + msg(ALLOC, CPU + size_small(64))
    + msg(ALLOC, b"\x06" + size_small(64)) + msg(MEMORY_STATS, b"\x05"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "dispatch")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.startswith("seed-"):
            os.unlink(os.path.join(out, name))
    for i, data in enumerate(SEEDS):
        digest = hashlib.sha1(data).hexdigest()[:8]
        with open(os.path.join(out, f"seed-{i:02d}-{digest}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
