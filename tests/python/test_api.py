"""The tessera package against PyTorch 1.13's answers: views, indexing and
assignment, printing, conversions, operators and comparisons, the
functions built from the op table, reductions, matrix products, promotion
and devices.

data/api_torch113.txt (written by gen_api_cases.py with Debian's torch)
holds one expression over `T` per line and what PyTorch printed for it;
each runs here with T = tessera and must print the same, "torch." read as
"tessera.". An expected exception must come with the same class and
message. The few cases where Tessera deliberately answers otherwise are
listed in DIFFERENT with the reason and Tessera's own answer.
"""
import os
import re

import pytest

import tessera

DATA = os.path.join(os.path.dirname(__file__), "data", "api_torch113.txt")

# expression -> (Tessera's answer, why it differs from PyTorch 1.13's)
DIFFERENT = {
    "(lambda t: (t.__setitem__(0, [4, 3, 2, 1]), t)[1])(a.clone())": (
        "!TypeError: can't assign a list to a torch.FloatTensor",
        "the library names tensor types as PyTorch does (tsr_tensor_type)"),
    "i.clone().clamp_(0.5, 1)": (
        "!RuntimeError: result type Float can't be cast to the desired output type Int",
        "PyTorch 1.13 spells this one dtype in lower case; the library in its usual case"),
    "T.zeros(2, memory_format=T.channels_last)": (
        "!TypeError: 'memory_format' is an invalid keyword argument for this function",
        "the same refusal; PyTorch's text lists its overloads"),
    "v.where(m, 0.)": ("tensor([1.5000, 0.0000, 3.0000])",
                       "Tensor.where takes a Python number as torch.where does"),
    "T.zeros(2, device='meta').tolist()": (
        "!RuntimeError: Cannot copy out of meta tensor; no data!",
        "the library's errors are RuntimeError where PyTorch raises NotImplementedError"),
}


def unescape(match):
    """The table's escapes: backslash-n a newline, two backslashes one."""
    return "\n" if match.group(1) == "n" else "\\"


def read_cases():
    setup, cases, section = None, [], None
    with open(DATA) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# SETUP "):
                setup = line[len("# SETUP "):].replace("\\n", "\n")
            elif line.startswith("## "):
                section = line[3:]
            elif line and not line.startswith("#"):
                expr, answer = line.split("\t", 1)
                answer = re.sub(r"\\([\\n])", unescape, answer)
                cases.append(pytest.param(setup, expr, answer, id="%s: %s" % (section, expr)))
    return cases


def answer(expr, env):
    try:
        value = eval(expr, env)
    except Exception as e:
        return "!%s: %s" % (type(e).__name__, str(e).split("\n")[0])
    return repr(value)


CASES = read_cases()


def test_table_is_complete():
    assert len(CASES) > 450


@pytest.mark.parametrize("setup,expr,expected", CASES)
def test_matches_pytorch(setup, expr, expected):
    env = {"T": tessera}
    exec(setup, env)
    expected = expected.replace("torch.", "tessera.")
    if expr in DIFFERENT:
        expected = DIFFERENT[expr][0]
    try:
        assert answer(expr, env) == expected
    finally:
        tessera.set_default_dtype(tessera.float32)  # a case may have changed it
        tessera.set_printoptions(profile="default")
