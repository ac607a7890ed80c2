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

PyObject *tsp_tensor_wrap(tsr_tensor *t)
{
    tsp_tensor *obj = PyObject_New(tsp_tensor, &tsp_tensor_type);
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
    tsr_tensor_release(TENSOR(self));
    PyObject_Free(self);
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
    if (device != NULL && device != Py_None) {
        if (tsp_device_arg(device, &o->device))
            return -1;
        o->has_device = true;
        if (o->device.type != TSR_DEVICE_CPU && o->device.type != TSR_DEVICE_META &&
            (*client = tsp_client()) == NULL)
            return -1;
    }
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

static PyObject *factory(factory_fn fn, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"dtype", "device", NULL};
    PyObject *dtype = NULL, *device = NULL;
    PyObject *empty = PyTuple_New(0);
    int ok = empty && PyArg_ParseTupleAndKeywords(empty, kwargs, "|$OO", names, &dtype, &device);
    Py_XDECREF(empty);
    int64_t sizes[TSR_MAX_DIMS];
    int ndim = 0;
    tsr_tensor_options o;
    tsr_client *c;
    if (!ok || sizes_arg(args, sizes, &ndim) || options_arg(dtype, device, &o, &c))
        return NULL;
    tsr_tensor *t = NULL;
    return result(fn(c, ndim, sizes, &o, &t), &t);
}

static PyObject *py_empty(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    return factory(tsr_tensor_empty, args, kwargs);
}

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
            PyErr_Format(PyExc_TypeError, "tensor() expects numbers, got %s",
                         Py_TYPE(obj)->tp_name);
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
    for (Py_ssize_t i = 0; i < len; i++)
        if (nested_walk(n, PySequence_Fast_GET_ITEM(obj, i), dim + 1))
            return -1;
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

static PyObject *m_is_contiguous(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(tsr_tensor_is_contiguous(TENSOR(self), TSR_CONTIGUOUS_FORMAT));
}

static PyObject *m_contiguous(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor *t = NULL;
    return result(tsr_tensor_contiguous(TENSOR(self), TSR_CONTIGUOUS_FORMAT, &t), &t);
}

static PyObject *m_t(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor *t = NULL;
    return result(tsr_tensor_t(TENSOR(self), &t), &t);
}

/* to(device), to(dtype), to(device, dtype), to(dtype=, device=, copy=). */
static PyObject *m_to(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"a", "b", "dtype", "device", "copy", NULL};
    PyObject *a = Py_None, *b = Py_None, *dtype = Py_None, *device = Py_None;
    int copy = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$OOp:to", names, &a, &b, &dtype, &device,
                                     &copy))
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
    if (options_arg(dtype, device, &o, &c))
        return NULL;
    tsr_tensor *t = NULL;
    return result(tsr_tensor_to(c, TENSOR(self), &o, copy, &t), &t);
}

static PyObject *m_cpu(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_CPU, -1}};
    tsr_tensor *t = NULL;
    return result(tsr_tensor_to(NULL, TENSOR(self), &o, false, &t), &t);
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
    tsr_status st = tsr_tensor_to(NULL, t, &o, false, &host);
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
        const unsigned char *at = buf;
        list = nested_list(o.dtype, tsr_tensor_sizes(t), tsr_tensor_ndim(t), &at);
    }
    free(buf);
    tsr_tensor_release(host);
    return list;
}

static PyObject *m_item(PyObject *self, PyObject *unused)
{
    if (tsr_tensor_numel(TENSOR(self)) != 1) {
        PyErr_Format(PyExc_RuntimeError,
                     "a Tensor with %lld elements cannot be converted to Scalar",
                     (long long)tsr_tensor_numel(TENSOR(self)));
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

static PyObject *tensor_repr(PyObject *self)
{
    PyObject *values = m_tolist(self, NULL);
    if (values == NULL)
        return NULL;
    tsr_device d = tsr_tensor_device(TENSOR(self));
    char device[TSR_DEVICE_STR_MAX + 16] = "";
    if (d.type != TSR_DEVICE_CPU) {
        char name[TSR_DEVICE_STR_MAX];
        tsr_device_str(d, name, sizeof(name));
        snprintf(device, sizeof(device), ", device='%s'", name);
    }
    PyObject *text = PyUnicode_FromFormat("tensor(%R, dtype=tessera.%s%s)", values,
                                          tsr_dtype_name(tsr_tensor_dtype(TENSOR(self))), device);
    Py_DECREF(values);
    return text;
}

static Py_ssize_t tensor_len(PyObject *self)
{
    if (tsr_tensor_ndim(TENSOR(self)) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)tsr_tensor_sizes(TENSOR(self))[0];
}

/* ---- Arithmetic ----------------------------------------------------- */

/* One operation's four forms with uniform signatures (add and sub with
 * alpha 1, div without rounding). */
typedef struct arith {
    tsr_status (*tensor)(const tsr_tensor *, const tsr_tensor *, tsr_tensor **);
    tsr_status (*scalar)(const tsr_tensor *, tsr_scalar, tsr_tensor **);
    tsr_status (*tensor_)(tsr_tensor *, const tsr_tensor *);
    tsr_status (*scalar_)(tsr_tensor *, tsr_scalar);
    bool commutes;
} arith;

#define ALPHA_FORMS(op)                                                                  \
    static tsr_status op##_t(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **out) \
    {                                                                                    \
        return tsr_##op(a, b, tsr_scalar_int(1), out);                                   \
    }                                                                                    \
    static tsr_status op##_s(const tsr_tensor *a, tsr_scalar b, tsr_tensor **out)        \
    {                                                                                    \
        return tsr_##op##_scalar(a, b, tsr_scalar_int(1), out);                          \
    }                                                                                    \
    static tsr_status op##_ti(tsr_tensor *a, const tsr_tensor *b)                        \
    {                                                                                    \
        return tsr_##op##_(a, b, tsr_scalar_int(1));                                     \
    }                                                                                    \
    static tsr_status op##_si(tsr_tensor *a, tsr_scalar b)                               \
    {                                                                                    \
        return tsr_##op##_scalar_(a, b, tsr_scalar_int(1));                              \
    }
ALPHA_FORMS(add)
ALPHA_FORMS(sub)

static tsr_status div_tt(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **out)
{
    return tsr_div(a, b, TSR_ROUNDING_NONE, out);
}
static tsr_status div_ts(const tsr_tensor *a, tsr_scalar b, tsr_tensor **out)
{
    return tsr_div_scalar(a, b, TSR_ROUNDING_NONE, out);
}
static tsr_status div_tti(tsr_tensor *a, const tsr_tensor *b)
{
    return tsr_div_(a, b, TSR_ROUNDING_NONE);
}
static tsr_status div_tsi(tsr_tensor *a, tsr_scalar b)
{
    return tsr_div_scalar_(a, b, TSR_ROUNDING_NONE);
}

static const arith ADD = {add_t, add_s, add_ti, add_si, true};
static const arith SUB = {sub_t, sub_s, sub_ti, sub_si, false};
static const arith MUL = {tsr_mul, tsr_mul_scalar, tsr_mul_, tsr_mul_scalar_, true};
static const arith DIV = {div_tt, div_ts, div_tti, div_tsi, false};

/* scalar OP tensor for the operations that do not commute: the scalar
 * as a tensor of the result dtype (what PyTorch's wrapped number becomes),
 * then the tensor operation. */
static tsr_status reflected(const arith *op, tsr_scalar s, const tsr_tensor *t, tsr_tensor **out)
{
    tsr_operand ops[2] = {
        {TSR_OPERAND_SCALAR, s.kind},
        {tsr_tensor_ndim(t) ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM, tsr_tensor_dtype(t)}};
    tsr_tensor_options o = {.has_dtype = true};
    tsr_status st = tsr_result_type(ops, 2, &o.dtype);
    tsr_tensor *lhs = NULL;
    if (st == TSR_OK)
        st = tsr_tensor_full_like(t, s, &o, &lhs);
    if (st == TSR_OK)
        st = op->tensor(lhs, t, out);
    tsr_tensor_release(lhs);
    return st;
}

static PyObject *binary(const arith *op, PyObject *a, PyObject *b, bool inplace)
{
    bool a_tensor = PyObject_TypeCheck(a, &tsp_tensor_type);
    PyObject *other = a_tensor ? b : a;
    tsr_tensor *t = NULL;
    tsr_status st;
    if (PyObject_TypeCheck(other, &tsp_tensor_type)) {
        st = inplace ? op->tensor_(TENSOR(a), TENSOR(b)) : op->tensor(TENSOR(a), TENSOR(b), &t);
    } else {
        tsr_scalar s;
        int is = tsp_scalar_arg(other, &s);
        if (is < 0)
            return NULL;
        if (is == 0)
            Py_RETURN_NOTIMPLEMENTED;
        if (inplace)
            st = op->scalar_(TENSOR(a), s);
        else if (a_tensor || op->commutes)
            st = op->scalar(TENSOR(a_tensor ? a : b), s, &t);
        else
            st = reflected(op, s, TENSOR(b), &t);
    }
    if (st != TSR_OK)
        return tsp_raise(st);
    return inplace ? Py_NewRef(a) : tsp_tensor_wrap(t);
}

/* The number slots: each operation, out of place and in place. */
#define NUMBER_SLOTS(name, op)                            \
    static PyObject *nb_##name(PyObject *a, PyObject *b)  \
    {                                                     \
        return binary(&op, a, b, false);                  \
    }                                                     \
    static PyObject *nb_i##name(PyObject *a, PyObject *b) \
    {                                                     \
        return binary(&op, a, b, true);                   \
    }
NUMBER_SLOTS(add, ADD)
NUMBER_SLOTS(sub, SUB)
NUMBER_SLOTS(mul, MUL)
NUMBER_SLOTS(div, DIV)

static PyObject *nb_neg(PyObject *a)
{
    tsr_tensor *t = NULL;
    return result(tsr_neg(TENSOR(a), &t), &t);
}

static PyNumberMethods tensor_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_sub,
    .nb_multiply = nb_mul,
    .nb_true_divide = nb_div,
    .nb_inplace_add = nb_iadd,
    .nb_inplace_subtract = nb_isub,
    .nb_inplace_multiply = nb_imul,
    .nb_inplace_true_divide = nb_idiv,
    .nb_negative = nb_neg,
};

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

static PyMethodDef tensor_methods[] = {
    {"size", m_size, METH_VARARGS, NULL},
    {"stride", m_stride, METH_VARARGS, NULL},
    {"dim", m_dim, METH_NOARGS, NULL},
    {"numel", m_numel, METH_NOARGS, NULL},
    {"storage_offset", m_storage_offset, METH_NOARGS, NULL},
    {"data_ptr", m_data_ptr, METH_NOARGS, NULL},
    {"is_contiguous", m_is_contiguous, METH_NOARGS, NULL},
    {"contiguous", m_contiguous, METH_NOARGS, NULL},
    {"t", m_t, METH_NOARGS, NULL},
    {"to", (PyCFunction)(void (*)(void))m_to, METH_VARARGS | METH_KEYWORDS, NULL},
    {"cpu", m_cpu, METH_NOARGS, NULL},
    {"tolist", m_tolist, METH_NOARGS, NULL},
    {"item", m_item, METH_NOARGS, NULL},
    {"__dlpack__", (PyCFunction)(void (*)(void))m_dlpack, METH_VARARGS | METH_KEYWORDS, NULL},
    {"__dlpack_device__", m_dlpack_device, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject tsp_tensor_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera.Tensor",
    .tp_basicsize = sizeof(tsp_tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A strided tensor on a device, as torch.Tensor.",
    .tp_dealloc = tensor_dealloc,
    .tp_repr = tensor_repr,
    .tp_as_number = &tensor_number,
    .tp_as_sequence = &tensor_sequence,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};

#define KW(fn) ((PyCFunction)(void (*)(void))(fn)), METH_VARARGS | METH_KEYWORDS
PyMethodDef tsp_tensor_functions[] = {
    {"tensor", KW(py_tensor), "torch.tensor(data, *, dtype=None, device=None)"},
    {"empty", KW(py_empty), "torch.empty(*size, dtype=None, device=None)"},
    {"zeros", KW(py_zeros), "torch.zeros(*size, dtype=None, device=None)"},
    {"ones", KW(py_ones), "torch.ones(*size, dtype=None, device=None)"},
    {"full", KW(py_full), "torch.full(size, fill_value, *, dtype=None, device=None)"},
    {"to_dlpack", KW(py_to_dlpack), "A DLPack capsule of tensor (host=True: as host memory)"},
    {"from_dlpack", py_from_dlpack, METH_O, "A Tensor over a DLPack capsule or __dlpack__ object"},
    {NULL, NULL, 0, NULL},
};
