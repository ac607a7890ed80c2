"""opencl tensors from Python with a real tesserad on a private socket
(TESSERA_TEST_DAEMON names it; skipped without): factories and operators
on the device, __dlpack_device__, the kDLOpenCL round trip into the same
session, and tessera.to_dlpack(t, host=True), which waits for the queued
kernels and hands the device's host-shared memory to PyTorch as kDLCPU
without a copy."""
import pytest

import tessera


def test_opencl_tensors(daemon):
    t = tessera.tensor([[1.0, 2.0], [3.0, 4.0]], device="opencl:0")
    assert t.device == tessera.device("opencl:0")
    assert repr(t) == "tensor([[1., 2.],\n        [3., 4.]], device='opencl:0')"
    u = t * 2 + tessera.ones(2, 2, device="opencl:0")
    assert u.tolist() == [[3.0, 5.0], [7.0, 9.0]]
    assert u.cpu().device == tessera.device("cpu")
    assert t.to("cpu").to("opencl:0").tolist() == t.tolist()


def test_opencl_dlpack(daemon):
    torch = pytest.importorskip("torch")
    t = tessera.zeros(4, device="opencl:0")
    assert t.__dlpack_device__() == (4, 0)  # kDLOpenCL, index 0
    back = tessera.from_dlpack(t)
    assert back.device == t.device and back.data_ptr() == t.data_ptr()
    t += 5  # a kernel queued on the device
    x = torch.utils.dlpack.from_dlpack(tessera.to_dlpack(t, host=True))
    assert x.device.type == "cpu" and x.data_ptr() == t.data_ptr()
    assert x.tolist() == [5.0, 5.0, 5.0, 5.0]  # the kernel had finished
    x[0] = -1.0
    assert t.tolist() == [-1.0, 5.0, 5.0, 5.0]
    np = pytest.importorskip("numpy")
    with pytest.raises(Exception):
        np.from_dlpack(t)  # NumPy takes host memory only


def test_opencl_module(daemon):
    # as torch.cuda on a machine with one device
    assert tessera.opencl.is_available() and tessera.opencl.device_count() == 1
    assert tessera.opencl.current_device() == 0
    tessera.opencl.set_device(0)
    tessera.opencl.set_device("opencl:0")
    with pytest.raises(RuntimeError):
        tessera.opencl.set_device(1)
    with tessera.opencl.device(0):
        assert tessera.opencl.current_device() == 0
    assert tessera.device(0) == tessera.device("opencl:0")
    assert tessera.zeros(2, device=0).device == tessera.device("opencl:0")


def test_default_device_and_context(daemon):
    with tessera.device("opencl:0") as d:
        assert d == tessera.device("opencl:0")
        assert tessera.zeros(2).device == d and tessera.tensor([1.5]).device == d
        assert tessera.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
        with tessera.device("cpu"):
            assert tessera.ones(1).device.type == "cpu"
        assert tessera.full((2,), 3).device == d
        assert tessera.get_default_device() == d
    assert tessera.zeros(1).device.type == "cpu"
    tessera.set_default_device("opencl:0")
    try:
        assert tessera.ones(3).device == tessera.device("opencl:0")
    finally:
        tessera.set_default_device(None)
    assert tessera.ones(3).device.type == "cpu"


def test_opencl_views_indexing_and_ops(daemon):
    t = tessera.tensor([[0., 1., 2.], [3., 4., 5.]], device="opencl:0")
    assert t[1].tolist() == [3., 4., 5.] and t[:, ::2].tolist() == [[0., 2.], [3., 5.]]
    assert t.t()[2, 1].item() == 5.0 and t[..., -1].stride() == (3,)
    t[0] = 7.0
    t[1, 1:] = tessera.tensor([8., 9.])[None].opencl()
    assert t.tolist() == [[7., 7., 7.], [3., 8., 9.]]
    assert (t > 7).tolist() == [[False, False, False], [False, True, True]]
    assert (t // 2 % 3).tolist() == [[0., 0., 0.], [1., 1., 1.]]
    assert tessera.sqrt(t).device == t.device and t.exp().device == t.device
    assert repr(t[1]) == "tensor([3., 8., 9.], device='opencl:0')"
    assert repr(tessera.ones(2, dtype=tessera.int32, device="opencl:0")) == \
        "tensor([1, 1], device='opencl:0', dtype=tessera.int32)"


def test_opencl_numbers_and_reductions(daemon):
    t = tessera.tensor([[1, 2, 3], [4, 5, 6]], dtype=tessera.int32, device="opencl:0")
    r = 10 - t  # the number joins on the device, as PyTorch's wrapped numbers
    assert r.device == t.device and r.dtype is tessera.int32
    assert r.tolist() == [[9, 8, 7], [6, 5, 4]]
    assert (7 / t).dtype is tessera.float32 and (t ** 2).tolist() == [[1, 4, 9], [16, 25, 36]]
    assert (tessera.tensor([1], dtype=tessera.int8, device="opencl:0") + 300).tolist() == [45]
    assert t.sum().item() == 21 and t.sum(1).tolist() == [6, 15]
    assert t.amax(0, keepdim=True).tolist() == [[4, 5, 6]]


def test_waits_let_other_threads_run(daemon):
    # tessera.opencl.synchronize() and .cpu() wait for the device without
    # the GIL, as torch.cuda.synchronize() does: another Python thread
    # counts meanwhile. The GIL's switch interval is made 1 s, so that
    # the counting thread can run only where this one lets the GIL go.
    import sys
    import threading
    import time

    count = 0
    stop = False

    def counter():
        nonlocal count
        while not stop:
            count += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    thread = threading.Thread(target=counter)
    thread.start()
    try:
        x = tessera.ones(1 << 22, device="opencl:0")
        for reps in (4, 16, 64, 256):
            for _ in range(reps):
                x = x.exp().log()
            before, start = count, time.monotonic()
            tessera.opencl.synchronize()
            if time.monotonic() - start >= 0.01:
                break
        assert count > before
        for _ in range(reps):
            x = x.exp().log()
        before = count
        assert x.cpu().device == tessera.device("cpu")
        assert count > before
    finally:
        stop = True
        thread.join()
        sys.setswitchinterval(interval)


def test_a_forked_child_opens_its_own_session(daemon):
    import os
    t = tessera.ones(3, device="opencl:0")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            # its own session: new tensors work
            if (tessera.ones(2, device="opencl:0") + 1).tolist() != [2.0, 2.0]:
                code = 3
            # the parent's opencl tensor holds the parent's connection
            try:
                (t + 1).tolist()
                code = 4
            except RuntimeError as e:
                if "open a client of its own" not in str(e):
                    code = 5
        except BaseException:
            code = 6
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    code = os.read(r, 1)
    os.waitpid(pid, 0)
    assert code == b"\x00"
    assert (t + 1).tolist() == [2.0, 2.0, 2.0]
