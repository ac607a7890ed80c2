"""The README's Python blocks, run as users would run them: each one
written to a file and run by /usr/bin/python3 with the package of the
build tree and the fixture's tesserad. The sharing example runs two
processes (its producer exits first); its output is checked line by line
against what the README's comments say. CTest api-readme-python runs this
file (python-package leaves it out)."""
import os
import re
import subprocess
import sys

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def blocks():
    with open(README) as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), re.S | re.M)


def run(block, tmp_path):
    path = tmp_path / "block.py"
    path.write_text(block)
    # communicate() waits for every process holding the output open: the
    # consumer a producer started too.
    # consumer a producer started too. The block runs in tmp_path, so the
    # package's path must not be relative.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p))
    out = subprocess.run([PYTHON, str(path)], capture_output=True, text=True, timeout=180,
                         cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


# What a block prints, by a line only that block has: the sharing
# example's whole output, line by line as its comments say, and parts of
# the exchange example's, and the linear layer's.
EXPECTED = {
    "t = tessera.import_tensor(sys.argv[1])": (
        "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]\n"
        "[-1.  3.  5.] [-1.0, 3.0, 5.0]\n"
        "True tsr-export-1-\n"),
    "p = tessera.softmax(tx @ tw.t() + tb, dim=1)": ["opencl:0 (64, 10) True"],
    "x = torch.utils.dlpack.from_dlpack(t)": [
        "tessera.Size([2, 3]) (3, 1) tessera.float32", "[3.0, 6.0]", "tessera.float16"],
}


def test_readme_has_the_blocks():
    for marker in EXPECTED:
        assert sum(marker in block for block in blocks()) == 1, marker


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_block(daemon, tmp_path, index):
    block = blocks()[index]
    out = run(block, tmp_path)
    for marker, want in EXPECTED.items():
        if marker not in block:
            continue
        if isinstance(want, str):
            assert out == want
        else:
            for part in want:
                assert part in out
