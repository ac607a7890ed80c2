"""repr() of a Tensor, laid out as PyTorch 1.13 lays out its tensors.

The values come to the host once (tolist) and are laid out from nested
lists. The rules are PyTorch's: one width for every element; floating
values print as integers with a trailing dot when all of them are
integers, else with four decimals, in scientific notation when the finite
non-zero magnitudes span more than a factor 1000, exceed 1e8 or (not all
integers) fall below 1e-4; complex values use one such layout for the real
parts and one for the imaginary parts; more than 1000 elements print the
first and last three along each dimension around '...'; lines wrap at 80
columns (counting a dtype as PyTorch's name, torch.int32, so that lines
break where PyTorch breaks them); the dtype is named unless it is the default dtype, its complex
counterpart, int64 or bool, the device unless it is the cpu.
"""
import math



class _Options:
    """set_printoptions's settings (PyTorch's names and defaults)."""
    precision, threshold, edgeitems, linewidth, sci_mode = 4, 1000, 3, 80, None


OPTIONS = _Options()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, float("inf"), 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """torch.set_printoptions: digits after the point, the element count
    above which tensors are summarised, the items shown at each end then,
    the line width, a profile ("default", "short", "full") the others
    override, and sci_mode (None: chosen from the values)."""
    if profile is not None:
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def _flat(values, ndim):
    if ndim == 0:
        return [values]
    if ndim == 1:
        return list(values)
    out = []
    for v in values:
        out.extend(_flat(v, ndim - 1))
    return out


def _summarized(values, ndim):
    """The elements shown of a summarised tensor, nested as the tensor."""
    if ndim == 0:
        return values
    rows = values
    if len(values) > 2 * OPTIONS.edgeitems:
        rows = values[:OPTIONS.edgeitems] + values[-OPTIONS.edgeitems:]
    return [_summarized(r, ndim - 1) for r in rows] if ndim > 1 else rows


class _Layout:
    """The width and notation of one set of values (PyTorch's _Formatter)."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            for v in values:
                self.width = max(self.width, len("{}".format(v)))
            if OPTIONS.sci_mode is not None:
                self.sci_mode = OPTIONS.sci_mode
            return
        shown = [v for v in values if math.isfinite(v) and v != 0]
        if not shown:
            return  # (before a forced sci_mode applies, as in PyTorch)
        magnitudes = [abs(v) for v in shown]
        lo, hi = min(magnitudes), max(magnitudes)
        self.int_mode = all(v == math.ceil(v) for v in shown)
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        for v in shown:
            if self.sci_mode:
                n = len("{:.{}e}".format(v, OPTIONS.precision))
            elif self.int_mode:
                n = len("{:.0f}".format(v)) + 1
            else:
                n = len("{:.{}f}".format(v, OPTIONS.precision))
            self.width = max(self.width, n)
        if OPTIONS.sci_mode is not None:
            self.sci_mode = OPTIONS.sci_mode

    def format(self, v):
        if not self.floating:
            text = "{}".format(v)
        elif self.sci_mode:
            text = "{:{}.{}e}".format(v, self.width, OPTIONS.precision)
        elif self.int_mode:
            text = "{:.0f}".format(v)
            if not (math.isinf(v) or math.isnan(v)):
                text += "."
        else:
            text = "{:.{}f}".format(v, OPTIONS.precision)
        return (self.width - len(text)) * " " + text


class _Element:
    """Formats one element: real, or complex with two layouts."""

    def __init__(self, flat, floating, is_complex):
        self.imag = None
        if is_complex:
            self.real = _Layout([v.real for v in flat], True)
            self.imag = _Layout([v.imag for v in flat], True)
        else:
            self.real = _Layout(flat, floating)

    def length(self):
        n = self.real.width + 2
        if self.imag is not None:
            n += self.imag.width + 1
        return n

    def __call__(self, v):
        if self.imag is None:
            return self.real.format(v)
        re = self.real.format(v.real)
        im = (self.imag.format(v.imag) + "j").lstrip()
        return re + im if im[0] in "+-" else re + "+" + im


def _vector(values, indent, summarize, fmt):
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / fmt.length())))
    if summarize and len(values) > 2 * OPTIONS.edgeitems:
        data = ([fmt(v) for v in values[:OPTIONS.edgeitems]] + [" ..."] +
                [fmt(v) for v in values[-OPTIONS.edgeitems:]])
    else:
        data = [fmt(v) for v in values]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, ndim, indent, summarize, fmt):
    if ndim == 0:
        return fmt(values)
    if ndim == 1:
        return _vector(values, indent, summarize, fmt)
    if summarize and len(values) > 2 * OPTIONS.edgeitems:
        parts = ([_nested(v, ndim - 1, indent + 1, summarize, fmt) for v in values[:OPTIONS.edgeitems]] +
                 ["..."] +
                 [_nested(v, ndim - 1, indent + 1, summarize, fmt) for v in values[-OPTIONS.edgeitems:]])
    else:
        parts = [_nested(v, ndim - 1, indent + 1, summarize, fmt) for v in values]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _contents(t, indent):
    ndim = t.dim()
    values = t.tolist()
    summarize = t.numel() > OPTIONS.threshold
    shown = _summarized(values, ndim) if summarize else values
    dtype = t.dtype
    fmt = _Element(_flat(shown, ndim), dtype.is_floating_point, dtype.is_complex)
    return _nested(values, ndim, indent, summarize, fmt)


# A dtype suffix names the module: "tessera." is this many characters
# longer than "torch.", which the line breaks do not count, so that a
# tensor breaks where PyTorch breaks the same tensor.
_NAME_EXTRA = len("tessera.") - len("torch.")


def _with_suffixes(text, suffixes, indent):
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        n = len(s) - (_NAME_EXTRA if s.startswith("dtype=tessera.") else 0)
        if last + n + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last = indent + n
        else:
            parts.append(", " + s)
            last += n + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, default_dtype, default_complex, int64, bool_):
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    device = t.device
    if device.type != "cpu":
        suffixes.append("device='" + str(device) + "'")
    dtype = t.dtype
    if device.type == "meta":
        suffixes.append("size=" + str(tuple(t.shape)))
        if dtype is not default_dtype:
            suffixes.append("dtype=" + repr(dtype))
        body = "..."
    elif t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t.shape)))
        if dtype is not default_dtype:
            suffixes.append("dtype=" + repr(dtype))
        body = "[]"
    else:
        if dtype not in (default_dtype, default_complex, int64, bool_):
            suffixes.append("dtype=" + repr(dtype))
        body = _contents(t, indent)
    return _with_suffixes(prefix + body, suffixes, indent)
