"""The tessera package's PyTorch objects: dtypes, devices, factories,
attributes, operators, promotion and errors, with known answers.

The promotion table (data/promotion_torch113.txt) was written by PyTorch
1.13.1 (Debian's python3-torch):

    for a in names: for b in names:
        print(a, b, torch.promote_types(A, B), int(torch.can_cast(A, B)))

over bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32,
float64, complex64 and complex128, the dtypes both know with the same
rules (complex32's promotion changed after 1.13)."""
import os

import pytest

import tessera

DATA = os.path.join(os.path.dirname(__file__), "data")


def torch_table():
    with open(os.path.join(DATA, "promotion_torch113.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                a, b, promoted, can_cast = line.split()
                yield a, b, promoted, can_cast == "1"


def test_promotion_matches_pytorch_113():
    rows = list(torch_table())
    assert len(rows) == 144
    for a, b, promoted, can_cast in rows:
        da, db = getattr(tessera, a), getattr(tessera, b)
        assert tessera.promote_types(da, db) is getattr(tessera, promoted), (a, b)
        assert tessera.can_cast(da, db) == can_cast, (a, b)


@pytest.mark.parametrize("dtype,scalar,expected", [
    # torch.result_type(torch.zeros(2, dtype=...), scalar) in PyTorch 1.13
    ("int32", 2.5, "float32"), ("uint8", -1, "uint8"), ("bool", True, "bool"),
    ("bool", 3, "int64"), ("float16", 1e10, "float16"), ("int64", 1j, "complex64"),
    ("float32", 2, "float32"), ("int8", 300, "int8"),
])
def test_result_type_with_scalars(dtype, scalar, expected):
    t = tessera.zeros(2, dtype=getattr(tessera, dtype))
    assert tessera.result_type(t, scalar) is getattr(tessera, expected)


def test_result_type_zero_dim():
    i32 = tessera.zeros(2, dtype=tessera.int32)
    assert tessera.result_type(i32, tessera.tensor(1.5, dtype=tessera.float64)) is tessera.float64
    assert tessera.result_type(tessera.zeros(2, dtype=tessera.int8), tessera.tensor(5)) is tessera.int8


def test_dtype_objects():
    assert repr(tessera.float32) == "tessera.float32"
    assert tessera.float is tessera.float32 and tessera.half is tessera.float16
    assert tessera.cdouble is tessera.complex128 and tessera.long is tessera.int64
    assert (tessera.float32.is_floating_point, tessera.float32.is_complex) == (True, False)
    assert tessera.bfloat16.is_floating_point and tessera.bfloat16.itemsize == 2
    assert tessera.complex64.is_complex and not tessera.complex64.is_floating_point
    assert tessera.complex128.itemsize == 16 and tessera.bool.itemsize == 1
    assert not tessera.uint8.is_signed and tessera.int8.is_signed and not tessera.bool.is_signed
    assert tessera.float8_e4m3fn.itemsize == 1


def test_devices():
    assert repr(tessera.device("opencl:0")) == "device(type='opencl', index=0)"
    assert repr(tessera.device("cpu")) == "device(type='cpu')"
    assert str(tessera.device("opencl", 1)) == "opencl:1"
    d = tessera.device("cuda:2")
    assert (d.type, d.index) == ("cuda", 2) and tessera.device("cpu").index is None
    assert tessera.device("opencl:0") == tessera.device("opencl", 0)
    assert tessera.device("opencl") != tessera.device("opencl:0")
    assert len({tessera.device("cpu"), tessera.device("cpu")}) == 1
    with pytest.raises(RuntimeError, match="Invalid device string: 'opencl:x'"):
        tessera.device("opencl:x")


def test_factories_and_attributes():
    t = tessera.tensor([[1, 2, 3], [4, 5, 6]], dtype=tessera.float32)
    assert t.shape == (2, 3) and t.stride() == (3, 1) and t.stride(-2) == 3
    assert t.dtype is tessera.float32 and t.device == tessera.device("cpu")
    assert t.is_contiguous() and t.dim() == 2 and t.numel() == 6 and len(t) == 2
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert tessera.tensor([1, 2]).dtype is tessera.int64
    assert tessera.tensor([1, 2.0]).dtype is tessera.float32
    assert tessera.tensor([True, False]).dtype is tessera.bool
    assert tessera.tensor([1j]).dtype is tessera.complex64
    assert tessera.tensor(3.5).shape == () and tessera.tensor(3.5).item() == 3.5
    assert tessera.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert tessera.ones((2,), dtype=tessera.int8).tolist() == [1, 1]
    assert tessera.full((2, 2), 7).dtype is tessera.int64
    assert tessera.full([3], 0.5, dtype=tessera.float64).tolist() == [0.5] * 3
    assert tessera.empty(4, 0).shape == (4, 0)
    assert repr(tessera.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(tessera.tensor([1, 2], dtype=tessera.int8)) == "tensor([1, 2], dtype=tessera.int8)"


def test_views_and_conversions():
    t = tessera.tensor([[1, 2, 3], [4, 5, 6]])
    u = t.t()
    assert u.shape == (3, 2) and u.stride() == (1, 3) and not u.is_contiguous()
    c = u.contiguous()
    assert c.stride() == (2, 1) and c.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert t.contiguous().data_ptr() == t.data_ptr()
    assert t.to(tessera.float64).dtype is tessera.float64
    assert t.to(dtype=tessera.int8).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert t.to("cpu") is not None and t.to(tessera.int64).data_ptr() == t.data_ptr()
    assert t.to(tessera.int64, copy=True).data_ptr() != t.data_ptr()


def test_operators_match_pytorch():
    # PyTorch 1.13's answers for the same expressions.
    t = tessera.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert (t + 1).tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert (1 - t).tolist() == [[0.0, -1.0], [-2.0, -3.0]]
    assert (t * t).tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert (t / 2).tolist() == [[0.5, 1.0], [1.5, 2.0]]
    assert (-t).tolist() == [[-1.0, -2.0], [-3.0, -4.0]]
    assert (2 - tessera.tensor([3], dtype=tessera.uint8)).tolist() == [255]
    assert (1 / tessera.tensor([4])).tolist() == [0.25]
    r = 7 / tessera.tensor([2], dtype=tessera.int32)
    assert r.dtype is tessera.float32 and r.tolist() == [3.5]
    i = tessera.tensor([1, 2], dtype=tessera.int32)
    assert (i + 2.5).dtype is tessera.float32 and (i * 2).dtype is tessera.int32
    assert (i + tessera.tensor([1], dtype=tessera.int64)).dtype is tessera.int64


def test_in_place_operators():
    i = tessera.zeros(2, dtype=tessera.int32)
    ptr = i.data_ptr()
    i += 2
    i *= 3
    i -= tessera.tensor([1, 2], dtype=tessera.int32)
    assert i.tolist() == [5, 4] and i.data_ptr() == ptr and i.dtype is tessera.int32
    f = tessera.ones(2)
    f /= 4
    assert f.tolist() == [0.25, 0.25]


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Int"):
        i = tessera.zeros(2, dtype=tessera.int32)
        i += 1.5
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool "
                                           "tensors is not supported"):
        tessera.zeros(2, dtype=tessera.bool) - tessera.zeros(2, dtype=tessera.bool)
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        tessera.promote_types(tessera.float8_e4m3fn, tessera.float32)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size "
                                           "of tensor b \\(2\\) at non-singleton dimension 0"):
        tessera.zeros(3) + tessera.zeros(2)
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        tessera.tensor([[1, 2], [3]])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tessera.zeros(2).stride(3)
    with pytest.raises(TypeError):
        tessera.promote_types(tessera.float32, "float64")
    with pytest.raises(TypeError):
        tessera.zeros(2) + "x"
    # PyTorch 1.13's class and words for an int out of int64's range, and
    # for a negative storage offset
    for make in (lambda: tessera.tensor([2**63]), lambda: tessera.tensor(2**64),
                 lambda: tessera.zeros(2) + 2**63, lambda: tessera.full((2,), -2**63 - 1)):
        with pytest.raises(RuntimeError, match="^Overflow when unpacking long$"):
            make()
    with pytest.raises(RuntimeError, match="^Tensor: invalid storage offset -1$"):
        tessera.zeros(2).as_strided((2,), (1,), -1)


def test_tensor_of_a_list_that_changes_while_read():
    # A number's __index__ is the user's code: it may empty the list (or
    # the row) being read, and drop the last reference to itself.
    rows = [[0, 1, 2], [3, 4, 5]]

    class Shrinks:
        def __index__(self):
            rows[0].clear()
            return 7

    rows[0][0] = Shrinks()
    with pytest.raises(RuntimeError, match="a list at dim 1 changed size while it was read"):
        tessera.tensor(rows)
    flat = [0, 1]

    class Drops:
        def __index__(self):
            flat[1] = 9  # the list keeps its length
            return 7

    flat[1] = Drops()
    assert tessera.tensor(flat).tolist() == [0, 7]


def test_every_op_table_row_is_a_function_and_a_method():
    rows = tessera._C._op_names()
    names = {name for name, _ in rows}
    assert {"add", "atan2", "where", "isnan", "gelu_tanh", "bitwise_left_shift"} <= names
    assert len(rows) > 80
    for name, arity in rows:
        if name.endswith("_scalar") or name.startswith("round_decimals"):
            continue  # the library's own forms of clamp, lerp and round with numbers
        assert callable(getattr(tessera, name)), name
        assert callable(getattr(tessera.Tensor, name)), name
        assert callable(getattr(tessera.Tensor, name + "_")), name
        assert arity in (1, 2, 3)
    # one path: a row by name gives what its operator gives
    t = tessera.tensor([1.0, -2.0, 4.0])
    assert tessera.mul(t, 3).tolist() == (t * 3).tolist() == [3.0, -6.0, 12.0]
    assert tessera.neg(t).tolist() == (-t).tolist()
    u = t.clone()
    assert u.abs_() is u and u.tolist() == [1.0, 2.0, 4.0]


def test_results_are_tessera_tensors():
    t = tessera.ones(2, 3)
    for r in (t + 1, t[0], t.t(), t.sum(), tessera.from_dlpack(t), t.max(1).values, t @ t.t(),
              tessera.cat([t, t]), t.to(tessera.float64), t.clone()):
        assert type(r) is tessera.Tensor
    assert isinstance(t.shape, tuple) and t.shape == (2, 3)
    assert {t: 1}[t] == 1  # hashable by identity, as torch.Tensor
