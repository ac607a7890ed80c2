/* The operations of the tessera package, reached by name: every
 * elementwise operation of the op table through tsr_op_from_name and
 * tsr_elementwise, the reductions, the matrix products, and the device
 * functions (default device, current device, device count).
 *
 * tessera/__init__.py builds tessera.<name>(...) and the Tensor methods
 * and operators from _op_names() and these few entry points, so an
 * operation added to the library's op table reaches Python without code
 * here. */
#include "python/tessera_python.h"

#define TENSOR(obj) (((tsp_tensor *)(obj))->tensor)
#define IS_TENSOR(obj) PyObject_TypeCheck(obj, &tsp_tensor_type)

/* The tensor a call made in *t, or its error (a pointer: *t is read after
 * the call, whatever order the arguments are evaluated in). */
static PyObject *wrap_result(tsr_status st, tsr_tensor **t)
{
    return st == TSR_OK ? tsp_tensor_wrap(*t) : tsp_raise(st);
}

/* ---- Elementwise ---------------------------------------------------- */

/* Op numbers are the op table's wire numbers, 1.. upwards, with holes
 * for the rows that are not elementwise (copies, reductions); the table
 * is far below this bound. */
#define OP_NUMBER_BOUND 4096

/* _op_names(): [(name, arity), ...] of every elementwise operation. */
static PyObject *py_op_names(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (tsr_op k = 1; list && k < OP_NUMBER_BOUND; k++) {
        const char *name = tsr_op_name(k);
        if (name == NULL)
            continue;
        PyObject *row = Py_BuildValue("(si)", name, tsr_op_arity(k));
        if (row == NULL || PyList_Append(list, row)) {
            Py_XDECREF(row);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(row);
    }
    return list;
}

#define MAX_INPUTS 3

/* The operands of one call: tensors borrowed from the arguments, Python
 * numbers made into zero-dim tensors (owned). */
typedef struct operands {
    const tsr_tensor *in[MAX_INPUTS];
    tsr_tensor *owned[MAX_INPUTS];
    size_t n;
} operands;

static void operands_release(operands *o)
{
    for (size_t i = 0; i < o->n; i++)
        tsr_tensor_release(o->owned[i]);
}

/* A zero-dim tensor holding s in `dtype` on `device`, converted as a
 * cast converts (int8 + 300 wraps, as PyTorch's wrapped numbers do). */
static tsr_status scalar_tensor(tsr_scalar s, tsr_dtype dtype, tsr_device device, tsr_tensor **out)
{
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = dtype, .has_device = true, .device = device};
    tsr_client *c = NULL;
    if (device.type != TSR_DEVICE_CPU && device.type != TSR_DEVICE_META &&
        (c = tsp_client()) == NULL)
        return TSR_ERR_RUNTIME; /* the exception is set */
    return tsr_tensor_from_data(c, 0, NULL, s.kind, &s.v, &o, out);
}

/* Python numbers among the inputs become PyTorch's wrapped numbers: a
 * zero-dim tensor of the dtype the operation promotes to (tsr_result_type
 * with the number as a scalar operand), on the tensors' device. Without
 * any tensor, the first number is the tensor (torch.add(5, 5)). */
static int operands_arg(PyObject *name, PyObject *inputs, operands *o)
{
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (n < 1 || n > MAX_INPUTS) {
        PyErr_Format(PyExc_TypeError, "%U() takes 1 to %d operands, got %zd", name, MAX_INPUTS, n);
        return -1;
    }
    o->n = (size_t)n;
    tsr_operand kinds[MAX_INPUTS];
    tsr_scalar values[MAX_INPUTS];
    const tsr_tensor *like = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);
        o->in[i] = NULL;
        o->owned[i] = NULL;
        if (IS_TENSOR(x)) {
            o->in[i] = TENSOR(x);
            kinds[i].kind = tsr_tensor_ndim(TENSOR(x)) ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM;
            kinds[i].dtype = tsr_tensor_dtype(TENSOR(x));
            /* The numbers go where the tensors are: to an accelerator
             * when any tensor is on one (a cpu zero-dim tensor joins it). */
            if (like == NULL || tsr_tensor_device(like).type == TSR_DEVICE_CPU)
                like = TENSOR(x);
            continue;
        }
        int is = tsp_scalar_arg(x, &values[i]);
        if (is == 0)
            PyErr_Format(PyExc_TypeError,
                         "%U(): argument '%s' (position %zd) must be Tensor, not %s", name,
                         i == 0 ? "input" : "other", i + 1, Py_TYPE(x)->tp_name);
        if (is <= 0)
            return -1;
        kinds[i].kind = TSR_OPERAND_SCALAR;
        kinds[i].dtype = values[i].kind;
    }
    tsr_device device = {TSR_DEVICE_CPU, -1};
    if (like != NULL) {
        device = tsr_tensor_device(like);
    } else {
        /* The first number is an ordinary zero-dim tensor of its kind. */
        kinds[0].kind = TSR_OPERAND_ZERO_DIM;
        if (kinds[0].dtype == TSR_FLOAT64)
            kinds[0].dtype = tsr_get_default_dtype();
        else if (kinds[0].dtype == TSR_COMPLEX128)
            kinds[0].dtype = tsr_get_default_complex_dtype();
    }
    tsr_dtype common;
    tsr_status st =
        like != NULL ? TSR_OK : scalar_tensor(values[0], kinds[0].dtype, device, &o->owned[0]);
    o->in[0] = like != NULL ? o->in[0] : o->owned[0];
    if (st == TSR_OK)
        st = tsr_result_type(kinds, (size_t)n, &common);
    for (Py_ssize_t i = 0; st == TSR_OK && i < n; i++) {
        if (o->in[i] != NULL)
            continue;
        st = scalar_tensor(values[i], common, device, &o->owned[i]);
        o->in[i] = o->owned[i];
    }
    if (st != TSR_OK) {
        if (!PyErr_Occurred())
            tsp_raise(st);
        return -1;
    }
    return 0;
}

/* _elementwise(name, (inputs...), out=None): the operation `name` on
 * tensors and Python numbers; into `out` when given (the in-place forms
 * pass self), returning it. */
static PyObject *py_elementwise(PyObject *m, PyObject *args, PyObject *kwargs)
{
    (void)m;
    static char *names[] = {"name", "inputs", "out", NULL};
    PyObject *name, *inputs, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!|O:_elementwise", names, &name,
                                     &PyTuple_Type, &inputs, &out))
        return NULL;
    if (out != Py_None && !IS_TENSOR(out)) {
        PyErr_Format(PyExc_TypeError, "%U(): argument 'out' must be Tensor, not %s", name,
                     Py_TYPE(out)->tp_name);
        return NULL;
    }
    const char *text = PyUnicode_AsUTF8(name);
    tsr_op op;
    if (text == NULL)
        return NULL;
    tsr_status st = tsr_op_from_name(text, &op);
    if (st != TSR_OK)
        return tsp_raise(st);
    operands o = {0};
    if (operands_arg(name, inputs, &o)) {
        operands_release(&o);
        return NULL;
    }
    tsr_tensor *t = NULL;
    st = tsr_elementwise(op, o.in, o.n, out == Py_None ? NULL : TENSOR(out), &t);
    operands_release(&o);
    if (st != TSR_OK)
        return tsp_raise(st);
    return out == Py_None ? tsp_tensor_wrap(t) : Py_NewRef(out);
}

/* An optional float argument: None gives NULL, else its value in *v. */
static int float_or_none(PyObject *obj, double *v, const double **p)
{
    *p = NULL;
    if (obj == Py_None)
        return 0;
    *v = PyFloat_AsDouble(obj);
    if (*v == -1.0 && PyErr_Occurred())
        return -1;
    *p = v;
    return 0;
}

/* _round_decimals(t, decimals, out, inplace): torch.round(t, decimals=). */
static PyObject *py_round_decimals(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *self, *out;
    long long decimals;
    int inplace;
    if (!PyArg_ParseTuple(args, "O!LOp:_round_decimals", &tsp_tensor_type, &self, &decimals, &out,
                          &inplace))
        return NULL;
    if (out != Py_None && !IS_TENSOR(out))
        return PyErr_Format(PyExc_TypeError, "round(): argument 'out' must be Tensor, not %s",
                            Py_TYPE(out)->tp_name);
    tsr_tensor *t = NULL;
    tsr_status st = inplace             ? tsr_round_decimals_(TENSOR(self), decimals)
                    : out != Py_None ? tsr_round_decimals_out(TENSOR(self), decimals, TENSOR(out))
                                     : tsr_round_decimals(TENSOR(self), decimals, &t);
    if (st != TSR_OK)
        return tsp_raise(st);
    if (inplace)
        return Py_NewRef(self);
    return out == Py_None ? tsp_tensor_wrap(t) : Py_NewRef(out);
}

/* _nan_to_num(t, nan, posinf, neginf, out, inplace): torch.nan_to_num. */
static PyObject *py_nan_to_num(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *self, *numbers[3], *out;
    int inplace;
    if (!PyArg_ParseTuple(args, "O!OOOOp:_nan_to_num", &tsp_tensor_type, &self, &numbers[0],
                          &numbers[1], &numbers[2], &out, &inplace))
        return NULL;
    if (out != Py_None && !IS_TENSOR(out))
        return PyErr_Format(PyExc_TypeError,
                            "nan_to_num(): argument 'out' must be Tensor, not %s",
                            Py_TYPE(out)->tp_name);
    double v[3];
    const double *p[3];
    for (int k = 0; k < 3; k++)
        if (float_or_none(numbers[k], &v[k], &p[k]))
            return NULL;
    tsr_tensor *t = NULL;
    tsr_status st = inplace ? tsr_nan_to_num_(TENSOR(self), p[0], p[1], p[2])
                    : out != Py_None
                        ? tsr_nan_to_num_out(TENSOR(self), p[0], p[1], p[2], TENSOR(out))
                        : tsr_nan_to_num(TENSOR(self), p[0], p[1], p[2], &t);
    if (st != TSR_OK)
        return tsp_raise(st);
    if (inplace)
        return Py_NewRef(self);
    return out == Py_None ? tsp_tensor_wrap(t) : Py_NewRef(out);
}

/* _pow(input, exponent, out, inplace): torch.pow with a tensor or a
 * Python number on either side (not both numbers), through the library's
 * three forms, so that its checks and messages are PyTorch's; other
 * arguments raise the first line of PyTorch's TypeError. A number base
 * has no in-place form (Python's number ** tensor makes a new one). */
static PyObject *py_pow(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *self, *exponent, *out;
    int inplace;
    if (!PyArg_ParseTuple(args, "OOOp:_pow", &self, &exponent, &out, &inplace))
        return NULL;
    tsr_scalar number = tsr_scalar_int(0);
    int is = IS_TENSOR(self) ? (IS_TENSOR(exponent) ? 1 : tsp_scalar_arg(exponent, &number))
                             : (IS_TENSOR(exponent) ? tsp_scalar_arg(self, &number) : 0);
    if (is < 0)
        return NULL;
    if (is == 0 || (out != Py_None && !IS_TENSOR(out))) {
        PyObject *given[3] = {self, exponent, out};
        const char *names[3];
        for (int k = 0; k < 3; k++)
            names[k] = IS_TENSOR(given[k]) ? "Tensor" : Py_TYPE(given[k])->tp_name;
        return PyErr_Format(
            PyExc_TypeError,
            "pow() received an invalid combination of arguments - got (%s, %s%s%s), "
            "but expected one of:",
            names[0], names[1], out == Py_None ? "" : ", out=", out == Py_None ? "" : names[2]);
    }
    if (inplace && !IS_TENSOR(self))
        return PyErr_Format(PyExc_TypeError, "pow_(): a number has no in-place form");
    tsr_tensor *t = NULL;
    tsr_tensor *into = out == Py_None ? NULL : TENSOR(out);
    tsr_status st;
    if (!IS_TENSOR(self))
        st = into ? tsr_pow_scalar_self_out(number, TENSOR(exponent), into)
                  : tsr_pow_scalar_self(number, TENSOR(exponent), &t);
    else if (!IS_TENSOR(exponent))
        st = inplace ? tsr_pow_scalar_(TENSOR(self), number)
             : into  ? tsr_pow_scalar_out(TENSOR(self), number, into)
                     : tsr_pow_scalar(TENSOR(self), number, &t);
    else
        st = inplace ? tsr_pow_(TENSOR(self), TENSOR(exponent))
             : into  ? tsr_pow_out(TENSOR(self), TENSOR(exponent), into)
                     : tsr_pow(TENSOR(self), TENSOR(exponent), &t);
    if (st != TSR_OK)
        return tsp_raise(st);
    if (inplace)
        return Py_NewRef(self);
    return into == NULL ? tsp_tensor_wrap(t) : Py_NewRef(out);
}

/* ---- Reductions ----------------------------------------------------- */

typedef tsr_status (*reduce_dtype_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_dtype,
                                      tsr_tensor **);
typedef tsr_status (*reduce_dtype_out_fn)(const tsr_tensor *, const int64_t *, int, bool,
                                          tsr_dtype, tsr_tensor *);
typedef tsr_status (*reduce_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor **);
typedef tsr_status (*reduce_out_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor *);

static const struct {
    const char *name;
    reduce_dtype_fn with_dtype;
    reduce_dtype_out_fn with_dtype_out;
    reduce_fn plain;
    reduce_out_fn plain_out;
} reductions[] = {
    {"sum", tsr_sum, tsr_sum_out, NULL, NULL},
    {"prod", tsr_prod, tsr_prod_out, NULL, NULL},
    {"mean", tsr_mean, tsr_mean_out, NULL, NULL},
    {"nansum", tsr_nansum, tsr_nansum_out, NULL, NULL},
    {"nanmean", tsr_nanmean, tsr_nanmean_out, NULL, NULL},
    {"amax", NULL, NULL, tsr_amax, tsr_amax_out},
    {"amin", NULL, NULL, tsr_amin, tsr_amin_out},
    {"all", NULL, NULL, tsr_all, tsr_all_out},
    {"any", NULL, NULL, tsr_any, tsr_any_out},
    {"argmax", NULL, NULL, tsr_argmax, tsr_argmax_out},
    {"argmin", NULL, NULL, tsr_argmin, tsr_argmin_out},
    {"logsumexp", NULL, NULL, tsr_logsumexp, tsr_logsumexp_out},
};

/* out=: None (*t NULL) or a tensor, else PyTorch's TypeError. */
static int out_arg(const char *name, PyObject *out, tsr_tensor **t)
{
    *t = NULL;
    if (out == Py_None)
        return 0;
    if (!IS_TENSOR(out)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", name,
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    *t = TENSOR(out);
    return 0;
}

/* What a function with out= returns: the new result r (out None), or
 * out itself, once st is TSR_OK. */
static PyObject *result_or_out(tsr_status st, tsr_tensor **r, PyObject *out)
{
    if (out == Py_None)
        return wrap_result(st, r);
    if (st != TSR_OK)
        return tsp_raise(st);
    return Py_NewRef(out);
}

/* dim=: None (every dimension), an int or a sequence of ints. */
static int dims_arg(PyObject *obj, int64_t *dims, int *n)
{
    *n = 0;
    if (obj == Py_None)
        return 0;
    PyObject *seq = PyLong_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Tuple(obj);
    if (seq == NULL)
        return -1;
    Py_ssize_t len = PyTuple_GET_SIZE(seq);
    if (len > TSR_MAX_DIMS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d dims", TSR_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (dims[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    *n = (int)len;
    return 0;
}

/* dtype=: None or a tessera.dtype. */
static int dtype_or_none(PyObject *obj, tsr_dtype *out)
{
    *out = TSR_NO_DTYPE;
    if (obj == Py_None)
        return 0;
    if (!PyObject_TypeCheck(obj, &tsp_dtype_type)) {
        PyErr_Format(PyExc_TypeError, "dtype must be a tessera.dtype, not %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((tsp_dtype *)obj)->dtype;
    return 0;
}

/* _reduce(name, t, dim, keepdim, dtype, out=None): sum, prod, mean, ... */
static PyObject *py_reduce(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    PyObject *t, *dim, *dtype_obj, *out = Py_None;
    int keepdim;
    int64_t dims[TSR_MAX_DIMS];
    int n;
    tsr_dtype dtype;
    tsr_tensor *o = NULL;
    if (!PyArg_ParseTuple(args, "sO!OpO|O:_reduce", &name, &tsp_tensor_type, &t, &dim, &keepdim,
                          &dtype_obj, &out) ||
        dims_arg(dim, dims, &n) || dtype_or_none(dtype_obj, &dtype) || out_arg(name, out, &o))
        return NULL;
    for (size_t i = 0; i < sizeof(reductions) / sizeof(reductions[0]); i++) {
        if (strcmp(reductions[i].name, name) != 0)
            continue;
        tsr_tensor *r = NULL;
        tsr_status st;
        if (reductions[i].with_dtype != NULL) {
            st = o ? reductions[i].with_dtype_out(TENSOR(t), dims, n, keepdim, dtype, o)
                   : reductions[i].with_dtype(TENSOR(t), dims, n, keepdim, dtype, &r);
        } else if (dtype != TSR_NO_DTYPE) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'dtype'", name);
            return NULL;
        } else {
            st = o ? reductions[i].plain_out(TENSOR(t), dims, n, keepdim, o)
                   : reductions[i].plain(TENSOR(t), dims, n, keepdim, &r);
        }
        return result_or_out(st, &r, out);
    }
    PyErr_Format(PyExc_ValueError, "no reduction is named \"%s\"", name);
    return NULL;
}

/* _reduce_names(): the names _reduce takes, and whether each takes dtype=. */
static PyObject *py_reduce_names(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    size_t count = sizeof(reductions) / sizeof(reductions[0]);
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list && i < count; i++) {
        PyObject *row = Py_BuildValue("(sO)", reductions[i].name,
                                      reductions[i].with_dtype ? Py_True : Py_False);
        if (row == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, row);
    }
    return list;
}

/* _max_dim(name, t, dim, keepdim, out=None): (values, indices) of max or
 * min; out= is None or a (values, indices) pair of tensors. */
static PyObject *py_max_dim(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    PyObject *t, *out = Py_None;
    long long dim;
    int keepdim;
    if (!PyArg_ParseTuple(args, "sO!Lp|O:_max_dim", &name, &tsp_tensor_type, &t, &dim, &keepdim,
                          &out))
        return NULL;
    bool max = strcmp(name, "max") == 0;
    tsr_tensor *values = NULL, *indices = NULL;
    tsr_status st;
    if (out != Py_None) {
        if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != 2 ||
            !IS_TENSOR(PyTuple_GET_ITEM(out, 0)) || !IS_TENSOR(PyTuple_GET_ITEM(out, 1))) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument 'out' must be tuple of two Tensors (values, indices)",
                         name);
            return NULL;
        }
        tsr_tensor *v = TENSOR(PyTuple_GET_ITEM(out, 0)), *i = TENSOR(PyTuple_GET_ITEM(out, 1));
        st = max ? tsr_max_dim_out(TENSOR(t), dim, keepdim, v, i)
                 : tsr_min_dim_out(TENSOR(t), dim, keepdim, v, i);
        if (st != TSR_OK)
            return tsp_raise(st);
        return Py_NewRef(out);
    }
    st = max ? tsr_max_dim(TENSOR(t), dim, keepdim, &values, &indices)
             : tsr_min_dim(TENSOR(t), dim, keepdim, &values, &indices);
    if (st != TSR_OK)
        return tsp_raise(st);
    PyObject *v = tsp_tensor_wrap(values), *i = tsp_tensor_wrap(indices);
    PyObject *pair = v && i ? PyTuple_Pack(2, v, i) : NULL;
    Py_XDECREF(v);
    Py_XDECREF(i);
    return pair;
}

/* _var(name, t, dim, correction, keepdim, out=None): var or std. */
static PyObject *py_var(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    PyObject *t, *dim, *out = Py_None;
    long long correction;
    int keepdim;
    int64_t dims[TSR_MAX_DIMS];
    int n;
    tsr_tensor *o = NULL;
    if (!PyArg_ParseTuple(args, "sO!OLp|O:_var", &name, &tsp_tensor_type, &t, &dim, &correction,
                          &keepdim, &out) ||
        dims_arg(dim, dims, &n) || out_arg(name, out, &o))
        return NULL;
    tsr_tensor *r = NULL;
    bool std = strcmp(name, "std") == 0;
    tsr_status st = o     ? (std ? tsr_std_out : tsr_var_out)(TENSOR(t), dims, n, correction,
                                                              keepdim, o)
                    : std ? tsr_std(TENSOR(t), dims, n, correction, keepdim, &r)
                          : tsr_var(TENSOR(t), dims, n, correction, keepdim, &r);
    return result_or_out(st, &r, out);
}

/* _norm(t, p, dim, keepdim, out=None). */
static PyObject *py_norm(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *t, *dim, *out = Py_None;
    double p;
    int keepdim;
    int64_t dims[TSR_MAX_DIMS];
    int n;
    tsr_tensor *o = NULL;
    if (!PyArg_ParseTuple(args, "O!dOp|O:_norm", &tsp_tensor_type, &t, &p, &dim, &keepdim, &out) ||
        dims_arg(dim, dims, &n) || out_arg("norm", out, &o))
        return NULL;
    tsr_tensor *r = NULL;
    tsr_status st = o ? tsr_norm_out(TENSOR(t), p, dims, n, keepdim, o)
                      : tsr_norm(TENSOR(t), p, dims, n, keepdim, &r);
    return result_or_out(st, &r, out);
}

/* _along(name, t, dim, dtype, out=None): softmax, log_softmax, cumsum. */
static PyObject *py_along(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    PyObject *t, *dtype_obj, *out = Py_None;
    long long dim;
    tsr_dtype dtype;
    tsr_tensor *o = NULL;
    if (!PyArg_ParseTuple(args, "sO!LO|O:_along", &name, &tsp_tensor_type, &t, &dim, &dtype_obj,
                          &out) ||
        dtype_or_none(dtype_obj, &dtype) || out_arg(name, out, &o))
        return NULL;
    bool softmax = strcmp(name, "softmax") == 0, log = strcmp(name, "log_softmax") == 0;
    tsr_tensor *r = NULL;
    tsr_status st;
    if (o)
        st = (softmax ? tsr_softmax_out : log ? tsr_log_softmax_out : tsr_cumsum_out)(
            TENSOR(t), dim, dtype, o);
    else
        st = (softmax ? tsr_softmax : log ? tsr_log_softmax : tsr_cumsum)(TENSOR(t), dim, dtype,
                                                                          &r);
    return result_or_out(st, &r, out);
}

/* ---- Matrix products ------------------------------------------------ */

static const struct {
    const char *name;
    tsr_status (*fn)(const tsr_tensor *, const tsr_tensor *, tsr_tensor **);
} products[] = {
    {"mm", tsr_mm},   {"bmm", tsr_bmm}, {"matmul", tsr_matmul},
    {"dot", tsr_dot}, {"mv", tsr_mv},   {"outer", tsr_outer},
};

/* _product(name, a, b). */
static PyObject *py_product(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "sOO:_product", &name, &a, &b))
        return NULL;
    if (!IS_TENSOR(a) || !IS_TENSOR(b)) {
        PyErr_Format(PyExc_TypeError, "%s(): expected Tensors, got %s and %s", name,
                     Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name);
        return NULL;
    }
    for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++) {
        if (strcmp(products[i].name, name) != 0)
            continue;
        tsr_tensor *r = NULL;
        return wrap_result(products[i].fn(TENSOR(a), TENSOR(b), &r), &r);
    }
    PyErr_Format(PyExc_ValueError, "no matrix product is named \"%s\"", name);
    return NULL;
}

/* ---- Devices -------------------------------------------------------- */

/* set_default_device(device or None). */
static PyObject *py_set_default_device(PyObject *m, PyObject *arg)
{
    (void)m;
    tsr_device d;
    if (arg != Py_None && tsp_device_arg(arg, &d))
        return NULL;
    tsr_status st = tsr_set_default_device(arg == Py_None ? NULL : &d);
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_get_default_device(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    tsr_device d;
    tsr_status st = tsr_get_default_device(tsp_client_if_open(), &d);
    return st == TSR_OK ? tsp_device_object(d) : tsp_raise(st);
}

/* A device type named as torch.cuda's functions name theirs. */
static int type_arg(const char *name, tsr_device_type *out)
{
    tsr_status st = tsr_device_type_from_name(name, out);
    if (st != TSR_OK) {
        tsp_raise(st);
        return -1;
    }
    return 0;
}

/* _is_available(type): whether the daemon serves devices of the type. A
 * daemon that cannot be reached means no. */
static PyObject *py_is_available(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    tsr_device_type type;
    if (!PyArg_ParseTuple(args, "s:_is_available", &name) || type_arg(name, &type))
        return NULL;
    tsr_client *c = tsp_client();
    int32_t count = 0;
    if (c == NULL || tsr_device_count(c, type, &count) != TSR_OK)
        count = 0;
    PyErr_Clear();
    return PyBool_FromLong(count > 0);
}

static PyObject *py_device_count(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    tsr_device_type type;
    if (!PyArg_ParseTuple(args, "s:_device_count", &name) || type_arg(name, &type))
        return NULL;
    tsr_client *c = tsp_client();
    if (c == NULL) {
        PyErr_Clear();
        return PyLong_FromLong(0); /* as torch.cuda.device_count() without a driver */
    }
    int32_t count = 0;
    tsr_status st = tsr_device_count(c, type, &count);
    return st == TSR_OK ? PyLong_FromLong(count) : tsp_raise(st);
}

static PyObject *py_current_device(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    tsr_device_type type;
    if (!PyArg_ParseTuple(args, "s:_current_device", &name) || type_arg(name, &type))
        return NULL;
    tsr_client *c = tsp_client();
    tsr_device d;
    if (c == NULL)
        return NULL;
    tsr_status st = tsr_current_device(c, type, &d);
    return st == TSR_OK ? PyLong_FromLong(d.index) : tsp_raise(st);
}

static PyObject *py_set_device(PyObject *m, PyObject *arg)
{
    (void)m;
    tsr_device d;
    tsr_client *c;
    if (tsp_device_arg(arg, &d) || (c = tsp_client()) == NULL)
        return NULL;
    tsr_status st = tsr_set_device(c, d);
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_NONE;
}

PyMethodDef tsp_ops_functions[] = {
    {"_op_names", py_op_names, METH_NOARGS, "[(name, arity)] of the elementwise operations"},
    {"_elementwise", (PyCFunction)(void (*)(void))py_elementwise, METH_VARARGS | METH_KEYWORDS,
     "_elementwise(name, inputs, out=None)"},
    {"_round_decimals", py_round_decimals, METH_VARARGS,
     "_round_decimals(t, decimals, out, inplace)"},
    {"_nan_to_num", py_nan_to_num, METH_VARARGS,
     "_nan_to_num(t, nan, posinf, neginf, out, inplace)"},
    {"_pow", py_pow, METH_VARARGS, "_pow(input, exponent, out, inplace)"},
    {"_reduce", py_reduce, METH_VARARGS, "_reduce(name, t, dim, keepdim, dtype, out=None)"},
    {"_reduce_names", py_reduce_names, METH_NOARGS, "[(name, takes_dtype)] of _reduce"},
    {"_max_dim", py_max_dim, METH_VARARGS, "_max_dim(name, t, dim, keepdim, out=None)"},
    {"_var", py_var, METH_VARARGS, "_var(name, t, dim, correction, keepdim, out=None)"},
    {"_norm", py_norm, METH_VARARGS, "_norm(t, p, dim, keepdim, out=None)"},
    {"_along", py_along, METH_VARARGS, "_along(name, t, dim, dtype, out=None)"},
    {"_product", py_product, METH_VARARGS, "_product(name, a, b)"},
    {"set_default_device", py_set_default_device, METH_O, "torch.set_default_device(device)"},
    {"get_default_device", py_get_default_device, METH_NOARGS, "torch.get_default_device()"},
    {"_is_available", py_is_available, METH_VARARGS, "torch.cuda.is_available() for a type"},
    {"_device_count", py_device_count, METH_VARARGS, "torch.cuda.device_count() for a type"},
    {"_current_device", py_current_device, METH_VARARGS, "torch.cuda.current_device()"},
    {"_set_device", py_set_device, METH_O, "torch.cuda.set_device(device)"},
    {NULL, NULL, 0, NULL},
};
