"""tessera.opencl: the opencl devices, as torch.cuda is for CUDA's.

is_available() and device_count() answer False and 0 when no tesserad can
be reached, as torch.cuda's do without a driver; the others raise the
library's error then.
"""
from tessera import _C


def is_available():
    return _C._is_available("opencl")


def device_count():
    return _C._device_count("opencl")


def current_device():
    return _C._current_device("opencl")


def set_device(device):
    """set_device(index), set_device("opencl:1") or a tessera.device."""
    if isinstance(device, int):
        device = _C.device("opencl", device)
    _C._set_device(device)


def synchronize(device=None):
    """Waits for the kernels this process queued on the device (the
    current opencl device when None), as torch.cuda.synchronize."""
    if device is None:
        device = current_device()
    if isinstance(device, int):
        device = _C.device("opencl", device)
    _C._synchronize(device)


class device:
    """`with tessera.opencl.device(1):` makes opencl device 1 current in the
    block, as torch.cuda.device."""

    def __init__(self, device):
        self.index = device if isinstance(device, int) or device is None else \
            _C.device(device).index
        self.previous = None

    def __enter__(self):
        if self.index is not None:
            self.previous = current_device()
            set_device(self.index)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            set_device(self.previous)
        return False
