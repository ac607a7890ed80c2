"""Tessera's tensors with PyTorch's semantics, over libtessera.

The objects are PyTorch's: dtypes (tessera.float32), devices
(tessera.device("opencl:0")), tensor factories and Tensor methods, type
promotion, and DLPack's __dlpack__ / from_dlpack for zero-copy exchange
with NumPy and PyTorch. Everything is implemented in the C extension
tessera._C; this file only re-exports it.
"""
from tessera._C import *  # noqa: F401,F403
from tessera._C import __version__  # noqa: F401
