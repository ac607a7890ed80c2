"""Tessera's tensors with PyTorch's semantics, over libtessera.

The objects are PyTorch's: dtypes (tessera.float32), devices
(tessera.device("opencl:0"), also `with tessera.device(...):`), layouts and
memory formats, tensor factories, the Tensor class with its views,
indexing, operators and printing, type promotion, the default dtype and
device, tessera.opencl (as torch.cuda), DLPack's __dlpack__ /
from_dlpack for zero-copy exchange with NumPy and PyTorch, and sharing
tensors between processes (share_memory_(), Tensor.export(),
tessera.import_tensor, tessera.revoke).

The C extension tessera._C holds the tensors, their views and the entry
points that reach the library's operations by name; this package builds
the rest from them. Every elementwise operation of the library's op table
becomes tessera.<name>(...), Tensor.<name>(...) and Tensor.<name>_(...)
without code of its own here.
"""
from tessera import _C
from tessera._C import *  # noqa: F401,F403
from tessera._C import __version__  # noqa: F401
from tessera._tensor import (  # noqa: F401
    Tensor, Size, layout, strided, sparse_coo, memory_format, contiguous_format, channels_last,
    channels_last_3d, preserve_format, _install_functions)
from tessera import opencl  # noqa: F401
from tessera._share import ExportHandle, import_tensor, revoke  # noqa: F401
from tessera import _share

Tensor.export = _share.export
del _share

_install_functions(globals())
del _install_functions
