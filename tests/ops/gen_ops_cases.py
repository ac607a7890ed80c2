#!/usr/bin/python3
"""Generates the known answers of the elementwise-op conformance suite
(tests/ops/data/*.txt) from a real PyTorch.

Run from anywhere with Debian's interpreter, which has torch 1.13:

    /usr/bin/python3 tests/ops/gen_ops_cases.py

Every table is rewritten (or only the families named as arguments:
gen_ops_cases.py maximum); the output depends only on SEED below (the
random cases are drawn from one seeded generator, family by family, and
the families added later each from a generator of its own).

The format (read by support_ops.c), one case per line, fields separated by
" | ", '#' starting a comment line:

    id | op | form | arg | bases | a | b | out | ok | dtype | sizes | strides | same | values | after
    id | op | form | arg | bases | a | b | out | err | <status> | <message>

  op     add, sub, mul, div, maximum, minimum, copy_, clone, contiguous,
         fill_, to
  form   new (a new result), out (out= tensor), inplace (on `a`; for
         maximum and minimum, which have no method of that form in
         PyTorch, the call with out=a); '-' for the copy family
  arg    add/sub: alpha (a scalar, below); div: none, trunc or floor;
         clone/contiguous: a memory format name; to: a dtype name; where:
         the condition operand (as a/b below); clamp: the max operand (a
         is self, b min; '-' for a bound left out); else '-'
  bases  ';'-separated storages "dtype:n:hex": n elements of that dtype,
         their bytes in memory order (little endian) as hex. A leading '@'
         puts the storage on the accelerator (meta for the cpu run, opencl:0
         for the opencl run); the others live on the device under test.
  a/b/out  "v<k> [sizes] [strides] offset": an as_strided view of base k;
         "s <scalar>": a Python number; '-': none. For copy_, a is the
         destination and b the source; for fill_, b is the value.
  scalar b:0|b:1 (bool), i:<int64>, f:<float.hex()>, c:<re hex>,<im hex>
  ok     the result (for out/inplace/copy_/fill_, the written tensor):
         dtype, sizes, strides, same (1: the call returned its input
         itself, 0: a new tensor, '-': not applicable), every element in
         row-major order as hex bytes, and the output view's storage after
         the call (hex; '-' for new tensors and resized outs). Values
         compare bit for bit except that any NaN matches any NaN.
  err    <status>: the Python exception (RuntimeError, ...) or a Tessera
         status name where the mapping is not PyTorch's (TSR_ERR_NOT_SUPPORTED
         for "not implemented for" dtype errors); <message>: the exact text,
         '{acc}' standing for the accelerator's name, '*' for any text.

Tables (one per op family, so that a family can be registered on its own):
  add.txt     add and sub with alpha     mul.txt   mul
  div.txt     div: true, trunc, floor     errors.txt  every error case
  copy.txt    copy_, fill_, to(dtype)    layout.txt  clone, contiguous
  device.txt  mixed cpu / accelerator operands (message names the devices)
  maximum.txt, minimum.txt   torch.maximum / torch.minimum: random cases
              (tensors and zero-dim tensors only: PyTorch takes no Python
              number), NaN / +-inf / +-0 tables per dtype, the complex
              refusal and the other errors (one table per op, named as
              core/ops.def names the op)
  shell.txt   shell dtypes torch 1.13 lacks (float8, float4, uint16/32/64):
              written from spec/tensor-attributes.md (promotion) and ops.h
              (shells do not compute; true division of uint16/32/64 meets in
              the default dtype and does; bytes move in copies)
  pow.txt, pow_complex.txt   torch.pow's three forms with real results,
              and with complex ones (PyTorch's answers where they are
              within 2 ulps of the true values; see gen_pow_complex)

Cases PyTorch itself answers inconsistently are not written: every random
case is recomputed with the inputs converted to the computation dtype and
laid out two other ways (strided, so the scalar loop runs; contiguous, so
the vectorised loop runs), and for float16/bfloat16/complex32 once more in
float32/complex64 rounded once at the end (Tessera's documented rule); the
case is drawn again unless all agree. Alphas of float add/sub are exact
(0, +-0.5, +-1, +-2: PyTorch's vectorised path fuses a + alpha * b).
Integer division by zero and INT_MIN / -1 appear only as error cases.
Complex -> bool copies keep imag == 0 where real == 0 (1.13 reads the real
part only; 2.9, which Tessera follows, reads both).
"""

import io
import math
import os
import random
import sys
import warnings

import mpmath
import torch

warnings.filterwarnings("ignore")  # ComplexHalf is "experimental" in 1.13
torch.set_num_threads(1)

SEED = 0x7E55E4A
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

B, U8, I8, I16, I32, I64 = torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64
F16, BF16, F32, F64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
CLASSIC = [B, U8, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64, C128]
INTS = [U8, I8, I16, I32, I64]
FLOATS = [F16, BF16, F32, F64]
COMPLEX = [C32, C64, C128]
REDUCED = {F16: F32, BF16: F32, C32: C64}
FORMATS = {"contiguous_format": torch.contiguous_format, "channels_last": torch.channels_last,
           "channels_last_3d": torch.channels_last_3d, "preserve_format": torch.preserve_format}

STATS = {}


def count(key):
    STATS[key] = STATS.get(key, 0) + 1


def dname(dtype):
    return str(dtype).replace("torch.", "")


def ints(values):
    return "[" + ",".join(str(int(v)) for v in values) + "]"


def hexbits(t):
    """t's elements in row-major order, their bytes as hex."""
    if t.numel() == 0:
        return ""
    flat = torch.empty(t.numel(), dtype=t.dtype)
    flat.copy_(t.detach().reshape(-1))  # same dtype: the bits move unchanged
    return flat.view(torch.uint8).numpy().tobytes().hex()


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


# ---- values ---------------------------------------------------------------

def component(dtype):
    return {C32: F16, C64: F32, C128: F64}.get(dtype, dtype)


def float_edges(dtype):
    fi = torch.finfo(dtype)
    return [0.0, -0.0, float("inf"), float("-inf"), float("nan"), fi.max, -fi.max, fi.tiny,
            -fi.tiny, fi.tiny * fi.eps, fi.max / 2, -fi.max * 0.75, 1.0, -1.0, 0.5, fi.eps]


def float_value(rng, dtype, edge_rate):
    fi = torch.finfo(dtype)
    r = rng.random()
    if r < edge_rate:
        return rng.choice(float_edges(dtype))
    if r < 0.55:
        return rng.randint(-40, 40) / 4
    if r < 0.75:
        return rng.uniform(-100, 100)
    emin, emax = math.frexp(fi.tiny)[1] - 1, math.frexp(fi.max)[1] - 1
    e = rng.randint(-20, 20) if rng.random() < 0.7 else rng.randint(emin - 5, emax)
    return math.ldexp(rng.choice([-1, 1]) * rng.uniform(1, 2), e)


def int_value(rng, dtype, edge_rate):
    ii = torch.iinfo(dtype)
    r = rng.random()
    if r < edge_rate:
        return rng.choice([ii.min, ii.max, 0, 1, ii.min + 1, ii.max - 1] + ([-1] if ii.min < 0 else []))
    if r < 0.75:
        lo = 0 if ii.min == 0 else -12
        return rng.randint(lo, lo + 24)
    return rng.randint(ii.min, ii.max)


def make_values(rng, dtype, n, edge_rate=0.12):
    """A 1-D tensor of n random values of dtype, edge cases included."""
    if dtype == B:
        return torch.tensor([rng.random() < 0.5 for _ in range(n)], dtype=B)
    if dtype in INTS:
        return torch.tensor([int_value(rng, dtype, edge_rate) for _ in range(n)], dtype=torch.int64).to(dtype)
    if dtype in FLOATS:
        return torch.tensor([float_value(rng, dtype, edge_rate) for _ in range(n)], dtype=F64).to(dtype)
    comp = component(dtype)
    re = torch.tensor([float_value(rng, comp, edge_rate) for _ in range(n)], dtype=F64).to(comp)
    im = torch.tensor([float_value(rng, comp, edge_rate) if rng.random() < 0.8 else 0.0
                       for _ in range(n)], dtype=F64).to(comp)
    wide = C64 if dtype == C32 else dtype
    return torch.complex(re.to(component(wide)), im.to(component(wide))).to(dtype)


# ---- geometry -------------------------------------------------------------

def gen_shape(rng, max_numel):
    rank = rng.choices(range(6), weights=[1, 3, 4, 3, 3, 2])[0]
    sizes = [rng.choices([0, 1, 2, 3, 4, 5], weights=[0.25, 2.5, 3, 3, 2, 1])[0] for _ in range(rank)]
    while numel(sizes) > max_numel:
        big = [i for i, s in enumerate(sizes) if s > 1]
        sizes[rng.choice(big)] -= 1
    return sizes


def broadcast_from(rng, shape):
    """A shape that broadcasts to `shape`: fewer leading dims, some dims 1."""
    drop = rng.choice([0, 0, 0, 1, 2]) if shape else 0
    drop = min(drop, len(shape))
    out = list(shape[drop:])
    for i in range(len(out)):
        if rng.random() < 0.3:
            out[i] = 1
    return out


def layout(rng, sizes, kind):
    """(strides, offset, storage elements) of a view of `sizes`. Kinds:
    contig, permute, transpose, channels_last, slice, offset (all
    non-overlapping), expand and overlap (inputs only)."""
    nd = len(sizes)
    order = list(range(nd))  # outermost first
    steps = [1] * nd
    pads = [0] * nd
    offset = 0
    if kind == "permute":
        rng.shuffle(order)
    elif kind == "transpose" and nd >= 2:
        i, j = rng.sample(range(nd), 2)
        order[i], order[j] = order[j], order[i]
    elif kind == "channels_last" and nd in (4, 5):
        order = [0] + list(range(2, nd)) + [1]
    elif kind == "slice":
        steps = [rng.choice([1, 1, 2, 3]) for _ in range(nd)]
        pads = [rng.choice([0, 0, 1, 2]) for _ in range(nd)]
        offset = rng.randint(0, 3)
        if rng.random() < 0.5:
            rng.shuffle(order)
    elif kind == "offset":
        offset = rng.randint(1, 7)
    strides = [0] * nd
    inner = 1
    for d in reversed(order):
        strides[d] = inner * steps[d]
        inner *= max((sizes[d] - 1) * steps[d] + 1 + pads[d], 1)
    if kind == "expand":
        for d in range(nd):
            if sizes[d] > 1 and rng.random() < 0.5:
                strides[d] = 0
    elif kind == "overlap":
        strides = [rng.choice([0, 1, 1, 2]) for _ in range(nd)]
    # A size-1 dimension's stride is never used to address memory.
    for d in range(nd):
        if sizes[d] == 1 and rng.random() < 0.2:
            strides[d] = rng.choice([0, 1, 7])
    if numel(sizes) == 0:
        extent = offset + rng.randint(0, 2)
    else:
        extent = offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1 + rng.choice([0, 0, 1])
    return strides, offset, extent


INPUT_KINDS = ["contig"] * 5 + ["permute", "transpose", "channels_last", "slice", "slice", "offset",
                                "expand", "overlap"]
OUTPUT_KINDS = ["contig"] * 5 + ["permute", "transpose", "channels_last", "slice", "offset"]


class Case:
    """One call's operands: storages and views over them, as written."""

    def __init__(self):
        self.bases = []  # (tensor, on accelerator)
        self.views = {}

    def base(self, t, acc=False):
        self.bases.append((t, acc))
        return len(self.bases) - 1

    def view(self, k, sizes, strides, offset):
        t = self.bases[k][0].as_strided(sizes, strides, offset)
        self.views[id(t)] = "v%d %s %s %d" % (k, ints(sizes), ints(strides), offset)
        return t

    def new_view(self, rng, dtype, sizes, kinds, values=None, acc=False):
        strides, offset, extent = layout(rng, sizes, rng.choice(kinds))
        data = values(extent) if values else make_values(rng, dtype, extent)
        return self.view(self.base(data, acc), sizes, strides, offset)

    def text(self, operand):
        if operand is None:
            return "-"
        if isinstance(operand, torch.Tensor):
            return self.views[id(operand)]
        return "s " + scalar_text(operand)

    def bases_text(self):
        return ";".join("%s%s:%d:%s" % ("@" if acc else "", dname(t.dtype), t.numel(), hexbits(t))
                        for t, acc in self.bases)

    def base_of(self, operand):
        return int(self.views[id(operand)].split(" ")[0][1:])


def scalar_text(v):
    if isinstance(v, bool):
        return "b:%d" % v
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "f:" + v.hex()
    return "c:%s,%s" % (v.real.hex(), v.imag.hex())


# ---- calling PyTorch ------------------------------------------------------

# Operations without a Python-number operand, whose in-place form is the
# call with out=a (maximum has no method of that form in PyTorch), and
# hypot and atan2, which have one.
TENSOR_ONLY = ("maximum", "minimum", "logical_and", "logical_or", "logical_xor", "fmax", "fmin", "hypot",
               "atan2")
# The op table's later binary rows (core/ops.def), each a family of its own.
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
# Integer divisions: a zero divisor is an error case of its own, and
# INT32_MIN or INT64_MIN by -1 traps in PyTorch (no case gives it).
DIVISIONS = ("remainder", "fmod")
BINARY = COMPARISONS + ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                        "bitwise_xor", "fmax", "fmin", "copysign") + DIVISIONS + (
                            "bitwise_left_shift", "bitwise_right_shift", "hypot", "atan2")
# Operations of one input.
UNARY = ("abs", "neg", "sign", "square", "reciprocal", "floor", "ceil", "trunc", "round", "relu",
         "bitwise_not", "logical_not", "isnan", "isinf", "isfinite", "signbit", "frac", "sqrt",
         "exp", "log", "expm1", "log1p", "sigmoid", "tanh", "exp2", "log2", "log10", "sinh", "cosh", "asinh",
         "acosh", "atanh", "rsqrt", "erf", "erfc", "silu", "gelu", "sin", "cos", "tan", "asin", "acos", "atan",
         "sgn")
BOOL_RESULT = COMPARISONS + ("logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
                             "isinf", "isfinite", "signbit")
# No out= and no in-place method in PyTorch: only the new form is written.
NEW_ONLY = ("isnan", "isinf", "isfinite")
# No in-place method: out=a stands for it.
INPLACE_BY_OUT = tuple(o for o in TENSOR_ONLY if o != "hypot") + ("signbit",)
# No out= in PyTorch.
NO_OUT = ("relu",)
# Answers Tessera knowingly gives otherwise, left out of the random cases:
# signbit's out= of another dtype than bool, refused in PyTorch, takes 0 and
# 1 as the comparisons' does; logical_not into a complex32 out= computes;
# gelu computes into any strided out=.
UNCOVERED = ("signbit does not support non-boolean outputs.",
             "\"logical_not_cpu\" not implemented for 'ComplexHalf'",
             # gelu's out= goes through oneDNN in PyTorch 1.13, which
             # refuses some layouts that its own loop computes
             "could not construct a memory descriptor using strides")
# Tessera does not compute these complex inputs yet (they are not exact
# operations): no case gives them.
COMPLEX_PENDING = ("reciprocal", "sqrt", "square")
# Of those, the ones whose complex64 and complex128 inputs Tessera refuses
# with a message of its own (PyTorch computes them; its complex32 refusal
# stays PyTorch's).
COMPLEX_NOT_YET = ()
# Results that are not exact operations: PyTorch's answers and Tessera's
# may differ by this many ulps of the result's computation dtype (the
# runner's tolerance, support_ops.c), and PyTorch's own paths are taken as
# agreeing within it. Every other op compares bit for bit.
ULP_TOLERANCE = {"exp": 2, "log": 2, "expm1": 2, "log1p": 2, "sigmoid": 2, "tanh": 2, "exp2": 2, "log2": 2,
                 "log10": 2, "sinh": 2, "cosh": 2, "asinh": 2, "acosh": 2, "atanh": 2, "rsqrt": 2, "hypot": 2,
                 "erf": 2, "erfc": 2, "gelu": 2, "silu": 2, "sin": 2, "cos": 2, "tan": 2, "asin": 2,
                 "acos": 2, "atan": 2, "atan2": 2, "pow": 2}
# Their complex results: each part may differ from PyTorch's by this many
# ulps of the part's dtype (COMPLEX_ULPS unless named here). PyTorch takes
# glibc's complex functions (a few ulps per part: tanh's quotient of
# products up to about 6) or formulas of its vector loops (exp), so the
# two answers, each a few ulps from the true one, differ by more than the
# real functions' do (support_ops.c has the same numbers).
COMPLEX_ULPS = 5
COMPLEX_ULP_TOLERANCE = {"tanh": 10, "tan": 10}
# PyTorch's complex answers are taken where each part is within this many
# ulps of the true value (2, 4 for tanh and tan): Tessera's parts are
# within 2.5 (tanh and tan: 5.2) of it, so the two are within the
# tolerance above of each other.
COMPLEX_TRUTH_ULPS = {"tanh": 4, "tan": 4}
# Complex arguments (beside the special values' grid) where these are
# hard: near the unit circle (log), where exp overflows or underflows
# and where sinh and cosh saturate, large and tiny parts, |z| beyond the
# largest number.
COMPLEX_VALUES = [complex(0.5, 0.8660254037844386), complex(-0.7071067811865476, 0.7071067811865476),
                  complex(0.9999, 0.01), complex(1e-5, 1e-5), complex(2.0 ** -140, 1.5), complex(30.0, 1.0),
                  complex(50.0, -3.0), complex(-100.0, 2.0), complex(89.0, 1.0), complex(710.0, 1.0),
                  complex(-745.0, 0.5), complex(0.1, 50.0), complex(3.0, 1e20), complex(1e30, 1e30),
                  complex(1e-30, -2.0), complex(-3.0, 4.0), complex(400.0, 0.3), complex(-20.0, -0.75),
                  complex(3e38, -3e38), complex(-1.7e308, 1.7e308)]

# And where the inverse functions are hard: on and beside their branch
# cuts (both zeros), near the branch points +-1 and +-i, where their
# cases change (|parts| 1/2, 3/2, tiny against 1, beyond 1 / eps).
COMPLEX_INVERSE_VALUES = [complex(2.0, 0.0), complex(2.0, -0.0), complex(-2.0, 0.0), complex(-2.0, -0.0),
                          complex(0.0, 2.0), complex(-0.0, 2.0), complex(0.0, -2.0), complex(-0.0, -2.0),
                          complex(1.0, 1e-10), complex(-1.0, -1e-20), complex(1e-10, 1.0), complex(1.0, 1e-30),
                          complex(1.0000001, 1e-8), complex(0.9999999, 1e-8), complex(1e-9, 1.2),
                          complex(0.3, 1.2), complex(0.3, 0.9), complex(1e-12, 0.9), complex(0.7, 1e-9),
                          complex(1e-9, 1.7), complex(0.3, 1.0), complex(1e-9, 1.0), complex(0.5, 0.5),
                          complex(0.8, 0.6), complex(0.6, -0.8), complex(1e9, 1e-3), complex(-3e17, 2.0),
                          complex(2.0, 1e20), complex(5.0, 5.0), complex(1e-7, 1e-7), complex(1e-40, 1e-40)]

# Exact in the reals, not in complex: abs is a hypot there (PyTorch's
# vector loop squares the parts, its element loop calls hypot) and sgn
# divides by it. Their complex results (sgn's) may differ by COMPLEX_ULPS;
# abs's real ones are taken where PyTorch's loops agree, and compare
# within COMPLEX_ULPS too (support_ops.c).
COMPLEX_INEXACT = ("abs", "sgn")


# Whose complex answers are their element loops' (see gen_unary_fixed).
# abs's element loop is hypot (abs(inf + nan i) = inf as IEEE 754 says,
# where the vector loop gives NaN).
ELEMENT_LOOP = ("sigmoid", "silu", "rsqrt", "abs")
# Whose complex answers are their vector loops', which Tessera gives: the
# element loop of sgn divides by |z| + 0i as a complex quotient (NaN in
# both parts where one is infinite; overflowing where |z|^2 does). A case
# is kept where every element's answer is what the vector loop's body
# gives it (see consistent).
VECTOR_BODY = ("sgn",)
# PyTorch 1.13 computes complex asinh, acosh, atanh (and acos of
# complex64) with glibc's functions, but asin, atan (and acos of
# complex128) in its vector loops, whatever the layout, by formulas of
# complex logarithms and square roots that lose every digit in places
# and give other special values than C99's Annex G. Tessera computes
# all six as glibc does: these cases are kept where PyTorch is within 2
# ulps of the true value and, at the special arguments (a zero, infinite
# or NaN part), where its answer is glibc's, bit for bit.
ANNEX_G = {"asin": "casin", "acos": "cacos", "atan": "catan", "asinh": "casinh", "acosh": "cacosh",
           "atanh": "catanh"}
_LIBM = None


def annex_g_agrees(op, x, result):
    """Per element of the complex x: whether result (PyTorch's answer of
    op at x) is glibc's where x has a zero, infinite or NaN part (True
    elsewhere and for the other ops)."""
    global _LIBM
    if op not in ANNEX_G or not x.is_complex():
        return torch.ones(result.shape, dtype=B)
    import ctypes
    if _LIBM is None:
        _LIBM = ctypes.CDLL("libm.so.6")
    part = ctypes.c_double if x.dtype == C128 else ctypes.c_float

    class Cplx(ctypes.Structure):
        _fields_ = [("re", part), ("im", part)]
    fn = getattr(_LIBM, ANNEX_G[op] + ("" if x.dtype == C128 else "f"))
    fn.restype, fn.argtypes = Cplx, [Cplx]
    keep = []
    for v, g in zip(x.reshape(-1).tolist(), result.reshape(-1).tolist()):
        if math.isfinite(v.real) and math.isfinite(v.imag) and v.real != 0 and v.imag != 0:
            keep.append(True)
            continue
        z = fn(Cplx(v.real, v.imag))
        want = torch.tensor([complex(z.re, z.im)], dtype=x.dtype)
        keep.append(same_values(want, torch.tensor([g], dtype=x.dtype)))
    return torch.tensor(keep, dtype=B).reshape(result.shape)


def truth_ulps(op):
    return COMPLEX_TRUTH_ULPS.get(op, 2)


def ulps_of(op, dtype):
    """The tolerance of op's results in dtype (0: bit for bit)."""
    if op in COMPLEX_INEXACT and dtype.is_complex:
        return COMPLEX_ULPS
    if op not in ULP_TOLERANCE:
        return 0
    return COMPLEX_ULP_TOLERANCE.get(op, COMPLEX_ULPS) if dtype.is_complex else ULP_TOLERANCE[op]


# Arguments where exp and log are hard: near exp's overflow and underflow
# thresholds in float32 and float64, near 1, tiny and huge.
TRANSCENDENTAL_VALUES = [88.72, 88.72283935546875, 88.7228317260742, 88.73, -87.33, -103.9, -103.98, -104.0,
                         709.78, 709.79, -708.4, -745.13, -745.2, 1e-8, -1e-8, 2.0 ** -30, 1 - 2.0 ** -24,
                         1 + 2.0 ** -23, 1 - 2.0 ** -53, 1 + 2.0 ** -52, math.e, 10.0, -10.0, 100.0, 1e-300,
                         5e-324, 1e30, 0.6931471805599453, 3.4e38]
# And where the other functions are hard besides: expm1 near 0, at the
# reduction's edges and where it reaches -1; log1p near 0 and near -1;
# sigmoid and tanh where they reach 1 (0) and change paths; sin, cos and
# tan near multiples of pi/2 (the float32 and float64 nearest to pi/2, pi
# and 3pi/2, and the arguments of each type closest to one: 16367173 *
# 2^72 and 6381956970095103 * 2^797), at the ends of the reductions'
# ranges (pi/4, 2^12, 2^20) and far beyond; asin, acos and atan at the
# ends of their domains and where their reductions change paths.
TRIG_VALUES = [0.7853981633974483, 0.7853982, 1.5707963267948966, 1.5707964, 3.141592653589793, 3.1415927,
               4.71238898038469, 4.712389, 16367173.0 * 2.0 ** 72, 6381956970095103.0 * 2.0 ** 797, 4095.9998,
               4096.0002, 1048575.9999999999, 1048576.0000000002, 1e6, -1e10, 1e22, 2.0 ** 1023, 1e308,
               -3.3e38, 2.0 ** -14, 2.0 ** -28, -(2.0 ** -27), 1e-40]
INVERSE_TRIG_VALUES = [0.5, -0.5, 0.5000000000000001, 0.49999997, 0.4375, 0.6875, -0.6875, 1.0, -1.0,
                       1 - 2.0 ** -53, -1 + 2.0 ** -24, 0.9999, 1.0000001, -1.5, 2.0 ** -14, 2.0 ** -28,
                       -(2.0 ** -27), 1e-40, 1e-310, 2.4375, 1e8, -1e20, 2.0 ** 31, 2.0 ** 65]
HARD_VALUES = {
    "asin": INVERSE_TRIG_VALUES,
    "acos": INVERSE_TRIG_VALUES,
    "atan": INVERSE_TRIG_VALUES,
    "sin": TRIG_VALUES,
    "cos": TRIG_VALUES,
    "tan": TRIG_VALUES,
    "expm1": [1e-5, -1e-5, 0.34657359027997264, -0.34657359027997264, 0.3466, -0.3466, -17.32, -17.33,
              -17.5, -37.4, -38.0, 2.0 ** -25, -(2.0 ** -25), 2.0 ** -54, 88.0, 709.0],
    "log1p": [1e-5, -1e-5, -0.5, -0.75, -1 + 2.0 ** -24, -1 + 2.0 ** -53, -0.9999, 0.41421356237309503,
              -0.2928932188134524, 2.0 ** -25, -(2.0 ** -25), 2.0 ** -54, 2.0 ** 24, 2.0 ** 53, 1e300, 16777215.0],
    "sigmoid": [1e-5, -1e-5, 17.3, 17.4, 37.4, 37.5, -35.5, -36.5, -75.5, -76.5, -88.5, -88.8, -100.0, -745.0],
    "tanh": [1e-5, -1e-5, 0.17, -0.17, 0.55, 9.0, 9.1, -9.1, 19.0, 19.1, 2.0 ** -25, -(2.0 ** -54)],
    "exp2": [127.5, 128.0, -126.5, -149.0, -149.5, -150.0, -151.0, 1023.5, 1024.0, -1074.0, -1075.0, -1076.0,
             0.5, -0.5, 3.0],
    "log2": [8.0, 0.125, 2.0 ** -149, 2.0 ** -1074, 2.0 ** 1023],
    "log10": [1000.0, 1e-3, 1e22, 1e-300],
    "sinh": [0.34, 0.35, -0.35, 17.3, 17.4, 36.7, 36.8, 89.4, 89.5, -89.4, 710.4, 710.5, 2.0 ** -25],
    "cosh": [0.34, 0.35, -0.35, 17.3, 17.4, 36.7, 36.8, 89.4, 89.5, -89.4, 710.4, 710.5, 2.0 ** -25],
    "asinh": [2.0 ** -12, 2.0 ** -13, 2.0 ** -26, 2.0 ** -27, 8192.0, 8193.0, 2.0 ** 27, 2.0 ** 28, -0.5, 1e300],
    "acosh": [1 + 2.0 ** -23, 1 + 2.0 ** -52, 1.5, 8192.0, 8193.0, 2.0 ** 27, 2.0 ** 28, 1e300, 0.5],
    "atanh": [2.0 ** -12, 2.0 ** -13, 2.0 ** -26, 2.0 ** -27, 0.5, -0.5, 1 - 2.0 ** -24, 1 - 2.0 ** -53, 0.99,
              -0.99],
    "rsqrt": [4.0, 2.0, 0.5, 2.0 ** -149, 2.0 ** -1074, 2.0 ** 64, 2.0 ** 65, 2.0 ** 128, 2.0 ** 129, 1e300],
    # erf, erfc and gelu: where the paths and tables change (1/2, 3, 1/12
    # steps of 1/x), where erf reaches 1 and erfc 0 or 2; silu's as
    # sigmoid's and where x e^x underflows.
    "erf": [0.49999999, 0.5, -0.5, 0.75, 1.0, 2.5, 3.0, 3.9, 3.92, 4.0, 5.9, 5.93, 6.0, -6.0, 1e-5, 2.0 ** -140],
    "erfc": [0.49999999, 0.5, -0.5, 0.75, -0.75, 1.0, 2.5, 3.0, 4.0, 6.0, 12.0, 12.1, 9.5, 10.0, 10.05, 10.06,
             26.0, 27.0, 27.2, 27.3, -4.0, -6.0, -5.9, 1e-5],
    "gelu": [0.7, -0.7, 1.4, -1.4, -4.0, -6.0, -8.0, -12.0, -13.0, -14.0, -14.2, -14.5, -38.0, -38.5, -39.0, 5.6,
             8.5, 2.0 ** -140, -(2.0 ** -140), 1e-5, -1e-5, 1024.0, -1024.0, 1100.0, -1100.0, 1e12, -1e12],
    "silu": [1e-5, -1e-5, 17.3, 17.4, 37.4, 37.5, -35.5, -36.5, -75.5, -76.5, -88.5, -100.0, -105.0, -108.0,
             -109.0, -745.0, -750.0, -752.0, 2.0 ** -140, -(2.0 ** -140)],
}
# Where PyTorch's own answers are checked against the true values (100-bit
# mpmath) too: PyTorch 1.13 is not within ULP_TOLERANCE of them everywhere
# (log1p is +inf from about 1e38 in float32 and 1e307 in float64, and +0
# at the smallest negative subnormal; sigmoid is +0 wherever exp(-x)
# overflows, from -88.7 in float32 and -709.8 in float64, where the true
# value is still a normal or subnormal number; sinh and cosh are +-inf
# from 88.7 in float32 and 709.8 in float64, where exp overflows and they
# do not yet; float64 tan is 0 at the smallest subnormals), and Tessera is
# within 1 ulp, as
# docs/semantics.md says. Random cases that meet such an answer are drawn
# again and such special values are left out of the tables (the counts
# say how many); kernels-accuracy checks Tessera there.
TRUE_VALUES = {"expm1": mpmath.expm1, "log1p": mpmath.log1p, "tanh": mpmath.tanh,
               "sigmoid": lambda x: 1 / (1 + mpmath.exp(-x)), "sinh": mpmath.sinh, "cosh": mpmath.cosh,
               "asinh": mpmath.asinh, "acosh": mpmath.acosh, "atanh": mpmath.atanh,
               "erf": mpmath.erf, "erfc": mpmath.erfc, "sin": mpmath.sin, "cos": mpmath.cos,
               "tan": mpmath.tan, "asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan,
               "silu": lambda x: x / (1 + mpmath.exp(-x)),
               "gelu-none": lambda x: x / 2 * mpmath.erfc(-x / mpmath.sqrt(2)),
               "gelu-tanh": lambda x: x / (1 + mpmath.exp(-2 * mpmath.sqrt(2 / mpmath.pi) *
                                                            (x + mpmath.mpf("0.044715") * x ** 3)))}


# The same for complex inputs, where the answers of these are checked too
# (beside TRUE_VALUES' functions, which mpmath takes on complex numbers).
COMPLEX_TRUE_VALUES = {"exp": mpmath.exp, "log": mpmath.log, "log2": lambda z: mpmath.log(z) / mpmath.log(2),
                       "log10": lambda z: mpmath.log(z) / mpmath.log(10), "rsqrt": lambda z: 1 / mpmath.sqrt(z)}


def has_truth(key, dtype):
    """Whether PyTorch's answers of key in dtype are checked against the
    true values."""
    return key in TRUE_VALUES or (dtype.is_complex and key in COMPLEX_TRUE_VALUES)


def true_key(op, arg):
    """The TRUE_VALUES entry of op with its argument (gelu's approximation)."""
    return "%s-%s" % (op, arg) if op == "gelu" else op


def torch_fn(op):
    """PyTorch's function of op: torch.<op>, or torch._C._nn's (which has
    the out= and in-place forms of gelu and silu)."""
    return getattr(torch._C._nn, op) if op in ("gelu", "silu") else getattr(torch, op)
# Only a bool out= (PyTorch refuses others; Tessera writes 0 and 1 there).
OUT_BOOL_ONLY = ("signbit",)


def call(op, form, arg, a, b, out):
    kwargs = {}
    if op in ("add", "sub"):
        kwargs["alpha"] = arg
    elif op == "div":
        kwargs["rounding_mode"] = arg
    elif op == "gelu":
        kwargs["approximate"] = arg
    args = (a,) if op in UNARY else (a, b)
    if form == "new":
        return torch_fn(op)(*args, **kwargs)
    if form == "out":
        torch_fn(op)(*args, out=out, **kwargs)
        return out
    if op in INPLACE_BY_OUT:
        torch_fn(op)(*args, out=a)
        return a
    if op in ("gelu", "silu"):
        getattr(torch._C._nn, op + "_")(a, **kwargs)
        return a
    getattr(a, op + "_")(*args[1:], **kwargs)
    return a


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - every failure is a case
        return ("err", type(e).__name__, str(e))


def error_fields(kind, msg):
    if " not implemented for " in msg:
        kind = "TSR_ERR_NOT_SUPPORTED"
    return "err | %s | %s" % (kind, msg)


def close_values(x, y, ulps):
    """Equality of two float tensors of one dtype within `ulps` steps of
    the dtype's values, signs equal, any NaN matching any NaN."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    x = x.contiguous().reshape(-1)
    y = y.contiguous().reshape(-1)
    nx, ny = torch.isnan(x), torch.isnan(y)
    if not torch.equal(nx, ny):
        return False
    bits = {F16: torch.int16, BF16: torch.int16, F32: torch.int32, F64: torch.int64}[x.dtype]
    xi, yi = x[~nx].view(bits).to(I64), y[~ny].view(bits).to(I64)
    return bool(((xi < 0) == (yi < 0)).all()) and bool(((xi - yi).abs() <= ulps).all())


def same_values(x, y, ulps=0):
    """Bitwise equality of two tensors of one dtype, any NaN matching any
    NaN; float ones within `ulps` steps where that is not 0."""
    if ulps and x.dtype in FLOATS:
        return close_values(x, y, ulps)
    if ulps and x.dtype.is_complex and x.dtype == y.dtype and x.shape == y.shape:
        wide = C64 if x.dtype == C32 else x.dtype
        return close_values(torch.view_as_real(x.to(wide)), torch.view_as_real(y.to(wide)), ulps)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    x = x.contiguous().reshape(-1)
    y = y.contiguous().reshape(-1)
    if x.dtype.is_complex:
        wide = C64 if x.dtype == C32 else x.dtype  # exact: only NaN payloads change
        return same_values(torch.view_as_real(x.to(wide)), torch.view_as_real(y.to(wide)))
    if x.dtype.is_floating_point:
        nx, ny = torch.isnan(x), torch.isnan(y)
        return torch.equal(nx, ny) and hexbits(x[~nx]) == hexbits(y[~ny])
    return hexbits(x) == hexbits(y)


def strided_copy(t):
    """t's values in a layout whose every stride is doubled (the scalar loop)."""
    buf = torch.empty(list(t.shape) + [2], dtype=t.dtype)
    v = buf[..., 0]
    v.copy_(t)
    return v


def to_common(x, common):
    if isinstance(x, torch.Tensor):
        return x.to(common)
    return x


def scalar_in(x, dtype):
    """A Python scalar rounded to dtype (as PyTorch rounds it when it
    meets a tensor of that dtype), back as a Python number."""
    if isinstance(x, bool) or not isinstance(x, (int, float, complex)):
        return x
    if dtype.is_complex:
        return complex(torch.tensor(complex(x), dtype=C128).to(dtype).to(C128).item())
    if dtype.is_floating_point:
        return float(torch.tensor(float(x), dtype=F64).to(dtype).to(F64).item())
    return x


def true_values(key, x):
    """TRUE_VALUES[key] at each element of the float tensor x, in x's dtype
    (NaN outside the function's domain)."""
    mpmath.mp.prec = 100
    out = []
    if x.is_complex():
        # (mpmath's complex functions lose digits to cancellation at tiny
        # arguments, asin(1e-40 + 1e-40j)'s imaginary part among them)
        mpmath.mp.prec = 2200 if key in ANNEX_G else 100
        for v in x.reshape(-1).tolist():
            try:
                if not (math.isfinite(v.real) and math.isfinite(v.imag)) or v == 0:
                    raise ValueError  # the special values: not checked here
                fn = COMPLEX_TRUE_VALUES.get(key, TRUE_VALUES.get(key))
                # mpmath's zeros have no sign: on the real axis, f(conj z)
                # = conj f(z) gives the side of a branch cut (log(-1 - 0i))
                y = complex(fn(mpmath.mpc(v.real, abs(v.imag))))
                if math.copysign(1.0, v.imag) < 0:
                    y = y.conjugate()
            except (ValueError, ZeroDivisionError, OverflowError):
                y = complex(math.nan, math.nan)
            out.append(y)
        return torch.tensor(out, dtype=C128).reshape(x.shape)
    for v in x.double().reshape(-1).tolist():
        try:
            y = TRUE_VALUES[key](mpmath.mpf(v))
            y = float(y) if isinstance(y, mpmath.mpf) else math.nan
            out.append(v if y == 0 and v == 0 else y)  # (mpmath's zeros have no sign)
        except (ValueError, ZeroDivisionError, OverflowError):
            out.append(math.nan)
    return torch.tensor(out, dtype=F64).to(x.dtype).reshape(x.shape)


def torch_accurate(op, x, result, arg=None):
    """Whether PyTorch's `result` of op at x (x in the dtype op computes
    in) is within ULP_TOLERANCE of the true values, element by element, in
    that dtype or in the result's (its real part's), whichever is closer
    (as support_ops.c counts); all true for ops not in TRUE_VALUES."""
    if not has_truth(true_key(op, arg), result.dtype):
        return torch.ones(result.shape, dtype=B)
    truth = true_values(true_key(op, arg), x)
    if result.is_complex():
        return torch.tensor([complex_close(t, g, component(result.dtype), truth_ulps(op))
                             for t, g in zip(truth.reshape(-1).tolist(), result.reshape(-1).tolist())],
                            dtype=B).reshape(result.shape)
    got = result
    ulps = ULP_TOLERANCE[op]
    return torch.tensor([same_values(t.reshape(1), g.to(t.dtype).reshape(1), ulps) or
                         same_values(t.to(g.dtype).reshape(1), g.reshape(1), ulps)
                         for t, g in zip(truth.reshape(-1), got.reshape(-1))]).reshape(result.shape)


def complex_close(t, g, dtype, ulps):
    """Whether the complex g (of dtype's parts) is within ulps of the true
    value t, part by part: a true zero takes a zero of either sign (the
    true values' zeros have no sign); NaN in t (a non-finite argument)
    takes anything."""
    if t.real != t.real:
        return True
    for tp, gp in ((t.real, g.real), (t.imag, g.imag)):
        if tp == 0:
            if gp != 0:
                return False
        elif not same_values(torch.tensor([tp], dtype=F64).to(dtype), torch.tensor([gp], dtype=F64).to(dtype), ulps):
            return False
    return True


def consistent(op, arg, a, b, result):
    """Whether PyTorch gives `result` again along other paths."""
    try:
        ref = call(op, "new", arg, a, b, None)
        common = ref.dtype
        if op in BOOL_RESULT:
            common = a.dtype if b is None else torch.result_type(a, b)
        a1, b1 = to_common(a, common), to_common(b, common)
        paths = [(strided_copy(a1), strided_copy(b1) if isinstance(b1, torch.Tensor) else b1)]
        shape = ref.shape
        bv = b1.expand(shape).contiguous() if isinstance(b1, torch.Tensor) and b1.dim() else b1
        paths.append((a1.expand(shape).contiguous(), bv))
        if common in REDUCED:
            up = REDUCED[common]
            bu = b1.to(up) if isinstance(b1, torch.Tensor) else scalar_in(b1, common)
            widened = call(op, "new", arg, a1.to(up), bu, None).to(common)
            if not same_values(widened.to(result.dtype), result, ulps_of(op, result.dtype)):
                count("dropped: not rounded once in %s" % dname(common))
                return False
        if has_truth(true_key(op, arg), result.dtype) and not bool(torch_accurate(op, a1.expand(shape), result,
                                                                                     arg).all()):
            count("dropped: PyTorch inaccurate in %s" % dname(common))
            if os.environ.get("GEN_OPS_VERBOSE"):
                bad = ~torch_accurate(op, a1.expand(shape), result, arg)
                print("inaccurate:", op, a1.expand(shape)[bad].tolist(), result[bad].tolist(), file=sys.stderr)
            return False
        if op in VECTOR_BODY and common.is_complex and common != C32:
            # every element in the vector loop's body: a contiguous run
            # padded to a whole number of its blocks (no tail)
            flat = a1.expand(shape).reshape(-1)
            pad = torch.cat([flat, torch.zeros(32 - flat.numel() % 16, dtype=common)])
            body = call(op, "new", arg, pad, None, None)[:flat.numel()].reshape(shape)
            if not same_values(body.to(result.dtype), result, ulps_of(op, result.dtype)):
                count("dropped: the vector loop's body differs in %s" % dname(common))
                return False
        if op == "pow" and result.is_complex() and not bool(pow_accurate(a1, b1, result).all()):
            count("dropped: PyTorch inaccurate in %s (pow)" % dname(result.dtype))
            return False
        if not bool(annex_g_agrees(op, a1.expand(shape), result).all()):
            count("dropped: PyTorch's special values not Annex G's in %s" % dname(common))
            return False
        for pa, pb in paths:
            if not same_values(call(op, "new", arg, pa, pb, None).to(result.dtype), result,
                               ulps_of(op, result.dtype)):
                count("dropped: paths differ in %s" % dname(common))
                if os.environ.get("GEN_OPS_VERBOSE"):
                    print("paths differ:", op, arg, a.dtype, a.shape, b.dtype if isinstance(b, torch.Tensor) else b,
                          file=sys.stderr)
                return False
        return True
    except Exception:  # noqa: BLE001
        count("dropped: recomputation failed")
        return False


def ok_fields(result, same, case, out_operand, resized):
    after = "-"
    if out_operand is not None and not resized:
        after = hexbits(case.bases[case.base_of(out_operand)][0])
    return "ok | %s | %s | %s | %s | %s | %s" % (
        dname(result.dtype), ints(result.shape), ints(result.stride()), same, hexbits(result), after)


def row(case_id, op, form, arg, bases, case, a, b, out, expect):
    """One line; `bases` is case.bases_text() taken before the call."""
    return " | ".join([case_id, op, form, arg, bases, case.text(a), case.text(b), case.text(out),
                       expect])


def arg_text(op, arg):
    if op in ("add", "sub"):
        return scalar_text(arg)
    if op == "div":
        return arg if arg else "none"
    if op == "gelu":
        return arg
    return "-"


# ---- random arithmetic ------------------------------------------------------

def pick_dtype(rng):
    return rng.choices(CLASSIC, weights=[3, 3, 3, 2, 3, 3, 4, 4, 4, 3, 1, 3, 3])[0]


def pick_scalar(rng, kind):
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice([0, 1, -1, 2, 3, -7, 100, 255, 1000, -129, 2 ** 31, -2 ** 40, 2 ** 62])
    if kind == "float":
        return rng.choice([0.0, -0.0, 0.5, -1.5, 2.25, 0.1, 1e-3, 3.0e38, 1e300, 65504.0, 70000.0,
                           float("inf"), float("-inf"), float("nan"), rng.uniform(-10, 10)])
    return complex(rng.choice([0.0, 1.0, -2.5, 0.1, float("inf")]), rng.choice([0.0, 1.0, -0.5, 3.0]))


def pick_alpha(rng, common):
    if common == B:
        return rng.choice([True, False, True])
    if common in INTS:
        return rng.choice([1, 1, -1, 2, 3, 0, -7, 100])
    choices = [1, 1, -1, 2, -2, 0, 1.0, 0.5, -0.5, 2.0]
    if common.is_complex:
        choices += [1j, -1j, complex(2, 0)]
    return rng.choice(choices)


def draw_out(rng, case, probe):
    """An out= tensor for a result like probe: empty (resized), or of its
    shape in its dtype or another one."""
    if rng.random() < 0.07:
        return case.view(case.base(make_values(rng, pick_dtype(rng), 0)), [0], [1], 0)
    odt = probe.dtype if rng.random() < 0.55 else pick_dtype(rng)
    return case.new_view(rng, odt, list(probe.shape), OUTPUT_KINDS)


def draw_arith(rng, op, big, cplx=False):
    """One random arithmetic case, or None when it has to be drawn again
    (pow: one with a complex result where cplx says so, else a real one)."""
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    mode = rng.choice([None, None, "trunc", "floor"]) if op == "div" else None
    if op == "gelu":
        mode = rng.choice(["none", "tanh"])
    shape = gen_shape(rng, 96 if big else 36)
    a_kinds = OUTPUT_KINDS if form == "inplace" else INPUT_KINDS
    b_kinds = INPUT_KINDS
    if big:
        shape = [rng.randint(17, 96)] if rng.random() < 0.6 else [rng.randint(2, 4), rng.randint(9, 24)]
        a_kinds = b_kinds = ["contig"]
    elif rng.random() < 0.12:
        # Memory formats: which layout a new result takes after its operands.
        shape = [rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 4)]
        shape += [rng.randint(1, 3)] if rng.random() < 0.4 else []
        if rng.random() < 0.5:
            a_kinds = ["channels_last"]
        else:
            b_kinds = ["channels_last"]
    da, db = pick_dtype(rng), pick_dtype(rng)
    bkind = rng.choices(["tensor", "zero", "scalar"], weights=[6, 2, 0 if op in TENSOR_ONLY else 3])[0]
    if op in UNARY:
        bkind = "none"
        if op in NEW_ONLY:
            form = "new"
            if da not in FLOATS:
                # PyTorch answers these with zeros_like / ones_like, whose
                # strides are empty_like's, not TensorIterator's (which
                # Tessera's results take), complex ones with a result
                # made of its parts': the special values cover them
                return None
        if op in NO_OUT and form == "out":
            return None
        if op in COMPLEX_PENDING and da.is_complex:
            return None
    if op in TENSOR_ONLY and (da.is_complex or db.is_complex) and rng.random() < 0.85:
        return None  # refused whatever the values: a few such cases are enough
    a_shape = shape if form == "inplace" else (broadcast_from(rng, shape) if rng.random() < 0.25 else shape)
    b_shape = broadcast_from(rng, shape) if rng.random() < 0.5 else shape
    if form != "inplace" and rng.random() < 0.3:
        a_shape, b_shape = b_shape, shape
    a = case.new_view(rng, da, a_shape, a_kinds)
    if bkind == "scalar":
        b = pick_scalar(rng, rng.choice(["bool", "int", "int", "float", "float", "complex"]))
    elif bkind == "none":
        b = None
    else:
        b = case.new_view(rng, db, [] if bkind == "zero" else b_shape, b_kinds)
    common = torch.result_type(a, b) if b is not None else da
    if op == "pow" and common.is_complex != cplx:
        return None  # (complex results: pow_complex.txt)
    arg = pick_alpha(rng, common) if op in ("add", "sub") else mode
    if (op == "div" and mode or op in DIVISIONS) and (common in INTS or common == B):
        # No integer division by zero, no INT_MIN / -1 (both are errors or traps).
        if isinstance(b, torch.Tensor):
            t = case.bases[case.base_of(b)][0]
            t.copy_(torch.where(t == 0, torch.ones_like(t), t))
        elif not b:
            return None
        t = case.bases[case.base_of(a)][0]
        if common in (I32, I64) and t.dtype == common:
            lo = torch.iinfo(common).min
            t.copy_(torch.where(t == lo, torch.full_like(t, lo + 1), t))
    try:
        probe = call(op, "new", arg, a, b, None)
    except Exception:  # noqa: BLE001 - shape or dtype errors are drawn again
        return None
    if op in NEW_ONLY and op != "isnan" and any(s <= 1 for s in probe.shape):
        return None  # composites in PyTorch: their size-1 and empty dimensions' strides are their own
    if op == "neg" and probe.dtype in (C64, C128) and probe.numel() > 8:
        return None  # PyTorch's vector loop negates complex zero parts otherwise (0 - z)
    out = draw_out(rng, case, probe) if form == "out" else None
    before_numel = out.numel() if out is not None else None
    bases = case.bases_text()
    a0 = a.clone()
    b0 = b.clone() if isinstance(b, torch.Tensor) else b
    res = outcome(lambda: call(op, form, arg, a, b, out))
    if res[0] == "err":
        if "\n" in res[2] or res[2] in UNCOVERED:
            return None
        count("%s: random cases that fail" % op)
        expect = error_fields(res[1], res[2])
    else:
        r = res[1]
        if not consistent(op, arg, a0, b0, r):
            return None
        written = a if form == "inplace" else out
        resized = form == "out" and before_numel == 0 and r.numel() != 0
        expect = ok_fields(r, "-", case, written, resized)
    return row("", op, form, arg_text(op, arg), bases, case, a, b, out, expect)


def gen_random(rng, f, ops, n, cplx=False):
    written = 0
    tries = 0
    while written < n:
        tries += 1
        op = rng.choice(ops)
        line = draw_arith(rng, op, rng.random() < 0.05, cplx)
        if line is None:
            continue
        written += 1
        f.write("%s%s.%d%s\n" % (op, "-complex" if cplx else "", written, line))
    count("%s: %d tries for %d cases" % ("/".join(ops), tries, n))


# ---- dedicated error cases ------------------------------------------------------

def error_case(f, name, op, form, arg, build):
    """build(case) -> (a, b, out); writes the case's outcome."""
    case = Case()
    a, b, out = build(case)
    bases = case.bases_text()
    res = outcome(lambda: call(op, form, arg, a, b, out))
    if res[0] == "err":
        expect = error_fields(res[1], res[2])
    else:
        written = a if form == "inplace" else out
        expect = ok_fields(res[1], "-", case, written, False)
    f.write(row(name, op, form, arg_text(op, arg), bases, case, a, b, out, expect) + "\n")


def refusal_case(f, name, op, form, build, kind, msg):
    """A case that Tessera refuses where PyTorch computes (its own
    message), written without asking PyTorch."""
    case = Case()
    a, b, out = build(case)
    bases = case.bases_text()
    f.write(row(name, op, form, "-", bases, case, a, b, out, "err | %s | %s" % (kind, msg)) + "\n")


def plain(case, dtype, sizes, values=None, acc=False):
    n = numel(sizes)
    data = values if values is not None else torch.arange(1, n + 1).to(dtype)
    k = case.base(data.to(dtype), acc)
    strides = list(torch.empty(sizes).stride())
    return case.view(k, sizes, strides, 0)


def gen_errors(f):
    fw = lambda name, op, form, arg, build: error_case(f, name, op, form, arg, build)  # noqa: E731
    # bool - bool
    for form in ("new", "out", "inplace"):
        fw("bool-sub-" + form, "sub", form, 1, lambda c: (plain(c, B, [3]), plain(c, B, [3]),
                                                         plain(c, B, [3]) if form == "out" else None))
    fw("bool-sub-scalar", "sub", "new", 1, lambda c: (plain(c, B, [2]), True, None))
    fw("bool-sub-zero-dim", "sub", "new", 1, lambda c: (plain(c, B, [2]), plain(c, B, []), None))
    fw("bool-rsub-int", "sub", "new", 1, lambda c: (plain(c, B, [2]), plain(c, U8, [2]), None))
    # shapes that do not broadcast
    for i, (sa, sb) in enumerate([([3], [2]), ([2, 3], [3, 2]), ([0, 3], [2, 1]), ([4, 1, 3], [2, 3, 3]),
                                  ([2, 3, 4, 5], [2, 1, 4, 4]), ([1, 2, 3, 4, 5], [5, 4])]):
        for op in ("add", "mul", "div"):
            fw("shape-%s-%d" % (op, i), op, "new", 1 if op == "add" else None,
               lambda c: (plain(c, F32, sa), plain(c, F32, sb), None))
    # out= casts refused (and two allowed ones next to them)
    for i, (da, db, do) in enumerate([(F32, F32, I64), (I64, I64, B), (C64, C64, F32), (F16, I8, I32),
                                      (C128, F64, F64), (B, U8, B), (I64, F64, I32), (BF16, BF16, U8),
                                      (I32, I32, F16), (F32, F32, F16)]):
        fw("out-cast-%d" % i, "add", "out", 1, lambda c: (plain(c, da, [2, 3]), plain(c, db, [3]), plain(c, do, [2, 3])))
    fw("out-cast-div", "div", "out", None, lambda c: (plain(c, I64, [3]), plain(c, I64, [3]), plain(c, I64, [3])))
    fw("out-cast-div-floor", "div", "out", "floor",
       lambda c: (plain(c, I64, [3]), plain(c, I64, [3]), plain(c, I64, [3])))
    # in-place casts refused
    inplace_casts = [
        ("add", I64, lambda c: 1.5), ("add", I32, lambda c: 2.5), ("add", F32, lambda c: 1j),
        ("add", B, lambda c: 1), ("mul", I32, lambda c: plain(c, F32, [3])),
        ("mul", B, lambda c: plain(c, U8, [3])), ("div", I64, lambda c: 2),
        ("add", I32, lambda c: plain(c, I64, [3])), ("mul", U8, lambda c: -1),
    ]
    for i, (op, da, other) in enumerate(inplace_casts):
        fw("inplace-cast-%d" % i, op, "inplace", 1 if op == "add" else None,
           lambda c: (plain(c, da, [3]), other(c), None))
    # in-place broadcast to a bigger shape
    for i, (sa, sb) in enumerate([([3], [2, 3]), ([1], [4]), ([], [2]), ([2, 1], [2, 3]), ([3, 1, 2], [4, 3, 1, 2])]):
        fw("inplace-broadcast-%d" % i, "add", "inplace", 1,
           lambda c: (plain(c, F32, sa), plain(c, F32, sb), None))
    # alpha
    for i, (da, alpha) in enumerate([(I64, 1.5), (I32, 2.0), (U8, 0.5), (B, 1.0), (F32, 1j), (I64, 1j),
                                     (I64, True), (F32, True), (B, 2), (B, True), (C64, 1j)]):
        for op in ("add", "sub"):
            fw("alpha-%s-%d" % (op, i), op, "new", alpha,
               lambda c: (plain(c, da, [3]), plain(c, da, [3]), None))
    # outputs that overlap
    def out_overlaps_input(c):
        k = c.base(torch.arange(8.0))
        return c.view(k, [4], [1], 0), c.view(k, [4], [1], 3), c.view(k, [4], [1], 1)
    fw("overlap-out-partial", "add", "out", 1, out_overlaps_input)
    fw("overlap-out-expanded", "mul", "out", None,
       lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), c.view(c.base(torch.zeros(1)), [3], [0], 0)))
    fw("overlap-inplace-expanded", "add", "inplace", 1,
       lambda c: (c.view(c.base(torch.zeros(1)), [3], [0], 0), plain(c, F32, [3]), None))

    def inplace_transposed(c):
        k = c.base(torch.arange(4.0))
        return c.view(k, [2, 2], [2, 1], 0), c.view(k, [2, 2], [1, 2], 0), None
    fw("overlap-inplace-transposed", "add", "inplace", 1, inplace_transposed)

    def inplace_shifted(c):
        k = c.base(torch.arange(6.0))
        return c.view(k, [3], [1], 0), c.view(k, [3], [1], 1), None
    fw("overlap-inplace-shifted", "mul", "inplace", None, inplace_shifted)

    def inplace_self(c):  # full overlap is allowed
        k = c.base(torch.arange(6.0))
        return c.view(k, [2, 3], [3, 1], 0), c.view(k, [2, 3], [3, 1], 0), None
    fw("overlap-inplace-self", "add", "inplace", 1, inplace_self)

    def out_is_input(c):
        k = c.base(torch.arange(6.0))
        return c.view(k, [2, 3], [3, 1], 0), plain(c, F32, [3]), c.view(k, [2, 3], [3, 1], 0)
    fw("overlap-out-is-input", "sub", "out", 2, out_is_input)

    def out_disjoint_same_storage(c):
        k = c.base(torch.arange(8.0))
        return c.view(k, [4], [1], 0), 1.5, c.view(k, [4], [1], 4)
    fw("overlap-out-disjoint", "mul", "out", None, out_disjoint_same_storage)
    # integer division by zero
    for dt in INTS:
        for mode in ("trunc", "floor"):
            fw("zero-div-%s-%s" % (dname(dt), mode), "div", "new", mode,
               lambda c: (plain(c, dt, [3]), plain(c, dt, [3], torch.tensor([1, 0, 2])), None))
            fw("zero-div-scalar-%s-%s" % (dname(dt), mode), "div", "new", mode,
               lambda c: (plain(c, dt, [3]), 0, None))
        fw("zero-div-true-%s" % dname(dt), "div", "new", None,
           lambda c: (plain(c, dt, [3]), plain(c, dt, [3], torch.tensor([1, 0, 2])), None))
    fw("zero-div-zero-dim", "div", "inplace", "trunc",
       lambda c: (plain(c, I64, [2]), plain(c, I32, [], torch.tensor(0)), None))
    fw("zero-div-bool-false", "div", "new", "floor", lambda c: (plain(c, I16, [2]), False, None))
    # dtypes a division does not support
    for dt in (B, C32, C64, C128):
        for mode in (None, "trunc", "floor"):
            fw("div-dtype-%s-%s" % (dname(dt), mode or "none"), "div", "new", mode,
               lambda c: (plain(c, dt, [2]), plain(c, dt, [2]), None))
    # complex32 beside the other dtypes
    for dt in CLASSIC:
        for op in ("add", "mul"):
            fw("complex32-%s-%s" % (op, dname(dt)), op, "new", 1 if op == "add" else None,
               lambda c: (plain(c, C32, [3]), plain(c, dt, [3]), None))


# ---- maximum and minimum --------------------------------------------------------

def special_floats(dtype):
    """Pairs of NaN, +-inf, +-0 and ordinary values."""
    nan, inf = float("nan"), float("inf")
    a = [nan, nan, 1.0, inf, -inf, 0.0, -0.0, 0.0, -0.0, inf, -inf, 1.0, -1.0, nan, 2.5]
    b = [1.0, nan, nan, -inf, inf, -0.0, 0.0, 0.0, -0.0, inf, 5.0, inf, -inf, -inf, -2.5]
    return torch.tensor(a, dtype=F64).to(dtype), torch.tensor(b, dtype=F64).to(dtype)


def spaced(case, dtype, values):
    """values (1-D) as a view with stride 2: PyTorch runs its element loop
    on it, never the vector loop, which answers a +-0 tie with the second
    input where std::max answers with the first (docs/semantics.md)."""
    n = len(values)
    base = torch.zeros(2 * n, dtype=dtype)
    base[::2] = values.to(dtype)
    return case.view(case.base(base), [n], [2], 0)


def spaced_as(case, dtype, values, sizes, strides):
    """values (1-D) spaced by 2 in a storage of their own, viewed as
    sizes and strides."""
    base = torch.zeros(2 * len(values), dtype=dtype)
    base[::2] = values.to(dtype)
    return case.view(case.base(base), sizes, strides, 0)


def gen_maxmin(rng, f, op):
    gen_random(rng, f, [op], 500)
    fw = lambda name, form, build: error_case(f, "%s-%s" % (op, name), op, form, None, build)  # noqa: E731
    for dt in FLOATS:
        va, vb = special_floats(dt)
        for form in ("new", "out", "inplace"):
            fw("special-%s-%s" % (dname(dt), form), form,
               lambda c: (spaced(c, dt, va), spaced(c, dt, vb),
                          plain(c, dt, [15], torch.zeros(15)) if form == "out" else None))
        # a special zero-dim operand against every special value, both ways
        for k, v in enumerate([float("nan"), float("inf"), -0.0, 0.0]):
            fw("special-zero-dim-%s-%d" % (dname(dt), k), "new",
               lambda c: (spaced(c, dt, va), plain(c, dt, [], torch.tensor(v)), None))
            fw("special-zero-dim-first-%s-%d" % (dname(dt), k), "new",
               lambda c: (plain(c, dt, [], torch.tensor(v)), spaced(c, dt, vb), None))
    for dt in INTS + [B]:
        if dt == B:
            va, vb = torch.tensor([0, 0, 1, 1]), torch.tensor([0, 1, 0, 1])
        else:
            ii = torch.iinfo(dt)
            va = torch.tensor([ii.min, ii.max, 0, ii.min, -1 if ii.min < 0 else 1, 7, ii.max])
            vb = torch.tensor([ii.max, ii.min, 0, 0, 1, 7, ii.max - 1])
        n = len(va)
        fw("extremes-%s" % dname(dt), "new", lambda c: (plain(c, dt, [n], va), plain(c, dt, [n], vb), None))
    # promotion beside a float: int64 and bool against float16, a zero-dim
    # int64 against float16, a zero-dim float64 against int8
    fw("promote-long-half", "new", lambda c: (plain(c, I64, [3]), plain(c, F16, [3]), None))
    fw("promote-bool-float", "new", lambda c: (plain(c, B, [3], torch.tensor([1, 0, 1])), plain(c, F32, [3]), None))
    fw("promote-zero-dim-long", "new", lambda c: (plain(c, F16, [3]), plain(c, I64, [], torch.tensor(70000)), None))
    fw("promote-zero-dim-double", "new", lambda c: (plain(c, I8, [3]), plain(c, F64, [], torch.tensor(2.5)), None))
    # broadcasting both ways
    fw("broadcast", "new", lambda c: (plain(c, F32, [2, 1, 3]), plain(c, I32, [4, 1]), None))
    # errors: complex inputs (even one zero-dim, even with a real out=), shapes,
    # out= casts, an in-place result that would need a cast
    for i, (da, db) in enumerate([(C64, C64), (F32, C64), (C128, I64), (C32, F16), (B, C64)]):
        fw("complex-%d" % i, "new", lambda c: (plain(c, da, [2]), plain(c, db, [2]), None))
    fw("complex-zero-dim", "new", lambda c: (plain(c, F32, [2]), plain(c, C64, [], torch.tensor(1j)), None))
    fw("complex-out", "out", lambda c: (plain(c, C64, [2]), plain(c, C64, [2]), plain(c, F32, [2])))
    fw("complex-shape", "new", lambda c: (plain(c, C64, [2]), plain(c, C64, [3]), None))
    fw("real-into-complex-out", "out", lambda c: (plain(c, F32, [2]), plain(c, F64, [2]), plain(c, C64, [2])))
    fw("shape", "new", lambda c: (plain(c, F32, [2, 3]), plain(c, F32, [3, 2]), None))
    fw("out-cast", "out", lambda c: (plain(c, I64, [2]), plain(c, F32, [2]), plain(c, I64, [2])))
    fw("out-cast-bool", "out", lambda c: (plain(c, I8, [2]), plain(c, I8, [2]), plain(c, B, [2])))
    fw("inplace-cast", "inplace", lambda c: (plain(c, I32, [2]), plain(c, F16, [2]), None))
    fw("inplace-cast-zero-dim", "inplace", lambda c: (plain(c, I32, [2]), plain(c, F16, [], torch.tensor(1.5)), None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), plain(c, F32, [2]), plain(c, F32, [0])))


# ---- the op table's later rows: one input, comparisons, logical, bitwise --------

def special_values(dtype):
    """Values of dtype that an exact operation must get right: the float
    edges, halves (round to even), subnormals; integer extremes; both
    bools; complex parts among them."""
    if dtype == B:
        return torch.tensor([False, True, True, False])
    if dtype in INTS:
        ii = torch.iinfo(dtype)
        return torch.tensor([ii.min, ii.min + 1, -1 if ii.min < 0 else 1, 0, 1, 2, 7, ii.max - 1, ii.max]).to(dtype)
    if dtype in FLOATS:
        fi = torch.finfo(dtype)
        vals = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), -float("nan"), 0.5, -0.5, 1.5, -1.5,
                2.5, -2.5, 3.5, 1.0, -1.0, 0.25, 4.0, 2.0, fi.tiny, -fi.tiny, fi.tiny * fi.eps,
                -fi.tiny * fi.eps, fi.max, -fi.max, 1.0 + fi.eps, 1e4 + 0.5, -7.75, 1 / 3]
        return torch.tensor(vals, dtype=F64).to(dtype)
    parts = [0.0, -0.0, 1.0, -2.5, float("inf"), float("-inf"), float("nan")]
    re = torch.tensor([x for x in parts for _ in parts], dtype=F64)
    im = torch.tensor([y for _ in parts for y in parts], dtype=F64)
    return torch.complex(re, im).to(C64 if dtype == C32 else dtype).to(dtype)


# Complex arguments whose |z|^2 overflows or underflows where |z| does
# not: PyTorch 1.13's sgn gives 0 there (vector loop) or NaN (element
# loop); their true z / |z| (within 1 ulp of Tessera's hypot).
SGN_LARGE = {C64: [complex(1e30, 1e30), complex(2e38, -1e38), complex(-1e-30, 1e-30), complex(3e-20, 4e-20)],
             C128: [complex(1e200, 1e200), complex(1.2e308, -0.9e308), complex(1e-200, -1e-200),
                    complex(-3e-160, 4e-160)]}


def gen_sgn_large(f):
    """sgn of SGN_LARGE: the expected parts are mpmath's z / |z| rounded
    to the dtype, not PyTorch's answer."""
    mpmath.mp.prec = 100
    for dt, vals in SGN_LARGE.items():
        z = torch.tensor(vals, dtype=C128).to(dt)
        truth = []
        for v in z.tolist():
            re, im = mpmath.mpf(v.real), mpmath.mpf(v.imag)
            h = mpmath.sqrt(re * re + im * im)
            truth.append(complex(float(re / h), float(im / h)))
        case = Case()
        a = plain(case, dt, [len(vals)], z)
        f.write(row("sgn-large-%s" % dname(dt), "sgn", "new", "-", case.bases_text(), case, a, None, None,
                    ok_fields(torch.tensor(truth, dtype=C128).to(dt), "-", case, None, False)) + "\n")


def gen_unary(rng, f, op):
    gen_random(rng, f, [op], 300)
    if op == "sgn":
        gen_sgn_large(f)
    if op != "gelu":
        gen_unary_fixed(f, op, None, op)
        return
    # gelu: both approximations, and a name PyTorch does not know
    for arg in ("none", "tanh"):
        gen_unary_fixed(f, op, arg, "%s-%s" % (op, arg))
    error_case(f, "gelu-approximate-bad", op, "new", "sigmoid", lambda c: (plain(c, F32, [3]), None, None))


def zero_dim_good(op, arg, u):
    """Whether PyTorch's answer of op at the zero-dim u is accurate and,
    at special values, glibc's."""
    got = call(op, "new", arg, u.reshape([]), None, None).reshape(1)
    return bool(torch_accurate(op, u.reshape(1), got).all()) and bool(annex_g_agrees(op, u.reshape(1), got).all())


def gen_unary_fixed(f, op, arg, prefix):
    """The special values, zero-dim, transposed and out= cases of op with
    its argument arg (gelu's approximation), named prefix-..."""
    fw = lambda name, form, build: error_case(f, "%s-%s" % (prefix, name), op, form, arg, build)  # noqa: E731
    for dt in CLASSIC:
        if op in COMPLEX_NOT_YET and dt in (C64, C128):
            v = special_values(dt)[:4]
            for form in ("new", "out", "inplace"):
                refusal_case(f, "%s-complex-%s-%s" % (op, dname(dt), form), op, form,
                             lambda c: (plain(c, dt, [4], v), None, plain(c, dt, [4]) if form == "out" else None),
                             "TSR_ERR_NOT_SUPPORTED", "complex %s is not available yet" % op)
            continue
        if dt.is_complex and ((op in COMPLEX_PENDING and op not in COMPLEX_NOT_YET) or (op == "neg" and dt != C32)):
            continue  # (neg: see draw_arith; complex32 is refused by PyTorch too)
        v = special_values(dt)
        if op in ULP_TOLERANCE and dt in FLOATS:
            v = torch.cat([v, torch.tensor(TRANSCENDENTAL_VALUES + HARD_VALUES.get(op, []), dtype=F64).to(dt)])
            # (float16 is refused; an element's answer may depend on its
            # place, vector body or tail, so the shorter table is checked
            # again)
            while true_key(op, arg) in TRUE_VALUES and dt != F16:
                keep = torch_accurate(op, v, call(op, "new", arg, v, None, None), arg)
                if bool(keep.all()):
                    break
                for x in v[~keep].tolist():
                    count("left out: %s(%r) in %s, PyTorch inaccurate" % (true_key(op, arg), x, dname(dt)))
                v = v[keep]
        if op in ULP_TOLERANCE and dt in (C64, C128):
            # the grid of special parts and hard finite values, where
            # PyTorch is close enough to the true ones
            hard = COMPLEX_VALUES + (COMPLEX_INVERSE_VALUES if op in ANNEX_G else [])
            v = torch.cat([v, torch.tensor(hard, dtype=C128).to(dt)])
            got = call(op, "new", arg, v, None, None)
            keep = torch_accurate(op, v, got, arg)
            for x in v[~keep].tolist():
                count("left out: %s(%r) in %s, PyTorch inaccurate" % (true_key(op, arg), x, dname(dt)))
            v = v[keep]
            keep = annex_g_agrees(op, v, got[keep])
            for x in v[~keep].tolist():
                count("left out: %s(%r) in %s, not Annex G's value" % (true_key(op, arg), x, dname(dt)))
            v = v[keep]
        if op == "abs" and dt in (C64, C128):
            # parts whose squares overflow or underflow where |z| does not
            v = torch.cat([v, torch.tensor(COMPLEX_VALUES, dtype=C128).to(dt)])
        n = len(v)
        # the complex vector loops of sigmoid, silu and rsqrt answer the
        # special values otherwise than their element loops
        # (docs/semantics.md): a view with stride 2 takes the element loop,
        # whose answers Tessera gives
        inp = ((lambda c: spaced(c, dt, v)) if op in ELEMENT_LOOP and dt.is_complex else
               (lambda c: plain(c, dt, [n], v)))
        forms = ("new",) if op in NEW_ONLY else ("new", "out", "inplace")
        for form in forms:
            if (form == "out" and op in NO_OUT) or (form == "inplace" and op in OUT_BOOL_ONLY and dt != B):
                continue
            odt = B if op in OUT_BOOL_ONLY else dt
            fw("special-%s-%s" % (dname(dt), form), form,
               lambda c: (inp(c), None,
                          plain(c, odt, [n], torch.zeros(n)) if form == "out" else None))
        # zero-dim, transposed and broadcast-free strided input
        z = v[1:2].reshape([]).clone()
        if op in ANNEX_G and dt in (C64, C128):
            # (PyTorch's answer at one element may differ from its answer
            # inside the vector: the first accurate one of the values)
            z = next(u for u in v if zero_dim_good(op, arg, u)).clone()
        fw("zero-dim-%s" % dname(dt), "new", lambda c: (plain(c, dt, [], z), None, None))
    for dt in (F32, F64, I32):
        m = special_values(dt)[:6].reshape(2, 3)
        fw("transposed-%s" % dname(dt), "new",
           lambda c: (c.view(c.base(m.reshape(-1).to(dt)), [3, 2], [1, 3], 0), None, None))
    if op not in NEW_ONLY + NO_OUT + OUT_BOOL_ONLY:
        # an out= of another dtype (the cast check), and an empty one resized
        fw("out-float64", "out", lambda c: (plain(c, F32, [3]), None, plain(c, F64, [3])))
        fw("out-int8", "out", lambda c: (plain(c, F32, [3]), None, plain(c, I8, [3])))
        fw("out-bool", "out", lambda c: (plain(c, I16, [3]), None, plain(c, B, [3])))
        fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), None, plain(c, F32, [0])))


def gen_binary(rng, f, op):
    gen_random(rng, f, [op], 400)
    fw = lambda name, form, build: error_case(f, "%s-%s" % (op, name), op, form, None, build)  # noqa: E731
    for dt in CLASSIC:
        v = special_values(dt)
        n = len(v)
        # every value against every other: the outer product as two views
        a_sizes, b_sizes = [n, 1], [1, n]
        form = "new"
        if op in DIVISIONS and dt in INTS:
            # no zero divisor; the extremes once more against every other
            # divisor but -1 (a trap in PyTorch's int32 and int64)
            low = torch.iinfo(dt).min
            va, vb = v[v != low], v[v != 0]
            fw("special-%s" % dname(dt), form,
               lambda c: (plain(c, dt, [len(va), 1], va), plain(c, dt, [1, len(vb)], vb), None))
            vc = vb[vb != -1]
            fw("special-low-%s" % dname(dt), form,
               lambda c: (plain(c, dt, [1], torch.tensor([low], dtype=dt)), plain(c, dt, [len(vc)], vc), None))
            fw("zero-divisor-%s" % dname(dt), form,
               lambda c: (plain(c, dt, [3], torch.tensor([5, 1, 2], dtype=dt)),
                          plain(c, dt, [3], torch.tensor([3, 0, 1], dtype=dt)), None))
        elif op in DIVISIONS:
            # the element loop (a stride of 2): PyTorch's vector loop calls
            # Sleef's fmod, undefined where |a / b| passes 1e38 (float) or
            # 1e300 (double), where std::fmod and Tessera are exact
            fw("special-%s" % dname(dt), form,
               lambda c: (spaced_as(c, dt, v, a_sizes, [2, 1]), spaced_as(c, dt, v, b_sizes, [1, 2]), None))
        else:
            fw("special-%s" % dname(dt), form,
               lambda c: (plain(c, dt, a_sizes, v), plain(c, dt, b_sizes, v), None))
        if op not in TENSOR_ONLY:
            for k, x in enumerate([0, -1, 2.5, float("nan"), True] + ([33, -3, 64] if "shift" in op else [])):
                w = v[v != torch.iinfo(dt).min] if op in DIVISIONS and dt in INTS and x == -1 else v
                fw("special-scalar-%s-%d" % (dname(dt), k), "new",
                   lambda c, w=w: (plain(c, dt, [len(w)], w), x, None))
    fw("promote-long-half", "new", lambda c: (plain(c, I64, [3]), plain(c, F16, [3]), None))
    fw("promote-zero-dim-double", "new", lambda c: (plain(c, I8, [3]), plain(c, F64, [], torch.tensor(2.5)), None))
    fw("broadcast", "new", lambda c: (plain(c, F32, [2, 1, 3]), plain(c, I32, [4, 1]), None))
    fw("shape", "new", lambda c: (plain(c, F32, [2, 3]), plain(c, F32, [3, 2]), None))
    fw("out-float32", "out", lambda c: (plain(c, I64, [2]), plain(c, I64, [2]), plain(c, F32, [2])))
    fw("out-cast-bool", "out", lambda c: (plain(c, I8, [2]), plain(c, I8, [2]), plain(c, B, [2])))
    fw("inplace-float", "inplace", lambda c: (plain(c, F32, [2]), plain(c, F32, [2]), None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), plain(c, F32, [2]), plain(c, F32, [0])))


# ---- where ----------------------------------------------------------------------
#
# Rows of op "where" keep the condition in the `arg` field, written as an
# operand ("v<k> [sizes] [strides] offset"); a and b are torch.where's
# second and third arguments (tensors, zero-dim tensors or Python
# numbers). PyTorch 1.13 has an out= only for two tensors, and no
# in-place form. An out= of another dtype than the result's trips an
# internal assertion in 1.13's cpu loop, which no case writes.

def where_call(form, cond, a, b, out):
    if form == "out":
        torch.where(cond, a, b, out=out)
        return out
    return torch.where(cond, a, b)


def ternary_row(case_id, op, case, form, fn, third, a, b, out):
    """The line of a call of three inputs, fn(), whose third operand goes
    into the arg field; the bases are taken before the call."""
    bases = case.bases_text()
    res = outcome(fn)
    if res[0] == "err":
        expect = error_fields(res[1], res[2])
    else:
        before = out.numel() if out is not None else None
        resized = form == "out" and before == 0 and res[1].numel() != 0
        written = a if form == "inplace" else out
        expect = ok_fields(res[1], "-", case, written, resized)
    return " | ".join([case_id, op, form, case.text(third), bases, case.text(a), case.text(b),
                       case.text(out), expect])


def where_row(case_id, case, form, cond, a, b, out):
    return ternary_row(case_id, "where", case, form, lambda: where_call(form, cond, a, b, out),
                       cond, a, b, out)


def where_condition(rng, case, sizes):
    if rng.random() < 0.12:  # uint8, which 1.13 takes as a condition (deprecated)
        values = lambda n: torch.tensor([rng.choice([0, 0, 1, 2, 200, 255]) for _ in range(n)], dtype=U8)  # noqa: E731
        return case.new_view(rng, U8, sizes, INPUT_KINDS, values)
    return case.new_view(rng, B, sizes, INPUT_KINDS)


def draw_where(rng):
    case = Case()
    shape = gen_shape(rng, 36)
    kinds = [rng.choices(["tensor", "zero", "scalar"], weights=[6, 2, 3])[0] for _ in range(2)]
    form = "out" if "scalar" not in kinds and rng.random() < 0.35 else "new"
    shapes = [broadcast_from(rng, shape) if rng.random() < 0.4 else shape for _ in range(3)]
    cond = where_condition(rng, case, shapes[0])
    ab = []
    for k in range(2):
        if kinds[k] == "scalar":
            ab.append(pick_scalar(rng, rng.choice(["bool", "int", "int", "float", "float", "complex"])))
        else:
            ab.append(case.new_view(rng, pick_dtype(rng), [] if kinds[k] == "zero" else shapes[1 + k], INPUT_KINDS))
    a, b = ab
    try:
        probe = torch.where(cond, a, b)
    except Exception:  # noqa: BLE001 - shapes that do not broadcast are drawn again
        return None
    out = None
    if form == "out":
        if rng.random() < 0.1:
            out = case.view(case.base(make_values(rng, probe.dtype, 0)), [0], [1], 0)
        else:
            out = case.new_view(rng, probe.dtype, list(probe.shape), OUTPUT_KINDS)
    return where_row("", case, form, cond, a, b, out)


def write_drawn(f, op, draw, n):
    """n random cases of op from draw(), which answers None to be called
    again."""
    written = 0
    while written < n:
        line = draw()
        if line is None:
            continue
        written += 1
        f.write("%s.%d%s\n" % (op, written, line))


def case_writer(f, op, row_fn):
    """fw(name, form, build): build(case) gives row_fn's operands."""
    def fw(name, form, build):
        case = Case()
        f.write(row_fn("%s-%s" % (op, name), case, form, *build(case)) + "\n")
    return fw


def gen_where(rng, f):
    write_drawn(f, "where", lambda: draw_where(rng), 500)
    fw = case_writer(f, "where", where_row)

    def mask(c, n, dtype=B):
        return plain(c, dtype, [n], torch.tensor([(i * 7 + 3) % 5 < 2 for i in range(n)]))

    for dt in CLASSIC:
        v = special_values(dt)
        n = len(v)
        w = v[torch.arange(n - 1, -1, -1)]
        fw("special-%s" % dname(dt), "new", lambda c: (mask(c, n), plain(c, dt, [n], v), plain(c, dt, [n], w), None))
        fw("special-out-%s" % dname(dt), "out",
           lambda c: (mask(c, n), plain(c, dt, [n], v), plain(c, dt, [n], w), plain(c, dt, [n])))
        for k, x in enumerate([0, -1, 2.5, float("nan"), True, 1 + 2j]):
            fw("special-scalar-%s-%d" % (dname(dt), k), "new",
               lambda c: (mask(c, n), plain(c, dt, [n], v), x, None))
            fw("special-scalar-self-%s-%d" % (dname(dt), k), "new",
               lambda c: (mask(c, n), x, plain(c, dt, [n], v), None))
    for k, (x, y) in enumerate([(1.0, 0.0), (1, 0), (True, False), (-0.0, float("nan")), (2, 0.5), (1j, 3),
                                (True, 7), (2 ** 40, -1)]):
        fw("scalars-%d" % k, "new", lambda c: (mask(c, 5), x, y, None))
    fw("condition-uint8", "new", lambda c: (plain(c, U8, [4], torch.tensor([0, 1, 2, 255])), plain(c, F32, [4]),
                                            plain(c, F32, [4], torch.tensor([-1.0, -2.0, -3.0, -4.0])), None))
    for dt in (F32, I32, I64, I8, F16, C64):
        fw("condition-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), plain(c, F32, [3]), plain(c, F32, [3]), None))
    fw("condition-float-scalar", "new", lambda c: (plain(c, F64, []), 1.0, 0.0, None))
    fw("promote-long-half", "new", lambda c: (mask(c, 3), plain(c, I64, [3]), plain(c, F16, [3]), None))
    fw("promote-zero-dim-double", "new", lambda c: (mask(c, 3), plain(c, I8, [3]), plain(c, F64, [], torch.tensor(2.5)), None))
    fw("promote-int-scalar", "new", lambda c: (mask(c, 3), plain(c, I16, [3]), 100000, None))
    fw("broadcast", "new", lambda c: (plain(c, B, [2, 1, 1], torch.tensor([True, False])), plain(c, F32, [1, 3, 1]),
                                      plain(c, I32, [4]), None))
    fw("shape-condition", "new", lambda c: (mask(c, 2), plain(c, F32, [3]), plain(c, F32, [3]), None))
    fw("shape-values", "new", lambda c: (mask(c, 3), plain(c, F32, [2, 3]), plain(c, F32, [3, 2]), None))
    fw("out-resize-empty", "out", lambda c: (mask(c, 4), plain(c, F32, [4]), plain(c, F32, [4]), plain(c, F32, [0])))
    fw("out-transposed", "out", lambda c: (mask(c, 2), plain(c, I32, [3, 2]), plain(c, I32, [2]),
                                           c.view(c.base(torch.zeros(6, dtype=I32)), [3, 2], [1, 3], 0)))

    def overlap(c):
        k = c.base(torch.arange(8).to(F32))
        return mask(c, 4), c.view(k, [4], [1], 0), plain(c, F32, [4]), c.view(k, [4], [1], 2)
    fw("out-partial-overlap", "out", overlap)


# ---- clamp with tensor bounds -----------------------------------------------------
#
# Rows of op "clamp" hold self in a, min in b and max in the `arg` field
# (operands, '-' for none). With both bounds PyTorch 1.13's vectorised
# loop answers ties of signed zeros otherwise than its element loop
# (which Tessera follows): a random case is written only where the
# element loop, on strided copies of the operands, gives the same answer;
# the special values are strided views, which take the element loop.

def clamp_call(form, a, lo, hi, out):
    if form == "out":
        torch.clamp(a, lo, hi, out=out)
        return out
    if form == "inplace":
        return a.clamp_(lo, hi)
    return torch.clamp(a, lo, hi)


def clamp_row(case_id, case, form, a, lo, hi, out):
    return ternary_row(case_id, "clamp", case, form, lambda: clamp_call(form, a, lo, hi, out),
                       hi, a, lo, out)


def draw_clamp(rng):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    kinds = [rng.choices(["tensor", "zero", "none"], weights=[6, 2, 3])[0] for _ in range(2)]
    if kinds == ["none", "none"]:
        return None
    da = pick_dtype(rng)
    if da.is_complex and rng.random() < 0.9:
        return None  # refused whatever the values: a few such cases are enough
    a_shape = shape if form == "inplace" else (broadcast_from(rng, shape) if rng.random() < 0.25 else shape)
    a = case.new_view(rng, da, a_shape, OUTPUT_KINDS if form == "inplace" else INPUT_KINDS)
    bounds = []
    for k in range(2):
        if kinds[k] == "none":
            bounds.append(None)
            continue
        db = da if rng.random() < 0.5 else pick_dtype(rng)
        sizes = [] if kinds[k] == "zero" else (broadcast_from(rng, shape) if rng.random() < 0.5 else shape)
        bounds.append(case.new_view(rng, db, sizes, INPUT_KINDS))
    lo, hi = bounds
    try:
        probe = torch.clamp(a, lo, hi)
        if lo is not None and hi is not None:
            again = torch.clamp(*[strided_copy(t) for t in (a, lo, hi)])
            if not same_values(again, probe):
                count("clamp: dropped, the vectorised loop differs")
                return None
    except Exception:  # noqa: BLE001 - shape and dtype errors are drawn again
        return None
    out = draw_out(rng, case, probe) if form == "out" else None
    line = clamp_row("", case, form, a, lo, hi, out)
    if "\n" in line:
        return None
    return line


def gen_clamp(rng, f):
    write_drawn(f, "clamp", lambda: draw_clamp(rng), 500)
    fw = case_writer(f, "clamp", clamp_row)

    for dt in [B] + INTS + FLOATS:
        v = special_values(dt)
        n = len(v)
        tops = v[torch.tensor([1, n // 2, n - 1])]
        fw("special-%s" % dname(dt), "new",
           lambda c: (spaced_as(c, dt, v, [1, n, 1], [1, 2, 1]), spaced_as(c, dt, v, [1, 1, n], [1, 1, 2]),
                      spaced_as(c, dt, tops, [3, 1, 1], [2, 1, 1]), None))
        fw("special-min-%s" % dname(dt), "new",
           lambda c: (spaced_as(c, dt, v, [n, 1], [2, 1]), spaced_as(c, dt, v, [1, n], [1, 2]), None, None))
        fw("special-max-%s" % dname(dt), "new",
           lambda c: (spaced_as(c, dt, v, [n, 1], [2, 1]), None, spaced_as(c, dt, v, [1, n], [1, 2]), None))
    fw("none", "new", lambda c: (plain(c, F32, [3]), None, None, None))
    for dt in (C64, C32):
        fw("complex-self-%s" % dname(dt), "new", lambda c: (plain(c, dt, [2]), plain(c, F32, [2]), None, None))
    fw("complex-min", "new", lambda c: (plain(c, F32, [2]), plain(c, C64, [2]), plain(c, F32, [2]), None))
    fw("complex-max-only", "new", lambda c: (plain(c, F32, [2]), None, plain(c, C128, [2]), None))
    fw("bool-both", "new", lambda c: (plain(c, B, [2]), plain(c, B, [1]), plain(c, B, [1]), None))
    fw("half-both", "new", lambda c: (plain(c, F16, [2]), plain(c, F16, [1]), plain(c, F16, [1]), None))
    fw("half-min", "new", lambda c: (plain(c, F16, [2]), plain(c, F16, [1]), None, None))
    fw("promote-zero-dim-double", "new",
       lambda c: (plain(c, I32, [3]), plain(c, F64, [], torch.tensor(1.5)), plain(c, I64, [3]), None))
    fw("out-cast-int", "out", lambda c: (plain(c, I32, [2]), plain(c, F32, [1]), plain(c, I32, [1]), plain(c, I32, [2])))
    fw("inplace-cast-int", "inplace", lambda c: (plain(c, I32, [2]), plain(c, F32, [1]), plain(c, I32, [1]), None))
    fw("shape", "new", lambda c: (plain(c, F32, [2, 3]), plain(c, F32, [3, 2]), None, None))
    fw("shape-max", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F32, [2]), None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), plain(c, F32, [2]), plain(c, F32, [1]), plain(c, F32, [0])))


# ---- clamp with Python-number bounds ---------------------------------------------
#
# Rows of op "clamp_scalar" hold self in a, min in b and max in the `arg`
# field ("s <scalar>", '-' for none).

def clamp_scalar_call(form, a, lo, hi, out):
    if form == "out":
        torch.clamp(a, lo, hi, out=out)
        return out
    if form == "inplace":
        return a.clamp_(lo, hi)
    return torch.clamp(a, lo, hi)


def clamp_scalar_row(case_id, case, form, a, lo, hi, out):
    return ternary_row(case_id, "clamp_scalar", case, form, lambda: clamp_scalar_call(form, a, lo, hi, out),
                       hi, a, lo, out)


def clamp_bound(rng):
    return rng.choice([None, None, 0, 1, -3, 7, 100, 0.5, -0.0, 0.0, -2.25, 1e3, float("nan"),
                       float("inf"), float("-inf"), True, 3.0e38])


def draw_clamp_scalar(rng):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    lo, hi = clamp_bound(rng), clamp_bound(rng)
    if lo is None and hi is None:
        return None
    dt = pick_dtype(rng)
    if dt.is_complex and rng.random() < 0.9:
        return None
    if dt == F16 and lo is not None and hi is not None and (lo != lo or hi != hi):
        return None  # 1.13 fills float16 with NaN before its kernel would refuse it
    a = case.new_view(rng, dt, shape, OUTPUT_KINDS if form == "inplace" else INPUT_KINDS)
    try:
        probe = torch.clamp(a, lo, hi)
        if not agrees_strided(lambda x: torch.clamp(x, lo, hi), probe, (a,)):
            return None
    except Exception:  # noqa: BLE001 - refusals are drawn again
        return None
    out = None
    if form == "out":
        out = draw_out(rng, case, probe) if rng.random() < 0.3 else case.new_view(rng, probe.dtype, list(probe.shape), OUTPUT_KINDS)
    return clamp_scalar_row("", case, form, a, lo, hi, out)


def gen_clamp_scalar(rng, f):
    write_drawn(f, "clamp_scalar", lambda: draw_clamp_scalar(rng), 400)
    fw = case_writer(f, "clamp_scalar", clamp_scalar_row)
    for dt in [BF16, F32, F64] + INTS:
        v = special_values(dt)
        bounds = [(0, None), (None, 0), (-0.0, None), (None, -0.0), (-0.0, 0.0), (0.0, -0.0), (1.5, -1.5),
                  (float("nan"), None), (None, float("nan")), (float("nan"), 1), (-1, float("nan")),
                  (float("-inf"), float("inf")), (-2, 7), (2.5, None), (None, 1.001), (1e300, None)]
        if dt in INTS:
            bounds = [(0, None), (None, 0), (-2, 7), (7, -2), (1, 1), (-1, None), (None, 100), (0.5, None),
                      (None, 2.5), (0.5, 1.5), (1000, None), (float("nan"), None)]
        for k, (lo, hi) in enumerate(bounds):
            fw("special-%s-%d" % (dname(dt), k), "new", lambda c: (spaced(c, dt, v), lo, hi, None))
    fw("bool-int", "new", lambda c: (plain(c, B, [3], torch.tensor([True, False, True])), 0, 1, None))
    fw("bool-float", "new", lambda c: (plain(c, B, [3], torch.tensor([True, False, True])), None, 0.5, None))
    fw("bool-bool", "new", lambda c: (plain(c, B, [3], torch.tensor([True, False, True])), True, None, None))
    fw("bool-bools", "new", lambda c: (plain(c, B, [3], torch.tensor([True, False, True])), False, True, None))
    for dt in (F16, C64, C32):
        fw("dtype-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), 0, 1, None))
        fw("dtype-min-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), 0, None, None))
        fw("dtype-max-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), None, 1, None))
    fw("none", "new", lambda c: (plain(c, F32, [3]), None, None, None))
    fw("int-float-bound", "new", lambda c: (plain(c, I32, [3]), 0.5, None, None))
    fw("int-complex-bound", "new", lambda c: (plain(c, I32, [3]), 1j, None, None))
    fw("float-complex-bound", "new", lambda c: (plain(c, F32, [3]), 1 + 1j, 2, None))
    fw("float-complex-min", "new", lambda c: (plain(c, F32, [3]), 1 + 1j, None, None))
    fw("float-real-complex-min", "new", lambda c: (plain(c, F32, [3]), 2 + 0j, None, None))
    fw("int8-overflow", "new", lambda c: (plain(c, I8, [3]), 1000, None, None))
    fw("int8-overflow-both", "new", lambda c: (plain(c, I8, [3]), 0, 1000, None))
    fw("bf16-overflow", "new", lambda c: (plain(c, BF16, [3]), 1e300, 2, None))
    fw("float-overflow-min", "new", lambda c: (plain(c, F32, [3]), 1e300, None, None))
    fw("out-int", "out", lambda c: (plain(c, I32, [3]), 0.5, None, plain(c, I32, [3])))
    fw("out-float", "out", lambda c: (plain(c, I32, [3]), 0.5, 2.5, plain(c, F32, [3])))
    fw("out-double", "out", lambda c: (plain(c, F32, [3]), 0.5, None, plain(c, F64, [3])))
    fw("inplace-int-float", "inplace", lambda c: (plain(c, I32, [3]), 0.5, None, None))
    fw("inplace-int-float-both", "inplace", lambda c: (plain(c, I64, [3]), 0, 2.5, None))
    fw("inplace-int", "inplace", lambda c: (plain(c, I16, [4]), -1, 2, None))
    fw("zero-dim", "new", lambda c: (plain(c, I64, [], torch.tensor(3)), 0.5, None, None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), 1, 2, plain(c, F32, [0])))
    fw("out-transposed", "out", lambda c: (plain(c, F64, [3, 2]), -1, 4,
                                           c.view(c.base(torch.zeros(6, dtype=F64)), [3, 2], [1, 3], 0)))


# ---- lerp, addcmul, addcdiv -------------------------------------------------------
#
# Rows of op "lerp" hold start in a, end in b and the weight in the `arg`
# field (an operand, or "s <scalar>" for a Python number). Rows of
# "addcmul" and "addcdiv" hold self in a, tensor1 in b, and in `arg`
# tensor2's operand and the value, joined by " & ". PyTorch 1.13's loops
# of complex addcmul and addcdiv compute otherwise in their vectorised
# form (contiguous operands) and on the last few elements of a strided
# row than in the strided groups Tessera follows (agrees_strided): a
# random case is written only where those give the same answer. An out= of another dtype than the common one trips an internal
# assertion in 1.13's loops of the three-input forms: no case writes one.

LERP_DTYPES = [BF16, F32, F64, C64, C128]


def lerp_call(form, a, b, w, out):
    if form == "out":
        torch.lerp(a, b, w, out=out)
        return out
    if form == "inplace":
        return a.lerp_(b, w)
    return torch.lerp(a, b, w)


def addc_call(op, form, a, t1, t2, value, out):
    fn = getattr(torch, op)
    if form == "out":
        fn(a, t1, t2, value=value, out=out)
        return out
    if form == "inplace":
        return getattr(a, op + "_")(t1, t2, value=value)
    return fn(a, t1, t2, value=value)


def lerp_row(case_id, case, form, a, b, w, out):
    return ternary_row(case_id, "lerp", case, form, lambda: lerp_call(form, a, b, w, out), w, a, b, out)


def addc_row(op, case_id, case, form, a, t1, t2, value, out):
    """ternary_row's line with the value after tensor2 in the arg field."""
    line = ternary_row(case_id, op, case, form, lambda: addc_call(op, form, a, t1, t2, value, out),
                       t2, a, t1, out)
    fields = line.split(" | ")
    fields[3] = "%s & %s" % (fields[3], scalar_text(value))
    return " | ".join(fields)


def weight_values(rng, dtype, n):
    """lerp weights: mostly where its two formulas meet and around them."""
    def one():
        r = rng.random()
        if r < 0.1:
            return rng.choice([0.5, -0.5, 0.0, -0.0, 1.0, float("nan"), float("inf"), 0.4999999, 0.5000001])
        return rng.choice([rng.uniform(-1.5, 2.0), rng.randint(-8, 16) / 8])
    if dtype.is_complex:
        return torch.complex(torch.tensor([one() for _ in range(n)], dtype=F64),
                             torch.tensor([one() * 0.5 if rng.random() < 0.7 else 0.0 for _ in range(n)],
                                          dtype=F64)).to(dtype)
    return torch.tensor([one() for _ in range(n)], dtype=F64).to(dtype)


def agrees_strided(fn, probe, tensors):
    """fn over `tensors` broadcast, flattened, padded to a multiple of 8
    elements and copied with stride 2 gives probe's values: PyTorch 1.13's
    strided loop, which GCC vectorised in groups of 4 and which Tessera
    follows (the elements left over after the groups, and its vectorised
    loop of contiguous operands, compute complex products and quotients
    otherwise)."""
    shape = torch.broadcast_shapes(*[t.shape for t in tensors if isinstance(t, torch.Tensor)])
    n = numel(shape)
    pad = -n % 8

    def flat(t):
        x = t.expand(shape).reshape(-1)
        return strided_copy(torch.cat([x, torch.zeros(pad, dtype=x.dtype)]))
    again = fn(*[flat(t) if isinstance(t, torch.Tensor) else t for t in tensors])[:n]
    if not same_values(again.reshape(probe.shape).to(probe.dtype), probe):
        count("dropped: the vectorised loop differs")
        return False
    return True


def replica(case, t):
    """t as the same view of a copy of its storage (None stays None)."""
    if t is None:
        return None
    return case.bases[case.base_of(t)][0].clone().as_strided(t.shape, t.stride(), t.storage_offset())


def agrees_in_form(case, call, fn, form, tensors, out):
    """agrees_strided for the call in its form (in place, out=) on
    replicas of the operands; a call that fails agrees."""
    first = replica(case, tensors[0]) if form == "inplace" else tensors[0]
    res = outcome(lambda: call(first, *tensors[1:], replica(case, out)))
    return res[0] == "err" or agrees_strided(fn, res[1], tensors)


def draw_lerp(rng):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    dt = rng.choice(LERP_DTYPES) if rng.random() < 0.95 else pick_dtype(rng)
    wkind = rng.choices(["tensor", "zero", "scalar"], weights=[5, 1, 3])[0]
    a_shape = shape if form == "inplace" else (broadcast_from(rng, shape) if rng.random() < 0.3 else shape)
    a = case.new_view(rng, dt, a_shape, OUTPUT_KINDS if form == "inplace" else INPUT_KINDS)
    b = case.new_view(rng, dt, broadcast_from(rng, shape) if rng.random() < 0.3 else shape, INPUT_KINDS)
    if wkind == "scalar":
        w = rng.choice([0.5, -0.5, 0.25, 0.75, -1.25, 2, 1, 0, 0.4999999, 0.1234567, float("nan"), True])
        if dt.is_complex and rng.random() < 0.5:
            w = complex(rng.choice([0.3, 0.4, -0.2, 0.5]), rng.choice([0.4, 0.3, 0.25, -0.5]))
    else:
        sizes = [] if wkind == "zero" else (broadcast_from(rng, shape) if rng.random() < 0.4 else shape)
        w = case.new_view(rng, dt, sizes, INPUT_KINDS, lambda n: weight_values(rng, dt, n))
    try:
        probe = torch.lerp(a, b, w)
        if not agrees_strided(torch.lerp, probe, (a, b, w)):
            return None
    except Exception:  # noqa: BLE001 - shapes that do not broadcast are drawn again
        return None
    out = draw_out(rng, case, probe) if form == "out" else None
    if not agrees_in_form(case, lambda x, y, z, o: lerp_call(form, x, y, z, o), torch.lerp, form, (a, b, w), out):
        return None
    line = lerp_row("", case, form, a, b, w, out)
    if "INTERNAL ASSERT" in line:
        return None
    return line


def addc_value(rng, common):
    if common in INTS:
        return rng.choice([1, 1, -1, 2, 3, 0, -7, 100])
    choices = [1, 1, -1, 2, 0.5, -2.5, 0.1234567, 0.1, 3.0, True, 1e-3]
    if common.is_complex:
        choices += [1j, complex(0.5, 0.25), complex(1.1, -0.3)]
    return rng.choice(choices)


def draw_addc(rng, op):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    main = rng.choice([I32, I64, U8, I8, I16, BF16, F32, F32, F64, F64, C64, C128])
    if rng.random() < 0.05:
        main = pick_dtype(rng)
    dts = [main if rng.random() < 0.8 else pick_dtype(rng) for _ in range(3)]
    ops = []
    for k in range(3):
        if k == 0 and form == "inplace":
            sizes = shape
        else:
            sizes = [] if rng.random() < 0.1 else (broadcast_from(rng, shape) if rng.random() < 0.3 else shape)
        ops.append(case.new_view(rng, dts[k], sizes, OUTPUT_KINDS if k == 0 and form == "inplace" else INPUT_KINDS))
    a, t1, t2 = ops
    try:  # the common dtype, roughly, for a value that fits it
        common = torch.promote_types(torch.result_type(a, t1), torch.result_type(t1, t2))
    except Exception:  # noqa: BLE001
        common = main
    value = addc_value(rng, common)
    fn = lambda x, y, z: getattr(torch, op)(x, y, z, value=value)  # noqa: E731
    try:
        probe = fn(a, t1, t2)
        if not agrees_strided(fn, probe, (a, t1, t2)):
            return None
    except Exception:  # noqa: BLE001 - shape and dtype errors are drawn again
        return None
    out = draw_out(rng, case, probe) if form == "out" else None
    if not agrees_in_form(case, lambda x, y, z, o: addc_call(op, form, x, y, z, value, o), fn, form,
                          (a, t1, t2), out):
        return None
    line = addc_row(op, "", case, form, a, t1, t2, value, out)
    if "INTERNAL ASSERT" in line:
        return None
    return line


def grid3(c, dt, x, y, z):
    """x, y, z (1-D) spaced in storages of their own and broadcast against
    each other along three dimensions (PyTorch's element loop runs)."""
    nx, ny, nz = len(x), len(y), len(z)
    return (spaced_as(c, dt, x, [nx, 1, 1], [2, 1, 1]), spaced_as(c, dt, y, [1, ny, 1], [1, 2, 1]),
            spaced_as(c, dt, z, [1, 1, nz], [1, 1, 2]))


def few_specials(dt):
    """A dozen special values of a floating or complex dtype."""
    if dt.is_complex:
        parts = [(0.0, 0.0), (-0.0, 1.0), (1.0, -2.5), (float("inf"), 0.0), (float("nan"), 1.0),
                 (-2.5, float("-inf")), (3.0, 0.5), (1e-40, -1e-40)]
        return torch.complex(torch.tensor([p[0] for p in parts], dtype=F64),
                             torch.tensor([p[1] for p in parts], dtype=F64)).to(dt)
    fi = torch.finfo(dt)
    vals = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 2.5, fi.tiny * fi.eps,
            fi.max, -fi.max, 1 / 3]
    return torch.tensor(vals, dtype=F64).to(dt)


def special_weights(dt):
    if dt.is_complex:
        parts = [(0.0, 0.0), (0.5, 0.0), (0.3, 0.4), (0.4, 0.3), (-0.5, 0.0), (0.0, 0.5), (1.0, 1.0),
                 (float("nan"), 0.0), (float("inf"), 0.0), (0.35, 0.35), (2.0, -1.0)]
        return torch.complex(torch.tensor([p[0] for p in parts], dtype=F64),
                             torch.tensor([p[1] for p in parts], dtype=F64)).to(dt)
    return torch.tensor([0.0, -0.0, 0.5, -0.5, 0.25, 1.0, -1.0, 2.0, 0.4999999, float("nan"),
                         float("inf"), float("-inf"), -3.0], dtype=F64).to(dt)


def gen_lerp(rng, f):
    write_drawn(f, "lerp", lambda: draw_lerp(rng), 500)
    fw = case_writer(f, "lerp", lerp_row)
    for dt in LERP_DTYPES:
        v, w = few_specials(dt), special_weights(dt)
        fw("special-%s" % dname(dt), "new", lambda c: (*grid3(c, dt, v, v, w), None))
        for k, x in enumerate([0.5, -0.5, 0.4999999, float("nan"), float("inf"), 2.0, -3, True]
                              + ([complex(0.3, 0.4), complex(0.4, 0.3), 0.5j] if dt.is_complex else [])):
            fw("special-scalar-%s-%d" % (dname(dt), k), "new",
               lambda c: (spaced_as(c, dt, v, [len(v), 1], [2, 1]), spaced_as(c, dt, v, [1, len(v)], [1, 2]), x, None))
        fw("out-%s" % dname(dt), "out", lambda c: (plain(c, dt, [4]), plain(c, dt, [4], torch.zeros(4)),
                                                   plain(c, dt, [4], torch.tensor([0.25, 0.5, 0.75, 1.5])), plain(c, dt, [4])))
        fw("inplace-%s" % dname(dt), "inplace", lambda c: (plain(c, dt, [2, 2]), plain(c, dt, [2], torch.zeros(2)), 0.25, None))
    for dt in (F16, I32, I64, U8, B, C32):
        fw("dtype-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), plain(c, dt, [3]), plain(c, dt, [3]), None))
        fw("dtype-scalar-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), plain(c, dt, [3]), 0.5, None))
    fw("end-dtype", "new", lambda c: (plain(c, F32, [3]), plain(c, F64, [3]), 0.5, None))
    fw("end-dtype-bf16", "new", lambda c: (plain(c, BF16, [3]), plain(c, C64, [3]), plain(c, BF16, [3]), None))
    fw("weight-dtype", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, I64, [3]), None))
    fw("weight-zero-dim-dtype", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F64, [], torch.tensor(0.5)), None))
    fw("weight-int8-names", "new", lambda c: (plain(c, I8, [3]), plain(c, U8, [3]), 1, None))
    fw("weight-complex-on-float", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), 0.5 + 1j, None))
    fw("weight-overflow", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), 1e300, None))
    fw("weight-overflow-bf16", "new", lambda c: (plain(c, BF16, [3]), plain(c, BF16, [3]), 1e300, None))
    fw("weight-bf16-float", "new", lambda c: (plain(c, BF16, [3], torch.tensor([1.0, -3.0, 100.0])),
                                              plain(c, BF16, [3], torch.tensor([2.0, 5.0, -7.0])), 0.1234567, None))
    fw("out-dtype", "out", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F64, [3])))
    fw("out-dtype-scalar", "out", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), 0.5, plain(c, F64, [3])))
    fw("out-cast-scalar", "out", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), 0.5, plain(c, I32, [3])))
    fw("broadcast", "new", lambda c: (plain(c, F32, [3, 1]), plain(c, F32, [3]), plain(c, F32, [1]), None))
    fw("zero-dim-start", "new", lambda c: (plain(c, F64, [], torch.tensor(-2.0)), plain(c, F64, [3]), plain(c, F64, [3]), None))
    fw("shape", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [2]), plain(c, F32, [3]), None))
    fw("inplace-broadcast", "inplace", lambda c: (plain(c, F32, [1]), plain(c, F32, [3]), 0.5, None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), plain(c, F32, [2]), plain(c, F32, [1]), plain(c, F32, [0])))
    fw("out-transposed", "out", lambda c: (plain(c, F64, [3, 2]), plain(c, F64, [2]), plain(c, F64, [3, 1]),
                                           c.view(c.base(torch.zeros(6, dtype=F64)), [3, 2], [1, 3], 0)))


def gen_addc(rng, f, op):
    write_drawn(f, op, lambda: draw_addc(rng, op), 500)

    def fw(name, form, build):
        case = Case()
        f.write(addc_row(op, "%s-%s" % (op, name), case, form, *build(case)) + "\n")

    for dt in [BF16, F32, F64, C64, C128] + ([] if op == "addcdiv" else INTS):
        v = few_specials(dt) if dt not in INTS else special_values(dt)
        y = v if op == "addcmul" else few_specials(dt)
        for k, value in enumerate([1, -2.5, 0.1234567] if dt not in INTS else [1, -1, 3]):
            fw("special-%s-%d" % (dname(dt), k), "new", lambda c: (*grid3(c, dt, v, y, y), value, None))
    for dt in (F16, B, C32):
        fw("dtype-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), plain(c, dt, [3]), plain(c, dt, [3]), 1, None))
    if op == "addcdiv":
        for k, (d1, d2) in enumerate([(I32, I32), (B, I64), (U8, B)]):
            fw("integer-%d" % k, "new", lambda c: (plain(c, F32, [3]), plain(c, d1, [3]), plain(c, d2, [3]), 1, None))
        fw("int-self", "new", lambda c: (plain(c, I32, [3]), plain(c, F32, [3]), plain(c, F32, [3]), 2, None))
        fw("int-divisor", "new", lambda c: (plain(c, F32, [3]), plain(c, I32, [3]), plain(c, F32, [3]), 2, None))
    else:
        fw("int-float-value", "new", lambda c: (plain(c, I64, [3]), plain(c, I64, [3]), plain(c, I64, [3]), 0.5, None))
        fw("int-value-overflow", "new", lambda c: (plain(c, I8, [3]), plain(c, I8, [3]), plain(c, I8, [3]), 1000, None))
        fw("int-complex-value", "new", lambda c: (plain(c, I64, [3]), plain(c, I64, [3]), plain(c, I64, [3]), 1j, None))
        fw("uint8-negative-value", "new", lambda c: (plain(c, U8, [3]), plain(c, U8, [3]), plain(c, U8, [3]), -1, None))
        fw("mixed", "new", lambda c: (plain(c, I32, [3]), plain(c, F32, [3]), plain(c, F64, [3]), 1, None))
    fw("bf16-float-value", "new", lambda c: (plain(c, BF16, [3], torch.tensor([1.0, -3.0, 100.0])),
                                             plain(c, BF16, [3], torch.tensor([2.0, 5.0, -7.0])),
                                             plain(c, BF16, [3], torch.tensor([3.0, 0.75, 9.0])), 0.1234567, None))
    fw("float-complex-value", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F32, [3]), 1j, None))
    fw("bool-value", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [3]), plain(c, F32, [3]), True, None))
    fw("zero-dim", "new", lambda c: (plain(c, F32, [3]), plain(c, F64, [], torch.tensor(2.5)), plain(c, F32, [3]), 1, None))
    fw("broadcast", "new", lambda c: (plain(c, F32, [2, 1, 3]), plain(c, F32, [4, 1]), plain(c, F32, [3]), 2, None))
    fw("shape", "new", lambda c: (plain(c, F32, [3]), plain(c, F32, [2]), plain(c, F32, [3]), 1, None))
    fw("out-cast", "out", lambda c: (plain(c, F32, [2]), plain(c, F32, [2]), plain(c, F32, [2]), 1, plain(c, I32, [2])))
    fw("inplace-cast", "inplace", lambda c: (plain(c, I32, [2]), plain(c, F32, [2]), plain(c, F32, [2]), 1, None))
    fw("inplace-broadcast", "inplace", lambda c: (plain(c, F32, [1]), plain(c, F32, [3]), plain(c, F32, [3]), 1, None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), plain(c, F32, [2]), plain(c, F32, [1]), 1, plain(c, F32, [0])))
    fw("out-transposed", "out", lambda c: (plain(c, F64, [3, 2]), plain(c, F64, [2]), plain(c, F64, [3, 1]), 0.5,
                                           c.view(c.base(torch.zeros(6, dtype=F64)), [3, 2], [1, 3], 0)))


# ---- accelerator and cpu operands ---------------------------------------------

def gen_device(f):
    """Mixed-device calls, made with meta as PyTorch 1.13's accelerator;
    the values come from the same call on cpu tensors."""
    shapes = {"1d": [3], "0d": []}
    combos = [("add", "new", "acc1d", "cpu0d"), ("add", "new", "cpu0d", "acc1d"),
              ("add", "new", "acc1d", "cpu1d"), ("add", "new", "cpu1d", "acc1d"),
              ("mul", "new", "acc0d", "cpu1d"), ("mul", "new", "acc0d", "cpu0d"),
              ("sub", "new", "cpu0d", "acc0d"), ("div", "new", "acc1d", "scalar"),
              ("add", "inplace", "acc1d", "cpu0d"), ("add", "inplace", "acc1d", "cpu1d"),
              ("mul", "inplace", "cpu1d", "acc0d"), ("mul", "inplace", "cpu1d", "acc1d"),
              ("add", "out", "acc1d", "acc1d", "cpu1d"), ("add", "out", "cpu1d", "cpu1d", "acc1d"),
              ("add", "out", "acc1d", "cpu0d", "acc1d"), ("sub", "out", "cpu0d", "cpu0d", "acc0d"),
              ("copy_", "-", "acc1d", "cpu0d"), ("copy_", "-", "acc1d", "cpu1d")]

    def make(case, kind, dtype, device):
        if kind is None:
            return None
        if kind == "scalar":
            return 2.5
        sizes = shapes[kind[-2:]]
        acc = kind.startswith("acc")
        t = torch.arange(1, numel(sizes) + 1).to(dtype)
        k = case.base(t.to(device) if acc else t, acc)
        return case.view(k, sizes, list(torch.empty(sizes).stride()), 0)

    for i, combo in enumerate(combos):
        op, form, ka, kb = combo[:4]
        kout = combo[4] if len(combo) > 4 else None
        arg = 1 if op in ("add", "sub") else ("trunc" if op == "div" else None)
        cases = []
        for device in ("meta", "cpu"):
            case = Case()
            a, b, out = make(case, ka, F32, device), make(case, kb, I32, device), make(case, kout, F64, device)
            cases.append((case, a, b, out))
        bases = ";".join("%s%s:%d:%s" % ("@" if acc else "", dname(t.dtype), t.numel(), hexbits(t))
                         for (t, _), (_, acc) in zip(cases[1][0].bases, cases[0][0].bases))
        results = []
        for case, a, b, out in cases:
            if op == "copy_":
                results.append(outcome(lambda: a.copy_(b)))
            else:
                results.append(outcome(lambda: call(op, form, arg, a, b, out)))
        if results[0][0] == "err":
            expect = error_fields(results[0][1], results[0][2].replace("meta", "{acc}"))
        else:
            r = results[1][1]
            expect = "ok | %s | %s | %s | - | %s | -" % (
                dname(r.dtype), ints(r.shape), ints(results[0][1].stride()), hexbits(r))
        case, a, b, out = cases[1]
        f.write(row("device.%d" % i, op, form, arg_text(op, arg), bases, case, a, b, out, expect) + "\n")


# ---- copy_, fill_, to -----------------------------------------------------------

def bool_safe(t, dst_dtype):
    """Complex values whose real part is zero lose their imaginary part
    before a conversion to bool (1.13 and 2.9 disagree there)."""
    if t.dtype.is_complex and dst_dtype == B:
        wide = C64 if t.dtype == C32 else t.dtype
        w = t.to(wide)
        w = torch.where(w.real == 0, torch.complex(w.real, torch.zeros_like(w.real)), w)
        t.copy_(w.to(t.dtype))


def converted_paths(src, dst_dtype, shape):
    """src's values converted to dst_dtype along three paths."""
    e = src.expand(shape)
    return [e.contiguous().to(dst_dtype), strided_copy(e).to(dst_dtype),
            torch.stack([x.to(dst_dtype) for x in e.contiguous().reshape(-1)]).reshape(shape)
            if e.numel() else e.to(dst_dtype)]


def gen_copy(rng, f):
    n = 0
    pairs = [(s, d) for s in CLASSIC for d in CLASSIC]
    rng.shuffle(pairs)
    pairs += [(pick_dtype(rng), pick_dtype(rng)) for _ in range(60)]
    for sd, dd in pairs:
        case = Case()
        shape = gen_shape(rng, 30)
        dst = case.new_view(rng, dd, shape, OUTPUT_KINDS)
        src_shape = broadcast_from(rng, shape) if rng.random() < 0.4 else shape
        src = case.new_view(rng, sd, src_shape, INPUT_KINDS)
        bool_safe(case.bases[case.base_of(src)][0], dd)
        bases = case.bases_text()
        res = outcome(lambda: dst.copy_(src))
        if res[0] == "ok":
            if not all(same_values(p, dst) for p in converted_paths(src, dd, dst.shape)):
                count("copy_: dropped, paths differ %s -> %s" % (dname(sd), dname(dd)))
                continue
            expect = ok_fields(dst, "-", case, dst, False)
        else:
            expect = error_fields(res[1], res[2])
        n += 1
        f.write(row("copy.%d" % n, "copy_", "-", "-", bases, case, dst, src, None, expect) + "\n")
    # fill_
    values = [True, False, 0, 1, -1, 127, 128, 255, 256, -129, 300, 65504, 70000, 2 ** 31, -2 ** 63,
              0.0, -0.0, 2.5, -0.5, 0.1, 65519.0, 65520.0, 3.4e38, 1e39, float("inf"), float("-inf"),
              float("nan"), complex(1.5, 0), complex(1, 2), complex(0, 1)]
    for i in range(90):
        dd = pick_dtype(rng)
        v = rng.choice(values)
        if dd == C32 or (dd == B and isinstance(v, complex)):
            continue  # 1.13 and 2.9 differ (see tests/client/gen_tensor_cases.py)
        case = Case()
        t = case.new_view(rng, dd, gen_shape(rng, 24), OUTPUT_KINDS + ["expand"])
        bases = case.bases_text()
        res = outcome(lambda: t.fill_(v))
        expect = ok_fields(t, "-", case, t, False) if res[0] == "ok" else error_fields(res[1], res[2])
        f.write(row("fill.%d" % i, "fill_", "-", "-", bases, case, t, v, None, expect) + "\n")
    # to(dtype)
    for i in range(120):
        sd, dd = pick_dtype(rng), pick_dtype(rng)
        if i % 8 == 0:
            dd = sd
        case = Case()
        t = case.new_view(rng, sd, gen_shape(rng, 30), INPUT_KINDS)
        bool_safe(case.bases[case.base_of(t)][0], dd)
        bases = case.bases_text()
        res = outcome(lambda: t.to(dd))
        if res[0] == "ok":
            r = res[1]
            if not all(same_values(p, r) for p in converted_paths(t, dd, t.shape)):
                count("to: dropped, paths differ %s -> %s" % (dname(sd), dname(dd)))
                continue
            expect = ok_fields(r, "1" if r is t else "0", case, None, False)
        else:
            expect = error_fields(res[1], res[2])
        f.write(row("to.%d" % i, "to", "-", dname(dd), bases, case, t, None, None, expect) + "\n")


def gen_layout(rng, f):
    kinds = INPUT_KINDS + ["channels_last"] * 3
    for i in range(160):
        op = "clone" if i % 2 == 0 else "contiguous"
        fmt = rng.choice(list(FORMATS))
        case = Case()
        rank = rng.choice([4, 4, 5, 5, 1, 2, 3, 0])
        shape = gen_shape(rng, 40)
        while len(shape) != rank:
            shape = gen_shape(rng, 40)
        t = case.new_view(rng, pick_dtype(rng), shape, kinds)
        bases = case.bases_text()
        res = outcome(lambda: getattr(t, op)(memory_format=FORMATS[fmt]))
        if res[0] == "ok":
            expect = ok_fields(res[1], "1" if res[1] is t else "0", case, None, False)
        else:
            expect = error_fields(res[1], res[2])
        f.write(row("%s.%d" % (op, i), op, "-", fmt, bases, case, t, None, None, expect) + "\n")


# ---- shell dtypes (not in 1.13) ------------------------------------------------------

SHELLS = {  # Tessera's name -> (PyTorch's error name, a 1.13 dtype of the same size)
    "uint16": ("UInt16", I16), "uint32": ("UInt32", I32), "uint64": ("UInt64", I64),
    "float8_e4m3fn": ("Float8_e4m3fn", U8), "float8_e5m2": ("Float8_e5m2", U8),
    "float8_e4m3fnuz": ("Float8_e4m3fnuz", U8), "float8_e5m2fnuz": ("Float8_e5m2fnuz", U8),
    "float8_e8m0fnu": ("Float8_e8m0fnu", U8), "float4_e2m1fn_x2": ("Float4_e2m1fn_x2", U8),
}


def shell_base(rng, name, n):
    _, surrogate = SHELLS[name]
    data = make_values(rng, surrogate, n, 0.2)
    return "%s:%d:%s" % (name, n, hexbits(data)), data


def gen_shell(rng, f):
    """Arithmetic refuses shell dtypes; copies, clone and contiguous move
    their bytes. Messages from ops.h and spec/tensor-attributes.md (§2.2,
    §9 cases 8-9)."""
    n = 0
    for name, (err, surrogate) in SHELLS.items():
        is_f8 = name.startswith("float8")
        is_uint = name.startswith("uint")
        kind = "Float8 Types" if is_f8 else "uint16, uint32, uint64 types"
        if is_uint:  # small values, which float32 holds exactly
            data = torch.tensor([rng.randint(0, 1000) for _ in range(6)], dtype=surrogate)
            data[rng.randrange(6)] = 0
            base = "%s:6:%s" % (name, hexbits(data))
            other_data = torch.tensor([rng.randint(0, 9) for _ in range(3)], dtype=surrogate)
            other = "%s:3:%s" % (name, hexbits(other_data))
        else:
            base, data = shell_base(rng, name, 6)
            other, other_data = shell_base(rng, name, 3)
        v = "v0 [2,3] [3,1] 0"
        divisors = ((v, base, lambda: data.view(2, 3)), ("v1 [3] [1] 0", base + ";" + other, lambda: other_data),
                    ("s i:2", base, lambda: 2))
        for op, arg in (("add", "i:1"), ("sub", "i:1"), ("mul", "-"), ("div", "none"), ("div", "trunc")):
            msg = '"add_stub" not implemented for \'%s\'' % err if op in ("add", "sub") else "*"
            for b, bases, value in divisors:
                n += 1
                expect = "err | TSR_ERR_NOT_SUPPORTED | " + msg
                if is_uint and arg == "none":
                    # True division meets in the default dtype, which computes.
                    d = value()
                    q = data.view(2, 3).to(F32) / (d.to(F32) if isinstance(d, torch.Tensor) else d)
                    expect = "ok | float32 | [2,3] | [3,1] | - | %s | -" % hexbits(q)
                f.write(" | ".join(["shell.%d" % n, op, "new", arg, bases, v, b, "-", expect]) + "\n")
        if is_f8:
            n += 1
            f32 = "float32:3:" + hexbits(torch.ones(3))
            f.write(" | ".join(["shell.%d" % n, "add", "new", "i:1", base + ";" + f32, v, "v1 [3] [1] 0", "-",
                                "err | RuntimeError | Promotion for %s is not supported, attempted to "
                                "promote %s and Float" % (kind, err)]) + "\n")
            n += 1
            f.write(" | ".join(["shell.%d" % n, "add", "new", "i:1", base, v, "s c:0x0.0p+0,0x1.0p+0", "-",
                                "err | RuntimeError | Unknown Complex ScalarType for %s" % err]) + "\n")
        if name != "float4_e2m1fn_x2":
            i64 = "int64:3:" + hexbits(torch.ones(3, dtype=I64))
            n += 1
            f.write(" | ".join(["shell.%d" % n, "mul", "new", "-", i64 + ";" + base, "v0 [3] [1] 0",
                                "v1 [2,3] [3,1] 0", "-",
                                "err | RuntimeError | Promotion for %s is not supported, attempted to "
                                "promote Long and %s" % (kind, err)]) + "\n")
        # byte moves: copy_ within the dtype, clone and contiguous of a transposed view
        t = data.view(2, 3).t()
        n += 1
        dst_base = shell_base(rng, name, 6)[0]
        f.write(" | ".join(["shell.%d" % n, "copy_", "-", "-", dst_base + ";" + base, "v0 [3,2] [2,1] 0",
                            "v1 [3,2] [1,3] 0", "-", "ok | %s | [3,2] | [2,1] | - | %s | %s" % (
                                name, hexbits(t), hexbits(t))]) + "\n")
        for op, fmt in (("clone", "preserve_format"), ("clone", "contiguous_format"),
                        ("contiguous", "contiguous_format")):
            n += 1
            strides = "[1,3]" if fmt == "preserve_format" else "[2,1]"
            f.write(" | ".join(["shell.%d" % n, op, "-", fmt, base, "v0 [3,2] [1,3] 0", "-", "-",
                                "ok | %s | [3,2] | %s | 0 | %s | -" % (name, strides, hexbits(t))]) + "\n")
        n += 1
        f.write(" | ".join(["shell.%d" % n, "to", "-", name, base, v, "-", "-",
                            "ok | %s | [2,3] | [3,1] | 1 | %s | -" % (name, hexbits(data))]) + "\n")


# ---- pow ------------------------------------------------------------------------
#
# torch.pow's three forms: tensor ^ tensor and tensor ^ Python number
# (draw_arith's cases), Python number ^ tensor (rows whose a is the
# number; new and out= only). Complex results are pow_complex.txt's
# (below). Integer powers are exact and wrap; negative integer
# exponents follow PyTorch (1, +-1 or 0 in the tensor forms, an error
# with a number exponent).

POW_EXPONENTS = [0, 1, -1, 2, 3, -2, 5, 0.5, -0.5, 2.5, -3.0, 1.0, 0.0, 2.0, -1.0, 3.0, -2.0, 0.1, 1e10,
                 True, False, float("inf"), float("-inf"), float("nan"), -7, 300, 70000, 2 ** 40, 1e39]
POW_BASES = [0, 1, -1, 2, -2.5, 0.5, -0.0, 10, 1e10, float("inf"), float("-inf"), float("nan"), True, False, -3]


def pow_self_consistent(base, t, result):
    """PyTorch's number ^ tensor again in a strided layout."""
    try:
        return same_values(torch.pow(base, strided_copy(t)), result, ulps_of("pow", result.dtype))
    except Exception:  # noqa: BLE001
        return False


def draw_pow_self(rng, cplx=False):
    case = Case()
    form = rng.choices(["new", "out"], weights=[3, 2])[0]
    shape = gen_shape(rng, 36)
    dt = rng.choice([B, U8, I8, I16, I32, I64, F16, BF16, F32, F64] + ([C64, C128] * 4 if cplx else []))
    t = case.new_view(rng, dt, shape, INPUT_KINDS)
    base = pick_scalar(rng, rng.choice(["bool", "int", "int", "float", "float"] + (["complex"] * 3 if cplx else [])))
    if isinstance(base, int) and not isinstance(base, bool) and dt in INTS + [B]:
        base = rng.choice([0, 1, -1, 2, 3, -7])  # keeps most powers from wrapping to 0
    try:
        probe = torch.pow(base, t)
    except Exception:  # noqa: BLE001
        return None
    if probe.is_complex() != cplx:
        return None
    out = draw_out(rng, case, probe) if form == "out" else None
    before_numel = out.numel() if out is not None else None
    bases = case.bases_text()
    t0 = t.clone()
    res = outcome(lambda: call("pow", form, None, base, t, out))
    if res[0] == "err":
        if "\n" in res[2]:
            return None
        expect = error_fields(res[1], res[2])
    else:
        if not pow_self_consistent(base, t0, probe):
            count("dropped: paths differ (number ^ tensor)")
            return None
        if cplx and not bool(pow_accurate(base, t0, probe).all()):
            count("dropped: PyTorch inaccurate in %s (number ^ tensor)" % dname(probe.dtype))
            return None
        resized = form == "out" and before_numel == 0 and res[1].numel() != 0
        expect = ok_fields(res[1], "-", case, out, resized)
    return row("", "pow", form, "-", bases, case, base, t, out, expect)


def pow_float_values(dt):
    v = special_values(dt)
    extra = [0.9999, 1.0001, 3.0, -3.0, 10.0, 0.1, 100.0, -100.0, 1e-5, 7.0, 0.75, 1.25]
    return torch.cat([v, torch.tensor(extra, dtype=F64).to(dt)])


def gen_pow(rng, f):
    gen_random(rng, f, ["pow"], 500)
    n = 0
    while n < 120:
        line = draw_pow_self(rng)
        if line is not None:
            n += 1
            f.write("pow.self%d%s\n" % (n, line))
    fw = lambda name, form, build: error_case(f, "pow-%s" % name, "pow", form, None, build)  # noqa: E731
    for dt in [U8, I8, I16, I32, I64, F16, BF16, F32, F64]:
        v = pow_float_values(dt) if dt in FLOATS else special_values(dt)
        if dt in INTS:
            v = torch.cat([v, torch.tensor([3, -2, -3, 5, 63, 64, -1], dtype=I64).to(dt)])
        k = len(v)
        # every value to the power of every other (the element loop where
        # PyTorch's vector loop differs in its last bits)
        fw("special-%s" % dname(dt), "new",
           lambda c: (spaced_as(c, dt, v, [k, 1], [2, 0]), spaced_as(c, dt, v, [1, k], [0, 2]), None))
        for i, x in enumerate(POW_EXPONENTS):
            fw("special-scalar-%s-%d" % (dname(dt), i), "new", lambda c: (spaced(c, dt, v), x, None))
        for i, x in enumerate(POW_BASES):
            fw("special-self-%s-%d" % (dname(dt), i), "new", lambda c: (x, spaced(c, dt, v), None))
    fw("bool-bool", "new", lambda c: (plain(c, B, [2], torch.tensor([1, 0])), plain(c, B, [2], torch.tensor([1, 1])), None))
    for i, x in enumerate([True, False, 2, -1, 2.5, -0.5]):
        fw("bool-scalar-%d" % i, "new", lambda c: (plain(c, B, [2], torch.tensor([1, 0])), x, None))
    fw("bool-zero-dim", "new", lambda c: (plain(c, B, [2], torch.tensor([1, 0])), plain(c, I64, [], torch.tensor(2)), None))
    fw("self-bool", "new", lambda c: (True, plain(c, B, [2], torch.tensor([1, 0])), None))
    fw("negative-int", "new", lambda c: (plain(c, I32, [3]), -2, None))
    fw("negative-int-inplace", "inplace", lambda c: (plain(c, U8, [3]), -1, None))
    fw("negative-int-zero-dim", "new", lambda c: (plain(c, I64, [3]), plain(c, I64, [], torch.tensor(-2)), None))
    fw("inplace-float-exponent", "inplace", lambda c: (plain(c, I64, [3]), 2.5, None))
    fw("inplace-float-tensor", "inplace", lambda c: (plain(c, I64, [3]), plain(c, F32, [3]), None))
    fw("out-other-dtype", "out", lambda c: (plain(c, I64, [3]), 2.5, plain(c, F64, [3])))
    fw("out-int-from-float", "out", lambda c: (plain(c, I64, [3]), 2.5, plain(c, I64, [3])))
    fw("out-tensor-cast", "out", lambda c: (plain(c, I64, [3]), plain(c, I64, [3]), plain(c, F32, [3])))
    fw("out-self-cast", "out", lambda c: (2, plain(c, I64, [3]), plain(c, F32, [3])))
    fw("broadcast", "new", lambda c: (plain(c, F32, [2, 1, 3]), plain(c, I32, [4, 1]), None))
    fw("shape", "new", lambda c: (plain(c, F32, [2, 3]), plain(c, F32, [3, 2]), None))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), 1.5, plain(c, F32, [0])))
    fw("zero-dim", "new", lambda c: (plain(c, F64, [], torch.tensor(2.0)), plain(c, F32, [3]), None))
    fw("complex32", "new", lambda c: (plain(c, C32, [2]), plain(c, C32, [2]), None))
    fw("complex32-scalar", "new", lambda c: (plain(c, C32, [2]), 2, None))


# ---- complex pow ----------------------------------------------------------------
#
# torch.pow with a complex result (pow_complex.txt). PyTorch 1.13 computes
# tensor ^ tensor and number ^ tensor with glibc's cpow, exp(y log x)
# (number ^ tensor fills 1 for a base equal to 1), and tensor ^ number by
# the formulas it picks for the exponents 0 (1), 1 (a copy), 1/2 (csqrt),
# -1/2 (1 / csqrt), -1, 2, 3 and -2 (products and quotients), cpow
# elsewhere. cpow's error grows with |y log x| (Tessera's does not: it
# takes y log x in two words), so cases are kept where PyTorch's parts
# are within 2 ulps of the true values (mpmath, on the side of the branch
# cut that x's signed zero names); a zero base or an infinite or NaN part
# is taken as PyTorch answers it.

def pow_true(x, y):
    """x ** y for Python complex numbers, principal branch; NaN where not
    checked."""
    parts = (x.real, x.imag, y.real, y.imag)
    if not all(math.isfinite(p) for p in parts) or x == 0:
        return complex(math.nan, math.nan)
    if abs(y) * (abs(math.log(abs(x))) + 4) > 2.0 ** 20:
        return None  # the angle is not known to the last bits: left out
    mpmath.mp.prec = 200
    if x.imag == 0:
        theta = mpmath.pi if x.real < 0 else mpmath.mpf(0)
        theta = -theta if math.copysign(1.0, x.imag) < 0 else theta
    else:
        theta = mpmath.atan2(x.imag, x.real)
    w = mpmath.mpc(y.real, y.imag) * mpmath.mpc(mpmath.log(mpmath.hypot(x.real, x.imag)), theta)
    try:
        return complex(mpmath.exp(w))
    except OverflowError:
        return complex(math.nan, math.nan)


def pow_accurate(base, exp, result):
    """Per element of PyTorch's complex result of base ** exp (tensors or
    Python numbers, converted to the result's dtype as PyTorch converts
    them): whether each part is within 2 ulps of the true value."""
    def values(v):
        if isinstance(v, torch.Tensor):
            return v.to(result.dtype).to(C128).expand(result.shape).reshape(-1).tolist()
        return [scalar_in(complex(v), result.dtype)] * result.numel()
    got = result.to(C128).reshape(-1).tolist()
    truth = [pow_true(x, y) for x, y in zip(values(base), values(exp))]
    keep = [t is not None and complex_close(t, g, component(result.dtype), 2) for t, g in zip(truth, got)]
    return torch.tensor(keep, dtype=B).reshape(result.shape)


POW_COMPLEX_NUMBERS = [1j, -1j, 0.5 + 0j, -0.5 + 0j, 2 + 0j, 3 + 0j, -2 + 0j, -1 + 0j, 1 + 0j, 0j,
                       complex(1.5, -0.5), complex(-0.25, 2.0), complex(0, 0.5), complex(float("inf"), 0),
                       complex(float("nan"), 0), complex(2.5, float("nan"))]


def pow_complex_values(dt):
    """The special grid of pow: every pair of parts among zeros, 1, -2.5,
    inf, NaN, and finite values near |x| = 1 and the real axis."""
    parts = [0.0, -0.0, 1.0, -2.5, float("inf"), float("nan")]
    grid = [complex(a, b) for a in parts for b in parts]
    grid += [complex(0.6, 0.8), complex(-0.6, -0.8), complex(1.0000001, 1e-9), complex(-3.0, 1e-12),
             complex(0.3, -1.7), complex(1e-20, 2.0), complex(50.0, 1.0)]
    return torch.tensor(grid, dtype=C128).to(dt)


def pow_pairs(x, y):
    """The pairs (x_i, y_j) of two complex tensors where PyTorch's
    tensor ^ tensor is accurate, as two 1-D tensors."""
    xs = x.reshape(-1, 1).expand(len(x), len(y)).reshape(-1)
    ys = y.reshape(1, -1).expand(len(x), len(y)).reshape(-1)
    keep = pow_accurate(xs, ys, torch.pow(xs, ys))
    count("left out: complex pow pairs, PyTorch inaccurate: %d of %d" % (int((~keep).sum()), len(keep)))
    return xs[keep].clone(), ys[keep].clone()


def gen_pow_complex(rng, f):
    gen_random(rng, f, ["pow"], 400, cplx=True)
    n = 0
    while n < 100:
        line = draw_pow_self(rng, cplx=True)
        if line is not None:
            n += 1
            f.write("pow.complex-self%d%s\n" % (n, line))
    fw = lambda name, form, build: error_case(f, "pow-complex-%s" % name, "pow", form, None, build)  # noqa: E731
    for dt in (C64, C128):
        v = pow_complex_values(dt)
        xs, ys = pow_pairs(v, v)
        # the element loop (a stride of 2), as gen_pow's grid
        fw("special-%s" % dname(dt), "new", lambda c: (spaced(c, dt, xs), spaced(c, dt, ys), None))
        for i, x in enumerate(POW_EXPONENTS + POW_COMPLEX_NUMBERS):
            r = torch.pow(v, x)
            w = v[pow_accurate(v, x, r)] if r.is_complex() else v
            fw("special-scalar-%s-%d" % (dname(dt), i), "new", lambda c, w=w: (spaced(c, dt, w), x, None))
        for i, x in enumerate(POW_BASES + POW_COMPLEX_NUMBERS):
            r = torch.pow(x, v)
            w = v[pow_accurate(x, v, r)] if r.is_complex() else v
            fw("special-self-%s-%d" % (dname(dt), i), "new", lambda c, w=w: (x, spaced(c, dt, w), None))
    for dt in (F32, F64):
        w = torch.tensor([0.0, -0.0, 1.0, -2.0, 0.5, float("inf"), float("-inf"), float("nan"), 3.0], dtype=dt)
        for i, x in enumerate(POW_COMPLEX_NUMBERS):
            r = torch.pow(w, x)
            # accurate, and the element loop's answer (PyTorch converts
            # the real tensor to a contiguous complex one, whose vector
            # loop gives 1 - 0i for 1 ^ (-1 + 0i))
            agree = torch.tensor([same_values(torch.pow(e.to(r.dtype).repeat(8), x)[:1],
                                              torch.pow(strided_copy(e.to(r.dtype).reshape(1)), x), 0)
                                  for e in w], dtype=B) if r.is_complex() else torch.ones(len(w), dtype=B)
            u = w[pow_accurate(w, x, r) & agree] if r.is_complex() else w
            fw("real-scalar-%s-%d" % (dname(dt), i), "new", lambda c, u=u: (spaced(c, dt, u), x, None))
    fw("mixed", "new", lambda c: (plain(c, F32, [3], torch.tensor([0.5, 2.0, 4.0])),
                                  plain(c, C64, [3], torch.tensor([1j, 0.5 + 0j, 2 - 1j])), None))
    fw("mixed-double", "new", lambda c: (plain(c, C64, [2], torch.tensor([1 + 1j, 2j])),
                                         plain(c, F64, [], torch.tensor(0.5)), None))
    fw("out-real", "out", lambda c: (plain(c, C64, [2]), plain(c, C64, [2]), plain(c, F32, [2])))
    fw("inplace-real", "inplace", lambda c: (plain(c, F32, [2]), 1j, None))
    fw("inplace-real-tensor", "inplace", lambda c: (plain(c, F32, [2]), plain(c, C64, [2]), None))
    fw("self-one-nan", "new", lambda c: (1, plain(c, C64, [3], torch.tensor([complex(math.nan, 0), complex(math.inf, 1), 1j])), None))
    fw("self-one-complex", "new", lambda c: (1 + 0j, plain(c, C128, [2], torch.tensor([complex(math.nan, math.nan), 2j])), None))
    fw("self-one-out", "out", lambda c: (1.0, plain(c, C64, [2], torch.tensor([complex(math.inf, math.nan), 1j])), plain(c, C64, [2])))
    fw("self-one-real", "new", lambda c: (1j, plain(c, F32, [2], torch.tensor([math.nan, 0.0])), None))
    fw("self-one-out-int", "out", lambda c: (1, plain(c, C64, [2], torch.tensor([1j, 2.0])), plain(c, I64, [2])))
    fw("self-one-out-float", "out", lambda c: (1.0, plain(c, F32, [3]), plain(c, I32, [0])))



# ---- round with decimals, nan_to_num ---------------------------------------------
#
# Rows of op "round_decimals" hold self in a and decimals in the `arg`
# field ("i:<decimals>"); rows of "nan_to_num" hold self in a and nan,
# posinf and neginf in `arg`, joined by "," (each "f:<hex>", '-' for
# None). Both are element loops in PyTorch 1.13 (round's with decimals has
# no vector form; nan_to_num's vector form selects the same values).

def numbers_row(case_id, op, case, form, fn, arg, a, out):
    """The line of a call of one input and numbers in `arg`; the bases are
    taken before the call."""
    bases = case.bases_text()
    res = outcome(fn)
    if res[0] == "err":
        expect = error_fields(res[1], res[2])
    else:
        before = out.numel() if out is not None else None
        resized = form == "out" and before == 0 and res[1].numel() != 0
        written = a if form == "inplace" else out
        expect = ok_fields(res[1], "-", case, written, resized)
    return " | ".join([case_id, op, form, arg, bases, case.text(a), "-", case.text(out), expect])


def round_decimals_call(form, a, d, out):
    if form == "out":
        torch.round(a, decimals=d, out=out)
        return out
    if form == "inplace":
        return a.round_(decimals=d)
    return torch.round(a, decimals=d)


def round_decimals_row(case_id, case, form, a, d, out):
    return numbers_row(case_id, "round_decimals", case, form, lambda: round_decimals_call(form, a, d, out),
                       "i:%d" % d, a, out)


# Around the powers of ten that are exact (22 in float64), that overflow
# the dtype (39 in float32, 309 in float64) and int64's ends (whose
# negation wraps).
ROUND_DECIMALS = [1, 2, 3, 4, -1, -2, -3, 5, -5, 8, 10, 15, 16, 22, 23, -22, -23, 30, 38, 39, -38, -39,
                  300, 308, 309, -308, -309, 2 ** 63 - 1, -2 ** 63 + 1, -2 ** 63]
ROUND_VALUES = [0.125, 0.135, 2.675, 1.005, 0.5, 1.5, 2.5, -2.5, 0.05, 0.15, 0.25, 0.35, 12345.678, 1234.5,
                150.0, 250.0, -50.0, 1.2345678, 9.995, -9.995, 3.14159, 1e-5, 6.02e23, 1e30]


def draw_round_decimals(rng):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    d = rng.choice(ROUND_DECIMALS + [1, 2, 3, -1, -2, 2, 3, 4, 6])
    dt = rng.choice([BF16, F32, F32, F64, F64])
    a = case.new_view(rng, dt, shape, OUTPUT_KINDS if form == "inplace" else INPUT_KINDS)
    base = case.bases[case.base_of(a)][0]
    if rng.random() < 0.7:  # values with digits to round, scaled near 10^-d
        scale = 10.0 ** max(-300, min(300, -d if abs(d) < 400 else 0))
        vals = [rng.uniform(-100, 100) * scale for _ in range(base.numel())]
        base.copy_(torch.tensor(vals, dtype=F64).to(dt))
    probe = torch.round(a, decimals=d)
    out = None
    if form == "out":
        out = draw_out(rng, case, probe) if rng.random() < 0.3 else case.new_view(rng, dt, list(probe.shape), OUTPUT_KINDS)
    return round_decimals_row("", case, form, a, d, out)


def gen_round_decimals(rng, f):
    write_drawn(f, "round_decimals", lambda: draw_round_decimals(rng), 300)
    fw = case_writer(f, "round_decimals", round_decimals_row)
    for dt in (BF16, F32, F64):
        v = torch.cat([special_values(dt), torch.tensor(ROUND_VALUES + [-x for x in ROUND_VALUES], dtype=F64).to(dt)])
        for d in ROUND_DECIMALS:
            fw("special-%s-%d" % (dname(dt), d), "new", lambda c: (plain(c, dt, [len(v)], v), d, None))
        fw("special-%s-inplace" % dname(dt), "inplace", lambda c: (plain(c, dt, [len(v)], v), 2, None))
        fw("special-%s-out" % dname(dt), "out", lambda c: (plain(c, dt, [len(v)], v), -1, plain(c, dt, [len(v)])))
        fw("zero-dim-%s" % dname(dt), "new", lambda c: (plain(c, dt, [], torch.tensor(2.675)), 2, None))
        fw("transposed-%s" % dname(dt), "new",
           lambda c: (c.view(c.base(torch.tensor(ROUND_VALUES[:6], dtype=F64).to(dt)), [3, 2], [1, 3], 0), 1, None))
    for dt in (F16, B, U8, I32, I64, C64, C32):
        for d in (0, 2, -1):
            fw("dtype-%s-%d" % (dname(dt), d), "new", lambda c: (plain(c, dt, [3]), d, None))
    fw("float-0", "new", lambda c: (plain(c, F32, [4], torch.tensor([0.5, 1.5, 2.5, -0.5])), 0, None))
    fw("float-0-out", "out", lambda c: (plain(c, F64, [2]), 0, plain(c, F64, [2])))
    fw("out-float64", "out", lambda c: (plain(c, F32, [3]), 2, plain(c, F64, [3])))
    fw("out-bf16", "out", lambda c: (plain(c, F32, [3]), -2, plain(c, BF16, [3])))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), 1, plain(c, F32, [0])))
    fw("out-transposed", "out", lambda c: (plain(c, F64, [3, 2]), 3,
                                           c.view(c.base(torch.zeros(6, dtype=F64)), [3, 2], [1, 3], 0)))


def nan_to_num_call(form, a, nums, out):
    nan, pos, neg = nums
    if form == "out":
        torch.nan_to_num(a, nan, pos, neg, out=out)
        return out
    if form == "inplace":
        return a.nan_to_num_(nan, pos, neg)
    return torch.nan_to_num(a, nan, pos, neg)


def nan_to_num_row(case_id, case, form, a, nums, out):
    arg = ",".join("-" if x is None else scalar_text(float(x)) for x in nums)
    return numbers_row(case_id, "nan_to_num", case, form, lambda: nan_to_num_call(form, a, nums, out), arg, a, out)


# Replacements: None, zeros, numbers each dtype rounds (1e10 is inf in
# float16; 1e-10 rounds to 0 there), the dtypes' edges, infinities, NaN.
NAN_TO_NUM_VALUES = [None, None, 0.0, -0.0, 1.5, -7.25, 1e10, -1e-10, 1e300, -1e300, float("inf"),
                     float("-inf"), float("nan"), 65504.0, 65520.0, 3.4028234663852886e38, 3.5e38, 1e-40,
                     5e-324, 0.1, -12345.678]


def draw_nan_to_num(rng):
    case = Case()
    form = rng.choices(["new", "out", "inplace"], weights=[5, 3, 3])[0]
    shape = gen_shape(rng, 36)
    dt = pick_dtype(rng)
    if dt.is_complex and rng.random() < 0.9:
        return None
    nums = tuple(rng.choice(NAN_TO_NUM_VALUES) for _ in range(3))
    a = case.new_view(rng, dt, shape, OUTPUT_KINDS if form == "inplace" else INPUT_KINDS)
    try:
        probe = torch.nan_to_num(a, *nums)
    except Exception:  # noqa: BLE001 - refusals are the dedicated cases'
        return None
    out = None
    if form == "out":
        out = draw_out(rng, case, probe) if rng.random() < 0.3 else case.new_view(rng, dt, list(probe.shape), OUTPUT_KINDS)
    return nan_to_num_row("", case, form, a, nums, out)


def gen_nan_to_num(rng, f):
    write_drawn(f, "nan_to_num", lambda: draw_nan_to_num(rng), 300)
    fw = case_writer(f, "nan_to_num", nan_to_num_row)
    triples = [(None, None, None), (0.0, None, None), (1.5, 2.5, -3.5), (-0.0, 0.0, -0.0), (1e10, 1e10, -1e10),
               (1e-10, -1e-10, 1e-40), (float("nan"), float("-inf"), float("inf")), (None, 1e300, -1e300),
               (65520.0, 3.5e38, -3.5e38), (5e-324, -5e-324, 0.1)]
    for dt in FLOATS:
        v = special_values(dt)
        for k, nums in enumerate(triples):
            fw("special-%s-%d" % (dname(dt), k), "new", lambda c: (plain(c, dt, [len(v)], v), nums, None))
        fw("special-%s-inplace" % dname(dt), "inplace", lambda c: (plain(c, dt, [len(v)], v), (1.0, 2.0, 3.0), None))
        fw("special-%s-out" % dname(dt), "out", lambda c: (plain(c, dt, [len(v)], v), (None, None, None),
                                                              plain(c, dt, [len(v)])))
        fw("strided-%s" % dname(dt), "new", lambda c: (spaced(c, dt, v), (None, -1.0, None), None))
        fw("zero-dim-%s" % dname(dt), "new", lambda c: (plain(c, dt, [], torch.tensor(float("inf"))), (None,) * 3, None))
    for dt in [B] + INTS:
        v = special_values(dt)
        fw("pass-%s" % dname(dt), "new", lambda c: (plain(c, dt, [len(v)], v), (1.0, 2.0, 3.0), None))
        fw("pass-%s-inplace" % dname(dt), "inplace", lambda c: (plain(c, dt, [len(v)], v), (None,) * 3, None))
        fw("pass-%s-out" % dname(dt), "out", lambda c: (plain(c, dt, [len(v)], v), (None,) * 3, plain(c, dt, [len(v)])))
    for dt in COMPLEX:
        fw("dtype-%s" % dname(dt), "new", lambda c: (plain(c, dt, [3]), (None,) * 3, None))
    fw("out-float64", "out", lambda c: (plain(c, F32, [3]), (None,) * 3, plain(c, F64, [3])))
    fw("out-int-float", "out", lambda c: (plain(c, I64, [3]), (None,) * 3, plain(c, F32, [3])))
    fw("out-int32", "out", lambda c: (plain(c, F32, [3]), (None,) * 3, plain(c, I32, [3])))
    fw("out-resize-empty", "out", lambda c: (plain(c, F32, [2, 2]), (None,) * 3, plain(c, F32, [0])))
    fw("out-int-resize-empty", "out", lambda c: (plain(c, I16, [2, 2]), (None,) * 3, plain(c, I16, [0])))
    fw("transposed", "new", lambda c: (c.view(c.base(special_values(F32)[:6]), [3, 2], [1, 3], 0), (None,) * 3, None))
    fw("out-transposed", "out", lambda c: (plain(c, F64, [3, 2], special_values(F64)[:6]), (1.0, None, None),
                                           c.view(c.base(torch.zeros(6, dtype=F64)), [3, 2], [1, 3], 0)))


# ---- main -----------------------------------------------------------------------

HEADER = """# {name}: {what}
# Generated by tests/ops/gen_ops_cases.py from PyTorch {version} (seed {seed:#x});
# regenerate: /usr/bin/python3 tests/ops/gen_ops_cases.py. Do not edit by hand.
# Format: see the generator's docstring.
"""


def main():
    os.makedirs(DATA, exist_ok=True)
    rng = random.Random(SEED)
    tables = [
        ("add", "torch.add / torch.sub with alpha: new result, out=, in place", lambda f: gen_random(rng, f, ["add", "sub"], 1000)),
        ("mul", "torch.mul: new result, out=, in place", lambda f: gen_random(rng, f, ["mul"], 600)),
        ("div", "torch.div, rounding_mode None / 'trunc' / 'floor'", lambda f: gen_random(rng, f, ["div"], 800)),
        ("errors", "dedicated error cases of the arithmetic", gen_errors),
        ("device", "operands on two devices ({acc}: the accelerator)", gen_device),
        ("copy", "copy_ (every dtype pair), fill_, to(dtype)", lambda f: gen_copy(rng, f)),
        ("layout", "clone(memory_format) and contiguous(memory_format)", lambda f: gen_layout(rng, f)),
        ("shell", "shell dtypes (from the spec; torch 1.13 lacks them)", lambda f: gen_shell(rng, f)),
    ]
    # Families added later draw from generators of their own, so that
    # adding one leaves the others' tables as they were.
    later = 0
    for op in ("maximum", "minimum"):
        own = random.Random("%x:%s" % (SEED, op))
        tables.append((op, "torch.%s: new result, out=, out=a; NaN, +-inf, +-0; errors" % op,
                       lambda f, own=own, op=op: gen_maxmin(own, f, op)))
        later += 1
    own = random.Random("%x:clamp" % SEED)
    tables.append(("clamp", "torch.clamp with tensor bounds: random cases, special values, errors",
                   lambda f, own=own: gen_clamp(own, f)))
    later += 1
    own = random.Random("%x:where" % SEED)
    tables.append(("where", "torch.where: random cases, special values in every dtype, scalars, errors",
                   lambda f, own=own: gen_where(own, f)))
    later += 1
    own = random.Random("%x:clamp_scalar" % SEED)
    tables.append(("clamp_scalar", "torch.clamp with Python-number bounds: random cases, special values, errors",
                   lambda f, own=own: gen_clamp_scalar(own, f)))
    later += 1
    own = random.Random("%x:lerp" % SEED)
    tables.append(("lerp", "torch.lerp, tensor and Python-number weights: random cases, special values, errors",
                   lambda f, own=own: gen_lerp(own, f)))
    later += 1
    for op in ("addcmul", "addcdiv"):
        own = random.Random("%x:%s" % (SEED, op))
        tables.append((op, "torch.%s: random cases, special values, errors" % op,
                       lambda f, own=own, op=op: gen_addc(own, f, op)))
        later += 1
    own = random.Random("%x:pow" % SEED)
    tables.append(("pow", "torch.pow: tensor ^ tensor, tensor ^ number, number ^ tensor; special values, errors",
                   lambda f, own=own: gen_pow(own, f)))
    later += 1
    own = random.Random("%x:pow_complex" % SEED)
    tables.append(("pow_complex", "torch.pow with complex results: the three forms; special values, errors",
                   lambda f, own=own: gen_pow_complex(own, f)))
    later += 1
    for op in UNARY + BINARY:
        own = random.Random("%x:%s" % (SEED, op))
        what = "torch.%s: random cases, special values in every dtype, errors" % op
        gen = gen_unary if op in UNARY else gen_binary
        tables.append((op, what, lambda f, own=own, op=op, gen=gen: gen(own, f, op)))
        later += 1
    for op, what, gen in (("round_decimals", "torch.round(x, decimals=d): random cases, special values, errors",
                           gen_round_decimals),
                          ("nan_to_num", "torch.nan_to_num: random cases, special values in every dtype, errors",
                           gen_nan_to_num)):
        own = random.Random("%x:%s" % (SEED, op))
        tables.append((op, what, lambda f, own=own, gen=gen: gen(own, f)))
        later += 1
    only = sys.argv[1:]  # family names: rewrite just those tables
    shared = len(tables) - later  # the first ones share `rng`
    for k, (name, what, fn) in enumerate(tables):
        if only and name not in only:
            if k < shared and any(n in only for n, _, _ in tables[k + 1:shared]):
                fn(io.StringIO())  # drawn all the same, for the families after it
            continue
        with open(os.path.join(DATA, name + ".txt"), "w") as f:
            f.write(HEADER.format(name=name + ".txt", what=what, version=torch.__version__, seed=SEED))
            fn(f)
    for key in sorted(STATS):
        print("%s: %d" % (key, STATS[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
