"""Sharing tensors between Python processes with a real tesserad (the
daemon fixture; skipped without): a producer process exports and exits
first while this process and a consumer process (/usr/bin/python3, the
package from the build tree) hold imports, read the producer's values and
see each other's writes; cpu tensors through share_memory_(); read-only
exports; revocation; the handle's text form, and the library's errors.

The test process and its children all speak to the fixture's daemon
(TESSERA_SOCKET); a process cannot import its own export (it is its own
tensor), so each export here is made in another process than its
imports."""
import os
import pickle
import subprocess
import sys
import time

import pytest

import tessera

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

# A producer: makes 0 .. 7 (float32) on DEVICE, exports it with the
# options in EXPORT, prints the handle and waits for one line before it
# exits (without releasing anything itself).
PRODUCER = r"""
import os, sys, tessera
device = os.environ["DEVICE"]
t = tessera.arange(8.0).view(2, 4)
t = t.to(device) if device != "cpu" else t.share_memory_()
assert t.is_shared()
h = t.export(**eval(os.environ.get("EXPORT", "{}")))
print(h, flush=True)
sys.stdin.readline()
"""

# A consumer: imports the handle it reads, prints the values, waits for
# one line, adds 10 in place (or tries to, READ_ONLY), synchronizes and
# prints "done" (or the error).
CONSUMER = r"""
import os, sys, tessera
t = tessera.import_tensor(sys.stdin.readline().strip())
print(t.device, t.tolist(), t.is_shared(), flush=True)
sys.stdin.readline()
try:
    t += 10
    if t.device.type == "opencl":
        tessera.opencl.synchronize()
    print("done", flush=True)
except RuntimeError as e:
    print("refused:", e, flush=True)
"""


def spawn(code, **env):
    return subprocess.Popen([PYTHON, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, **env))


def tell(proc, line=""):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def finish(proc):
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return out


def produce(device, **export):
    """A producer process and the handle it printed."""
    producer = spawn(PRODUCER, DEVICE=device, EXPORT=repr(export))
    return producer, tessera.ExportHandle(producer.stdout.readline().strip())


@pytest.mark.parametrize("device", ["cpu", "opencl:0"])
def test_producer_exits_first(daemon, device):
    producer, h = produce(device)
    mine = tessera.import_tensor(h)  # this process: an import too
    consumer = spawn(CONSUMER)
    tell(consumer, str(h))
    assert consumer.stdout.readline() == "%s %s True\n" % (
        device, [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
    tell(producer)
    finish(producer)  # the exporter is gone; the imports keep the memory
    assert mine.tolist() == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    tell(consumer)
    assert finish(consumer) == "done\n"
    # The consumer's write, seen here after it synchronized.
    assert mine.device == tessera.device(device) and mine.shape == (2, 4)
    assert mine.stride() == (4, 1) and mine.dtype is tessera.float32 and mine.is_shared()
    assert mine.tolist() == [[10.0, 11.0, 12.0, 13.0], [14.0, 15.0, 16.0, 17.0]]
    mine[0, 0] = -1.0  # and this process may write it too
    assert (mine * 2).tolist()[0] == [-2.0, 22.0, 24.0, 26.0]
    # The exporter let go: the handle is dead, with the library's message
    # (once the daemon has handled the producer's end, which it does as
    # it reads the closed socket).
    assert dead(h)


def dead(h):
    message = ("no such export %016x: the handle is not one tesserad issued, or its tensor "
               "was released" % h.id)
    for _ in range(100):
        try:
            tessera.import_tensor(h)
        except ValueError as e:
            return str(e) == message
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("device", ["cpu", "opencl:0"])
def test_read_only(daemon, device):
    producer, h = produce(device, read_only=True)
    t = tessera.import_tensor(str(h))  # the text form works as well
    assert t.tolist()[1] == [4.0, 5.0, 6.0, 7.0]
    message = "the tensor was imported read-only"
    with pytest.raises(RuntimeError, match=message):
        t.fill_(1.0)
    with pytest.raises(RuntimeError, match=message):
        t += 1
    with pytest.raises(RuntimeError, match=message):
        t[0, 0] = 5.0
    assert (t + 1).tolist()[0] == [1.0, 2.0, 3.0, 4.0]  # reading is fine
    consumer = spawn(CONSUMER)
    tell(consumer, str(h))
    consumer.stdout.readline()
    tell(consumer)
    assert finish(consumer).startswith("refused: " + message)
    assert t.tolist()[0] == [0.0, 1.0, 2.0, 3.0]
    tell(producer)
    finish(producer)


def test_revocation(daemon):
    producer = spawn(PRODUCER + r"""
tessera.revoke(h)
print("revoked", flush=True)
sys.stdin.readline()
""", DEVICE="opencl:0")
    h = tessera.ExportHandle(producer.stdout.readline().strip())
    before = tessera.import_tensor(h)
    tell(producer)
    assert producer.stdout.readline() == "revoked\n"
    with pytest.raises(RuntimeError, match="export %016x was revoked: it can no longer be "
                       "imported" % h.id):
        tessera.import_tensor(h)
    assert before.tolist()[0] == [0.0, 1.0, 2.0, 3.0]  # imports made before stay valid
    tell(producer)
    finish(producer)
    assert before.sum().item() == 28.0


def test_handles_and_errors(daemon):
    producer, h = produce("opencl:0")
    text = str(h)
    assert text.startswith("tsr-export-1-") and len(text) == 62
    assert text[13:29] == "%016x" % h.id and text[30:] not in repr(h)
    assert tessera.ExportHandle(text) == h and hash(tessera.ExportHandle(h)) == hash(h)
    assert pickle.loads(pickle.dumps(h)) == h
    with pytest.raises(ValueError, match='not an export handle: it must start with '
                       '"tsr-export-1-"'):
        tessera.ExportHandle("tessera")
    with pytest.raises(ValueError, match="more characters where 62 are expected"):
        tessera.import_tensor(text + " ")
    with pytest.raises(TypeError, match="expected an export handle or its text form, not int"):
        tessera.revoke(5)
    guess = text[:-1] + ("0" if text[-1] != "0" else "1")
    with pytest.raises(ValueError, match="no such export"):
        tessera.import_tensor(guess)  # a guessed secret: as no export
    with pytest.raises(RuntimeError, match="cannot export a cpu tensor in this process's own "
                       "memory: move it to shared memory first"):
        tessera.ones(3).export()
    with pytest.raises(ValueError, match="uid must be in"):
        tessera.ones(3, device="opencl:0").export(uid=-1)
    with pytest.raises(TypeError, match="gid must be an int or None"):
        tessera.ones(3, device="opencl:0").export(gid="wheel")
    # uid= names one more user allowed to import; this one may anyway.
    mine = tessera.import_tensor(h)
    tell(producer)
    finish(producer)
    assert mine.tolist()[0][3] == 3.0


def test_share_memory_(daemon):
    t = tessera.arange(6, dtype=tessera.int32)
    assert not t.is_shared()
    v = t[1:4]  # a view of the same storage
    assert t.share_memory_() is t and t.is_shared() and v.is_shared()
    v[0] = 100  # the view writes the storage's new memory
    assert t.tolist() == [0, 100, 2, 3, 4, 5]
    assert t.share_memory_() is t  # already shared: nothing to do
    o = tessera.zeros(2, device="opencl:0")
    assert o.is_shared() and o.share_memory_() is o
    h = v.export(read_only=True)
    assert isinstance(h, tessera.ExportHandle)
    consumer = spawn(CONSUMER)
    tell(consumer, str(h))
    assert consumer.stdout.readline() == "cpu [100, 2, 3] True\n"
    tell(consumer)
    assert finish(consumer).startswith("refused: the tensor was imported read-only")
