#!/usr/bin/python3
"""Generates the known answers of var, std, norm, logsumexp, softmax,
log_softmax and cumsum (tests/ops/data/reduce_more.txt) from a real PyTorch:

    /usr/bin/python3 tests/ops/gen_reduce_more.py

Complex var, std and norm (their results real) and the out= forms of all
seven come after the first cases, from a second seed, so that adding
them left the first cases as they were. out= rows: "out" in the form
field and the out tensor's "dtype [sizes] [strides]" in the out field (a
fresh tensor of zeros), as in reduce.txt; of the result's shape, of none
(shape [0]) or of another, which PyTorch resizes.

The format is gen_reduce_cases.py's (test_reduce_conformance.c reads both),
with the operation's parameter after a colon in the op field: var:1 and
std:0 (the correction), norm:1, norm:2, norm:inf (p). softmax,
log_softmax and cumsum take exactly one dim and no keepdim; their dtype=
is the dtype field.

Tolerances: cumsum is PyTorch's bits (Tessera accumulates as its cpu
kernel does, in the same order); the others compose other operations (two
passes where PyTorch runs Welford, Tessera's own exp and log) and are
compared within a few units of the result's precision, scaled by the
magnitudes involved (the result's and, where the formula subtracts, the
input's).
"""

import math
import os
import random
import warnings

import torch

from gen_ops_cases import B, BF16, C32, C64, C128, CLASSIC, F16, F32, F64, I32, I64, U8
from gen_reduce_cases import Writer, eps, make_input

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

SEED = 0x7A2C5
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

# op field -> (callable(x, dims, keepdim, dtype), how it takes dims)
#   many: a list of dims (None: all) and keepdim; one: exactly one dim, dtype=
OPS = {
    "var:1": (lambda x, d, k, t: torch.var(x, d, correction=1, keepdim=k), "many"),
    "var:0": (lambda x, d, k, t: torch.var(x, d, correction=0, keepdim=k), "many"),
    "std:1": (lambda x, d, k, t: torch.std(x, d, correction=1, keepdim=k), "many"),
    "std:2": (lambda x, d, k, t: torch.std(x, d, correction=2, keepdim=k), "many"),
    "norm:1": (lambda x, d, k, t: torch.norm(x, 1, d, k), "many"),
    "norm:2": (lambda x, d, k, t: torch.norm(x, 2, d, k), "many"),
    "norm:inf": (lambda x, d, k, t: torch.norm(x, math.inf, d, k), "many"),
    "logsumexp": (lambda x, d, k, t: torch.logsumexp(x, d, k), "many"),
    "softmax": (lambda x, d, k, t: torch.softmax(x, d[0], dtype=t), "one"),
    "log_softmax": (lambda x, d, k, t: torch.log_softmax(x, d[0], dtype=t), "one"),
    "cumsum": (lambda x, d, k, t: torch.cumsum(x, d[0], dtype=t), "one"),
}

SHAPES = [(2, 3, 4), (2, 3), (5,), (), (4, 1, 3), (0, 3), (17,), (6, 7)]


def call(op, x, dims, keepdim, dtype, out=None):
    fn, how = OPS[op]
    if out is not None:  # the same call with out=
        return with_out(op, x, dims, keepdim, dtype, out)
    if how == "many" and dims is None:  # every dim: PyTorch's dim=None
        name, _, p = op.partition(":")
        if name == "norm":
            return torch.norm(x, math.inf if p == "inf" else float(p), None, keepdim)
        if name == "logsumexp":  # takes no None: every dim by number
            dims = list(range(x.dim())) if x.dim() else [0]
        else:
            return fn(x, None, keepdim, dtype)
    return fn(x, dims, keepdim, dtype)


def with_out(op, x, dims, keepdim, dtype, out):
    name, _, p = op.partition(":")
    if name in ("var", "std"):
        return getattr(torch, name)(x, dims, correction=int(p), keepdim=keepdim, out=out)
    if name == "norm":
        return torch.norm(x, math.inf if p == "inf" else float(p), dims, keepdim, out=out)
    if name == "logsumexp":
        if dims is None:
            dims = list(range(x.dim())) if x.dim() else [0]
        return torch.logsumexp(x, dims, keepdim, out=out)
    return getattr(torch, name)(x, dims[0], dtype=dtype, out=out)


def tolerance(op, x, res):
    name = op.partition(":")[0]
    if name == "cumsum" or not (res.dtype.is_floating_point or res.dtype.is_complex):
        return 0.0
    r = res.to(F64)
    r = r[torch.isfinite(r)]
    top = float(r.abs().max()) if r.numel() else 0.0
    xd = x.to(F64) if x.is_floating_point() else x.to(F64)
    xd = xd[torch.isfinite(xd)]
    xmax = float(xd.abs().max()) if xd.numel() else 0.0
    e = eps(res.dtype)
    if name == "logsumexp" or (name == "norm" and x.is_complex()):
        # computed in the input's precision (its exponentials; a complex
        # input's norm), whatever the out= dtype it is stored in
        work = x.dtype if x.is_floating_point() or x.is_complex() else F32
        e = max(e, eps(work))
    # a complex input's parts: PyTorch takes their mean in their own
    # precision, which a slice of equal values shows
    part = 4 * eps(x.dtype) if name in ("var", "std") and x.is_complex() else 0.0
    if name == "var":
        return 8 * e * top + (64 * 2.0 ** -52 + part) * xmax * xmax + 1e-300
    if name == "std":
        return 8 * e * top + (64 * 2.0 ** -52 + part) * xmax + 1e-300
    if name == "norm":
        return 8 * e * top + 64 * 2.0 ** -52 * xmax + 1e-300
    if name in ("logsumexp", "log_softmax"):
        return 8 * e * (top + xmax) + 1e-300
    return 8 * e * max(top, 1.0) + 1e-300


def one(w, rng, op, dims, keepdim, dtype, x, base, sizes, strides, offset, out=None):
    computed = {}

    def fn():
        r = call(op, x, dims, keepdim, dtype, out)
        computed["v"] = r
        return r

    w.tol_fn = lambda values: tolerance(op, x, computed.get("v", values))
    w.case(op, "new" if out is None else "out", dims, keepdim, dtype, base, sizes, strides,
           offset, None if out is None else [out], fn)


def dims_choices(how, nd):
    if how == "one":
        return [[0], [-1]] + ([[1]] if nd >= 2 else [])
    opts = [None, [0], [-1]]
    if nd >= 2:
        opts += [[0, nd - 1], [-2]]
    if nd >= 3:
        opts += [[1, 2]]
    return opts


def gen(w, rng):
    dtypes = [B, U8, I32, I64, F16, BF16, F32, F64, C64]
    for op, (fn, how) in OPS.items():
        for dt in dtypes:
            if dt == C64 and op.partition(":")[0] in ("var", "std", "norm"):
                continue  # complex var, std and norm: gen_complex's
            for shape in SHAPES:
                nd = len(shape)
                for dims in dims_choices(how, max(nd, 1)):
                    if nd == 0 and dims not in (None, [0], [-1]):
                        continue
                    keepdim = how == "many" and rng.random() < 0.5
                    special = dt in (F16, BF16, F32, F64) and rng.random() < 0.3
                    base, x, sizes, strides, offset = make_input(rng, dt, list(shape), special,
                                                                 True)
                    one(w, rng, op, dims, keepdim, None, x, base, sizes, strides, offset)
                if how == "one" and shape in ((2, 3), (2, 3, 4)):
                    for t in (F64, F32, I64, BF16, F16):
                        base, x, sizes, strides, offset = make_input(rng, dt, list(shape), False,
                                                                     True)
                        one(w, rng, op, [-1], False, t, x, base, sizes, strides, offset)
        # dims out of range
        base, x, sizes, strides, offset = make_input(rng, F32, [2, 3], False, True)
        for dims in ([2], [-3]):
            one(w, rng, op, dims, False, None, x, base, sizes, strides, offset)


def gen_complex(w, rng):
    """var, std and norm of complex inputs (real results)."""
    for op in OPS:
        if op.partition(":")[0] not in ("var", "std", "norm"):
            continue
        for dt in (C32, C64, C128):
            shapes = SHAPES if dt == C64 else [(2, 3, 4), (0, 3), (5,)]
            for shape in shapes:
                nd = len(shape)
                for dims in dims_choices("many", max(nd, 1)):
                    if nd == 0 and dims not in (None, [0], [-1]):
                        continue
                    keepdim = rng.random() < 0.5
                    special = dt != C32 and rng.random() < 0.3
                    base, x, sizes, strides, offset = make_input(rng, dt, list(shape), special,
                                                                 True)
                    one(w, rng, op, dims, keepdim, None, x, base, sizes, strides, offset)


# The out= dtypes tried for every operation, and the input dtypes.
OUT_DTYPES = [F32, F64, F16, BF16, C64, I64, B]
OUT_INPUTS = [F32, F64, BF16, I64, C64]


def result_shape(op, x, dims, keepdim, dtype):
    try:
        return list(call(op, x, dims, keepdim, dtype).shape)
    except Exception:  # noqa: BLE001 - a refused case: any out= will do
        return [0]


def gen_out(w, rng):
    """The out= forms: each dtype of out= for a few inputs, outs to resize,
    dtype= with out=, and errors that come before the out= checks."""
    for op, (fn, how) in OPS.items():
        for dt in OUT_INPUTS:
            for shape in ((2, 3, 4), (2, 3)):
                dims = [-1] if how == "one" else rng.choice([None, [0], [-1], [0, 1]])
                keepdim = how == "many" and rng.random() < 0.5
                base, x, sizes, strides, offset = make_input(rng, dt, list(shape), False, True)
                rshape = result_shape(op, x, dims, keepdim, None)
                for odt in OUT_DTYPES:
                    if op.startswith("norm") and dt.is_complex and odt != F32:
                        # PyTorch 1.13 stores a complex64 input's norms as
                        # floats whatever out='s dtype, past the end of a
                        # narrower one: only float32 is a known answer
                        continue
                    out = torch.zeros(rshape, dtype=odt)
                    one(w, rng, op, dims, keepdim, None, x, base, sizes, strides, offset, out)
            # outs to resize: none, another shape, the result's with elements
            base, x, sizes, strides, offset = make_input(rng, dt, [3, 4], False, True)
            dims = [0] if how == "one" else [0]
            try:
                odt = call(op, x, dims, False, None).dtype
            except Exception:  # noqa: BLE001
                odt = F32
            for oshape in ([0], [5], [2, 6], []):
                out = torch.zeros(oshape, dtype=odt)
                one(w, rng, op, dims, False, None, x, base, sizes, strides, offset, out)
        if how == "one":  # dtype= with out=
            base, x, sizes, strides, offset = make_input(rng, F32, [2, 3], False, True)
            for t, odt in ((F64, F64), (F64, F32), (I64, I64), (BF16, BF16), (F32, F16)):
                out = torch.zeros([2, 3], dtype=odt)
                one(w, rng, op, [1], False, t, x, base, sizes, strides, offset, out)
        # a dim out of range and an integer input, with out=
        base, x, sizes, strides, offset = make_input(rng, F32, [2, 3], False, True)
        for odt in (F32, I64):
            one(w, rng, op, [2], False, None, x, base, sizes, strides, offset,
                torch.zeros([0], dtype=odt))


def main():
    rng = random.Random(SEED)
    w = Writer()
    gen(w, rng)
    rng2 = random.Random(SEED + 1)
    gen_complex(w, rng2)
    gen_out(w, rng2)
    path = os.path.join(DATA, "reduce_more.txt")
    with open(path, "w") as f:
        f.write("# reduce_more.txt: var, std, norm, logsumexp, softmax, log_softmax, cumsum,\n")
        f.write("# with complex inputs and out= forms.\n")
        f.write("# Generated by tests/ops/gen_reduce_more.py from PyTorch %s (seed %#x);\n"
                % (torch.__version__, SEED))
        f.write("# regenerate: /usr/bin/python3 tests/ops/gen_reduce_more.py. Do not edit.\n")
        f.write("# Format: see gen_reduce_cases.py's docstring; the op field's parameter\n")
        f.write("# after a colon (the correction of var and std, the p of norm).\n")
        for line in w.lines:
            f.write(line + "\n")
    print("%s: %d cases" % (path, len(w.lines)))


if __name__ == "__main__":
    main()
