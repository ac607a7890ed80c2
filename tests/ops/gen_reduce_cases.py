#!/usr/bin/python3
"""Generates the known answers of the reduction conformance suite
(tests/ops/data/reduce.txt) from a real PyTorch.

Run from anywhere with Debian's interpreter, which has torch 1.13:

    /usr/bin/python3 tests/ops/gen_reduce_cases.py

The output depends only on SEED below. With --large it writes only the
accuracy rows for 2^22, 2^24 and 2^26 elements, into
data/reduce_acc_large.txt, which the suite does not run (seconds of
PyTorch and of fsum per row): test_reduce_conformance reads it as well.

The format (read by test_reduce_conformance.c), one line per case, fields
separated by " | ", '#' starting a comment line:

    id | op | form | dims | keepdim | dtype | base | a | out | ok | dtype | sizes | tol | values | indices
    id | op | form | dims | keepdim | dtype | base | a | out | err | <status> | <message>
    acc | n | seed | torch_sum | exact | torch_err
    big | op | dtype | [sizes] | dims | seed | dtype | [sizes] | tol | values

  op      sum prod mean nansum nanmean amax amin all any argmax argmin
          max min (max/min: torch.max(x, dim), values and indices)
  form    new (a new result) or out (out=)
  dims    '-' (dim=None: every dimension) or a comma list ("0,-1")
  keepdim 0 or 1
  dtype   dtype= (a dtype name) or '-'
  base    "dtype:n:hex": the input's storage, n elements, bytes as hex
  a       "[sizes] [strides] offset": the input, an as_strided view of base
  out     '-' or "dtype [sizes] [strides]" (a fresh out= tensor, zeros),
          for max/min "dtype [sizes] [strides];dtype [sizes] [strides]"
  ok      the result's (for out=, the out tensor's) dtype and sizes; tol:
          the largest absolute difference allowed per element (0: the same
          bits, any NaN matching any NaN; complex: per part); values: every
          element in row-major order as hex; indices (max/min): the int64
          indices as hex, '-' otherwise
  err     <status>: the Tessera status name (IndexError -> TSR_ERR_INDEX,
          RuntimeError -> TSR_ERR_RUNTIME, a "not implemented for" dtype
          error -> TSR_ERR_NOT_SUPPORTED); <message>: the exact text
  big     a large reduction (several chunks of kernels/reduce_order.h):
          the input is big_values(numel, seed, dtype) in row-major order
          (the C runner draws the same), reduced along dims (no keepdim),
          PyTorch's result's dtype, sizes, the tolerance and its values
  acc     the accuracy of float32 sum: n elements drawn by acc_values(n,
          seed) (the C runner draws the same bits), PyTorch's sum (float32
          hex bits), the exact sum rounded to float64 (math.fsum: hex
          bits) and PyTorch's absolute error; the runner computes Tessera's
          error and requires it to be no larger, or below one unit in the
          last place of the exact sum

Tolerances: sums of floats are compared against PyTorch within
4 * eps(accumulation) * sum|x| + one unit in the last place of the result
(Tessera adds in another, fixed order: docs/semantics.md); products within
the same bound on prod|x| times the count; everything else (integers, max,
min, arg*, all, any) bit for bit.
"""

import math
import os
import random
import struct
import sys
import warnings

import torch

from gen_ops_cases import (B, BF16, C32, C64, C128, CLASSIC, COMPLEX, F16, F32, F64, FLOATS, I8,
                           I16, I32, I64,
                           U8, dname, hexbits, ints, numel)

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

SEED = 0x5ED0C3
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

ALL = CLASSIC

# op: (how it takes dims, whether it takes dtype=)
#   many: a list of dims; one: one dim or None; pair: torch.max(x, dim)
OPS = {
    "sum": ("many", True), "prod": ("one", True), "mean": ("many", True),
    "nansum": ("many", True), "nanmean": ("many", True), "amax": ("many", False),
    "amin": ("many", False), "all": ("one", False), "any": ("one", False),
    "argmax": ("one", False), "argmin": ("one", False), "max": ("pair", False),
    "min": ("pair", False),
}
SUMS = {"sum", "mean", "nansum", "nanmean"}


def eps(dtype):
    return {F16: 2.0 ** -11, BF16: 2.0 ** -8, F32: 2.0 ** -24, F64: 2.0 ** -53,
            C32: 2.0 ** -11, C64: 2.0 ** -24, C128: 2.0 ** -53}.get(dtype, 0.0)


def acc_eps(dtype):
    return 2.0 ** -53 if dtype in (F64, C128) else 2.0 ** -24


# ---- values -----------------------------------------------------------------

def random_values(rng, dtype, n, special, small=False):
    if dtype == B:
        return torch.tensor([rng.random() < 0.6 for _ in range(n)], dtype=B)
    if dtype.is_floating_point is False and not dtype.is_complex:
        lo, hi = (0, 20) if dtype == U8 else (-12, 12)
        vals = [rng.randint(lo, hi) for _ in range(n)]
        if special and n:
            info = torch.iinfo(dtype)
            for _ in range(max(1, n // 6)):
                vals[rng.randrange(n)] = rng.choice([info.min, info.max, 0])
        return torch.tensor(vals, dtype=I64).to(dtype)
    comp = {C32: F16, C64: F32, C128: F64}.get(dtype, dtype)
    parts = 2 if dtype in COMPLEX else 1
    vals = []
    for _ in range(n * parts):
        v = rng.choice([rng.uniform(-2, 2), rng.randint(-4, 4) / 2]) if small else \
            rng.choice([rng.uniform(-4, 4), rng.randint(-6, 6) / 2, rng.uniform(-100, 100)])
        vals.append(v)
    if special and n:
        for _ in range(max(1, n // 5)):
            vals[rng.randrange(n * parts)] = rng.choice(
                [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0])
    if parts == 2:
        # 1.13 converts complex to bool by the real part, Tessera (as 2.9)
        # by both: no zero real part beside a nonzero imaginary one
        for i in range(0, len(vals), 2):
            if vals[i] == 0:
                vals[i + 1] = 0.0
    t = torch.tensor(vals, dtype=F64).to(comp)
    if parts == 2:
        t = torch.view_as_complex(t.to(F32 if comp == F16 else comp).reshape(n, 2))
        t = t.to(dtype)
    return t


# ---- layouts ----------------------------------------------------------------

def row_major(sizes):
    st, acc = [0] * len(sizes), 1
    for i in reversed(range(len(sizes))):
        st[i] = acc
        acc *= sizes[i]
    return st


def make_input(rng, dtype, sizes, special, small=False):
    """An as_strided view with `sizes`: contiguous, permuted, sliced,
    expanded, or channels_last; its storage and view parameters."""
    nd = len(sizes)
    kind = rng.choice(["contig", "contig", "perm", "slice", "expand", "offset"]
                      + (["cl"] if nd == 4 else []))
    if nd == 0 or numel(sizes) == 0:
        kind = "contig"
    if kind == "perm" and nd >= 2:
        perm = list(range(nd))
        rng.shuffle(perm)
        inv = [perm.index(i) for i in range(nd)]
        phys = [sizes[p] for p in perm]
        st = row_major(phys)
        strides = [st[inv[d]] for d in range(nd)]
        n, offset = numel(sizes), 0
    elif kind == "slice":
        d = rng.randrange(nd)
        big = list(sizes)
        big[d] = sizes[d] * 2
        st = row_major(big)
        strides = list(st)
        strides[d] *= 2
        n, offset = numel(big), 0
    elif kind == "expand":
        d = rng.randrange(nd)
        small = list(sizes)
        small[d] = 1
        st = row_major(small)
        strides = list(st)
        strides[d] = 0
        n, offset = numel(small), 0
    elif kind == "cl":
        t = torch.empty(sizes).to(memory_format=torch.channels_last)
        strides = list(t.stride())
        n, offset = numel(sizes), 0
    else:
        offset = 3 if kind == "offset" else 0
        st = row_major(sizes)
        strides = st
        n = numel(sizes) + offset
    base = random_values(rng, dtype, max(n, 1) if numel(sizes) else n, special, small)
    view = torch.as_strided(base, sizes, strides, offset) if numel(sizes) else \
        torch.empty(sizes, dtype=dtype)
    return base, view, sizes, strides, offset


# ---- calls ------------------------------------------------------------------

def call(op, x, dims, keepdim, dtype, out):
    how, takes_dtype = OPS[op]
    fn = getattr(torch, op)
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    if out is not None:
        kw["out"] = out
    if how == "pair":
        return fn(x, dims[0], keepdim, **kw)
    if how == "one":
        if dims is None:
            if op in ("argmax", "argmin"):
                return fn(x, None, keepdim, **kw)
            return fn(x, **kw)
        return fn(x, dims[0], keepdim, **kw)
    if dims is None:
        return fn(x, [], True, **kw) if keepdim else fn(x, **kw)
    return fn(x, dims, keepdim, **kw)


def status_of(e):
    msg = str(e).splitlines()[0]
    if " not implemented for " in msg:
        return "TSR_ERR_NOT_SUPPORTED", msg
    return {"IndexError": "TSR_ERR_INDEX", "RuntimeError": "TSR_ERR_RUNTIME",
            "TypeError": "TSR_ERR_TYPE", "ValueError": "TSR_ERR_INVALID_ARGUMENT"}[
        type(e).__name__], msg


def reduced_dims(x, dims):
    if dims is None or len(dims) == 0:
        return list(range(x.dim()))
    return [d % max(x.dim(), 1) for d in dims]


def tolerance(op, x, dims, keepdim, res_dtype, computed):
    """The largest difference allowed per element (see the docstring): the
    bound, plus PyTorch's own distance from the answer in float64 (its
    float16 sums over several dims round in between)."""
    if op not in SUMS and op != "prod":
        return 0.0
    if res_dtype not in FLOATS and res_dtype not in COMPLEX:
        return 0.0
    wide = torch.complex128 if res_dtype in COMPLEX else F64
    try:
        ref = call(op, x.to(res_dtype).to(wide), dims, keepdim, None, None)
        diff = (ref.to(wide) - computed.to(wide)).reshape(-1)
        diff = torch.view_as_real(diff).reshape(-1) if diff.is_complex() else diff
        diff = diff[torch.isfinite(diff)]
        own = float(diff.abs().max()) if diff.numel() else 0.0
    except Exception:  # noqa: BLE001 - no float64 answer: the bound alone
        own = 0.0
    xd = x.to(torch.complex128 if x.is_complex() else F64)
    mag = xd.abs()
    if not torch.isfinite(mag).all():
        mag = torch.where(torch.isfinite(mag), mag, torch.zeros_like(mag))
    rd = reduced_dims(x, dims)
    n = numel([x.shape[d] for d in rd]) if x.dim() else 1
    keep = [d for d in range(x.dim()) if d not in rd]
    grouped = mag.permute(keep + rd).reshape([x.shape[d] for d in keep] + [n]) if x.dim() else \
        mag.reshape(1)
    if op == "prod":
        big = grouped.prod(-1)
        bound = float(big.max()) * (n + 2) * 4 * acc_eps(res_dtype) if big.numel() else 0.0
    else:
        big = grouped.sum(-1)
        bound = float(big.max()) * 4 * acc_eps(res_dtype) if big.numel() else 0.0
        if op in ("mean", "nanmean") and n:
            bound = bound / n
    parts = torch.view_as_real(computed) if computed.is_complex() else computed
    finite = parts[torch.isfinite(parts)]
    top = float(finite.abs().max()) if finite.numel() else 0.0
    return bound + own + 2 * top * eps(res_dtype) + 1e-300


def out_spec(t):
    return "%s %s %s" % (dname(t.dtype), ints(t.shape), ints(t.stride()))


class Writer:
    def __init__(self):
        self.lines = []
        self.n = 0

    def case(self, op, form, dims, keepdim, dtype, base, sizes, strides, offset, outs, fn):
        self.n += 1
        head = [
            "r.%d" % self.n, op, form,
            "-" if dims is None else ",".join(str(d) for d in dims),
            "1" if keepdim else "0",
            "-" if dtype is None else dname(dtype),
            "%s:%d:%s" % (dname(base.dtype), base.numel(), hexbits(base)),
            "%s %s %d" % (ints(sizes), ints(strides), offset),
            "-" if outs is None else ";".join(out_spec(o) for o in outs),
        ]
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - every PyTorch error is a case
            st, msg = status_of(e)
            self.lines.append(" | ".join(head + ["err", st, msg]))
            return
        values, indices = (r if isinstance(r, tuple) else (r, None))
        if outs is not None:
            values = outs[0]
            indices = outs[1] if len(outs) > 1 else None
        self.lines.append(" | ".join(head + [
            "ok", dname(values.dtype), ints(values.shape), "%r" % self.tol(values),
            hexbits(values), "-" if indices is None else hexbits(indices)]))

    tol_fn = None

    def tol(self, values):
        return self.tol_fn(values) if self.tol_fn else 0.0


SHAPES = [(2, 3, 4), (2, 3), (5,), (), (4, 1, 3), (2, 3, 2, 2), (0, 3), (3, 0, 2), (17,), (6, 7)]


def dims_choices(rng, how, nd):
    if how == "many":
        opts = [None, [0], [-1], []]
        if nd >= 2:
            opts += [[0, nd - 1], [nd - 1, 0], [-2]]
        if nd >= 3:
            opts += [[0, 2], [1, 2], [0, 1, 2][:nd]]
        return opts
    if how == "pair":
        return [[0], [-1]] + ([[1]] if nd >= 2 else [])
    return [None, [0], [-1]] + ([[1]] if nd >= 2 else [])


def refused(op, dt):
    """Whether PyTorch refuses `op` on `dt` whatever the shape."""
    try:
        call(op, torch.ones(2, 3).to(dt), [0], False, None, None)
        return False
    except Exception:  # noqa: BLE001
        return True


def gen_cases(w, rng):
    for op, (how, takes_dtype) in OPS.items():
        for dt in ALL:
            # a refused dtype: its message on a few shapes (empty ones too)
            shapes = [(2, 3), (0, 3), (2, 3, 4), (4, 1, 3)] if refused(op, dt) else SHAPES
            for shape in shapes:
                nd = len(shape)
                opts = dims_choices(rng, how, max(nd, 1))
                if nd == 0:
                    opts = [d for d in opts if d is None or d == [] or d in ([0], [-1])]
                for dims in opts:
                    keepdim = rng.random() < 0.5
                    if how == "one" and dims is None and op not in ("argmax", "argmin"):
                        keepdim = False  # torch.prod(x) / all(x) / any(x) take no keepdim
                    # complex products of infinities depend on the order
                    special = (dt in FLOATS or (dt in COMPLEX and op != "prod")) and \
                        rng.random() < 0.35
                    base, x, sizes, strides, offset = make_input(rng, dt, list(shape), special,
                                                                 op == "prod")
                    one(w, op, how, "new", dims, keepdim, None, x, base, sizes, strides, offset)
                # dtype= and out=, a few per dtype
                if takes_dtype and shape in ((2, 3, 4), (2, 3), (0, 3)):
                    for d2 in (F64, I64, F16, dt):
                        base, x, sizes, strides, offset = make_input(rng, dt, list(shape), False,
                                                                     op == "prod")
                        one(w, op, how, "new", [0], rng.random() < 0.5, d2, x, base, sizes,
                            strides, offset)
                if shape in ((2, 3, 4), (2, 3)):
                    base, x, sizes, strides, offset = make_input(rng, dt, list(shape), False,
                                                                 op == "prod")
                    for odt in (dt, I64, F32, B):
                        one(w, op, how, "out", [-1], rng.random() < 0.5, None, x, base, sizes,
                            strides, offset, out_dtype=odt)
                    one(w, op, how, "out", [-1], False, None, x, base, sizes, strides, offset,
                        out_dtype=dt, out_shape=[5])
        # dims errors
        base, x, sizes, strides, offset = make_input(rng, F32, [2, 3], False)
        for dims in ([2], [-3], [0, 0], [1, -1]):
            if how != "many" and len(dims) > 1:
                continue
            one(w, op, how, "new", dims, False, None, x, base, sizes, strides, offset)


def one(w, op, how, form, dims, keepdim, dtype, x, base, sizes, strides, offset, out_dtype=None,
        out_shape=None):
    outs = None
    if form == "out":
        try:
            ref = call(op, x, dims, keepdim, None, None)
            ref = ref if isinstance(ref, tuple) else (ref,)
            shape = list(ref[0].shape) if out_shape is None else out_shape
        except Exception:  # noqa: BLE001
            shape = [0] if out_shape is None else out_shape
        outs = [torch.zeros(shape, dtype=out_dtype)]
        if how == "pair":
            outs.append(torch.zeros(shape, dtype=I64))
        elif op in ("argmax", "argmin") and out_dtype not in (I64, I32):
            outs[0] = torch.zeros(shape, dtype=I64)

    computed = {}

    def fn():
        r = call(op, x, dims, keepdim, dtype, None if outs is None else
                 (tuple(outs) if how == "pair" else outs[0]))
        computed["v"] = r[0] if isinstance(r, tuple) else r
        return r

    def tol(values):
        v = computed.get("v", values)
        v = v.to(torch.complex128 if v.is_complex() else F64)
        return tolerance(op, x, dims, keepdim, values.dtype, v)

    w.tol_fn = tol
    w.case(op, form, dims, keepdim, dtype, base, sizes, strides, offset, outs, fn)


# ---- accuracy ---------------------------------------------------------------

MASK = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def acc_values(n, seed):
    """float32 bits with mixed signs and magnitudes 2^-12..2^12 (the C
    runner's acc_values draws the same)."""
    out = []
    s = seed
    for _ in range(n):
        s, z = splitmix(s)
        sign = (z >> 63) & 1
        exp = 127 - 12 + (z >> 40) % 25
        mant = z & 0x7FFFFF
        out.append((sign << 31) | (exp << 23) | mant)
    return out


def acc_values_np(n, seed):
    """acc_values in numpy (the same bits), for the large sizes."""
    import numpy as np
    with np.errstate(over="ignore"):
        s = (np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) *
             np.uint64(0x9E3779B97F4A7C15))
        z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    sign = (z >> np.uint64(63)) & np.uint64(1)
    exp = np.uint64(127 - 12) + (z >> np.uint64(40)) % np.uint64(25)
    bits = (sign << np.uint64(31)) | (exp << np.uint64(23)) | (z & np.uint64(0x7FFFFF))
    return bits.astype(np.uint32)


def gen_accuracy(w, sizes=(10, 12, 14, 16, 18, 20)):
    for k in sizes:
        n = 1 << k
        seed = 0xACC0 + k
        bits = acc_values_np(n, seed)
        raw = bits.tobytes()
        t = torch.frombuffer(bytearray(raw), dtype=F32)
        exact = math.fsum(struct.unpack("<%df" % n, raw))
        got = float(t.sum())
        err = abs(got - exact)
        w.lines.append(" | ".join([
            "acc", str(n), "%d" % seed, struct.pack("<f", got).hex(),
            struct.pack("<d", exact).hex(), repr(err)]))


def big_values(n, seed, dtype, near_one=False):
    """n values of `dtype` from splitmix64 (the C runner's big_values draws
    the same): k / 16 for k in -128..127 (exact in every floating dtype),
    k itself for integers, 1 + k / 4096 for near_one (products)."""
    parts = 2 if dtype in COMPLEX else 1
    ks, st = [], seed
    for _ in range(n * parts):
        st, z = splitmix(st)
        ks.append(int((z >> 40) % 256) - 128)
    if dtype in (B, U8) or not (dtype.is_floating_point or dtype.is_complex):
        return torch.tensor(ks, dtype=I64).to(dtype)
    vals = [1 + k / 4096 if near_one else k / 16 for k in ks]
    t = torch.tensor(vals, dtype=F64)
    if parts == 2:
        return torch.view_as_complex(t.reshape(n, 2)).to(dtype)
    return t.to(dtype)


# Large reductions: several chunks and blocks of the order, every walk
BIG = [
    ("sum", [F16, BF16, F32, F64, I32, C64, C128], [(3, 9000), (9000, 3), (40000,), (600, 5)]),
    ("mean", [F16, BF16, F32, F64, C64], [(3, 9000), (9000, 3), (600, 5)]),
    ("nansum", [F32, F64], [(3, 9000)]),
    ("prod", [F64, C128, I64], [(3, 9000), (9000, 3)]),
    ("amax", [F16, F32, F64, I16], [(3, 9000), (9000, 3)]),
    ("amin", [BF16, F32, I64], [(3, 9000)]),
    ("argmax", [F32, F64, I32], [(3, 9000), (9000, 3)]),
    ("argmin", [F16, F32], [(3, 9000)]),
    ("all", [F32, B], [(3, 9000)]),
    ("any", [I8, B], [(9000, 3)]),
]


def gen_big(w):
    seed = 0xB16
    for op, dtypes, shapes in BIG:
        for dt in dtypes:
            for shape in shapes:
                # few outputs of many elements, or (600, 5): many of few
                for dims in {(3, 9000): [[1]], (9000, 3): [[0]], (40000,): [None, [0]],
                             (600, 5): [[1]]}[shape]:
                    seed += 1
                    x = big_values(numel(shape), seed, dt, op == "prod").reshape(shape)
                    r = call(op, x, dims, False, None, None)
                    wide = torch.complex128 if r.is_complex() else F64
                    tol = tolerance(op, x, dims, False, r.dtype, r.to(wide)) \
                        if r.is_floating_point() or r.is_complex() else 0.0
                    w.lines.append(" | ".join([
                        "big", op, dname(dt), ints(shape),
                        "-" if dims is None else ",".join(map(str, dims)), "%d" % seed,
                        dname(r.dtype), ints(r.shape), "%r" % tol, hexbits(r)]))


def gen_out_shapes(w, rng):
    """out= tensors to resize, of each reduction: one without elements
    (PyTorch resizes it silently), a 0-dim one and one of another shape
    (resized with PyTorch's warning), on a float32 input. Last in the
    file, from their own seed, so that the rows above stay as they were."""
    for op, (how, takes_dtype) in OPS.items():
        base, x, sizes, strides, offset = make_input(rng, F32, [3, 4], False, op == "prod")
        for oshape in ([0], [], [2, 2, 2]):
            one(w, op, how, "out", [0], False, None, x, base, sizes, strides, offset,
                out_dtype=F32, out_shape=oshape)


def main_large():
    """The accuracy rows for 2^22..2^26 elements (too slow for the suite):
    data/reduce_acc_large.txt, for `test_reduce_conformance FILE`."""
    w = Writer()
    gen_accuracy(w, (22, 24, 26))
    path = os.path.join(DATA, "reduce_acc_large.txt")
    with open(path, "w") as f:
        f.write("# float32 sum's accuracy on 2^22..2^26 elements (gen_reduce_cases.py --large;\n")
        f.write("# not in the suite: test_reduce_conformance data/reduce_acc_large.txt)\n")
        for line in w.lines:
            f.write(line + "\n")
    print("%s: %d rows" % (path, len(w.lines)))


def main():
    if "--large" in sys.argv[1:]:
        main_large()
        return
    rng = random.Random(SEED)
    w = Writer()
    gen_cases(w, rng)
    gen_big(w)
    gen_accuracy(w)
    gen_out_shapes(w, random.Random(SEED + 1))
    path = os.path.join(DATA, "reduce.txt")
    with open(path, "w") as f:
        f.write("# reduce.txt: reductions (sum ... min): every op x dtype x dims/keepdim, dtype=,\n")
        f.write("# out=, strided and empty inputs, errors; float32 sum's accuracy against fsum.\n")
        f.write("# Generated by tests/ops/gen_reduce_cases.py from PyTorch %s (seed %#x);\n"
                % (torch.__version__, SEED))
        f.write("# regenerate: /usr/bin/python3 tests/ops/gen_reduce_cases.py. Do not edit.\n")
        f.write("# Format: see the generator's docstring.\n")
        for line in w.lines:
            f.write(line + "\n")
    print("%s: %d cases" % (path, len(w.lines)))


if __name__ == "__main__":
    main()
