#!/usr/bin/python3
"""Writes data/api_torch113.txt, the known answers of test_api.py, from a
real PyTorch. Run with Debian's interpreter, which has torch 1.13:

    /usr/bin/python3 tests/python/gen_api_cases.py

Each case is a Python expression over the module `T` (torch here, tessera
in the test) and a few tensors bound below; the answer is what PyTorch
prints for it: repr() of a tensor, a number, a tuple or a dtype, or
"!TypeName: message" for an exception. "torch." in the answers becomes
"tessera." when the test compares. One case per line:

    <expression>\t<answer with newlines as \\n>

Sections (comment lines starting '#') group the cases; the test runs
each line as its own test.
"""
import os
import sys

import torch

T = torch

SETUP = """
import numpy as np
a = T.tensor([[0., 1., 2., 3.], [4., 5., 6., 7.], [8., 9., 10., 11.]])
b = T.tensor([[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
              [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]])
v = T.tensor([1.5, -2.25, 3.0])
i = T.tensor([7, -3, 0, 12], dtype=T.int32)
u = T.tensor([3, 250, 0], dtype=T.uint8)
m = T.tensor([True, False, True])
z = T.tensor(2.5)
h = T.tensor([1.0, 2.5, -0.125], dtype=T.float16)
c = T.tensor([1 + 2j, -0.5j, 3])
"""

SECTIONS = {
    "views": [
        "a.t()", "a.t().stride()", "a.t().is_contiguous()", "a.transpose(0, 1).shape",
        "b.permute(2, 0, 1).stride()", "b.permute(2, 0, 1)[1]", "a.narrow(1, 1, 2)",
        "a.narrow(0, -2, 2).storage_offset()", "a.select(1, -1)", "b.select(0, 1).stride()",
        "a.view(4, 3)", "a.view(-1)", "a.view((2, 6)).shape", "b.reshape(6, 4).stride()",
        "a.t().reshape(12)", "a.t().contiguous().stride()", "a.unsqueeze(0).shape",
        "a.unsqueeze(-1).stride()", "a.unsqueeze(1).squeeze(1).shape",
        "a[None].squeeze().shape", "T.zeros(1, 3, 1).squeeze().stride()",
        "v.expand(2, 3)", "v.expand(2, 3).stride()", "v.expand(2, -1).shape",
        "b.flatten()", "b.flatten(1).shape", "b.flatten(0, 1).stride()", "z.flatten().shape",
        "a.t().flatten()", "a.t().view(12)", "a.view(5)", "a.narrow(1, 3, 2)",
        "a.transpose(0, 2)", "v.expand(2)", "a.T.shape", "b.T.stride()",
        "a.split(3, 1)", "a.chunk(2)", "b.unbind(0)[1].storage_offset()",
        "a.squeeze(0).shape", "a.select(0, 3)",
    ],
    "indexing": [
        "a[1]", "a[-1]", "a[1, 2]", "a[-1, -1]", "a[1:3]", "a[:, ::2]", "a[:, 1::2].stride()",
        "a[..., 0]", "a[..., 0].storage_offset()", "a[None].shape", "a[:, None, 1:].shape",
        "a[None, ..., None].stride()", "b[1, ..., 2]", "b[:, 1]", "b[-1, -1, -1]",
        "a[::2, ::3]", "a[5:]", "a[-2:]", "a[:-1, :-2]", "a[10:20].shape", "a[1:1].shape",
        "a[2:1].shape", "b[..., 1:3, ::2].stride()", "a[()]", "z[()]", "z[None]",
        "a[3]", "a[0, 4]", "a[0, 0, 0]", "a[..., ...]", "a[::-1]", "a[::0]",
        "a[1.5]", "z[0]", "a[T.tensor(1)]", "a[i[2]]",
        "list(v)", "[x.item() for x in a[0]]", "len(a)", "len(b[0])", "len(z)",
    ],
    "setitem": [
        "(lambda t: (t.__setitem__(1, 5.0), t)[1])(a.clone())",
        "(lambda t: (t.__setitem__((slice(None), 0), -1.0), t)[1])(a.clone())",
        "(lambda t: (t.__setitem__(slice(1, 3), T.tensor([9., 8., 7., 6.])), t)[1])(a.clone())",
        "(lambda t: (t.__setitem__((Ellipsis, 1), T.tensor([1, 2, 3])), t)[1])(a.clone())",
        "(lambda t: (t.__setitem__(0, [4, 3, 2, 1]), t)[1])(a.clone())",
        "(lambda t: (t.__setitem__(-1, 300), t)[1])(u.clone())",
        "(lambda t: (t.__setitem__(0, 2.7), t)[1])(i.clone())",
        "(lambda t: (t.__setitem__(slice(0, 2), T.tensor([1., 2., 3.])), t)[1])(a.clone())",
    ],
    "repr": [
        "T.tensor([1., 2.])", "T.tensor([1.5, 2.])", "T.tensor([1, 2])", "T.tensor(3.)",
        "T.tensor(3)", "T.tensor(True)", "T.tensor([True, False])", "T.tensor([])",
        "T.zeros(0, 3)", "T.zeros(2, 0, dtype=T.int32)", "T.zeros(0, dtype=T.float64)",
        "T.zeros(3, dtype=T.float64)", "T.ones(2, 2, dtype=T.int8)", "T.ones(3, dtype=T.uint8)",
        "T.tensor([0.001, 1000.])", "T.tensor([0.0001, 1.])", "T.tensor([0.00001, 1.])",
        "T.tensor([1e10, 1.])", "T.tensor([1e8, 1.])", "T.tensor([123456789.])",
        "T.tensor([1., float('nan'), float('inf'), -float('inf')])",
        "T.tensor([float('nan')])", "T.tensor([0., -0.])", "T.tensor([-1.5, 2.25, 100.125])",
        "T.tensor([[1.5, -2.], [3., 4.]])", "b", "b.to(T.float32) / 7",
        "T.tensor([1, 2], dtype=T.int16)", "T.tensor([-100, 2], dtype=T.int64)",
        "T.tensor([1., 2.], dtype=T.float16)", "T.tensor([1.5, 2.], dtype=T.bfloat16)",
        "h", "c", "T.tensor([1 + 1j, 2 - 3.5j], dtype=T.complex128)", "T.tensor(1j)",
        "T.tensor([0j])", "T.tensor([1.5 + 0j, -2j])",
        "T.ones(30)", "T.ones(30) / 3", "T.ones(3, 40, dtype=T.int64)",
        "T.ones(1001)", "T.ones(40, 30)", "T.zeros(2, 1001, dtype=T.int32)",
        "T.ones(2, 3, 4, 5)", "T.tensor([1e-5, 1e5, 0.5])", "T.tensor([12345.678])",
        "T.tensor([[1e-20]])", "T.tensor([1.e30, -1e-30])",
        "str(T.tensor([1.5, 2.]))", "T.zeros(2, 3, device='meta')",
        "T.zeros(2, dtype=T.int32, device='meta')", "T.tensor(-0.)",
        "T.tensor([1, 2, 3], dtype=T.float64)",
        "T.arange(100)", "T.arange(100) / 7", "T.arange(2000).view(40, 50) / 7",
        "T.arange(3000.)", "T.arange(-1500, 1500, dtype=T.int16)", "T.arange(4000).view(10, 20, 20)",
        "T.arange(30.).view(2, 3, 5) - 14.5", "T.arange(20.) * 1e6", "-T.arange(12.) * 1e-5",
        "(T.arange(1200) % 2).to(T.bool)", "T.arange(1100) * 1j", "T.arange(6) * (1.5 - 2j)",
        "T.arange(2000, dtype=T.uint8)", "T.arange(12).view(3, 4).t()",
        "T.tensor([1e-3, 2., float('nan')]).to(T.bfloat16)", "T.arange(24.).view(2, 3, 4)[:, 1:, ::2]",
    ],
    "conversions": [
        "a.tolist()", "z.item()", "float(z)", "int(z)", "bool(z)", "int(T.tensor([7]))",
        "float(v)", "bool(v)", "bool(T.tensor([]))", "bool(T.tensor([0.]))", "complex(z)",
        "v.item()", "T.tensor([[5]]).item()", "i.tolist()", "u.tolist()", "m.tolist()",
        "h.tolist()", "c.tolist()", "[1, 2, 3][T.tensor(1)]", "'{:.2f}'.format(z)",
        "a.to(T.int32)", "a.to(dtype=T.int8).dtype", "a.to('cpu').dtype",
        "a.to('cpu', T.float64)", "a.to(i)", "a.to(T.float32) is a", "a.to(T.float32, copy=True) is a",
        "a.to('meta').device", "a.to(T.float64, True).dtype", "a.to(T.float64, False, True) is a",
        "a.to('cpu', T.float64, False, True).dtype", "a.to(i, False, True).dtype",
        "a.to(None).dtype", "a.to(T.float32, T.float64)", "a.to(T.float32, dtype=T.float64)",
        "a.to('cpu', 'cpu')", "a.to('cpu', device='cpu')", "a.to('cpu', T.float64, dtype=T.float64)",
        "a.to(i, T.float64)", "a.to(i, dtype=T.float64)", "a.to(T.float32, device='cpu')",
        "a.to(T.float32, 1)", "a.layout", "a.is_contiguous(memory_format=T.contiguous_format)",
        "T.channels_last", "T.strided", "T.contiguous_format", "T.preserve_format",
        "T.zeros(2, 3, 4, 5).is_contiguous(memory_format=T.channels_last)",
        "T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last).stride()",
        "T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last).is_contiguous(memory_format=T.channels_last)",
        "T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last).is_contiguous()",
        "T.zeros(2, 3, 4, 5).to(memory_format=T.channels_last).stride()",
        "T.zeros(2, 3, 4, 5, 6).contiguous(memory_format=T.channels_last_3d).stride()",
        "T.zeros(2, 3).contiguous(memory_format=T.channels_last)",
        "a.t().clone().stride()", "a.t().clone(memory_format=T.contiguous_format).stride()",
        "a.element_size()", "h.element_size()", "a.is_floating_point()", "i.is_floating_point()",
        "c.is_complex()", "a.get_device()", "a.dim()", "a.numel()", "a.ndim",
        "float(a)", "a.item()", "int(v[0])", "v.int()", "v.long()", "v.half()", "i.float()",
        "i.double()", "v.bool()", "i.byte()", "i.char()", "i.short()", "v.bfloat16()",
        "v.cfloat()", "i.cdouble()", "a.float() is a", "a.t().float().stride()",
        "v.new_zeros(2, 3)", "i.new_ones((2,))", "v.new_full((2,), 7)", "v.new_tensor([1, 2])",
        "i.new_zeros(2, dtype=T.float64)", "v.new_empty(4).shape", "a.numpy()", "a.t().numpy().strides", "m.numpy()",
        "c.numpy()", "h.numpy()", "u.numpy()", "T.ones(2, dtype=T.bfloat16).numpy()",
        "(lambda n: (n.__setitem__((0, 0), 5), a[0, 0].item())[1])(a.numpy())",
        "T.from_numpy(np.arange(3))", "T.from_numpy(np.ones((2, 2), dtype=np.float32)).t()",
        "T.zeros(0, 3).numpy().shape", "np.asarray(i)", "np.asarray(a.t(), dtype=np.int64)",
        "T.zeros(2, device='meta').numpy()",
    ],
    "operators": [
        "a + 1", "1 + a", "a - 1", "1 - a", "a * 2", "2 * a", "a / 2", "2 / (a + 1)",
        "a // 3", "7 // (a + 1)", "a % 3", "7 % (a + 1)", "-a % 3", "a ** 2", "a ** 0.5", "a ** 3", "i ** 3", "i ** 0", "u ** 3", "i ** 1", "v ** -2",
        "v ** -0.5", "v ** 1", "v ** 0", "h ** 2", "m ** 2", "(a + 1) ** -1", "i ** 17",
        "v.where(m, 0.)", "v.where(m, -v)",
        "v ** -1", "i ** 2", "-v", "abs(v)", "+v", "~i", "~m", "i & 6", "6 & i", "i | 8",
        "i ^ 5", "m & T.tensor([True, True, False])", "m | False", "m ^ True", "i << 2",
        "i >> 1", "3 << i.abs()", "a @ a.t()", "a.t() @ v.to(T.float32)",
        "v.to(T.float32) @ a.t()", "a == 5", "a != 5", "a < 5", "a <= 5", "a > 5", "a >= 5",
        "5 < a", "i == 7", "i < 2.5", "u < -1", "v == v", "a == a.t().t()", "m == True",
        "i + 2.5", "i + 2", "i * 1.5", "i / 2", "u - 5", "u + 300", "i + z", "i + T.tensor(1)",
        "u + m", "m + m", "m * 3", "m + 1.5", "i + 1j", "v + c", "h + 1", "h * 1.5",
        "h + v.to(T.float32)", "i + u", "i // 2", "i % 5", "i % -5", "-i // 3",
        "i // 0", "i % 0", "a / 0", "-a / 0", "a // 0", "m - m", "-m", "i ** -1",
        "a + 'x'", "a + [1]", "a + b", "a @ v",
        "(lambda t: (t.__iadd__(1), t)[1])(a.clone())",
        "(lambda t: (t.__imul__(2), t)[1])(i.clone())",
        "(lambda t: (t.__iadd__(1.5), t)[1])(i.clone())",
        "(lambda t: (t.__itruediv__(2), t)[1])(i.clone())",
        "(lambda t: (t.__ifloordiv__(2), t)[1])(i.clone())",
        "(lambda t: (t.__imod__(5), t)[1])(i.clone())",
        "(lambda t: (t.__iand__(3), t)[1])(i.clone())",
        "(lambda t: (t.__isub__(T.tensor([1., 2., 3., 4.])), t)[1])(a.clone())",
        "(lambda t: (t.__iadd__(T.ones(2, 3)), t)[1])(v.clone())",
        "(lambda t: (t.__ilshift__(1), t)[1])(i.clone())",
        "(lambda t: (t.__ipow__(2), t)[1])(v.clone())",
        "(lambda t: t.__iadd__(1) is t)(a.clone())",
        "T.ones(1, dtype=T.int) + 5", "T.tensor(5) + 5",
    ],
    "pow": [
        "a ** a", "v ** v", "a ** T.tensor([0.5, 1., 2., 3.])", "v[:, None] ** T.tensor([1., 2.])",
        "i ** T.tensor([2, 3, 0, -1], dtype=T.int32)", "T.tensor([1, -1, 2, -2, 0]) ** -3",
        "T.tensor([1, -1, 2, -2, 0]) ** T.tensor([-1, -3, -2, -1, 0])", "i ** T.tensor(2)",
        "i ** z", "u ** T.tensor([2, 3, 1], dtype=T.uint8)", "i ** T.tensor([0.5, 2., 1., 0.5])",
        "h ** T.tensor([2., 0.5, 3.], dtype=T.float16)", "h ** v", "a.double() ** 1.7", "v ** 1.7",
        "a ** 2.5", "i ** 2.5", "i ** 5", "u ** 2", "m ** 3", "m ** True", "m ** 1.5", "h ** 1.5",
        "T.tensor([-8., 0., -0., float('inf'), -float('inf'), float('nan')]) ** (1 / 3)",
        "T.tensor([-2., 0., float('nan'), 1.]) ** 0", "T.tensor([float('nan'), 2.]) ** 0.",
        "T.tensor([0., -0., float('inf'), -float('inf')]) ** -1.5",
        "T.tensor([0., -0., float('inf'), -float('inf')]) ** -3", "T.tensor([-0., 4.]) ** 0.5",
        "T.tensor([2.], dtype=T.float64) ** 0.1", "T.tensor([10, 3], dtype=T.int8) ** 3",
        "T.tensor([2, 3], dtype=T.int64) ** 40", "v ** 1j", "c ** 2", "c ** 0.5", "c ** -1",
        "c ** (1 + 1j)", "c ** c", "v ** c", "c ** v", "c[:1] ** T.tensor([2, 3])", "2 ** c", "1j ** T.tensor([0.5, 1.5])",
        "T.tensor([1j, 2, -1]) ** -1", "c.to(T.complex128) ** 1.5", "2 ** v", "2 ** i",
        "2 ** T.tensor([3, -1, 0], dtype=T.int32)", "2.5 ** i", "0.5 ** a", "3 ** u", "2 ** m",
        "1 ** T.tensor([float('nan'), 2.])", "(-2) ** v", "(-2.) ** T.tensor([2., 3., 0.5])",
        "0 ** T.tensor([-1., 0., 2.])", "m ** T.tensor([1, 2, 0])", "T.pow(2, i)", "T.pow(3, T.tensor([2, -1]))",
        "T.pow(1, c)", "1 ** T.tensor([complex(float('nan'), 1), 2j])",
        "T.pow(1, T.tensor([complex(float('nan'), 1), 2j]))", "T.pow(a, 2)", "T.pow(v, v)",
        "T.pow(2, v)", "T.pow(v, T.tensor(2.))",
        "v.pow(3)", "v.pow(T.tensor(2.))", "v.pow(0.5)", "i.pow(2)", "T.pow(v, 0.7, out=T.empty(3))",
        "T.pow(v, v, out=T.empty(3))", "T.pow(2, v, out=T.empty(3))",
        "T.pow(i, T.tensor([1, 2, 3, 0], dtype=T.int32), out=T.empty(4, dtype=T.int64))",
        "T.pow(v, v, out=T.empty(3, dtype=T.float64))", "T.pow(2, i, out=T.empty(4))",
        "(lambda o: T.pow(v, 2, out=o) is o)(T.empty(3))",
        "(lambda o: T.pow(v, v, out=o) is o)(T.empty(3))",
        "(lambda o: T.pow(3, v, out=o) is o)(T.empty(3))",
        "v.clone().pow_(2)", "v.clone().pow_(v)", "a.clone().pow_(T.tensor([1., 2., 0.5, 3.]))",
        "i.clone().pow_(3)", "c.clone().pow_(2)", "c.clone().pow_(v)", "(lambda t: t.pow_(2) is t)(v.clone())",
        "(lambda t: (t.__ipow__(T.tensor([2., 3., 0.5])), t)[1])(v.clone())",
        "(lambda t: (t.__ipow__(0.5), t)[1])(v.clone())",
        "(lambda t: (t.__ipow__(3), t)[1])(i.clone())",
        "(lambda t: t.__ipow__(2) is t)(v.clone())",
        "u ** -2", "m ** -1", "T.pow(i, -3)", "i.clone().pow_(-1)", "m ** m",
        "T.pow(v, 2, out=T.empty(3, dtype=T.float64))", "T.pow(i, 2, out=T.empty(4))",
        "i.clone().pow_(2.5)", "i.clone().pow_(v[:1])", "h.clone().pow_(c)",
        "T.tensor([1, 2], dtype=T.int8) ** 300", "v ** T.ones(2)", "v.clone().pow_(T.ones(2, 3))",
        "T.pow(2, 3)", "T.pow(v, 'x')", "T.pow('x', v)", "v ** 'x'", "'x' ** v", "T.pow(v, 2, out=3)",
        "T.pow(2, v, out=3)", "T.tensor([1.], dtype=T.complex32) ** 2",
    ],
    "functions": [
        "T.add(a, 1)", "T.add(5, 5)", "T.add(5, 5).dtype", "T.add(2.5, a)", "T.sub(a, v[0])",
        "T.mul(i, i)", "T.div(a, 4)", "T.div(i, 4, rounding_mode='floor')",
        "T.div(i, 4, rounding_mode='trunc')", "T.div(a, 4, rounding_mode='round')",
        "T.maximum(v, T.tensor(0.))", "T.minimum(i, T.tensor([0, 0, 5, 5], dtype=T.int32))",
        "T.fmax(T.tensor([float('nan'), 1.]), T.tensor([2., float('nan')]))",
        "T.sqrt(a)", "T.exp(v)", "T.log(a + 1)", "T.sin(v)", "T.cos(v)", "T.tanh(v)",
        "T.sigmoid(v)", "T.floor(v)", "T.ceil(v)", "T.round(T.tensor([0.5, 1.5, 2.5]))",
        "T.trunc(v)", "T.frac(v)", "T.sign(v)", "T.abs(i)", "T.neg(u)", "T.square(i)",
        "T.reciprocal(v)", "T.relu(v)", "T.isnan(T.tensor([1., float('nan')]))",
        "T.isinf(T.tensor([1., float('inf')]))", "T.isfinite(v)", "T.signbit(v)",
        "T.logical_not(i)", "T.logical_and(i, m[0])", "T.logical_or(m, m)", "T.logical_xor(i, i)",
        "T.bitwise_and(i, 3)", "T.bitwise_not(u)", "T.eq(a, 1)", "T.ne(i, 0)", "T.lt(v, 0)",
        "T.remainder(i, 5)", "T.fmod(i, 5)", "T.copysign(v, -1)", "T.hypot(v, v)",
        "T.atan2(v, T.ones(3))", "T.where(m, v, 0.)", "T.where(m, 1, 0)",
        "T.clamp(v, -1, 1)", "T.clamp(v, min=0)", "T.clamp(v, max=0)", "T.clamp(i, min=0.5)",
        "T.clamp(v)", "T.clip(i, 0, 5)", "T.exp2(v)", "T.log2(a + 1)", "T.log10(a + 1)",
        "T.expm1(v)", "T.log1p(a)", "T.erf(v)", "T.erfc(v)", "T.rsqrt(a + 1)",
        "T.asinh(v)", "T.sinh(v)", "T.cosh(v)", "T.atan(v)", "T.asin(v / 4)", "T.acos(v / 4)",
        "T.tan(v)", "T.atanh(v / 4)", "T.acosh(a + 1)", "T.nn.functional.silu(v)",
        "T.nn.functional.gelu(v)", "T.nn.functional.gelu(v, approximate='tanh')",
        "T.lerp(v, T.zeros(3), T.tensor(0.5))", "T.addcmul(v, v, v)", "T.addcdiv(v, v, v)",
        "v.exp()", "v.abs()", "i.square()", "a.sqrt_()", "v.clone().neg_()",
        "v.clone().clamp_(0, 1)", "i.clone().clamp_(0.5, 1)", "v.clone().add_(1)",
        "i.clone().div_(2)", "i.clone().div_(2, rounding_mode='floor')", "v.maximum(v * 2)",
        "a.sub(1).mul(2).div(3)", "v.eq(1.5)", "T.add(a, 1, out=T.empty(3, 4))",
        "T.sqrt(a, out=T.empty(3, 4, dtype=T.int32))", "T.exp(i)", "T.exp(m)",
        "T.floor(h)", "T.abs(c)", "T.sin(c)", "T.add(a, 'x')", "T.sqrt(a, a)",
        "T.sgn(c)", "T.sgn(v)", "c.abs()", "T.abs(c, out=T.empty(3, dtype=T.float64))",
        "c.clone().abs_()", "T.round(v * 1.2345, decimals=2)", "T.round(a * 37.5, decimals=-1)",
        "v.round(decimals=1)", "(v * 1.05).round_(decimals=1)", "T.round(i, decimals=1)",
        "T.round(i)", "T.round(i, decimals=0)",
        "T.nan_to_num(T.tensor([float('nan'), float('inf'), -float('inf'), 1.5]))",
        "T.nan_to_num(T.tensor([float('nan'), float('inf'), -float('inf')]), nan=2., posinf=1e10, neginf=-3.)",
        "T.tensor([float('inf'), 1.], dtype=T.float16).nan_to_num()",
        "T.tensor([float('nan'), 1.]).nan_to_num_(7.)", "T.nan_to_num(i, nan=1.5)",
    ],
    "reductions": [
        "a.sum()", "a.sum(0)", "a.sum(1, keepdim=True)", "a.sum((0, 1))", "a.sum(dim=-1)",
        "b.sum()", "b.sum(dtype=T.float64)", "i.sum()", "u.sum()", "m.sum()", "h.sum()",
        "T.sum(a, 1)", "a.prod(1)", "i.prod()", "a.mean()", "a.mean(0)", "a.mean(dim=(0, 1))",
        "i.mean()", "i.mean(dtype=T.float32)", "T.nansum(T.tensor([1., float('nan')]))",
        "T.nanmean(T.tensor([1., float('nan'), 3.]))", "a.amax()", "a.amax(1)", "a.amin(0)",
        "a.max()", "a.min()", "a.max(1)", "a.min(0, keepdim=True)", "a.max(dim=1).indices",
        "T.max(a, 1).values", "T.max(v, T.zeros(3))", "T.min(v, T.zeros(3))", "i.max()",
        "a.argmax()", "a.argmax(1)", "a.argmin(0, keepdim=True)", "m.all()", "m.any()",
        "i.all()", "(a > 5).any(1)", "u.all()", "a.var()", "a.var(1)", "a.std(0)",
        "a.var(1, unbiased=False)", "a.var(1, correction=0)", "a.var(0, keepdim=True)",
        "a.norm()", "a.norm(1)", "a.norm(float('inf'))", "a.norm(2, 1)", "T.norm(v)",
        "a.logsumexp(1)", "T.logsumexp(a, 0, keepdim=True)", "a.softmax(1)",
        "T.softmax(a, 0)", "a.log_softmax(1)", "a.cumsum(1)", "i.cumsum(0)",
        "i.cumsum(0, dtype=T.float32)", "T.zeros(0).sum()", "T.zeros(0).prod()",
        "T.zeros(0).mean()", "T.zeros(0).amax()", "T.zeros(2, 0).amax(1)", "a.sum(2)",
        "a.sum((0, 0))", "h.prod()", "z.sum()", "z.max()", "a.sum(1, dtype=T.int32)",
        "a.prod(1, keepdim=True)", "b.amax((0, 2))",
        "c.var()", "c.std(0)", "c.norm()", "T.norm(c, 1)", "T.norm(c, float('inf'))",
        "T.sum(a, 1, out=T.empty(3))", "T.sum(a, 1, out=T.empty(0, dtype=T.float64))",
        "T.mean(a, 0, out=T.empty(4, dtype=T.int64))", "T.amax(a, 1, out=T.empty(3, dtype=T.int64))",
        "T.argmax(a, 1, out=T.empty(0, dtype=T.int64))", "T.all(a, 1, out=T.empty(3, dtype=T.bool))",
        "T.max(a, 1, out=(T.empty(0), T.empty(0, dtype=T.int64)))",
        "T.min(a, 0, out=(T.empty(4), T.empty(4)))",
        "T.var(a, 1, out=T.empty(3, dtype=T.float64))", "T.std(c, 0, out=T.empty(0, dtype=T.float64))",
        "T.var(a, 1, out=T.empty(3, dtype=T.int64))", "T.norm(a, 2, 1, out=T.empty(3))",
        "T.norm(a, 2, 1, out=T.empty(3, dtype=T.int64))",
        "T.logsumexp(a, 1, out=T.empty(3, dtype=T.float64))",
        "T.logsumexp(a, 1, out=T.empty(3, dtype=T.int64))",
        "T.softmax(a, 1, out=T.empty(3, 4))", "T.softmax(a, 1, out=T.empty(3, 4, dtype=T.float64))",
        "T.log_softmax(a, 0, out=T.empty(0))", "T.cumsum(i, 0, out=T.empty(4))",
        "T.cumsum(a, 1, dtype=T.float64, out=T.empty(0))",
    ],
    "matmul": [
        "T.mm(a, a.t())", "T.matmul(a, a.t())", "T.matmul(v, v)", "T.dot(v, v)", "T.mv(a.t(), a[0])",
        "T.outer(v, v)", "T.bmm(b.to(T.float32), b.to(T.float32).transpose(1, 2))",
        "a.matmul(a.t())", "a.mm(a.t())", "v.dot(v)", "v.outer(v[:2])", "b @ b.transpose(1, 2)",
        "T.mm(a, a)", "T.dot(v, i)", "a @ v[:2]", "T.mm(i.view(2, 2), i.view(2, 2))",
    ],
    "joining": [
        "T.cat([a, a])", "T.cat([a, a], 1)", "T.cat((v, v, v[:1]))", "T.cat([i, u.to(T.int32)])",
        "T.cat([v, i.to(T.float64)])", "T.cat([m, u])", "T.cat([a, a.t().t()], -1).stride()",
        "T.cat([a, T.zeros(0)])", "T.cat([T.zeros(0), T.zeros(0)])", "T.cat([])",
        "T.cat([a, v])", "T.cat([a, a[:, :2]])", "T.cat([z, z])", "T.cat([a, a], 2)",
        "T.cat([a, 1])", "T.cat([a[:, 1:], a[:, :1]], 1)", "T.concat([v, v])",
        "T.stack([v, v])", "T.stack([v, v], 1)", "T.stack([v, v], -1).shape", "T.stack([z, z])",
        "T.stack([a, a[:2]])", "T.stack([])", "T.stack([i, i.to(T.int8)]).dtype",
        "T.cat([a.t(), a.t()])", "T.cat([b, b], 1).shape",
    ],
    "comparing": [
        "a.masked_fill(a > 5, -1.)", "i.masked_fill(i > 0, 2.5)", "v.masked_fill(m, 0)",
        "a.clone().masked_fill_(a < 2, 9.)", "T.masked_fill(v, T.tensor(True), 1.)",
        "T.isclose(v, v + 1e-6)", "T.isclose(v, v + 1e-3)", "T.isclose(i, i)",
        "T.isclose(T.tensor([float('nan'), float('inf'), 1.]), T.tensor([float('nan'), float('inf'), 1.1]))",
        "T.isclose(T.tensor([float('nan')]), T.tensor([float('nan')]), equal_nan=True)",
        "T.isclose(v, v, rtol=0, atol=0)", "T.isclose(a, v[0])", "T.isclose(v, i[:3])",
        "T.allclose(a, a + 1e-7)", "T.allclose(a, a + 1)", "a.allclose(a)", "T.equal(a, a)",
        "T.equal(a, a.t())", "T.equal(v, v + 1)", "v.equal(v.clone())", "a.isclose(a).all()",
    ],
    "promotion": [
        "T.promote_types(T.int32, T.float16)", "T.result_type(i, 2.5)", "T.result_type(i, z)",
        "T.can_cast(T.float64, T.int32)", "T.get_default_dtype()",
        "(T.ones(1, dtype=T.int) + T.tensor(1, dtype=T.long)).dtype",
        "(T.ones(1, dtype=T.bool) + T.ones(1, dtype=T.uint8)).dtype",
        "T.add(T.ones(1, dtype=T.long), T.ones(1, dtype=T.float)).dtype",
        "(lambda t: t.__imul__(T.ones(1, dtype=T.double)))(T.ones(1))",
        "(lambda t: t.__imul__(T.ones(1, dtype=T.float)))(T.ones(1, dtype=T.int))",
        "(lambda t: t.__imul__(T.ones(1, dtype=T.int)))(T.ones(1, dtype=T.uint8))",
        "(lambda t: t.__imul__(T.ones(1, dtype=T.complex64)))(T.ones(1))",
        "(lambda t: t.__imul__(T.ones(1, dtype=T.int)))(T.ones(1, dtype=T.bool))",
    ],
    "factories": [
        "T.zeros_like(a)", "T.zeros_like(a, dtype=T.int8)", "T.ones_like(i)", "T.full_like(v, 7)",
        "T.full_like(i, 2.5)", "T.full_like(u, -1)", "T.empty_like(a.t()).stride()",
        "T.empty_like(a.t(), memory_format=T.contiguous_format).stride()",
        "T.zeros_like(T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last)).stride()",
        "T.empty(2, 3, 4, 5, memory_format=T.channels_last).stride()",
        "T.empty(2, 3, memory_format=T.channels_last)", "T.empty_strided((2, 3), (1, 2)).stride()",
        "T.empty_strided((2, 3), (1, 2)).is_contiguous()", "T.zeros(2, memory_format=T.channels_last)",
        "T.full((2, 2), True)", "T.full((1,), 1j)", "T.ones(())", "T.zeros([2, 1])",
        "a + np.int64(2)", "i * np.int32(3)", "a * np.float32(0.5)", "v.fill_(np.float64(2.0))",
        "i + np.bool_(True)", "m + np.bool_(True)", "m & np.bool_(True)", "i.clamp(np.bool_(False))",
        "T.full((2,), np.bool_(True))", "b * np.bool_(False)",
        "T.arange(5)", "T.arange(1, 4)", "T.arange(0, 1, 0.25)", "T.arange(1., 2.5)",
        "T.arange(10, 0, -3)", "T.arange(0, 0.3, 0.1)", "T.arange(0, 1, 0.1).dtype",
        "T.arange(3, dtype=T.float64)", "T.arange(5, 1)", "T.arange(0, 5, 0)", "T.arange(0)",
        "T.arange(-1.5, 1.5)", "T.arange(6).view(2, 3).t()", "T.arange(0.1, 0.95, 0.15)",
        "T.tensor([[1, 2], [3]])", "T.tensor([1, 'x'])", "T.ones(2, -1)",
    ],
    "printoptions": [
        # repr() inside the tuple: the options are reset before the tuple prints
        "(T.set_printoptions(precision=2), repr(T.tensor([1.12345])), repr(T.arange(4) / 3), "
        "T.set_printoptions(profile='default'), repr(T.tensor([1.12345])))",
        "(T.set_printoptions(threshold=5), repr(T.arange(10)), repr(T.arange(12.).view(3, 4) + .5),"
        " T.set_printoptions(profile='default'))",
        "(T.set_printoptions(sci_mode=True), repr(v), repr(T.zeros(2)), repr(T.ones(2)), repr(i), "
        "T.set_printoptions(profile='default'))",
        "(T.set_printoptions(sci_mode=False), repr(T.tensor([1e-8, 1e10])), "
        "T.set_printoptions(profile='default'))",
        "(T.set_printoptions(linewidth=30), repr(T.arange(20)), repr(T.arange(12.).view(2, 6) / 7),"
        " T.set_printoptions(profile='default'))",
        "(T.set_printoptions(profile='short'), repr(T.arange(2000.) / 3), "
        "repr(T.arange(1200).view(40, 30)), T.set_printoptions(profile='default'))",
        "(T.set_printoptions(edgeitems=1, threshold=3), repr(b), "
        "T.set_printoptions(profile='default'))",
        "(T.set_printoptions(profile='full'), repr(T.arange(1005))[-30:], "
        "T.set_printoptions(profile='default'))",
        "(T.set_printoptions(precision=6), repr(v / 7), T.set_printoptions(precision=0), "
        "repr(v / 7), T.set_printoptions(profile='default'))",
    ],
    "defaults": [
        "(T.set_default_dtype(T.float64), T.tensor([1.5]), T.tensor([1.5], dtype=T.float32), "
        "T.tensor([1j]), T.ones(2).dtype, (T.ones(1, dtype=T.int32) + 2.5).dtype, "
        "T.get_default_dtype(), T.tensor([1, 2]) / 2, T.set_default_dtype(T.float32))",
        "(T.set_default_dtype(T.float16), T.tensor([1.5]), T.ones(1) / 3, T.tensor([1, 2]) * 0.5, "
        "T.set_default_dtype(T.float32))",
        "T.set_default_dtype(T.int32)", "T.get_default_dtype()", "T.tensor([1.5, 2j]).dtype",
        "T.set_default_dtype(T.bfloat16)",
    ],
    "devices": [
        "T.device('cpu')", "T.device('meta')", "str(T.device('cpu'))",
        "T.zeros(2, device='meta').device", "T.zeros(2, device='meta') + 1",
        "T.ones(2, device='meta').sum()", "T.zeros(2, device='meta').tolist()",
        "T.zeros(2) + T.zeros(2, device='meta')",
    ],
}


def answer(expr, env):
    try:
        value = eval(expr, env)
    except Exception as e:  # the answer is the exception
        text = str(e).split("\n")[0]
        return "!%s: %s" % (type(e).__name__, text)
    return repr(value)


def main():
    env = {"T": torch}
    exec(SETUP, env)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "api_torch113.txt")
    with open(out, "w") as f:
        f.write("# Known answers of test_api.py, written by gen_api_cases.py with PyTorch %s.\n"
                % torch.__version__)
        f.write("# <expression>\\t<repr of the result, or !Exception: message>; '\\n' is a "
                "newline.\n")
        f.write("# SETUP " + SETUP.strip().replace("\n", "\\n") + "\n")
        for section, exprs in SECTIONS.items():
            f.write("## %s\n" % section)
            for expr in exprs:
                env2 = dict(env)
                exec(SETUP, env2)
                f.write("%s\t%s\n" % (expr, answer(expr, env2).replace("\\", "\\\\")
                                      .replace("\n", "\\n")))
                torch.set_default_dtype(torch.float32)  # a case may have changed it
                torch.set_printoptions(profile="default")
    return 0


if __name__ == "__main__":
    sys.exit(main())
