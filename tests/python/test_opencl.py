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
