"""tessera.Tensor and the functions built from the library's op table.

Tensor subclasses the extension's _TensorBase (the tensor, its attributes
and views) and adds what PyTorch's Tensor has beside: indexing and
assignment through views, printing, conversions to Python numbers and
NumPy, the operators, and the operations, all reaching the library through
a few entry points of the extension: _elementwise (an op-table row by
name), _reduce and its kin (_max_dim, _var, _norm, _along), and _product.
"""
import collections
import math
import numbers
import operator
import random
import types

from tessera import _C, _print


class layout(int):
    """A tensor layout, as torch.layout: tessera.strided, tessera.sparse_coo."""
    __slots__ = ()
    _names = ("strided", "sparse_coo")

    def __repr__(self):
        return "tessera." + self._names[self]


class memory_format(int):
    """A memory format, as torch.memory_format: tessera.contiguous_format,
    channels_last, channels_last_3d, preserve_format."""
    __slots__ = ()
    _names = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")

    def __repr__(self):
        return "tessera." + self._names[self]


class Size(tuple):
    """A tensor's sizes, as torch.Size: a tuple that prints as
    tessera.Size([2, 3])."""
    __slots__ = ()

    def __repr__(self):
        return "tessera.Size(%r)" % (list(self),)

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


strided, sparse_coo = layout(0), layout(1)
contiguous_format, channels_last, channels_last_3d, preserve_format = (
    memory_format(i) for i in range(4))

# The elementwise rows that are the library's internal forms (their
# scalars travel outside the tensor inputs); the public names cover them.
_INTERNAL = {"pow_scalar", "lerp_scalar", "clamp_scalar", "clamp_min_scalar", "clamp_max_scalar",
             "round_decimals", "round_decimals_neg"}


def _return_type(name):
    base = collections.namedtuple(name, ["values", "indices"])

    class pair(base):
        """(values, indices), printed as PyTorch's torch.return_types."""
        __slots__ = ()

        def __repr__(self):
            return "tessera.return_types.%s(\nvalues=%r,\nindices=%r)" % (
                name, self.values, self.indices)
    pair.__name__ = pair.__qualname__ = name
    return pair


return_types_max = _return_type("max")
return_types_min = _return_type("min")
return_types_max_out = _return_type("max_out")  # what max(dim, out=) returns
return_types_min_out = _return_type("min_out")


def _is_operand(x):
    """A tensor or a number, NumPy's bool among them (not a
    numbers.Number, but a real number to PyTorch's operators)."""
    t = type(x)
    return isinstance(x, (_C._TensorBase, numbers.Number)) or (
        t.__module__ == "numpy" and t.__name__ in ("bool_", "bool"))


def _elementwise(name, *inputs, out=None):
    return _C._elementwise(name, inputs, out=out)


def _binary(name):
    def forward(self, other):
        return _C._elementwise(name, (self, other)) if _is_operand(other) else NotImplemented

    def reflected(self, other):
        return _C._elementwise(name, (other, self)) if _is_operand(other) else NotImplemented

    def inplace(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _C._elementwise(name, (self, other), out=self)
    return forward, reflected, inplace


def _shape_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return shape


def _index_value(x):
    """An integer index: Python ints, objects with __index__, zero-dim
    integer tensors (others index as PyTorch's advanced indexing, which is
    not available)."""
    if isinstance(x, bool):
        raise IndexError("boolean indices are not available yet")
    if isinstance(x, _C._TensorBase):
        if x.dim() != 0 or x.dtype.is_floating_point or x.dtype.is_complex or x.dtype is _C.bool:
            raise IndexError("indexing with tensors of indices or masks (advanced indexing) "
                             "is not available yet")
        return int(x.item())
    try:
        return operator.index(x)
    except TypeError:
        return None


_NUMPY_TYPES = {
    _C.bool: "|b1", _C.uint8: "|u1", _C.int8: "|i1", _C.int16: "<i2", _C.uint16: "<u2",
    _C.int32: "<i4", _C.uint32: "<u4", _C.int64: "<i8", _C.uint64: "<u8", _C.float16: "<f2",
    _C.float32: "<f4", _C.float64: "<f8", _C.complex64: "<c8", _C.complex128: "<c16",
}


class _ArrayInterface:
    """A cpu tensor's memory as NumPy's __array_interface__ describes it;
    the array NumPy makes keeps this object, and so the tensor, alive."""

    def __init__(self, t, typestr):
        self.tensor, self.typestr = t, typestr

    @property
    def __array_interface__(self):
        t = self.tensor
        item = t.dtype.itemsize
        return {"version": 3, "typestr": self.typestr, "shape": tuple(t.shape),
                "strides": tuple(st * item for st in t.stride()),
                "data": (t.data_ptr(), False)}



_TO_FLAGS = ("non_blocking", "copy")


def _arg_type(x):
    """An argument's type as torch's argument parser names it."""
    if isinstance(x, _C._TensorBase):
        return "Tensor"
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__name__)


def _to_invalid(args, kwargs):
    got = [_arg_type(x) for x in args] + ["%s=%s" % (k, _arg_type(v)) for k, v in kwargs.items()]
    raise TypeError("to() received an invalid combination of arguments - got (%s), "
                    "but expected one of:" % ", ".join(got))

class Tensor(_C._TensorBase):
    """A strided tensor on a device, as torch.Tensor."""
    __slots__ = ()
    __hash__ = object.__hash__

    # ---- attributes ----------------------------------------------------
    @property
    def shape(self):
        return Size(super().shape)

    def size(self, dim=None):
        return Size(super().size()) if dim is None else super().size(dim)

    @property
    def layout(self):
        return layout(self._layout())

    @property
    def T(self):
        return self.permute(*reversed(range(self.dim())))

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_opencl(self):
        return self.device.type == "opencl"

    @property
    def is_meta(self):
        return self.device.type == "meta"

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def element_size(self):
        return self.dtype.itemsize

    def get_device(self):
        index = self.device.index
        return -1 if index is None else index

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    # ---- conversions ---------------------------------------------------
    def to(self, *args, **kwargs):
        """to(dtype, non_blocking, copy), to(device, dtype, non_blocking,
        copy), to(other, non_blocking, copy), memory_format= as torch's; a
        combination none of them takes (two dtypes, a device twice) is
        refused as torch refuses it."""
        first = args[0] if args else None
        if isinstance(first, (_C._TensorBase, _C.dtype)):
            lead, rest, taken = args[:1], args[1:], ("device", "dtype")
        else:
            lead, rest = args[:2], args[2:]
            taken = ("device", "dtype")[:len(lead)]
            if len(lead) == 2 and lead[1] is not None and not isinstance(lead[1], _C.dtype):
                _to_invalid(args, kwargs)
        if (len(rest) > len(_TO_FLAGS) or not all(isinstance(x, bool) for x in rest)
                or any(k in kwargs for k in taken + _TO_FLAGS[:len(rest)])):
            _to_invalid(args, kwargs)
        kwargs.update(zip(_TO_FLAGS, rest))
        if isinstance(first, _C._TensorBase):
            return super().to(first.device, first.dtype, **kwargs)
        return super().to(*lead, **kwargs)

    def opencl(self, device=None):
        """The tensor on an opencl device (the current one by default), as
        Tensor.cuda() is for CUDA's."""
        return self.to("opencl" if device is None else
                       device if not isinstance(device, int) else "opencl:%d" % device)

    def numpy(self):
        """The cpu tensor as a NumPy array over the same memory, writable,
        keeping the tensor alive (NumPy's array interface)."""
        import numpy
        if self.device.type != "cpu":
            raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first." % self.device)
        typestr = _NUMPY_TYPES.get(self.dtype)
        if typestr is None:
            raise TypeError("Got unsupported ScalarType %s" % _message_name(self))
        if self.numel() == 0:
            return numpy.empty(tuple(self.shape), dtype=typestr)
        return numpy.asarray(_ArrayInterface(self, typestr))

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __deepcopy__(self, memo):
        return self.clone()

    def _new(self, factory, size, dtype, device, *args):
        return factory(_shape_args(size), *args, dtype=dtype or self.dtype,
                       device=device if device is not None else self.device)

    def new_zeros(self, *size, dtype=None, device=None):
        return self._new(_C.zeros, size, dtype, device)

    def new_ones(self, *size, dtype=None, device=None):
        return self._new(_C.ones, size, dtype, device)

    def new_empty(self, *size, dtype=None, device=None):
        return self._new(_C.empty, size, dtype, device)

    def new_full(self, size, fill_value, dtype=None, device=None):
        return self._new(_C.full, (size,), dtype, device, fill_value)

    def new_tensor(self, data, dtype=None, device=None):
        return _C.tensor(data, dtype=dtype or self.dtype,
                         device=device if device is not None else self.device)

    def type_as(self, other):
        return self.to(other.dtype)

    def __repr__(self):
        default = _C.get_default_dtype()
        complex_default = _C.complex128 if default is _C.float64 else _C.complex64
        return _print.tensor_repr(self, default, complex_default, _C.int64, _C.bool)

    __str__ = __repr__

    def __bool__(self):
        if self.numel() != 1:
            if self.numel() == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(len(self)))

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # ---- views ---------------------------------------------------------
    def view(self, *shape):
        return super().view(*_shape_args(shape))

    def reshape(self, *shape):
        return super().reshape(*_shape_args(shape))

    def permute(self, *dims):
        return super().permute(*_shape_args(dims))

    def expand(self, *sizes):
        return super().expand(*_shape_args(sizes))

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def expand_as(self, other):
        return self.expand(other.shape)

    def squeeze(self, dim=None):
        """squeeze(dim), or every size-1 dimension: a view."""
        if dim is not None:
            return self._squeeze_dim(dim)
        kept = [(s, st) for s, st in zip(self.shape, self.stride()) if s != 1]
        return self.as_strided([s for s, _ in kept], [st for _, st in kept],
                               self.storage_offset())

    def flatten(self, start_dim=0, end_dim=-1):
        n = self.dim()
        if n == 0:
            return self.reshape(1)
        start = start_dim + n if start_dim < 0 else start_dim
        end = end_dim + n if end_dim < 0 else end_dim
        if not (0 <= start < n) or not (0 <= end < n):
            bad = start_dim if not (0 <= start < n) else end_dim
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but "
                             "got %d)" % (-n, n - 1, bad))
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        shape = list(self.shape)
        inner = 1
        for s in shape[start:end + 1]:
            inner *= s
        return self.reshape(shape[:start] + [inner] + shape[end + 1:])

    def swapaxes(self, dim0, dim1):
        return self.transpose(dim0, dim1)

    swapdims = swapaxes

    def split(self, split_size, dim=0):
        size = self.size(dim)
        if isinstance(split_size, int):
            if split_size <= 0 and size:
                raise RuntimeError("split_size can only be 0 if dimension size is 0, but got "
                                   "dimension size of %d" % size)
            sizes = [min(split_size, size - s) for s in range(0, size, split_size or 1)] or [0]
        else:
            sizes = list(split_size)
        parts, start = [], 0
        for s in sizes:
            parts.append(self.narrow(dim, start, s))
            start += s
        return tuple(parts)

    def chunk(self, chunks, dim=0):
        size = self.size(dim)
        return self.split(max(1, -(-size // chunks)), dim)

    def unbind(self, dim=0):
        return tuple(self.select(dim, i) for i in range(self.size(dim)))

    # ---- indexing ------------------------------------------------------
    def _indexed(self, index):
        """A view for t[index]: integers select, slices slice, None adds a
        dimension, one Ellipsis stands for the dimensions not named."""
        items = index if isinstance(index, tuple) else (index,)
        if self.dim() == 0 and any(_index_value(i) is not None for i in items
                                   if not isinstance(i, bool)):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                             "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
                             "number")
        consuming = sum(1 for i in items if i is not None and i is not Ellipsis)
        if consuming > self.dim():
            raise IndexError("too many indices for tensor of dimension %d" % self.dim())
        t, dim, source_dim, expanded = self, 0, 0, False
        for item in items:
            if item is None:
                t = t.unsqueeze(dim)
                dim += 1
            elif item is Ellipsis:
                if not expanded:
                    dim += self.dim() - consuming
                    source_dim += self.dim() - consuming
                expanded = True
            elif isinstance(item, slice):
                step = 1 if item.step is None else operator.index(item.step)
                if step == 0:
                    raise ValueError("slice step cannot be zero")
                if step < 0:
                    raise ValueError("step must be greater than zero")
                start = None if item.start is None else operator.index(item.start)
                stop = None if item.stop is None else operator.index(item.stop)
                t = t._slice(dim, start, stop, step)
                dim += 1
                source_dim += 1
            else:
                i = _index_value(item)
                if i is None:
                    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and "
                                     "long or byte Variables are valid indices (got %s)"
                                     % type(item).__name__)
                size = t.size(dim)
                if not -size <= i < size:
                    raise IndexError("index %d is out of bounds for dimension %d with size %d"
                                     % (i, source_dim, size))
                t = t.select(dim, i)
                source_dim += 1
        if t is self:
            t = self.as_strided(self.shape, self.stride(), self.storage_offset())
        return t

    def __getitem__(self, index):
        return self._indexed(index)

    def __setitem__(self, index, value):
        target = self._indexed(index)
        if isinstance(value, _C._TensorBase):
            # leading size-1 dimensions of the value go, as in PyTorch; then
            # it expands, so a value that does not broadcast fails as there
            while value.dim() > target.dim() and value.size(0) == 1:
                value = value.select(0, 0)
            target.copy_(value.expand(target.shape) if value.dim() <= target.dim() else value)
        elif isinstance(value, numbers.Number):
            target.fill_(value)
        else:
            raise TypeError("can't assign a %s to a %s" % (type(value).__name__, self.type()))

    # ---- operators -----------------------------------------------------
    __add__, __radd__, __iadd__ = _binary("add")
    __sub__, __rsub__, __isub__ = _binary("sub")
    __mul__, __rmul__, __imul__ = _binary("mul")
    __truediv__, __rtruediv__, __itruediv__ = _binary("div")
    __floordiv__, __rfloordiv__, __ifloordiv__ = _binary("div_floor")
    __mod__, __rmod__, __imod__ = _binary("remainder")
    __and__, __rand__, __iand__ = _binary("bitwise_and")
    __or__, __ror__, __ior__ = _binary("bitwise_or")
    __xor__, __rxor__, __ixor__ = _binary("bitwise_xor")
    __lshift__, __rlshift__, __ilshift__ = _binary("bitwise_left_shift")
    __rshift__, __rrshift__, __irshift__ = _binary("bitwise_right_shift")
    __eq__ = _binary("eq")[0]
    __ne__ = _binary("ne")[0]
    __lt__ = _binary("lt")[0]
    __le__ = _binary("le")[0]
    __gt__ = _binary("gt")[0]
    __ge__ = _binary("ge")[0]

    def __neg__(self):
        return _elementwise("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _elementwise("abs", self)

    def __invert__(self):
        return _elementwise("bitwise_not", self)

    def abs_(self):
        if self.dtype.is_complex:  # abs(out=self) computes |z| + 0i there
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        return _elementwise("abs", self, out=self)

    def round(self, *, decimals=None):
        return _round(self, decimals=decimals)

    def round_(self, *, decimals=None):
        if decimals is None:
            return _elementwise("round", self, out=self)
        return _C._round_decimals(self, decimals, None, True)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _C._nan_to_num(self, nan, posinf, neginf, None, False)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return _C._nan_to_num(self, nan, posinf, neginf, None, True)

    def __matmul__(self, other):
        if not isinstance(other, _C._TensorBase):
            return NotImplemented
        return _C._product("matmul", self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, _C._TensorBase):
            return NotImplemented
        return _C._product("matmul", other, self)

    def __pow__(self, exponent):
        if not isinstance(exponent, (_C._TensorBase, numbers.Number)):
            return NotImplemented
        return _C._pow(self, exponent, None, False)

    def __rpow__(self, base):
        # PyTorch 1.13's number ** tensor is a tensor ** tensor: the base
        # becomes a tensor of the result dtype first (not torch.pow's
        # number-base form, which fills 1 ** t with ones).
        if not isinstance(base, numbers.Number):
            return NotImplemented
        base = _C.tensor(base, dtype=_C.result_type(base, self), device=self.device)
        return _C._pow(base, self, None, False)

    def __ipow__(self, exponent):
        if not isinstance(exponent, (_C._TensorBase, numbers.Number)):
            return NotImplemented
        return _C._pow(self, exponent, None, True)

    def pow_(self, exponent):
        return _C._pow(self, exponent, None, True)


# ---- random factories ----------------------------------------------------
# Python's Mersenne Twister draws the values on the host: the distributions
# are PyTorch's, the streams are not (tessera.manual_seed(s) repeats a
# stream of its own).
_generator = random.Random()


def manual_seed(seed):
    _generator.seed(seed)
    return _generator


def _random_factory(name, draw):
    def factory(*size, dtype=None, device=None):
        shape = _shape_args(size)
        count = 1
        for s in shape:
            count *= s
        values = [draw() for _ in range(count)]
        t = _C.tensor(values, dtype=dtype or _C.get_default_dtype(), device=device)
        return t.reshape(shape)
    factory.__name__ = name
    factory.__doc__ = "torch.%s(*size, dtype=None, device=None)" % name
    return factory


def arange(start, end=None, step=1, *, dtype=None, device=None):
    """torch.arange: start, start + step, ... below end (above it for a
    negative step), each computed as start + i * step in double precision
    and converted once, as PyTorch's cpu kernel does; int64 when every
    bound is an integer, else the default dtype."""
    if end is None:
        start, end = 0, start
    for name, x in (("start", start), ("end", end), ("step", step)):
        if isinstance(x, _C._TensorBase):
            x = x.item()
        if not isinstance(x, numbers.Real):
            raise TypeError("arange(): argument '%s' must be Number, not %s"
                            % (name, type(x).__name__))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    integral = all(isinstance(x, int) for x in (start, end, step))
    count = max(0, -((start - end) // step)) if integral else \
        max(0, int(math.ceil((end - start) / step)))
    if dtype is None:
        dtype = _C.int64 if integral else _C.get_default_dtype()
    values = [start + i * step for i in range(count)] if integral else \
        [float(start) + i * float(step) for i in range(count)]
    return _C.tensor(values or [], dtype=dtype, device=device)


randn = _random_factory("randn", lambda: _generator.gauss(0.0, 1.0))
rand = _random_factory("rand", _generator.random)


def cat(tensors, dim=0):
    """torch.cat: the tensors joined along dim, in their promoted dtype, on
    their (common) device; written into one new tensor through views and
    copy_. One-dimensional empty tensors are skipped, as PyTorch skips
    them."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("tessera.cat(): expected a non-empty list of Tensors")
    for k, t in enumerate(tensors):
        if not isinstance(t, _C._TensorBase):
            raise TypeError("expected Tensor as element %d in argument 0, but got %s"
                            % (k, type(t).__name__))
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    parts = [(k, t) for k, t in enumerate(tensors) if not (t.dim() == 1 and t.numel() == 0)]
    if not parts:
        return _C.empty(0, dtype=dtype, device=tensors[0].device)
    first = parts[0][1]
    for k, t in parts:
        if t.dim() == 0:
            raise RuntimeError("zero-dimensional tensor (at position %d) cannot be concatenated"
                               % k)
        if t.device != first.device:
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               "least two devices, %s and %s!" % (first.device, t.device))
    n = first.dim()
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got "
                         "%d)" % (-n, n - 1, dim))
    for k, t in parts:
        if t.dim() != n:
            raise RuntimeError("Tensors must have same number of dimensions: got %d and %d"
                               % (n, t.dim()))
        for i in range(n):
            if i != d and t.size(i) != first.size(i):
                raise RuntimeError("Sizes of tensors must match except in dimension %d. Expected "
                                   "size %d but got size %d for tensor number %d in the list."
                                   % (d, first.size(i), t.size(i), k))
    shape = list(first.shape)
    shape[d] = sum(t.size(d) for _, t in parts)
    out = _C.empty(shape, dtype=dtype, device=first.device)
    start = 0
    for _, t in parts:
        out.narrow(d, start, t.size(d)).copy_(t)
        start += t.size(d)
    return out


def stack(tensors, dim=0):
    """torch.stack: the tensors, all of one shape, joined along a new dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for k, t in enumerate(tensors[1:], 1):
        if tuple(t.shape) != tuple(tensors[0].shape):
            raise RuntimeError("stack expects each tensor to be equal size, but got %s at entry 0 "
                               "and %s at entry %d" % (list(tensors[0].shape), list(t.shape), k))
    return cat([t.unsqueeze(dim) for t in tensors], dim)


def _message_name(t):
    """The dtype as PyTorch's messages name it ("Float"), from the tensor's
    type name ("torch.FloatTensor", "torch.opencl.FloatTensor")."""
    return t.type().rsplit(".", 1)[-1][:-len("Tensor")]


def masked_fill(input, mask, value):
    """torch.masked_fill: value where mask is true, in input's dtype."""
    return _elementwise("where", mask, value, input).to(input.dtype)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose: |input - other| <= atol + rtol * |other|, equal
    infinities, and NaNs equal where equal_nan."""
    if input.dtype is not other.dtype:
        raise RuntimeError("%s did not match %s" % (_message_name(input), _message_name(other)))
    close = _elementwise("eq", input, other)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        near = _elementwise("le", abs(input - other), atol + rtol * abs(other))
        close = close | (near & _elementwise("isfinite", other))
        if equal_nan:
            close = close | (_elementwise("isnan", input) & _elementwise("isnan", other))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """torch.equal: the same shape and the same values."""
    return tuple(input.shape) == tuple(other.shape) and bool(
        _elementwise("eq", input, other).all())


def from_numpy(array):
    """torch.from_numpy: a cpu tensor over the array's memory (DLPack)."""
    return _C.from_dlpack(array)


def pow(input, exponent, *, out=None):
    """torch.pow: a tensor or a Python number on either side, the library's
    pow (its dtypes, checks and messages are PyTorch 1.13's)."""
    return _C._pow(input, exponent, out, False)


# ---- functions built from the op table ---------------------------------

def _elementwise_function(name, arity):
    def function(*inputs, out=None):
        if len(inputs) != arity:
            raise TypeError("%s() takes %d positional argument%s but %d were given"
                            % (name, arity, "s" if arity > 1 else "", len(inputs)))
        return _C._elementwise(name, inputs, out=out)
    function.__name__ = name
    function.__doc__ = "torch.%s: the library's op table row %r." % (name, name)

    def method(self, *others, out=None):
        return function(self, *others, out=out)

    def inplace(self, *others):
        return function(self, *others, out=self)
    method.__name__, inplace.__name__ = name, name + "_"
    return function, method, inplace


def div(input, other, *, rounding_mode=None, out=None):
    """torch.div: true division, or rounding_mode 'trunc' / 'floor'."""
    if rounding_mode is None:
        return _elementwise("div", input, other, out=out)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           "but found '%s'" % rounding_mode)
    return _elementwise("div_" + rounding_mode, input, other, out=out)


def _round(input, *, decimals=None, out=None):
    """torch.round: half to even; with decimals= (even 0, which refuses
    integers as PyTorch does) as PyTorch 1.13 scales and rounds."""
    if decimals is None:
        return _elementwise("round", input, out=out)
    return _C._round_decimals(input, decimals, out, False)


def _nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """torch.nan_to_num: NaN, +inf and -inf replaced."""
    return _C._nan_to_num(input, nan, posinf, neginf, out, False)


def clamp(input, min=None, max=None, *, out=None):
    """torch.clamp with tensor or number bounds."""
    if min is None and max is None:
        raise RuntimeError("tessera.clamp: At least one of 'min' or 'max' must not be None")
    if max is None:
        return _elementwise("clamp_min", input, min, out=out)
    if min is None:
        return _elementwise("clamp_max", input, max, out=out)
    return _elementwise("clamp", input, min, max, out=out)


def gelu(input, approximate="none"):
    if approximate == "none":
        return _elementwise("gelu", input)
    if approximate == "tanh":
        return _elementwise("gelu_tanh", input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def _reduction(name, takes_dtype):
    if takes_dtype:
        def function(input, dim=None, keepdim=False, *, dtype=None, out=None):
            return _C._reduce(name, input, dim, keepdim, dtype, out)
    else:
        def function(input, dim=None, keepdim=False, *, out=None):
            return _C._reduce(name, input, dim, keepdim, None, out)
    function.__name__ = name
    return function


def _extreme(name, fallback):
    pair = return_types_max if name == "max" else return_types_min
    pair_out = return_types_max_out if name == "max" else return_types_min_out

    def function(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, _C._TensorBase):
            return _elementwise(fallback, input, dim, out=out)
        if dim is None:
            return _C._reduce("a" + name, input, None, False, None, out)
        if out is not None:
            return pair_out(*_C._max_dim(name, input, dim, keepdim, tuple(out)))
        return pair(*_C._max_dim(name, input, dim, keepdim))
    function.__name__ = name
    return function


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None):
    c = (1 if unbiased else 0) if correction is None else correction
    return _C._var("var", input, dim, c, keepdim, out)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None, out=None):
    c = (1 if unbiased else 0) if correction is None else correction
    return _C._var("std", input, dim, c, keepdim, out)


def norm(input, p="fro", dim=None, keepdim=False, out=None):
    if p == "fro":
        p = 2
    return _C._norm(input, float(p), dim, keepdim, out)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _C._reduce("logsumexp", input, dim, keepdim, None, out)


def _along(name):
    def function(input, dim, dtype=None, *, out=None):
        return _C._along(name, input, dim, dtype, out)
    function.__name__ = name
    return function


def _product(name):
    def function(input, other):
        return _C._product(name, input, other)
    function.__name__ = name
    return function


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def _view_function(name):
    def function(input, *args, **kwargs):
        return getattr(Tensor, name)(input, *args, **kwargs)
    function.__name__ = name
    return function


_VIEWS = ("transpose", "t", "permute", "narrow", "select", "squeeze", "unsqueeze", "reshape",
          "as_strided", "swapaxes", "swapdims", "split", "chunk", "unbind", "clone")


def _install_functions(namespace):
    """tessera.<name> and Tensor.<name> / <name>_ for every operation."""
    functions = {}
    for name, arity in _C._op_names():
        if name in _INTERNAL:
            continue
        function, method, inplace = _elementwise_function(name, arity)
        functions[name] = function
        if name not in vars(Tensor):
            setattr(Tensor, name, method)
        if name + "_" not in vars(Tensor):
            setattr(Tensor, name + "_", inplace)
    functions.update(set_printoptions=_print.set_printoptions, masked_fill=masked_fill, isclose=isclose, allclose=allclose, equal=equal,
                     cat=cat, concat=cat, stack=stack, from_numpy=from_numpy, arange=arange, randn=randn, rand=rand, manual_seed=manual_seed, div=div, divide=div, clamp=clamp, clip=clamp, gelu=gelu, pow=pow, var=var,
                     std=std, norm=norm, logsumexp=logsumexp, flatten=flatten,
                     round=_round, nan_to_num=_nan_to_num,
                     true_divide=functions["div"], floor_divide=functions["div_floor"],
                     multiply=functions["mul"], subtract=functions["sub"],
                     negative=functions["neg"], absolute=functions["abs"],
                     greater=functions["gt"], less=functions["lt"],
                     greater_equal=functions["ge"], less_equal=functions["le"],
                     not_equal=functions["ne"])
    for name, takes_dtype in _C._reduce_names():
        if name != "logsumexp":
            functions[name] = _reduction(name, takes_dtype)
    functions["max"] = _extreme("max", "maximum")
    functions["min"] = _extreme("min", "minimum")
    for name in ("softmax", "log_softmax", "cumsum"):
        functions[name] = _along(name)
    for name in ("mm", "bmm", "matmul", "dot", "mv", "outer"):
        functions[name] = _product(name)
    for name in _VIEWS:
        functions[name] = _view_function(name)
    for name, function in functions.items():
        namespace[name] = function
        if name in ("flatten",) or name in _VIEWS:
            continue
        if name not in vars(Tensor) or name in ("div", "clamp", "pow"):
            setattr(Tensor, name, _as_method(function))
    for name in ("div", "clamp"):
        setattr(Tensor, name + "_", _as_inplace(functions[name]))
    Tensor.masked_fill_ = lambda self, mask, value: self.copy_(masked_fill(self, mask, value))
    Tensor.gelu_ = _as_inplace(lambda self, approximate="none", out=None: _elementwise(
        "gelu_tanh" if approximate == "tanh" else "gelu", self, out=out))
    Tensor.clip = Tensor.clamp
    # t.float(), t.int(), ...: to() that dtype
    for method, dtype in (("half", _C.float16), ("float", _C.float32), ("double", _C.float64),
                          ("bfloat16", _C.bfloat16), ("byte", _C.uint8), ("char", _C.int8),
                          ("short", _C.int16), ("int", _C.int32), ("long", _C.int64),
                          ("bool", _C.bool), ("cfloat", _C.complex64), ("cdouble", _C.complex128)):
        setattr(Tensor, method, _converter(method, dtype))
    # x.where(condition, y) is where(condition, x, y)
    Tensor.where = lambda self, condition, other: _C._elementwise(
        "where", (condition, self, other))
    functional = types.ModuleType("tessera.nn.functional", "As torch.nn.functional.")
    for name in ("relu", "silu", "gelu", "softmax", "log_softmax", "sigmoid", "tanh"):
        setattr(functional, name, namespace[name])
    nn = types.ModuleType("tessera.nn", "As torch.nn: its functional part.")
    nn.functional = functional
    namespace["nn"] = nn
    _C._set_tensor_class(Tensor)


def _converter(name, dtype):
    def convert(self, memory_format=preserve_format):
        return self.to(dtype, memory_format=memory_format)
    convert.__name__ = name
    return convert


def _as_method(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _as_inplace(function):
    def inplace(self, *args, **kwargs):
        return function(self, *args, out=self, **kwargs)
    inplace.__name__ = function.__name__ + "_"
    return inplace
