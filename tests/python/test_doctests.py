"""The doctest files in doctests/: PyTorch's tensor-attribute examples
with tessera for torch and opencl for cuda, printing what PyTorch prints.
Each file runs under `python3 -m doctest` in a process of its own, since
the package keeps one session with the daemon for the life of a process:
tensor_attributes.txt with the suite's tesserad (conftest.py), and
no_accelerator.txt with TESSERA_SOCKET naming no daemon."""
import os
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doctests")


def run_doctest(name, socket):
    env = dict(os.environ, TESSERA_SOCKET=socket)
    proc = subprocess.run([sys.executable, "-m", "doctest", "-o", "ELLIPSIS",
                           os.path.join(HERE, name)], env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_tensor_attributes(daemon):
    run_doctest("tensor_attributes.txt", daemon)


def test_no_accelerator(tmp_path):
    run_doctest("no_accelerator.txt", str(tmp_path / "no-daemon.sock"))
