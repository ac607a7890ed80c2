/* The tessera extension module: errors, dtype and device objects, the
 * promotion functions and the process's session with tesserad.
 *
 * dtype objects are singletons made once at import, one per tsr_dtype,
 * so `t.dtype is tessera.float32` holds as it does in PyTorch. Every
 * failing library call raises through tsp_raise, which picks the
 * exception class PyTorch would raise for the status and keeps the
 * library's message. */
#include "python/tessera_python.h"

/* ---- Errors --------------------------------------------------------- */

PyObject *tsp_raise(tsr_status st)
{
    PyObject *type = PyExc_RuntimeError;
    if (st == TSR_ERR_TYPE)
        type = PyExc_TypeError;
    else if (st == TSR_ERR_INVALID_ARGUMENT)
        type = PyExc_ValueError;
    else if (st == TSR_ERR_INDEX)
        type = PyExc_IndexError;
    PyErr_SetString(type, tsr_last_error());
    return NULL;
}

pthread_rwlock_t tsp_storage_lock = PTHREAD_RWLOCK_INITIALIZER;

/* ---- Scalars -------------------------------------------------------- */

/* An int that is no int64: PyTorch's RuntimeError, not OverflowError. */
static int long_error(void)
{
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    }
    return -1;
}

int tsp_scalar_arg(PyObject *obj, tsr_scalar *out)
{
    if (PyBool_Check(obj)) {
        *out = tsr_scalar_bool(obj == Py_True);
    } else if (PyLong_Check(obj)) {
        long long v = PyLong_AsLongLong(obj);
        if (v == -1 && PyErr_Occurred())
            return long_error();
        *out = tsr_scalar_int(v);
    } else if (PyFloat_Check(obj)) {
        *out = tsr_scalar_float(PyFloat_AS_DOUBLE(obj));
    } else if (PyComplex_Check(obj)) {
        *out = tsr_scalar_complex(PyComplex_RealAsDouble(obj), PyComplex_ImagAsDouble(obj));
    } else if (strcmp(Py_TYPE(obj)->tp_name, "numpy.bool_") == 0 ||
               strcmp(Py_TYPE(obj)->tp_name, "numpy.bool") == 0) {
        /* NumPy's bool is a real number to PyTorch 1.13 (its argument
         * parser reads it as a double): int64 + np.bool_(True) is
         * float32 there, as is full((2,), np.bool_(True)) */
        int truth = PyObject_IsTrue(obj);
        if (truth < 0)
            return -1;
        *out = tsr_scalar_float(truth ? 1.0 : 0.0);
    } else if (!PyObject_TypeCheck(obj, &tsp_tensor_type) && PyIndex_Check(obj)) {
        /* integers of other types (NumPy's) */
        PyObject *v = PyNumber_Index(obj);
        long long i = v ? PyLong_AsLongLong(v) : -1;
        Py_XDECREF(v);
        if (i == -1 && PyErr_Occurred())
            return v ? long_error() : -1;
        *out = tsr_scalar_int(i);
    } else if (!PyObject_TypeCheck(obj, &tsp_tensor_type) && Py_TYPE(obj)->tp_as_number &&
               Py_TYPE(obj)->tp_as_number->nb_float) {
        /* reals of other types (NumPy's float32, ...) */
        double f = PyFloat_AsDouble(obj);
        if (f == -1.0 && PyErr_Occurred())
            return -1;
        *out = tsr_scalar_float(f);
    } else {
        return 0;
    }
    return 1;
}

/* ---- dtype ---------------------------------------------------------- */

static PyObject *dtype_objects[TSR_DTYPE_COUNT];

PyObject *tsp_dtype_object(tsr_dtype d)
{
    Py_INCREF(dtype_objects[d]);
    return dtype_objects[d];
}

static PyObject *dtype_repr(PyObject *self)
{
    return PyUnicode_FromFormat("tessera.%s", tsr_dtype_name(((tsp_dtype *)self)->dtype));
}

static PyObject *dtype_is_floating_point(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(tsr_dtype_is_floating_point(((tsp_dtype *)self)->dtype));
}

static PyObject *dtype_is_complex(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(tsr_dtype_is_complex(((tsp_dtype *)self)->dtype));
}

static PyObject *dtype_is_signed(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(tsr_dtype_is_signed(((tsp_dtype *)self)->dtype));
}

static PyObject *dtype_itemsize(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(tsr_dtype_itemsize(((tsp_dtype *)self)->dtype));
}

static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, NULL, NULL, NULL},
    {"is_complex", dtype_is_complex, NULL, NULL, NULL},
    {"is_signed", dtype_is_signed, NULL, NULL, NULL},
    {"itemsize", dtype_itemsize, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject tsp_dtype_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera.dtype",
    .tp_basicsize = sizeof(tsp_dtype),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A tensor element type, as torch.dtype.",
    .tp_repr = dtype_repr,
    .tp_getset = dtype_getset,
};

static int dtype_arg(PyObject *obj, tsr_dtype *out)
{
    if (!PyObject_TypeCheck(obj, &tsp_dtype_type)) {
        PyErr_Format(PyExc_TypeError, "expected a tessera.dtype, got %s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((tsp_dtype *)obj)->dtype;
    return 0;
}

/* ---- device --------------------------------------------------------- */

PyObject *tsp_device_object(tsr_device d)
{
    tsp_device *obj = PyObject_New(tsp_device, &tsp_device_type);
    if (obj != NULL)
        obj->device = d;
    return (PyObject *)obj;
}

/* torch.device(index): the accelerator with that index; without a
 * reachable daemon, the machine has no accelerator. */
static int device_from_index(PyObject *arg, tsr_device *out)
{
    long long index = PyLong_AsLongLong(arg);
    if (index == -1 && PyErr_Occurred())
        return -1;
    tsr_client *c = tsp_client();
    PyErr_Clear();
    tsr_status st = c ? tsr_device_from_index(c, index, out)
                      : tsr_device_for_accelerator(TSR_DEVICE_TYPE_COUNT, index, out);
    if (st != TSR_OK) {
        tsp_raise(st);
        return -1;
    }
    return 0;
}

int tsp_device_arg(PyObject *arg, tsr_device *out)
{
    if (PyObject_TypeCheck(arg, &tsp_device_type)) {
        *out = ((tsp_device *)arg)->device;
        return 0;
    }
    if (PyLong_Check(arg) && !PyBool_Check(arg))
        return device_from_index(arg, out);
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "expected a tessera.device or a string, got %s",
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    const char *text = PyUnicode_AsUTF8(arg);
    tsr_status st = text ? tsr_device_parse(text, out) : TSR_OK;
    if (text == NULL)
        return -1;
    if (st != TSR_OK) {
        tsp_raise(st);
        return -1;
    }
    return 0;
}

/* tessera.device("opencl:0"), tessera.device("opencl", 0), tessera.device(0). */
static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)type;
    static char *names[] = {"type", "index", NULL};
    PyObject *what = NULL, *index = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", names, &what, &index))
        return NULL;
    if (PyObject_TypeCheck(what, &tsp_device_type) && index == Py_None)
        return Py_NewRef(what);
    if (PyLong_Check(what) && !PyBool_Check(what) && index == Py_None) {
        tsr_device d;
        return device_from_index(what, &d) ? NULL : tsp_device_object(d);
    }
    if (!PyUnicode_Check(what)) {
        PyErr_Format(PyExc_TypeError, "device() expects a string, got %s", Py_TYPE(what)->tp_name);
        return NULL;
    }
    const char *text = PyUnicode_AsUTF8(what);
    if (text == NULL)
        return NULL;
    tsr_index_arg how = index == Py_None ? TSR_INDEX_OMITTED : TSR_INDEX_GIVEN;
    long long i = index == Py_None ? -1 : PyLong_AsLongLong(index);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    tsr_device d;
    tsr_status st = tsr_device_make(text, how, i, &d);
    return st == TSR_OK ? tsp_device_object(d) : tsp_raise(st);
}

static PyObject *device_repr(PyObject *self)
{
    char buf[TSR_DEVICE_STR_MAX];
    tsr_device_repr(((tsp_device *)self)->device, buf, sizeof(buf));
    return PyUnicode_FromString(buf);
}

static PyObject *device_str(PyObject *self)
{
    char buf[TSR_DEVICE_STR_MAX];
    tsr_device_str(((tsp_device *)self)->device, buf, sizeof(buf));
    return PyUnicode_FromString(buf);
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &tsp_device_type))
        Py_RETURN_NOTIMPLEMENTED;
    bool eq = tsr_device_equal(((tsp_device *)a)->device, ((tsp_device *)b)->device);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t device_hash(PyObject *self)
{
    tsr_device d = ((tsp_device *)self)->device;
    return (Py_hash_t)d.type * 1000 + d.index + 2;
}

static PyObject *device_type_name(PyObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(tsr_device_type_name(((tsp_device *)self)->device.type));
}

static PyObject *device_index(PyObject *self, void *closure)
{
    (void)closure;
    int32_t index = ((tsp_device *)self)->device.index;
    if (index < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(index);
}

/* `with tessera.device(d):` makes d the thread's default device for
 * factories until the block ends (tsr_default_device_push / pop). */
static PyObject *device_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_status st = tsr_default_device_push(((tsp_device *)self)->device);
    return st == TSR_OK ? Py_NewRef(self) : tsp_raise(st);
}

static PyObject *device_exit(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    tsr_status st = tsr_default_device_pop();
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_FALSE;
}

static PyMethodDef device_methods[] = {
    {"__enter__", device_enter, METH_NOARGS, NULL},
    {"__exit__", device_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[] = {
    {"type", device_type_name, NULL, NULL, NULL},
    {"index", device_index, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject tsp_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessera.device",
    .tp_basicsize = sizeof(tsp_device),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A device, as torch.device: tessera.device('opencl:0').",
    .tp_new = device_new,
    .tp_repr = device_repr,
    .tp_str = device_str,
    .tp_richcompare = device_richcompare,
    .tp_hash = device_hash,
    .tp_getset = device_getset,
    .tp_methods = device_methods,
};

/* ---- The session ---------------------------------------------------- */

/* Opened once, at first need, and kept for the process's life: tensors
 * hold their own reference to the session anyway. */
static tsr_client *client;

/* A child of a fork opens a session of its own at its first need: the
 * parent's socket and ring are the parent's (libtessera refuses them in
 * the child). The parent's client stays, for the tensors that hold it. */
static void forget_client(void)
{
    client = NULL;
    /* Held by the thread that forked (hold_storage), which in the child
     * has another tid: made anew rather than unlocked. */
    pthread_rwlock_init(&tsp_storage_lock, NULL);
}

/* No copy runs without the GIL across a fork: the child would find the
 * storage lock held by a thread it does not have. */
static void hold_storage(void)
{
    pthread_rwlock_wrlock(&tsp_storage_lock);
}

static void release_storage(void)
{
    pthread_rwlock_unlock(&tsp_storage_lock);
}

tsr_client *tsp_client(void)
{
    if (client == NULL) {
        tsr_status st = tsr_client_open(NULL, &client);
        if (st != TSR_OK)
            return (tsr_client *)tsp_raise(st);
    }
    return client;
}

tsr_client *tsp_client_if_open(void)
{
    return client;
}

/* ---- Promotion ------------------------------------------------------ */

static PyObject *promote_types(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *a, *b;
    tsr_dtype da, db, out;
    if (!PyArg_ParseTuple(args, "OO:promote_types", &a, &b) || dtype_arg(a, &da) ||
        dtype_arg(b, &db))
        return NULL;
    tsr_status st = tsr_promote_types(da, db, &out);
    return st == TSR_OK ? tsp_dtype_object(out) : tsp_raise(st);
}

static PyObject *can_cast(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *a, *b;
    tsr_dtype from, to;
    if (!PyArg_ParseTuple(args, "OO:can_cast", &a, &b) || dtype_arg(a, &from) || dtype_arg(b, &to))
        return NULL;
    return PyBool_FromLong(tsr_can_cast(from, to));
}

/* A result_type operand: a Tensor (by its dimensions) or a Python number. */
static int operand_arg(PyObject *obj, tsr_operand *out)
{
    if (PyObject_TypeCheck(obj, &tsp_tensor_type)) {
        const tsr_tensor *t = ((tsp_tensor *)obj)->tensor;
        out->kind = tsr_tensor_ndim(t) ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM;
        out->dtype = tsr_tensor_dtype(t);
        return 0;
    }
    tsr_scalar s;
    int is = tsp_scalar_arg(obj, &s);
    if (is < 0)
        return -1;
    if (is == 0) {
        PyErr_Format(PyExc_TypeError, "result_type() expects Tensors or Python numbers, got %s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    out->kind = TSR_OPERAND_SCALAR;
    out->dtype = s.kind;
    return 0;
}

static PyObject *result_type(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *a, *b;
    tsr_operand ops[2];
    tsr_dtype out;
    if (!PyArg_ParseTuple(args, "OO:result_type", &a, &b) || operand_arg(a, &ops[0]) ||
        operand_arg(b, &ops[1]))
        return NULL;
    tsr_status st = tsr_result_type(ops, 2, &out);
    return st == TSR_OK ? tsp_dtype_object(out) : tsp_raise(st);
}

static PyObject *get_default_dtype(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return tsp_dtype_object(tsr_get_default_dtype());
}

static PyObject *set_default_dtype(PyObject *module, PyObject *arg)
{
    (void)module;
    tsr_dtype d;
    if (dtype_arg(arg, &d))
        return NULL;
    tsr_status st = tsr_set_default_dtype(d);
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_NONE;
}

static PyMethodDef module_functions[] = {
    {"promote_types", promote_types, METH_VARARGS, "torch.promote_types(type1, type2)"},
    {"result_type", result_type, METH_VARARGS, "torch.result_type(tensor, other)"},
    {"can_cast", can_cast, METH_VARARGS, "torch.can_cast(from_, to)"},
    {"get_default_dtype", get_default_dtype, METH_NOARGS, "torch.get_default_dtype()"},
    {"set_default_dtype", set_default_dtype, METH_O, "torch.set_default_dtype(d)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, .m_name = "tessera._C",
                                        .m_doc = "libtessera's tensors with PyTorch's semantics.",
                                        .m_size = -1, .m_methods = module_functions};

/* One singleton per dtype, under its name and its alias. */
static int add_dtypes(PyObject *m)
{
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        tsp_dtype *obj = PyObject_New(tsp_dtype, &tsp_dtype_type);
        if (obj == NULL)
            return -1;
        obj->dtype = (tsr_dtype)d;
        dtype_objects[d] = (PyObject *)obj;
        const char *alias = tsr_dtype_alias((tsr_dtype)d);
        if (PyModule_AddObjectRef(m, tsr_dtype_name((tsr_dtype)d), (PyObject *)obj) ||
            (alias && PyModule_AddObjectRef(m, alias, (PyObject *)obj)))
            return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__C(void)
{
    if (PyType_Ready(&tsp_dtype_type) || PyType_Ready(&tsp_device_type) ||
        PyType_Ready(&tsp_tensor_type))
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    pthread_atfork(hold_storage, release_storage, forget_client);
    if (add_dtypes(m) || PyModule_AddFunctions(m, tsp_tensor_functions) ||
        PyModule_AddFunctions(m, tsp_ops_functions) ||
        PyModule_AddFunctions(m, tsp_share_functions) ||
        PyModule_AddObjectRef(m, "dtype", (PyObject *)&tsp_dtype_type) ||
        PyModule_AddObjectRef(m, "device", (PyObject *)&tsp_device_type) ||
        PyModule_AddObjectRef(m, "_TensorBase", (PyObject *)&tsp_tensor_type) ||
        PyModule_AddStringConstant(m, "__version__", tsr_version_string())) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
