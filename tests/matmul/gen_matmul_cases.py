#!/usr/bin/python3
"""Generates the known answers of the matrix-product conformance suite
(tests/matmul/data/*.txt) from a real PyTorch.

Run from anywhere with Debian's interpreter, which has torch 1.13:

    /usr/bin/python3 tests/matmul/gen_matmul_cases.py

Every table is rewritten; the output depends only on SEED below.

The format (read by test_matmul_conformance.c), one case per line, fields
separated by " | ", '#' starting a comment line:

    id | op | form | scalars | device | bases | a | b | c | out | ok | dtype | sizes | tol | values
    id | op | form | scalars | device | bases | a | b | c | out | err | <status> | <message>

  op       mm, bmm, matmul, dot, mv, outer, addmm
  form     new (a new result), out (out= tensor), inplace (addmm_ on c)
  scalars  addmm's "beta,alpha", each b:0|b:1, i:<int64>, f:<float.hex()>
           or c:<re hex>,<im hex> joined by ';'; '-' for the others
  device   cpu or meta: where every storage lives
  bases    ';'-separated storages "dtype:n:hex": n elements, their bytes in
           memory order (little endian) as hex
  a/b/c/out  "v<k> [sizes] [strides] offset": an as_strided view of base k;
           '-': none. c is addmm's self.
  ok       the result (out=: the out tensor after the call): dtype, sizes,
           the tolerance ("exact", or "<rtol>,<atol>": |got - want| <= atol
           + rtol * |want| per real component, NaN matching NaN and
           infinities exactly), every element in row-major order as hex
           bytes ('-' on meta). New results must be contiguous.
  err      <status>: the Python exception class (RuntimeError, IndexError)
           or a Tessera status name where Tessera's differs from
           PyTorch's mapping (TSR_ERR_NOT_SUPPORTED for "not implemented
           for" dtype refusals); <message>: the exact text.

Values: mostly small multiples of 1/4 (products and sums of them are
exact in every floating dtype here, so float32 and float64 compare
exactly whatever the summation order), plus "random" cases of normal
values compared within the tolerances below (torch.testing's defaults for
float32/float64/complex; wider for float16 and bfloat16, whose results
are rounded once from float32 sums that may differ in the last bit of
float32 between libraries, so either neighbour may come out). Integers
compare exactly, wrapping as PyTorch's do (full-range int8/int16/uint8
operands).

Where Tessera differs from PyTorch 1.13 on purpose (docs/semantics.md,
"Matrix products"), the expected answer is Tessera's, marked '# differs':
float16 and bfloat16 products expect the float32 product rounded once, as
PyTorch 2 computes them (1.13 refuses float16 on the cpu and adds
bfloat16 products into a bfloat16 sum, rounding at every step); an out= of the wrong
shape with elements is refused (1.13 resizes it with a warning); an out=
aliasing an input expects the right product (1.13 zeroes the output
first and returns zeros); a complex dot expects the sum of the products
(Debian's 1.13 returns 0 for every complex dot).
"""

import os
import random
import sys
import warnings

import torch

sys.dont_write_bytecode = True  # nothing written beside the ops generator
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops"))
from gen_ops_cases import dname, hexbits, ints, numel  # noqa: E402  (the ops tables' encoding)

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

SEED = 0x3A7A11
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

B, U8, I8, I16, I32, I64 = torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64
F16, BF16, F32, F64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
INTS = [U8, I8, I16, I32, I64]
FLOATS = [F16, BF16, F32, F64]
COMPUTED = [F32, F64, C64, C128, BF16, F16] + INTS
TOL = {F16: (2e-3, 1e-3), BF16: (1.6e-2, 1e-2), F32: (1.3e-6, 1e-5), F64: (1e-7, 1e-7),
       C64: (1.3e-6, 1e-5), C128: (1e-7, 1e-7)}
STUB = {"mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "dot": "dot", "mv": "addmv_impl_cpu"}


def scalar_text(v):
    if isinstance(v, bool):
        return "b:%d" % v
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, complex):
        return "c:%s,%s" % (v.real.hex(), v.imag.hex())
    return "f:" + float(v).hex()


class Case:
    """One call: its storages and views, built the same way for torch and
    for the table."""

    def __init__(self, device="cpu"):
        self.bases = []
        self.device = device

    def base(self, values):
        self.bases.append(values.contiguous())
        return len(self.bases) - 1

    def view(self, k, sizes, strides, offset=0):
        t = self.bases[k].as_strided(sizes, strides, offset)
        t._desc = "v%d %s %s %d" % (k, ints(sizes), ints(strides), offset)
        return t

    def bases_text(self):
        return ";".join("%s:%d:%s" % (dname(b.dtype), b.numel(), hexbits(b)) for b in self.bases)


# ---- values -----------------------------------------------------------------

def values(rng, dtype, n, kind):
    """n values: 'nice' (multiples of 1/4 in [-2, 2], exact sums), 'normal'
    (random normal), 'full' (integers over the dtype's range)."""
    if dtype in INTS:
        ii = torch.iinfo(dtype)
        if kind == "full" and dtype in (U8, I8, I16):
            vals = [rng.randint(ii.min, ii.max) for _ in range(n)]
        else:
            lo = 0 if ii.min == 0 else -50
            vals = [rng.randint(lo, lo + 100) for _ in range(n)]
        return torch.tensor(vals, dtype=I64).to(dtype)
    if dtype == B:
        return torch.tensor([rng.random() < 0.5 for _ in range(n)], dtype=B)

    def one():
        return rng.gauss(0, 1) if kind == "normal" else rng.randint(-8, 8) / 4

    if dtype in (C32, C64, C128):
        return torch.tensor([complex(one(), one()) for _ in range(n)], dtype=C128).to(dtype)
    return torch.tensor([one() for _ in range(n)], dtype=F64).to(dtype)


def operand(case, rng, dtype, sizes, layout, kind):
    """A view of `sizes` laid out as `layout`: contiguous, 't' (the last
    two dims transposed in memory), 'strided' (every dim steps over one
    element), 'expand' (the first dim of size > 1 has stride 0), 'offset'
    (contiguous at a storage offset)."""
    n = len(sizes)
    if layout == "t" and n >= 2:
        mem = sizes[:-2] + [sizes[-1], sizes[-2]]
        strides = contiguous_strides(mem)
        strides[-2], strides[-1] = strides[-1], strides[-2]
        k = case.base(values(rng, dtype, numel(mem), kind))
        return case.view(k, sizes, strides)
    if layout == "strided":
        strides = [2 * s for s in contiguous_strides(sizes)]
        k = case.base(values(rng, dtype, max(1, 2 * numel(sizes)), kind))
        return case.view(k, sizes, strides)
    if layout == "expand" and any(s > 1 for s in sizes):
        d = next(i for i, s in enumerate(sizes) if s > 1)
        mem = sizes[:d] + sizes[d + 1:]
        strides = contiguous_strides(mem)
        strides = strides[:d] + [0] + strides[d:]
        k = case.base(values(rng, dtype, max(1, numel(mem)), kind))
        return case.view(k, sizes, strides)
    offset = 3 if layout == "offset" else 0
    k = case.base(values(rng, dtype, numel(sizes) + offset, kind))
    return case.view(k, sizes, contiguous_strides(sizes), offset)


def contiguous_strides(sizes):
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.insert(0, acc)
        acc *= max(s, 1)
    return strides


# ---- calling torch ----------------------------------------------------------

def call(op, a, b, c=None, out=None, scalars=None, inplace=False):
    kw = {} if out is None else {"out": out}
    if op == "addmm":
        beta, alpha = scalars
        if inplace:
            return c.addmm_(a, b, beta=beta, alpha=alpha)
        return torch.addmm(c, a, b, beta=beta, alpha=alpha, **kw)
    return getattr(torch, op)(a, b, **kw)


def reference(op, a, b, c, scalars, inplace):
    """The answer Tessera gives: PyTorch's, with float16 and bfloat16
    computed in float32 and rounded once (PyTorch 2's rule: 1.13 refuses
    float16 and accumulates bfloat16 products in bfloat16, rounding at
    every step)."""
    if a.dtype in (F16, BF16) and a.dtype == b.dtype and op != "outer":
        up = lambda t: None if t is None else t.to(F32)
        c32 = up(c)
        r = call(op, up(a), up(b), c32, None, scalars, False)
        return r.to(a.dtype)
    if complex_dot(op, a, b):
        return (a.to(C128) * b.to(C128)).sum().to(a.dtype)
    if inplace:
        c = c.clone()
    return call(op, a, b, c, None, scalars, inplace)


def complex_dot(op, a, b):
    """Debian's PyTorch 1.13 returns 0 for every complex dot (its call of
    BLAS's cdotu/zdotu gets the result back the wrong way); the answer
    is the sum of the products."""
    return (op in ("dot", "matmul") and a.dim() == 1 and b.dim() == 1 and a.dtype == b.dtype
            and a.dtype in (C64, C128))


TABLES = {}
NOTE = {F16: "float16 computes in float32 (1.13 refuses it)",
        BF16: "bfloat16 sums in float32, rounded once (1.13 rounds every step)"}


def emit(table, case, op, form, a, b, c, out, answer, scalars=None, note=None):
    desc = lambda t: "-" if t is None else t._desc
    if complex_dot(op, a, b) and answer[0] == "ok":
        note = "complex dot is the sum of the products (Debian's 1.13 returns 0)"
    sc = "-" if scalars is None else ";".join(scalar_text(s) for s in scalars)
    head = [None, op, form, sc, case.device, case.bases_text(), desc(a), desc(b), desc(c),
            desc(out)]
    lines = TABLES.setdefault(table, [])
    if note:
        lines.append("# differs: " + note)
    head[0] = "%s-%d" % (table, sum(1 for l in lines if not l.startswith("#")) + 1)
    lines.append(" | ".join(head + answer))


def ok_fields(r, exact):
    dtype = r.dtype
    tol = "exact" if exact or dtype not in TOL else "%r,%r" % TOL[dtype]
    vals = "-" if r.device.type == "meta" else hexbits(r)
    return ["ok", dname(dtype), ints(r.shape), tol, vals]


def err_fields(e):
    msg = str(e)
    status = type(e).__name__
    if " not implemented for " in msg:
        status = "TSR_ERR_NOT_SUPPORTED"
    return ["err", status, msg.split("\n")[0]]


def run_case(table, case, op, form, a, b, c=None, out_like=None, scalars=None, exact=True,
             note=None):
    """Calls torch, emits the answer (Tessera's where it differs)."""
    inplace = form == "inplace"
    out = None
    if form == "out":
        out = out_like
    try:
        if form == "out":
            probe = out.clone()
            call(op, a, b, c, probe, scalars, False)  # PyTorch's errors for this out=
            ref = reference(op, a, b, c, scalars, False)
            if out.numel() and list(out.shape) != list(ref.shape):
                raise RuntimeError("output with shape %s doesn't match the %s shape %s" % (
                    ints(out.shape).replace(",", ", "), "broadcast" if op == "outer" else "result",
                    ints(ref.shape).replace(",", ", ")))
            r = ref
        else:
            r = reference(op, a, b, c, scalars, inplace)
    except (RuntimeError, IndexError) as e:
        emit(table, case, op, form, a, b, c, out, err_fields(e), scalars, note)
        return
    emit(table, case, op, form, a, b, c, out, ok_fields(r, exact), scalars, note)


# ---- the tables ---------------------------------------------------------------

LAYOUTS = ["c", "t", "strided", "expand", "offset"]


def kind_of(dtype, exact):
    if dtype in INTS:
        return "full"
    return "nice" if exact else "normal"


def gen_mm(rng):
    shapes = [(3, 4, 5), (1, 7, 1), (5, 1, 6), (0, 3, 2), (2, 0, 3), (17, 33, 9), (1, 6, 4),
              (4, 6, 1)]
    for dtype in COMPUTED:
        for (m, k, n) in shapes:
            for la in LAYOUTS:
                for lb in (["c", "t", "strided", "expand"] if la in ("c", "t") else ["c"]):
                    exact = dtype in INTS or rng.random() < 0.7
                    case = Case()
                    a = operand(case, rng, dtype, [m, k], la, kind_of(dtype, exact))
                    b = operand(case, rng, dtype, [k, n], lb, kind_of(dtype, exact))
                    run_case("mm", case, "mm", "new", a, b, exact=exact,
                             note=NOTE.get(dtype))


def gen_bmm(rng):
    shapes = [(2, 3, 4, 5), (4, 8, 8, 8), (3, 1, 5, 1), (0, 2, 3, 4), (3, 2, 0, 4), (2, 0, 3, 2)]
    for dtype in COMPUTED:
        for (bs, m, k, n) in shapes:
            for la, lb in [("c", "c"), ("t", "c"), ("c", "t"), ("strided", "expand"),
                           ("expand", "strided"), ("offset", "t")]:
                exact = dtype in INTS or rng.random() < 0.7
                case = Case()
                a = operand(case, rng, dtype, [bs, m, k], la, kind_of(dtype, exact))
                b = operand(case, rng, dtype, [bs, k, n], lb, kind_of(dtype, exact))
                run_case("bmm", case, "bmm", "new", a, b, exact=exact,
                         note=NOTE.get(dtype))
        # batch not outermost: permuted storage
        case = Case()
        k0 = case.base(values(rng, dtype, 2 * 3 * 4, kind_of(dtype, True)))
        a = case.view(k0, [2, 3, 4], [4, 8, 1])
        b = operand(case, rng, dtype, [2, 4, 2], "c", kind_of(dtype, True))
        run_case("bmm", case, "bmm", "new", a, b)


MATMUL_SHAPES = [
    ([3], [3]), ([0], [0]), ([2, 3], [3]), ([3], [3, 4]), ([2, 3], [3, 4]),
    ([2, 2, 3], [3, 4]), ([2, 2, 3], [3]), ([3], [2, 3, 4]), ([4, 3], [2, 3, 5]),
    ([2, 2, 3], [2, 3, 5]), ([2, 1, 2, 3], [5, 3, 5]), ([2, 3, 4, 5], [5]), ([4], [2, 3, 4, 5]),
    ([2, 1, 3, 4], [1, 5, 4, 2]), ([1, 2, 3], [4, 3, 2]), ([3, 1, 2], [2, 2]),
    ([2, 0, 3], [3, 4]), ([0, 2, 3], [2, 3, 1]), ([2, 3, 0], [0, 2]), ([5, 2, 3], [1, 3, 2]),
    ([2, 3, 4], [1, 4, 5]), ([3, 1, 4], [4, 1]),
]


def gen_matmul(rng):
    for dtype in [F32, F64, C64, I32, U8, BF16, F16, I64]:
        for sa, sb in MATMUL_SHAPES:
            for la, lb in [("c", "c"), ("t", "c"), ("c", "t"), ("strided", "strided"),
                           ("expand", "c")]:
                if dtype not in (F32, I32) and (la, lb) not in (("c", "c"), ("t", "c")):
                    continue
                exact = dtype in INTS or rng.random() < 0.7
                case = Case()
                a = operand(case, rng, dtype, sa, la, kind_of(dtype, exact))
                b = operand(case, rng, dtype, sb, lb, kind_of(dtype, exact))
                run_case("matmul", case, "matmul", "new", a, b, exact=exact,
                         note=NOTE.get(dtype))
    # a 3-D batch of transposed matrices against a matrix: bmm, not a fold
    case = Case()
    k0 = case.base(values(rng, F32, 2 * 3 * 4, "nice"))
    a = case.view(k0, [2, 4, 3], [12, 1, 4])
    b = operand(case, rng, F32, [3, 5], "c", "nice")
    run_case("matmul", case, "matmul", "new", a, b)


def gen_vec(rng):
    for dtype in COMPUTED:
        for n in [0, 1, 5, 40]:
            for la, lb in [("c", "c"), ("strided", "c"), ("c", "expand"), ("offset", "strided")]:
                exact = dtype in INTS or rng.random() < 0.7
                kind = kind_of(dtype, exact)
                case = Case()
                a = operand(case, rng, dtype, [n], la, kind)
                b = operand(case, rng, dtype, [n], lb, kind)
                run_case("dot", case, "dot", "new", a, b, exact=exact,
                         note=NOTE.get(dtype))
                for m in [0, 3]:
                    case = Case()
                    a = operand(case, rng, dtype, [m, n], la if la != "offset" else "t", kind)
                    b = operand(case, rng, dtype, [n], lb, kind)
                    run_case("mv", case, "mv", "new", a, b, exact=exact,
                             note=NOTE.get(dtype))
                case = Case()
                a = operand(case, rng, dtype, [n], la, kind)
                b = operand(case, rng, dtype, [3], lb, kind)
                run_case("outer", case, "outer", "new", a, b, exact=exact)
    for da, db in [(F32, I32), (I64, F64), (B, B), (C32, C32), (F16, F16), (U8, B)]:
        case = Case()
        a = operand(case, rng, da, [3], "c", "nice")
        b = operand(case, rng, db, [2], "c", "nice")
        run_case("outer", case, "outer", "new", a, b)


ADDMM_SCALARS = {
    "float": [(1, 1), (0, 1), (0.5, 2), (2, 0), (0.0, -1.5), (True, 1), (1, 0.25)],
    "int": [(1, 1), (0, 1), (2, 3), (-1, 1), (0, 0), (True, False)],
    "complex": [(1, 1), (0, 1j), (0.5 - 1j, 2), (2, 0)],
}


def gen_addmm(rng):
    for dtype in COMPUTED:
        group = "int" if dtype in INTS else "complex" if dtype in (C64, C128) else "float"
        for (m, k, n) in [(3, 4, 5), (2, 0, 3), (0, 2, 3), (4, 9, 1), (1, 5, 3)]:
            for self_shape in [[m, n], [n], [1, n], [m, 1], []]:
                for scalars in ADDMM_SCALARS[group]:
                    if self_shape != [m, n] and rng.random() < 0.6:
                        continue
                    exact = dtype in INTS or rng.random() < 0.7
                    kind = kind_of(dtype, exact)
                    case = Case()
                    c = operand(case, rng, dtype, self_shape, "c", kind)
                    if dtype in FLOATS + [C64, C128] and scalars[0] == 0 and c.numel():
                        case.bases[-1].view(-1)[0] = float("nan")  # beta 0 ignores it
                    a = operand(case, rng, dtype, [m, k], rng.choice(["c", "t"]), kind)
                    b = operand(case, rng, dtype, [k, n], rng.choice(["c", "t", "strided"]), kind)
                    if dtype in FLOATS and scalars[1] == 0 and a.numel():
                        case.bases[-2].view(-1)[0] = float("inf")  # alpha 0 ignores it
                    run_case("addmm", case, "addmm", "new", a, b, c, scalars=scalars, exact=exact,
                             note=NOTE.get(dtype))
                    if self_shape == [m, n]:
                        case2 = Case()
                        case2.bases = [x.clone() for x in case.bases]
                        c2 = case2.view(0, c.shape, c.stride(), c.storage_offset())
                        c2._desc = c._desc
                        run_case("addmm", case2, "addmm", "inplace", a, b, c2, scalars=scalars,
                                 exact=exact)


def out_tensor(case, rng, dtype, sizes, how):
    """An out= tensor: 'right' (contiguous), 'colmajor' (the last two dims
    transposed), 'strided' (steps of two), 'empty' (no elements),
    'wrong' (another shape with elements)."""
    if how == "empty":
        return operand(case, rng, dtype, [0], "c", "nice")
    if how == "wrong":
        return operand(case, rng, dtype, [numel(sizes) + 1], "c", "nice")
    if how == "colmajor" and len(sizes) >= 2:
        return operand(case, rng, dtype, sizes, "t", "nice")
    if how == "strided":
        return operand(case, rng, dtype, sizes, "strided", "nice")
    return operand(case, rng, dtype, sizes, "c", "nice")


def gen_out(rng):
    specs = [("mm", [3, 4], [4, 5]), ("bmm", [2, 3, 4], [2, 4, 5]), ("dot", [6], [6]),
             ("mv", [3, 4], [4]), ("outer", [3], [4]), ("matmul", [2, 2, 3], [3, 4]),
             ("matmul", [3], [3, 4]), ("matmul", [4, 3], [2, 3, 5]), ("matmul", [2, 1, 3, 4], [5, 4, 2]),
             ("matmul", [2, 3], [3]), ("matmul", [3], [3]), ("addmm", [3, 4], [4, 5])]
    for op, sa, sb in specs:
        for dtype in [F32, F64, I32, BF16, C128]:
            for how in ["right", "colmajor", "strided", "empty", "wrong"]:
                case = Case()
                a = operand(case, rng, dtype, sa, "c", "nice")
                b = operand(case, rng, dtype, sb, "c", "nice")
                c = operand(case, rng, dtype, [sb[-1]], "c", "nice") if op == "addmm" else None
                sc = (0.5, 2) if op == "addmm" else None
                shape = list(reference(op, a, b, c, sc, False).shape)
                out = out_tensor(case, rng, dtype, shape, how)
                run_case("out", case, op, "out", a, b, c, out, sc,
                         note="a non-empty out= of another shape is refused" if how == "wrong"
                         else None)
        # out= of another dtype
        case = Case()
        a = operand(case, rng, F32, sa, "c", "nice")
        b = operand(case, rng, F32, sb, "c", "nice")
        c = operand(case, rng, F32, [sb[-1]], "c", "nice") if op == "addmm" else None
        sc = (1, 1) if op == "addmm" else None
        shape = list(reference(op, a, b, c, sc, False).shape)
        out = operand(case, rng, F64 if op != "outer" else I64, shape, "c", "nice")
        run_case("out", case, op, "out", a, b, c, out, sc)
    # out= sharing memory with an input: Tessera computes the right product
    for op, n in [("mm", 3), ("matmul", 3)]:
        case = Case()
        k0 = case.base(values(rng, F32, n * n, "nice"))
        a = case.view(k0, [n, n], [n, 1])
        b = operand(case, rng, F32, [n, n], "t", "nice")
        out = case.view(k0, [n, n], [n, 1])
        r = torch.mm(a, b)
        emit("out", case, op, "out", a, b, None, out, ok_fields(r, True),
             note="an out= aliasing an input gets the product (1.13 returns zeros)")


def gen_errors(rng):
    def err(op, sa, sb, da=F32, db=F32, sc=None, dc=None, sshape=None, form="new", dout=None,
            shape_out=None):
        case = Case()
        a = operand(case, rng, da, sa, "c", "nice")
        b = operand(case, rng, db, sb, "c", "nice")
        c = operand(case, rng, dc or da, sshape, "c", "nice") if sshape is not None else None
        out = operand(case, rng, dout, shape_out, "c", "nice") if dout is not None else None
        run_case("errors", case, op, form, a, b, c, out, sc)

    err("mm", [3], [3, 4]); err("mm", [2, 3], [3]); err("mm", [2, 2, 3], [3, 4]); err("mm", [], [3, 4])
    err("mm", [2, 3], [4, 5]); err("mm", [2, 3], [4, 4], db=F64); err("mm", [2, 3], [3, 4], db=F64)
    err("mm", [2, 3], [3, 4], da=I32)
    err("mm", [2, 3], [3, 4], da=F32, db=F16); err("mm", [3], [3, 4], db=F64)
    for d in [B, C32]:
        err("mm", [2, 3], [3, 4], da=d, db=d); err("mm", [2, 0], [0, 4], da=d, db=d)
        err("mm", [0, 3], [3, 4], da=d, db=d)
        err("bmm", [2, 2, 3], [2, 3, 4], da=d, db=d); err("bmm", [2, 8, 8], [2, 8, 8], da=d, db=d)
        err("dot", [3], [3], da=d, db=d); err("dot", [0], [0], da=d, db=d)
        err("mv", [2, 3], [3], da=d, db=d); err("mv", [0, 3], [3], da=d, db=d)
        err("matmul", [3], [3], da=d, db=d); err("matmul", [2, 2, 3], [2, 3, 4], da=d, db=d)
        err("matmul", [2, 2, 3], [3, 4], da=d, db=d)
        err("addmm", [2, 3], [3, 4], da=d, db=d, sc=(1, 1), sshape=[2, 4])
    err("mm", [0, 3], [3, 4], db=F64); err("mm", [2, 0], [0, 4], db=F64)
    err("bmm", [2, 3], [3, 4]); err("bmm", [1, 2, 3], [3, 4]); err("bmm", [2, 2, 3], [3, 3, 4])
    err("bmm", [2, 2, 3], [2, 4, 4]); err("bmm", [2, 2, 3], [2, 3, 4], db=F64)
    err("bmm", [2, 2, 3], [2, 3, 4], da=F64); err("bmm", [2, 3], [3, 4], db=F64)
    err("bmm", [2, 8, 8], [2, 8, 8], db=F64)
    err("dot", [2, 3], [3]); err("dot", [3], [3, 1]); err("dot", [], [3]); err("dot", [3], [4])
    err("dot", [3], [3], db=F64); err("dot", [3], [4], db=F64); err("dot", [3], [3], da=I64)
    err("mv", [3], [3]); err("mv", [2, 3], [3, 1]); err("mv", [2, 3], [4]); err("mv", [2, 3], [3], db=F64)
    err("mv", [2, 3], []); err("mv", [], [3]); err("mv", [2, 3], [4], db=F64)
    err("mv", [2, 3], [3], da=F64)
    err("outer", [2, 3], [3]); err("outer", [3], [3, 1]); err("outer", [], [2])
    err("addmm", [3], [3, 4], sc=(1, 1), sshape=[4]); err("addmm", [2, 3], [3], sc=(1, 1), sshape=[2])
    err("addmm", [2, 3], [4, 4], sc=(1, 1), sshape=[2, 4]); err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[3])
    err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[2, 3]); err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[1, 2, 4])
    err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[2, 4], dc=F64)
    err("addmm", [2, 3], [3, 4], db=F64, sc=(1, 1), sshape=[2, 4])
    err("addmm", [2, 3], [4, 4], db=F64, sc=(1, 1), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], da=F64, db=F32, sc=(1, 1), sshape=[2, 4], dc=F32)
    err("addmm", [3], [3, 4], db=F64, sc=(1, 1), sshape=[4])
    err("addmm", [2, 3], [3, 4], sc=(1, 1j), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], sc=(1j, 1), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], sc=(1j, 2j), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], da=I8, db=I8, sc=(300, 1), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], da=I8, db=I8, sc=(1, 1000), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], da=I32, db=I32, sc=(1, 1j), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], da=U8, db=U8, sc=(1, 2.5), sshape=[2, 4])
    err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[1, 4], form="inplace")
    err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[4], form="inplace")
    err("addmm", [2, 3], [3, 4], sc=(1, 1), sshape=[2, 4], dc=F64, form="inplace")
    for sa, sb in [([], [2, 3]), ([2, 3], []), ([], []), ([3], [4]), ([2, 3], [4]), ([3], [4, 5]),
                   ([2, 3], [4, 5]), ([2, 2, 3], [4, 5]), ([2, 2, 3], [4]), ([3], [2, 4, 5]),
                   ([2, 3], [2, 4, 5]), ([2, 2, 3], [3, 3, 5]), ([2, 2, 3], [2, 4, 5]),
                   ([2, 3, 4], [1, 5, 3, 2]), ([2, 3, 4, 5], [4]), ([1, 2, 3], [4, 4, 2])]:
        err("matmul", sa, sb)
    for sa, sb in [([3], [3]), ([2, 3], [3]), ([3], [3, 2]), ([2, 3], [3, 2]), ([2, 2, 3], [3, 2]),
                   ([2, 2, 3], [2, 3, 2]), ([2, 2, 3], [3])]:
        err("matmul", sa, sb, db=F64)
        err("matmul", sa, sb, da=F64)
    for op, sa, sb, so in [("mm", [2, 3], [3, 4], [2, 4]), ("bmm", [2, 2, 3], [2, 3, 4], [2, 2, 4]),
                           ("mv", [2, 3], [3], [2]), ("dot", [3], [3], []),
                           ("matmul", [2, 2, 3], [2, 3, 4], [2, 2, 4]), ("matmul", [3], [3], []),
                           ("matmul", [2, 2, 3], [3], [2, 2]), ("addmm", [2, 3], [3, 4], [2, 4])]:
        err(op, sa, sb, dout=F64, shape_out=so, form="out",
            sc=(1, 1) if op == "addmm" else None, sshape=[2, 4] if op == "addmm" else None)
    err("dot", [2, 3], [3], dout=F64, shape_out=[], form="out")


def gen_meta(rng):
    """Shapes and dtypes only, on meta."""
    for op, sa, sb, sc in [("mm", [2, 3], [3, 4], None), ("bmm", [2, 2, 3], [2, 3, 4], None),
                           ("dot", [3], [3], None), ("mv", [2, 3], [3], None),
                           ("outer", [2], [3], None), ("matmul", [2, 2, 3], [3, 4], None),
                           ("matmul", [3], [2, 3, 4], None), ("matmul", [2, 1, 3, 4], [5, 4, 2], None),
                           ("addmm", [2, 3], [3, 4], [4]), ("mm", [2, 3], [4, 4], None),
                           ("matmul", [2, 2, 3], [3, 3, 5], None)]:
        for dtype in [F32, I64, BF16, B]:
            case = Case("meta")
            a = operand(case, rng, dtype, sa, "c", "nice").to("meta")
            b = operand(case, rng, dtype, sb, "c", "nice").to("meta")
            c = operand(case, rng, dtype, sc, "c", "nice").to("meta") if sc else None
            for t, k in [(a, 0), (b, 1), (c, 2)]:
                if t is not None:
                    t._desc = "v%d %s %s 0" % (k, ints(t.shape), ints(t.stride()))
            scal = (1, 1) if op == "addmm" else None
            try:
                r = call(op, a, b, c, None, scal)
                emit("meta", case, op, "new", a, b, c, None, ok_fields(r, True), scal)
            except RuntimeError as e:
                emit("meta", case, op, "new", a, b, c, None, err_fields(e), scal)


def main():
    rng = random.Random(SEED)
    os.makedirs(DATA, exist_ok=True)
    for gen in [gen_mm, gen_bmm, gen_matmul, gen_vec, gen_addmm, gen_out, gen_errors, gen_meta]:
        gen(random.Random(rng.getrandbits(64)))
    for name, lines in sorted(TABLES.items()):
        with open(os.path.join(DATA, name + ".txt"), "w") as f:
            f.write("# Generated by tests/matmul/gen_matmul_cases.py from PyTorch %s; do not edit.\n"
                    % torch.__version__)
            f.write("# id | op | form | scalars | device | bases | a | b | c | out | ok | dtype |"
                    " sizes | tol | values\n")
            f.write("# id | op | form | scalars | device | bases | a | b | c | out | err | status |"
                    " message\n")
            for line in lines:
                f.write(line + "\n")
        print("%s: %d cases" % (name, sum(1 for l in lines if not l.startswith("#"))))


if __name__ == "__main__":
    sys.exit(main())
