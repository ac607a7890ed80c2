"""DLPack with NumPy 1.24 and PyTorch 1.13 (Debian's): their from_dlpack
takes a Tessera cpu tensor, and tessera.from_dlpack takes theirs, without
copying: the same address, and a write through one side is read through
the other. Refusals raise with the library's message."""
import gc

import pytest

import tessera

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
from torch.utils import dlpack as torch_dlpack  # noqa: E402


def test_dlpack_device():
    assert tessera.zeros(2).__dlpack_device__() == (1, 0)  # kDLCPU


def test_numpy_takes_tessera():
    t = tessera.tensor([[1, 2, 3], [4, 5, 6]], dtype=tessera.float32)
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr() and a.dtype == np.float32 and a.shape == (2, 3)
    t += 10  # NumPy marks DLPack arrays read-only: write through Tessera
    assert a.tolist() == [[11, 12, 13], [14, 15, 16]]
    # A transposed view: strides in bytes on NumPy's side.
    u = np.from_dlpack(t.t())
    assert u.strides == (4, 12) and u.ctypes.data == t.data_ptr()
    del t
    gc.collect()
    assert u[2, 1] == 16  # the export keeps the storage alive


def test_tessera_takes_numpy():
    n = np.arange(12, dtype=np.int16).reshape(3, 4)[1:, 1::2]
    t = tessera.from_dlpack(n)
    assert t.dtype is tessera.int16 and t.shape == (2, 2) and t.stride() == (4, 2)
    assert t.data_ptr() == n.ctypes.data
    assert t.tolist() == [[5, 7], [9, 11]]
    m = np.zeros(3)
    t = tessera.from_dlpack(m)
    t += 2.5
    assert m.tolist() == [2.5, 2.5, 2.5]


def test_torch_takes_tessera():
    t = tessera.tensor([1.0, 2.0, 3.0], dtype=tessera.float64)
    x = torch_dlpack.from_dlpack(t)
    assert x.data_ptr() == t.data_ptr() and x.dtype == torch.float64
    x[1] = -1.0
    assert t.tolist() == [1.0, -1.0, 3.0]
    for dtype, expected in [(tessera.bfloat16, torch.bfloat16), (tessera.float16, torch.float16),
                            (tessera.complex64, torch.complex64), (tessera.int8, torch.int8),
                            (tessera.complex32, torch.complex32)]:
        y = torch_dlpack.from_dlpack(tessera.ones(2, dtype=dtype))
        assert y.dtype == expected


def test_tessera_takes_torch():
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = tessera.from_dlpack(x.t())
    assert t.shape == (3, 2) and t.stride() == (1, 3) and t.data_ptr() == x.data_ptr()
    t *= 2
    assert x.tolist() == [[0, 2, 4], [6, 8, 10]]
    c = tessera.from_dlpack(torch_dlpack.to_dlpack(torch.ones(2, dtype=torch.bfloat16)))
    assert c.dtype is tessera.bfloat16 and c.tolist() == [1.0, 1.0]


def test_capsules_are_used_once():
    capsule = tessera.to_dlpack(tessera.zeros(2))
    t = tessera.from_dlpack(capsule)
    assert t.tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="unused DLPack capsule"):
        tessera.from_dlpack(capsule)


def test_round_trip_keeps_the_memory():
    t = tessera.tensor([1, 2, 3])
    back = tessera.from_dlpack(t)
    assert back.data_ptr() == t.data_ptr() and back.dtype is tessera.int64


def test_refusals():
    with pytest.raises(RuntimeError, match="DLPack has no type code for float8_e5m2"):
        tessera.zeros(2, dtype=tessera.float8_e5m2).__dlpack__()
    with pytest.raises(RuntimeError, match="Cannot pack tensors on meta"):
        tessera.zeros(2, device="meta").__dlpack__()
    with pytest.raises(ValueError, match="stream must be None"):
        tessera.zeros(2).__dlpack__(stream=1)
    # Bool is DLPack 0.8's kDLBool, which PyTorch 1.13 does not know.
    capsule = tessera.zeros(2, dtype=tessera.bool).__dlpack__()
    with pytest.raises(Exception):
        torch_dlpack.from_dlpack(capsule)
    assert tessera.from_dlpack(capsule).dtype is tessera.bool
