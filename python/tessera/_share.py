"""Sharing tensors between processes (libtessera's tessera/share.h).

t.export() makes a handle, a capability another process of the same user
(or the uid / group the export names) passes to tessera.import_tensor to
get a tensor over the same memory, without a copy. A handle is an
ExportHandle; str(handle) is its fixed text form, which travels any way
(a pipe, a file, an environment variable, a pickle) and which
import_tensor and revoke take as well. The memory lives while the
exporter holds the tensor or any import of it is alive, so the exporter
may exit first; a handle can be imported only while the exporter still
holds the tensor. cpu tensors are exported after share_memory_() (as
PyTorch's share_memory_()), accelerator tensors as they are.

Ordering: export() waits for the kernels this process queued on the
tensor's device, so an importer sees every write made before it; later
writes are ordered by their writer (tessera.opencl.synchronize(), or a
host copy such as tolist()), then any message to the other process.
"""
from tessera import _C


class ExportHandle:
    """A handle to an exported tensor: str() is its text form
    ("tsr-export-1-" and 48 hex digits), id the export's number as
    `tessera shares` lists it. ExportHandle(text) reads a text form
    strictly (ValueError with the library's message otherwise)."""

    __slots__ = ("_text", "id")

    def __init__(self, text):
        if isinstance(text, ExportHandle):
            text = text._text
        self._text, self.id = _C._parse_handle(text)

    def __str__(self):
        return self._text

    def __repr__(self):
        return "tessera.ExportHandle(id=%d)" % self.id  # the secret stays out of logs

    def __eq__(self, other):
        return isinstance(other, ExportHandle) and other._text == self._text

    def __hash__(self):
        return hash(self._text)

    def __reduce__(self):
        return (ExportHandle, (self._text,))


def _text(handle):
    return handle._text if isinstance(handle, ExportHandle) else handle


def export(self, read_only=False, uid=None, gid=None):
    """Tensor.export(read_only=False, uid=None, gid=None): a new
    ExportHandle for this tensor (an accelerator tensor, or a cpu tensor
    after share_memory_()). By default only processes of this uid may
    import it; uid and gid name one more user and one group allowed to.
    read_only: importers get a read-only mapping and may not write it."""
    return ExportHandle(_C._export(self, read_only, uid, gid))


def import_tensor(handle):
    """tessera.import_tensor(handle): a tensor over the memory an
    ExportHandle (or its text form) names, in this process's session with
    tesserad: the same dtype, sizes, strides and storage offset, on the
    same device."""
    return _C._import(_text(handle))


def revoke(handle):
    """tessera.revoke(handle): refuses every later import of the export
    (by its exporter's uid); imports made before stay valid."""
    _C._revoke(_text(handle))
