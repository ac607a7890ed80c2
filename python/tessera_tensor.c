/* tessera.Tensor: libtessera's tsr_tensor as a Python object, with
 * PyTorch's factories, attributes, conversions and arithmetic operators,
 * and the DLPack exchange (__dlpack__, __dlpack_device__, from_dlpack).
 *
 * A Tensor owns one reference to its tsr_tensor; views and results are new
 * Tensors. Python numbers enter operations as PyTorch's wrapped scalars
 * (tsr_scalar), so `t + 2.5` promotes as torch does. */
#include <stdlib.h>

#include "python/tessera_python.h"
#include "tessera/dlpack.h"

#define TENSOR(obj) (((tsp_tensor *)(obj))->tensor)

/* The class results are made of: tessera.Tensor, the package's subclass
 * of this type (set at import by _set_tensor_class), else this type. */
static PyTypeObject *tensor_class = &tsp_tensor_type;

PyObject *tsp_tensor_wrap(tsr_tensor *t)
{
    tsp_tensor *obj = (tsp_tensor *)tensor_class->tp_alloc(tensor_class, 0);
    if (obj == NULL) {
        tsr_tensor_release(t);
        return NULL;
    }
    obj->tensor = t;
    return (PyObject *)obj;
}

/* Wraps the tensor a call made in *t, or raises its error. (A pointer:
 * result(call(&t), &t) reads t after the call, whatever the order in
 * which the arguments are evaluated.) */
static PyObject *result(tsr_status st, tsr_tensor **t)
{
    return st == TSR_OK ? tsp_tensor_wrap(*t) : tsp_raise(st);
}

static void tensor_dealloc(PyObject *self)
{
    /* For tessera.Tensor, a heap subclass, Python's own dealloc of the
     * subclass calls this one and then releases the class. */
    tsr_tensor_release(TENSOR(self));
    Py_TYPE(self)->tp_free(self);
}

/* ---- Options: dtype= and device= ------------------------------------ */

/* Fills options from dtype= and device= (None: unset) and picks the
 * client: the session for an accelerator, NULL for cpu and meta. */
static int options_arg(PyObject *dtype, PyObject *device, tsr_tensor_options *o,
                       tsr_client **client)
{
    *o = (tsr_tensor_options){0};
    *client = tsp_client_if_open();
    if (dtype != NULL && dtype != Py_None) {
        if (!PyObject_TypeCheck(dtype, &tsp_dtype_type)) {
            PyErr_Format(PyExc_TypeError, "dtype must be a tessera.dtype, not %s",
                         Py_TYPE(dtype)->tp_name);
            return -1;
        }
        o->has_dtype = true;
        o->dtype = ((tsp_dtype *)dtype)->dtype;
    }
    tsr_device target;
    if (device != NULL && device != Py_None) {
        if (tsp_device_arg(device, &o->device))
            return -1;
        o->has_device = true;
        target = o->device;
    } else if (tsr_get_default_device(NULL, &target) != TSR_OK) {
        target.type = TSR_DEVICE_CPU; /* cannot fail without a client */
    }
    /* An accelerator, named or the default device, needs the session. */
    if (target.type != TSR_DEVICE_CPU && target.type != TSR_DEVICE_META &&
        (*client = tsp_client()) == NULL)
        return -1;
    return 0;
}

/* Sizes given as zeros(2, 3), zeros((2, 3)) or zeros([2, 3]). */
static int sizes_arg(PyObject *args, int64_t *sizes, int *ndim)
{
    PyObject *seq = args;
    if (PyTuple_GET_SIZE(args) == 1 && PySequence_Check(PyTuple_GET_ITEM(args, 0)))
        seq = PyTuple_GET_ITEM(args, 0);
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0)
        return -1;
    if (n > TSR_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions, got %zd", TSR_MAX_DIMS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        if (item == NULL)
            return -1;
        long long v = PyLong_Check(item) ? PyLong_AsLongLong(item) : -1;
        if (!PyLong_Check(item))
            PyErr_Format(PyExc_TypeError, "sizes must be integers, not %s", Py_TYPE(item)->tp_name);
        Py_DECREF(item);
        if (v == -1 && PyErr_Occurred())
            return -1;
        sizes[i] = v;
    }
    *ndim = (int)n;
    return 0;
}

/* empty / zeros / ones(*size, dtype=None, device=None). */
typedef tsr_status (*factory_fn)(tsr_client *, int, const int64_t *, const tsr_tensor_options *,
                                 tsr_tensor **);

static int format_arg(PyObject *obj, tsr_memory_format dflt, tsr_memory_format *out);

/* memory_format= sets the options' format (none: the factory's default). */
static int options_format(PyObject *format, tsr_tensor_options *o)
{
    if (format == NULL || format == Py_None)
        return 0;
    o->has_memory_format = true;
    return format_arg(format, TSR_CONTIGUOUS_FORMAT, &o->memory_format);
}

/* empty takes memory_format= too, as in PyTorch. */
static PyObject *factory(factory_fn fn, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"dtype", "device", "memory_format", NULL};
    static char *names_no_format[] = {"dtype", "device", NULL};
    bool with_format = fn == tsr_tensor_empty;
    PyObject *dtype = NULL, *device = NULL, *format = NULL;
    PyObject *empty = PyTuple_New(0);
    int ok = empty && PyArg_ParseTupleAndKeywords(empty, kwargs, with_format ? "|$OOO" : "|$OO",
                                                  with_format ? names : names_no_format, &dtype,
                                                  &device, &format);
    Py_XDECREF(empty);
    int64_t sizes[TSR_MAX_DIMS];
    int ndim = 0;
    tsr_tensor_options o;
    tsr_client *c;
    if (!ok || sizes_arg(args, sizes, &ndim) || options_arg(dtype, device, &o, &c) ||
        options_format(format, &o))
        return NULL;
    tsr_tensor *t = NULL;
    return result(fn(c, ndim, sizes, &o, &t), &t);
}

static PyObject *py_empty(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    return factory(tsr_tensor_empty, args, kwargs);
}

/* A size and a stride argument (sequences of the same length). */
static int geometry_args(PyObject *size, PyObject *stride, int64_t *sizes, int64_t *strides,
                         int *ndim)
{
    int k = 0;
    PyObject *a = PyTuple_Pack(1, size), *b = PyTuple_Pack(1, stride);
    int bad = a == NULL || b == NULL || sizes_arg(a, sizes, ndim) || sizes_arg(b, strides, &k);
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (!bad && *ndim != k) {
        PyErr_SetString(PyExc_RuntimeError, "mismatch in length of strides and shape");
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* empty_strided(size, stride, *, dtype=None, device=None). */
static PyObject *py_empty_strided(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    static char *names[] = {"size", "stride", "dtype", "device", NULL};
    PyObject *size, *stride, *dtype = NULL, *device = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OO:empty_strided", names, &size, &stride,
                                     &dtype, &device))
        return NULL;
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
    int n = 0;
    tsr_tensor_options o;
    tsr_client *c;
    if (geometry_args(size, stride, sizes, strides, &n) || options_arg(dtype, device, &o, &c))
        return NULL;
    tsr_tensor *t = NULL;
    return result(tsr_tensor_empty_strided(c, n, sizes, strides, &o, &t), &t);
}

/* empty_like / zeros_like / ones_like(input, *, dtype, device, memory_format)
 * and full_like(input, fill_value, ...): the accelerator memory is reached
 * through `input`'s session. */
static PyObject *like_factory(const char *kind, PyObject *args, PyObject *kwargs)
{
    static char *full_names[] = {"input", "fill_value", "dtype", "device", "memory_format", NULL};
    static char *names[] = {"input", "dtype", "device", "memory_format", NULL};
    PyObject *like, *fill = NULL, *dtype = NULL, *device = NULL, *format = NULL;
    bool full = strcmp(kind, "full_like") == 0;
    char fmt[32];
    snprintf(fmt, sizeof(fmt), "O!%s|$OOO:%s", full ? "O" : "", kind);
    int ok = full ? PyArg_ParseTupleAndKeywords(args, kwargs, fmt, full_names, &tsp_tensor_type,
                                                &like, &fill, &dtype, &device, &format)
                  : PyArg_ParseTupleAndKeywords(args, kwargs, fmt, names, &tsp_tensor_type, &like,
                                                &dtype, &device, &format);
    if (!ok)
        return NULL;
    tsr_tensor_options o;
    tsr_client *c;
    tsr_scalar value = tsr_scalar_int(0);
    if (options_arg(dtype, device, &o, &c) || options_format(format, &o))
        return NULL;
    if (full) {
        int is = tsp_scalar_arg(fill, &value);
        if (is == 0)
            PyErr_Format(PyExc_TypeError, "fill_value must be a number, not %s",
                         Py_TYPE(fill)->tp_name);
        if (is <= 0)
            return NULL;
    }
    const tsr_tensor *l = TENSOR(like);
    tsr_tensor *t = NULL;
    tsr_status st = full                              ? tsr_tensor_full_like(l, value, &o, &t)
                    : strcmp(kind, "zeros_like") == 0 ? tsr_tensor_zeros_like(l, &o, &t)
                    : strcmp(kind, "ones_like") == 0  ? tsr_tensor_ones_like(l, &o, &t)
                                                      : tsr_tensor_empty_like(l, &o, &t);
    return result(st, &t);
}

#define LIKE(name)                                                            \
    static PyObject *py_##name(PyObject *m, PyObject *args, PyObject *kwargs) \
    {                                                                         \
        (void)m;                                                              \
        return like_factory(#name, args, kwargs);                             \
    }
LIKE(empty_like)
LIKE(zeros_like)
LIKE(ones_like)
LIKE(full_like)

static PyObject *py_zeros(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    return factory(tsr_tensor_zeros, args, kwargs);
}

static PyObject *py_ones(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    return factory(tsr_tensor_ones, args, kwargs);
}

static PyObject *py_full(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    static char *names[] = {"size", "fill_value", "dtype", "device", NULL};
    PyObject *size, *fill, *dtype = NULL, *device = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OO:full", names, &size, &fill, &dtype,
                                     &device))
        return NULL;
    PyObject *size_args = PyTuple_Pack(1, size);
    int64_t sizes[TSR_MAX_DIMS];
    int ndim = 0;
    int bad = size_args == NULL || sizes_arg(size_args, sizes, &ndim);
    Py_XDECREF(size_args);
    tsr_scalar value;
    tsr_tensor_options o;
    tsr_client *c;
    if (bad || options_arg(dtype, device, &o, &c))
        return NULL;
    int is = tsp_scalar_arg(fill, &value);
    if (is <= 0) {
        if (is == 0)
            PyErr_Format(PyExc_TypeError, "fill_value must be a number, not %s",
                         Py_TYPE(fill)->tp_name);
        return NULL;
    }
    tsr_tensor *t = NULL;
    return result(tsr_tensor_full(c, ndim, sizes, value, &o, &t), &t);
}

/* ---- tessera.tensor(data) ------------------------------------------- */

/* Nested sequences of numbers, flattened with their shape and the kind
 * that holds them all (bool < int64 < float64 < complex128), as
 * torch.tensor infers a dtype. */
typedef struct nested {
    int ndim;
    int64_t sizes[TSR_MAX_DIMS];
    tsr_scalar *values;
    int64_t count, capacity;
    tsr_dtype kind;
} nested;

static bool is_sequence(PyObject *obj)
{
    return PyList_Check(obj) || PyTuple_Check(obj);
}

static int nested_walk(nested *n, PyObject *obj, int dim)
{
    if (dim == n->ndim) {
        tsr_scalar s;
        int is = tsp_scalar_arg(obj, &s);
        if (is == 0)
            PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(obj)->tp_name);
        if (is <= 0)
            return -1;
        if (n->count == n->capacity) {
            int64_t cap = n->capacity ? 2 * n->capacity : 64;
            tsr_scalar *grown = realloc(n->values, (size_t)cap * sizeof(*grown));
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            n->values = grown;
            n->capacity = cap;
        }
        n->values[n->count++] = s;
        if (s.kind > n->kind)
            n->kind = s.kind; /* TSR_BOOL < TSR_INT64 < TSR_FLOAT64 < TSR_COMPLEX128 */
        return 0;
    }
    Py_ssize_t len = is_sequence(obj) ? PySequence_Fast_GET_SIZE(obj) : -1;
    if (len != n->sizes[dim]) {
        if (len < 0)
            PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %s)",
                         (long long)n->sizes[dim], dim, Py_TYPE(obj)->tp_name);
        else
            PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %zd)",
                         (long long)n->sizes[dim], dim, len);
        return -1;
    }
    /* A number's __index__ or __float__ is the user's code, which may
     * change a list being read: each item is held while it is read, and
     * the list's length checked before the next. */
    for (Py_ssize_t i = 0; i < len; i++) {
        if (PySequence_Fast_GET_SIZE(obj) != len) {
            PyErr_Format(PyExc_RuntimeError,
                         "tensor(): a list at dim %d changed size while it was read", dim);
            return -1;
        }
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(obj, i));
        int failed = nested_walk(n, item, dim + 1);
        Py_DECREF(item);
        if (failed)
            return -1;
    }
    return 0;
}

/* The flat values in the buffer of their common kind. */
static void *nested_pack(const nested *n)
{
    size_t item = tsr_dtype_itemsize(n->kind);
    unsigned char *buf = malloc((size_t)(n->count ? n->count : 1) * item);
    if (buf == NULL)
        return PyErr_NoMemory();
    for (int64_t i = 0; i < n->count; i++) {
        const tsr_scalar *s = &n->values[i];
        double re = s->kind == TSR_INT64  ? (double)s->v.i
                    : s->kind == TSR_BOOL ? (double)s->v.b
                                          : s->v.c[0];
        double pair[2] = {re, s->kind == TSR_COMPLEX128 ? s->v.c[1] : 0.0};
        int64_t integer = s->kind == TSR_BOOL ? s->v.b : s->v.i;
        if (n->kind == TSR_BOOL)
            buf[i] = s->v.b;
        else if (n->kind == TSR_INT64)
            memcpy(buf + i * 8, &integer, 8);
        else
            memcpy(buf + (size_t)i * item, pair, item);
    }
    return buf;
}

static PyObject *py_tensor(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    static char *names[] = {"data", "dtype", "device", NULL};
    PyObject *data, *dtype = NULL, *device = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:tensor", names, &data, &dtype, &device))
        return NULL;
    tsr_tensor_options o;
    tsr_client *c;
    if (options_arg(dtype, device, &o, &c))
        return NULL;
    nested n = {.kind = TSR_BOOL};
    for (PyObject *at = data; is_sequence(at); n.ndim++) {
        if (n.ndim == TSR_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "at most %d dimensions", TSR_MAX_DIMS);
            return NULL;
        }
        n.sizes[n.ndim] = PySequence_Fast_GET_SIZE(at);
        if (n.sizes[n.ndim] == 0) {
            n.kind = TSR_FLOAT64; /* torch.tensor([]) is float32 */
            n.ndim++;
            break;
        }
        at = PySequence_Fast_GET_ITEM(at, 0);
    }
    tsr_tensor *t = NULL;
    tsr_status st = TSR_OK;
    void *buf = NULL;
    if (nested_walk(&n, data, 0) == 0 && (buf = nested_pack(&n)) != NULL) {
        if (!o.has_dtype) {
            o.has_dtype = true;
            o.dtype = n.kind == TSR_FLOAT64      ? tsr_get_default_dtype()
                      : n.kind == TSR_COMPLEX128 ? tsr_get_default_complex_dtype()
                                                 : n.kind;
        }
        st = tsr_tensor_from_data(c, n.ndim, n.sizes, n.kind, buf, &o, &t);
    }
    free(buf);
    free(n.values);
    if (PyErr_Occurred())
        return NULL;
    return result(st, &t);
}

/* ---- Attributes ----------------------------------------------------- */

static PyObject *dims_tuple(const int64_t *dims, int n)
{
    PyObject *tuple = PyTuple_New(n);
    for (int i = 0; tuple && i < n; i++) {
        PyObject *v = PyLong_FromLongLong(dims[i]);
        if (v == NULL) {
            Py_CLEAR(tuple);
            break;
        }
        PyTuple_SET_ITEM(tuple, i, v);
    }
    return tuple;
}

static PyObject *get_dtype(PyObject *self, void *closure)
{
    (void)closure;
    return tsp_dtype_object(tsr_tensor_dtype(TENSOR(self)));
}

static PyObject *get_device(PyObject *self, void *closure)
{
    (void)closure;
    return tsp_device_object(tsr_tensor_device(TENSOR(self)));
}

static PyObject *get_shape(PyObject *self, void *closure)
{
    (void)closure;
    return dims_tuple(tsr_tensor_sizes(TENSOR(self)), tsr_tensor_ndim(TENSOR(self)));
}

static PyObject *get_ndim(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(tsr_tensor_ndim(TENSOR(self)));
}

static PyGetSetDef tensor_getset[] = {
    {"dtype", get_dtype, NULL, NULL, NULL}, {"device", get_device, NULL, NULL, NULL},
    {"shape", get_shape, NULL, NULL, NULL}, {"ndim", get_ndim, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* size() / stride(): the tuple, or one entry for size(dim). */
static PyObject *dims_or_entry(PyObject *self, PyObject *args, const int64_t *dims,
                               tsr_status (*entry)(const tsr_tensor *, int64_t, int64_t *))
{
    PyObject *dim = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &dim))
        return NULL;
    if (dim == Py_None)
        return dims_tuple(dims, tsr_tensor_ndim(TENSOR(self)));
    long long d = PyLong_AsLongLong(dim);
    if (d == -1 && PyErr_Occurred())
        return NULL;
    int64_t v;
    tsr_status st = entry(TENSOR(self), d, &v);
    return st == TSR_OK ? PyLong_FromLongLong(v) : tsp_raise(st);
}

static PyObject *m_size(PyObject *self, PyObject *args)
{
    return dims_or_entry(self, args, tsr_tensor_sizes(TENSOR(self)), tsr_tensor_size);
}

static PyObject *m_stride(PyObject *self, PyObject *args)
{
    return dims_or_entry(self, args, tsr_tensor_strides(TENSOR(self)), tsr_tensor_stride);
}

static PyObject *m_dim(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(tsr_tensor_ndim(TENSOR(self)));
}

static PyObject *m_numel(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(tsr_tensor_numel(TENSOR(self)));
}

static PyObject *m_storage_offset(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(tsr_tensor_storage_offset(TENSOR(self)));
}

static PyObject *m_data_ptr(PyObject *self, PyObject *unused)
{
    (void)unused;
    void *p = NULL;
    tsr_status st = tsr_tensor_data_ptr(TENSOR(self), &p);
    return st == TSR_OK ? PyLong_FromVoidPtr(p) : tsp_raise(st);
}

/* memory_format= arrives as its number (tessera.memory_format objects
 * carry it); None or absent is `dflt`. */
static int format_arg(PyObject *obj, tsr_memory_format dflt, tsr_memory_format *out)
{
    *out = dflt;
    if (obj == NULL || obj == Py_None)
        return 0;
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= TSR_MEMORY_FORMAT_COUNT) {
        PyErr_Format(PyExc_ValueError, "invalid memory format %ld", v);
        return -1;
    }
    *out = (tsr_memory_format)v;
    return 0;
}

/* Methods taking only memory_format=: is_contiguous, contiguous, clone. */
static int format_only(PyObject *args, PyObject *kwargs, const char *fmt, tsr_memory_format dflt,
                       tsr_memory_format *out)
{
    static char *names[] = {"memory_format", NULL};
    PyObject *obj = NULL;
    return PyArg_ParseTupleAndKeywords(args, kwargs, fmt, names, &obj) ? format_arg(obj, dflt, out)
                                                                       : -1;
}

static PyObject *m_is_contiguous(PyObject *self, PyObject *args, PyObject *kwargs)
{
    tsr_memory_format f;
    if (format_only(args, kwargs, "|$O:is_contiguous", TSR_CONTIGUOUS_FORMAT, &f))
        return NULL;
    return PyBool_FromLong(tsr_tensor_is_contiguous(TENSOR(self), f));
}

static PyObject *m_contiguous(PyObject *self, PyObject *args, PyObject *kwargs)
{
    tsr_memory_format f;
    tsr_tensor *t = NULL;
    if (format_only(args, kwargs, "|$O:contiguous", TSR_CONTIGUOUS_FORMAT, &f))
        return NULL;
    return result(tsr_tensor_contiguous(TENSOR(self), f, &t), &t);
}

static PyObject *m_clone(PyObject *self, PyObject *args, PyObject *kwargs)
{
    tsr_memory_format f;
    tsr_tensor *t = NULL;
    if (format_only(args, kwargs, "|$O:clone", TSR_PRESERVE_FORMAT, &f))
        return NULL;
    return result(tsr_tensor_clone(TENSOR(self), f, &t), &t);
}

static PyObject *m_t(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor *t = NULL;
    return result(tsr_tensor_t(TENSOR(self), &t), &t);
}

/* ---- Views ---------------------------------------------------------- */

static PyObject *m_transpose(PyObject *self, PyObject *args)
{
    long long d0, d1;
    tsr_tensor *t = NULL;
    if (!PyArg_ParseTuple(args, "LL:transpose", &d0, &d1))
        return NULL;
    return result(tsr_tensor_transpose(TENSOR(self), d0, d1, &t), &t);
}

static PyObject *m_narrow(PyObject *self, PyObject *args)
{
    long long dim, start, length;
    tsr_tensor *t = NULL;
    if (!PyArg_ParseTuple(args, "LLL:narrow", &dim, &start, &length))
        return NULL;
    return result(tsr_tensor_narrow(TENSOR(self), dim, start, length, &t), &t);
}

static PyObject *m_select(PyObject *self, PyObject *args)
{
    long long dim, index;
    tsr_tensor *t = NULL;
    if (!PyArg_ParseTuple(args, "LL:select", &dim, &index))
        return NULL;
    return result(tsr_tensor_select(TENSOR(self), dim, index, &t), &t);
}

static PyObject *m_unsqueeze(PyObject *self, PyObject *args)
{
    long long dim;
    tsr_tensor *t = NULL;
    if (!PyArg_ParseTuple(args, "L:unsqueeze", &dim))
        return NULL;
    return result(tsr_tensor_unsqueeze(TENSOR(self), dim, &t), &t);
}

/* squeeze(dim); squeeze() is the package's (every size-1 dimension). */
static PyObject *m_squeeze_dim(PyObject *self, PyObject *args)
{
    long long dim;
    tsr_tensor *t = NULL;
    if (!PyArg_ParseTuple(args, "L:squeeze", &dim))
        return NULL;
    return result(tsr_tensor_squeeze(TENSOR(self), dim, &t), &t);
}

/* _slice(dim, start, stop, step): t[..., start:stop:step, ...], None for
 * an omitted bound. */
static PyObject *m_slice(PyObject *self, PyObject *args)
{
    long long dim, step;
    PyObject *start, *stop;
    if (!PyArg_ParseTuple(args, "LOOL:_slice", &dim, &start, &stop, &step))
        return NULL;
    long long b = start == Py_None ? 0 : PyLong_AsLongLong(start);
    long long e = stop == Py_None ? 0 : PyLong_AsLongLong(stop);
    if (PyErr_Occurred())
        return NULL;
    tsr_tensor *t = NULL;
    return result(
        tsr_tensor_slice(TENSOR(self), dim, start != Py_None, b, stop != Py_None, e, step, &t), &t);
}

/* The views whose arguments are one list of integers. */
typedef tsr_status (*dims_view_fn)(const tsr_tensor *, const int64_t *, int, tsr_tensor **);

static PyObject *dims_view(PyObject *self, PyObject *args, dims_view_fn fn)
{
    int64_t dims[TSR_MAX_DIMS];
    int n = 0;
    tsr_tensor *t = NULL;
    if (sizes_arg(args, dims, &n))
        return NULL;
    return result(fn(TENSOR(self), dims, n, &t), &t);
}

static PyObject *m_permute(PyObject *self, PyObject *args)
{
    return dims_view(self, args, tsr_tensor_permute);
}

static PyObject *m_expand(PyObject *self, PyObject *args)
{
    return dims_view(self, args, tsr_tensor_expand);
}

static PyObject *m_view(PyObject *self, PyObject *args)
{
    return dims_view(self, args, tsr_tensor_view);
}

static PyObject *m_reshape(PyObject *self, PyObject *args)
{
    return dims_view(self, args, tsr_tensor_reshape);
}

/* as_strided(size, stride, storage_offset=None). */
static PyObject *m_as_strided(PyObject *self, PyObject *args)
{
    PyObject *size, *stride, *offset = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O:as_strided", &size, &stride, &offset))
        return NULL;
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
    int n = 0;
    if (geometry_args(size, stride, sizes, strides, &n))
        return NULL;
    long long off = offset == Py_None ? -1 : PyLong_AsLongLong(offset);
    if (off == -1 && PyErr_Occurred())
        return NULL;
    if (offset != Py_None && off < 0) /* -1 is the library's "keep it" */
        return PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld", off);
    tsr_tensor *t = NULL;
    return result(tsr_tensor_as_strided(TENSOR(self), n, sizes, strides, off, &t), &t);
}

/* copy_(src) and fill_(value): in place, returning self. */
static PyObject *m_copy_(PyObject *self, PyObject *src)
{
    if (!PyObject_TypeCheck(src, &tsp_tensor_type)) {
        PyErr_Format(PyExc_TypeError, "copy_(): argument 'src' must be Tensor, not %s",
                     Py_TYPE(src)->tp_name);
        return NULL;
    }
    tsr_status st = tsr_tensor_copy_(TENSOR(self), TENSOR(src));
    return st == TSR_OK ? Py_NewRef(self) : tsp_raise(st);
}

static PyObject *m_fill_(PyObject *self, PyObject *value)
{
    tsr_scalar s;
    int is = tsp_scalar_arg(value, &s);
    if (is == 0)
        PyErr_Format(PyExc_TypeError, "fill_(): argument 'value' must be Number, not %s",
                     Py_TYPE(value)->tp_name);
    if (is <= 0)
        return NULL;
    tsr_status st = tsr_tensor_fill_(TENSOR(self), s);
    return st == TSR_OK ? Py_NewRef(self) : tsp_raise(st);
}

/* type(): "torch.FloatTensor", as PyTorch names its tensor types. */
static PyObject *m_type(PyObject *self, PyObject *unused)
{
    (void)unused;
    char buf[64];
    tsr_tensor_type(TENSOR(self), buf, sizeof(buf));
    return PyUnicode_FromString(buf);
}

static PyObject *m_layout(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(tsr_tensor_layout(TENSOR(self)));
}

/* to(device), to(dtype), to(device, dtype), to(dtype=, device=, copy=,
 * memory_format=, non_blocking=) (to(other) is the package's). */
static PyObject *m_to(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"a", "b", "dtype", "device", "copy", "non_blocking", "memory_format",
                            NULL};
    PyObject *a = Py_None, *b = Py_None, *dtype = Py_None, *device = Py_None, *format = NULL;
    int copy = 0, non_blocking = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$OOppO:to", names, &a, &b, &dtype, &device,
                                     &copy, &non_blocking, &format))
        return NULL;
    PyObject *positional[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (positional[i] == Py_None)
            continue;
        if (PyObject_TypeCheck(positional[i], &tsp_dtype_type))
            dtype = positional[i];
        else
            device = positional[i];
    }
    tsr_tensor_options o;
    tsr_client *c;
    if (options_arg(dtype, device, &o, &c) ||
        format_arg(format, TSR_PRESERVE_FORMAT, &o.memory_format))
        return NULL;
    o.has_memory_format = true;
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_to(c, TENSOR(self), &o, copy, &t);
    if (st == TSR_OK && t == TENSOR(self)) {
        /* Nothing changes: the tensor itself, as in PyTorch. */
        tsr_tensor_release(t);
        return Py_NewRef(self);
    }
    return result(st, &t);
}

/* A copy to the host waits for the kernels that write the tensor: for an
 * accelerator tensor it waits without the GIL, so that other Python
 * threads run meanwhile (as PyTorch's .cpu() and .tolist() do). It copies
 * from a view of its own, made under the GIL: another thread may give the
 * tensor a new storage meanwhile (an out= of another shape). A cpu tensor
 * has nothing to wait for and keeps the GIL (share_memory_() swaps its
 * storage's memory under the GIL); a device tensor's first export may
 * move its storage, without the GIL, so the copy holds tsp_storage_lock
 * shared. libtessera's errors are per thread. */
static tsr_status to_host_unlocked(const tsr_tensor *t, const tsr_tensor_options *o,
                                   tsr_tensor **out)
{
    tsr_device d = tsr_tensor_device(t);
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META)
        return tsr_tensor_to(NULL, t, o, false, out);
    tsr_tensor *own = NULL;
    tsr_status st = tsr_tensor_as_strided(t, tsr_tensor_ndim(t), tsr_tensor_sizes(t),
                                          tsr_tensor_strides(t), -1, &own);
    if (st != TSR_OK)
        return st;
    PyThreadState *ts = PyEval_SaveThread();
    pthread_rwlock_rdlock(&tsp_storage_lock); /* no export moves the storage meanwhile */
    st = tsr_tensor_to(NULL, own, o, false, out);
    pthread_rwlock_unlock(&tsp_storage_lock);
    PyEval_RestoreThread(ts);
    tsr_tensor_release(own);
    return st;
}

static PyObject *m_cpu(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_CPU, -1}};
    tsr_tensor *t = NULL;
    return result(to_host_unlocked(TENSOR(self), &o, &t), &t);
}

/* ---- Values to Python ----------------------------------------------- */

/* The dtype values are read in on the host: every value of `d` fits. */
static tsr_dtype host_kind(tsr_dtype d)
{
    if (d == TSR_BOOL || d == TSR_UINT64)
        return d;
    if (tsr_dtype_is_complex(d))
        return TSR_COMPLEX128;
    return tsr_dtype_is_integral(d) ? TSR_INT64 : TSR_FLOAT64;
}

static PyObject *value_object(tsr_dtype kind, const unsigned char *at)
{
    double pair[2];
    int64_t i;
    uint64_t u;
    switch (kind) {
    case TSR_BOOL:
        return PyBool_FromLong(*at);
    case TSR_INT64:
        memcpy(&i, at, 8);
        return PyLong_FromLongLong(i);
    case TSR_UINT64:
        memcpy(&u, at, 8);
        return PyLong_FromUnsignedLongLong(u);
    case TSR_COMPLEX128:
        memcpy(pair, at, 16);
        return PyComplex_FromDoubles(pair[0], pair[1]);
    default:
        memcpy(pair, at, 8);
        return PyFloat_FromDouble(pair[0]);
    }
}

static PyObject *nested_list(tsr_dtype kind, const int64_t *sizes, int ndim,
                             const unsigned char **at)
{
    if (ndim == 0) {
        PyObject *v = value_object(kind, *at);
        *at += tsr_dtype_itemsize(kind);
        return v;
    }
    PyObject *list = PyList_New(sizes[0]);
    for (int64_t i = 0; list && i < sizes[0]; i++) {
        PyObject *item = nested_list(kind, sizes + 1, ndim - 1, at);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *m_tolist(PyObject *self, PyObject *unused)
{
    (void)unused;
    const tsr_tensor *t = TENSOR(self);
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = host_kind(tsr_tensor_dtype(t)),
                            .has_device = true,
                            .device = {TSR_DEVICE_CPU, -1}};
    tsr_tensor *host = NULL;
    tsr_status st = to_host_unlocked(t, &o, &host);
    if (st != TSR_OK)
        return tsp_raise(st);
    size_t nbytes = (size_t)tsr_tensor_nbytes(host);
    unsigned char *buf = malloc(nbytes ? nbytes : 1);
    PyObject *list = NULL;
    if (buf == NULL)
        PyErr_NoMemory();
    else if ((st = tsr_tensor_copy_to_host(host, buf, nbytes)) != TSR_OK)
        tsp_raise(st);
    else {
        /* The shape as it is now: making the lists may run Python code
         * (the collector) that gives `host` (the tensor itself, for a cpu
         * tensor of a kind Python has) another one. */
        int64_t sizes[TSR_MAX_DIMS];
        int ndim = tsr_tensor_ndim(host);
        memcpy(sizes, tsr_tensor_sizes(host), (size_t)ndim * sizeof sizes[0]);
        const unsigned char *at = buf;
        list = nested_list(o.dtype, sizes, ndim, &at);
    }
    free(buf);
    tsr_tensor_release(host);
    return list;
}

static PyObject *m_item(PyObject *self, PyObject *unused)
{
    if (tsr_tensor_numel(TENSOR(self)) != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "only one element tensors can be converted to Python scalars");
        return NULL;
    }
    PyObject *list = m_tolist(self, unused);
    while (list && PyList_Check(list)) {
        PyObject *inner = Py_NewRef(PyList_GET_ITEM(list, 0));
        Py_DECREF(list);
        list = inner;
    }
    return list;
}

static Py_ssize_t tensor_len(PyObject *self)
{
    if (tsr_tensor_ndim(TENSOR(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)tsr_tensor_sizes(TENSOR(self))[0];
}

static PySequenceMethods tensor_sequence = {.sq_length = tensor_len};

/* ---- DLPack --------------------------------------------------------- */

/* An unconsumed capsule still owns its DLManagedTensor; a consumer renames
 * it "used_dltensor" and takes over the deleter (the DLPack protocol). */
static void capsule_destructor(PyObject *capsule)
{
    if (!PyCapsule_IsValid(capsule, "dltensor"))
        return;
    DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
    if (m->deleter != NULL)
        m->deleter(m);
}

static PyObject *export_capsule(const tsr_tensor *t, unsigned flags)
{
    DLManagedTensor *m = NULL;
    tsr_status st = tsr_tensor_to_dlpack(t, flags, &m);
    if (st != TSR_OK)
        return tsp_raise(st);
    PyObject *capsule = PyCapsule_New(m, "dltensor", capsule_destructor);
    if (capsule == NULL)
        m->deleter(m);
    return capsule;
}

static PyObject *m_dlpack(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"stream", NULL};
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O:__dlpack__", names, &stream))
        return NULL;
    if (stream != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "__dlpack__: Tessera's devices have no streams; stream must be None");
        return NULL;
    }
    return export_capsule(TENSOR(self), 0);
}

static PyObject *m_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    DLManagedTensor *m = NULL;
    tsr_status st = tsr_tensor_to_dlpack(TENSOR(self), 0, &m);
    if (st != TSR_OK)
        return tsp_raise(st);
    DLDevice d = m->dl_tensor.device;
    m->deleter(m);
    return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

/* tessera.to_dlpack(t, host=False): the capsule, with host=True an
 * accelerator tensor the host shares as kDLCPU (TSR_DLPACK_HOST). */
static PyObject *py_to_dlpack(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    static char *names[] = {"tensor", "host", NULL};
    PyObject *t;
    int host = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|$p:to_dlpack", names, &tsp_tensor_type, &t,
                                     &host))
        return NULL;
    return export_capsule(TENSOR(t), host ? TSR_DLPACK_HOST : 0);
}

static PyObject *py_from_dlpack(PyObject *m, PyObject *obj)
{
    (void)m;
    PyObject *capsule =
        PyCapsule_CheckExact(obj) ? Py_NewRef(obj) : PyObject_CallMethod(obj, "__dlpack__", NULL);
    if (capsule == NULL)
        return NULL;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        Py_DECREF(capsule);
        PyErr_SetString(PyExc_ValueError,
                        "from_dlpack expects an unused DLPack capsule ('dltensor') or an object "
                        "with __dlpack__");
        return NULL;
    }
    DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
    tsr_client *c = managed->dl_tensor.device.device_type == kDLCPU ? NULL : tsp_client_if_open();
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_from_dlpack(c, managed, &t);
    if (st == TSR_OK && PyCapsule_SetName(capsule, "used_dltensor") != 0) {
        tsr_tensor_release(t); /* cannot happen: the capsule was valid */
        Py_DECREF(capsule);
        return NULL;
    }
    Py_DECREF(capsule);
    return result(st, &t);
}

/* ---- The type ------------------------------------------------------- */

#define KW(fn) ((PyCFunction)(void (*)(void))(fn)), METH_VARARGS | METH_KEYWORDS
static PyMethodDef tensor_methods[] = {
    {"size", m_size, METH_VARARGS, NULL},
    {"stride", m_stride, METH_VARARGS, NULL},
    {"dim", m_dim, METH_NOARGS, NULL},
    {"numel", m_numel, METH_NOARGS, NULL},
    {"storage_offset", m_storage_offset, METH_NOARGS, NULL},
    {"data_ptr", m_data_ptr, METH_NOARGS, NULL},
    {"is_contiguous", KW(m_is_contiguous), NULL},
    {"contiguous", KW(m_contiguous), NULL},
    {"clone", KW(m_clone), NULL},
    {"t", m_t, METH_NOARGS, NULL},
    {"transpose", m_transpose, METH_VARARGS, NULL},
    {"narrow", m_narrow, METH_VARARGS, NULL},
    {"select", m_select, METH_VARARGS, NULL},
    {"unsqueeze", m_unsqueeze, METH_VARARGS, NULL},
    {"_squeeze_dim", m_squeeze_dim, METH_VARARGS, NULL},
    {"_slice", m_slice, METH_VARARGS, NULL},
    {"permute", m_permute, METH_VARARGS, NULL},
    {"expand", m_expand, METH_VARARGS, NULL},
    {"view", m_view, METH_VARARGS, NULL},
    {"reshape", m_reshape, METH_VARARGS, NULL},
    {"as_strided", m_as_strided, METH_VARARGS, NULL},
    {"copy_", m_copy_, METH_O, NULL},
    {"fill_", m_fill_, METH_O, NULL},
    {"_layout", m_layout, METH_NOARGS, NULL},
    {"type", m_type, METH_NOARGS, NULL},
    {"to", KW(m_to), NULL},
    {"cpu", m_cpu, METH_NOARGS, NULL},
    {"tolist", m_tolist, METH_NOARGS, NULL},
    {"item", m_item, METH_NOARGS, NULL},
    {"__dlpack__", KW(m_dlpack), NULL},
    {"__dlpack_device__", m_dlpack_device, METH_NOARGS, NULL},
    {"share_memory_", tsp_share_memory_, METH_NOARGS, NULL},
    {"is_shared", tsp_is_shared, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject tsp_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera._C._TensorBase",
    .tp_basicsize = sizeof(tsp_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C half of tessera.Tensor: libtessera's tensor and its views.",
    .tp_dealloc = tensor_dealloc,
    .tp_as_sequence = &tensor_sequence,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};

/* _set_tensor_class(cls): the package's Tensor class, a subclass of this
 * type, that results are made of from now on. */
static PyObject *py_set_tensor_class(PyObject *m, PyObject *cls)
{
    (void)m;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &tsp_tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a subclass of _TensorBase");
        return NULL;
    }
    Py_INCREF(cls); /* kept for the life of the process */
    tensor_class = (PyTypeObject *)cls;
    Py_RETURN_NONE;
}

PyMethodDef tsp_tensor_functions[] = {
    {"_set_tensor_class", py_set_tensor_class, METH_O, "The class of the tensors made"},
    {"tensor", KW(py_tensor), "torch.tensor(data, *, dtype=None, device=None)"},
    {"empty", KW(py_empty), "torch.empty(*size, dtype=None, device=None, memory_format=None)"},
    {"zeros", KW(py_zeros), "torch.zeros(*size, dtype=None, device=None)"},
    {"ones", KW(py_ones), "torch.ones(*size, dtype=None, device=None)"},
    {"full", KW(py_full), "torch.full(size, fill_value, *, dtype=None, device=None)"},
    {"empty_strided", KW(py_empty_strided), "torch.empty_strided(size, stride, *, dtype, device)"},
    {"empty_like", KW(py_empty_like), "torch.empty_like(input, *, dtype, device, memory_format)"},
    {"zeros_like", KW(py_zeros_like), "torch.zeros_like(input, *, dtype, device, memory_format)"},
    {"ones_like", KW(py_ones_like), "torch.ones_like(input, *, dtype, device, memory_format)"},
    {"full_like", KW(py_full_like), "torch.full_like(input, fill_value, *, dtype, device, ...)"},
    {"to_dlpack", KW(py_to_dlpack), "A DLPack capsule of tensor (host=True: as host memory)"},
    {"from_dlpack", py_from_dlpack, METH_O, "A Tensor over a DLPack capsule or __dlpack__ object"},
    {NULL, NULL, 0, NULL},
};
