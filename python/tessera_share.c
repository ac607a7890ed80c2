/* Sharing tensors between processes from Python (tessera/share.h):
 * Tensor.share_memory_(), Tensor.is_shared(), and the module functions
 * the package's tessera.export / import_tensor / revoke build on. Handles
 * cross into Python as their text form (tsr_export_handle_str), which the
 * package wraps in tessera.ExportHandle; every handle coming back is
 * parsed strictly here, so a malformed one raises the library's message.
 * Exports, imports and revocations go through the process's session
 * (tsp_client), as every accelerator tensor of the package does. */
#include "python/tessera_python.h"

#define TENSOR(obj) (((tsp_tensor *)(obj))->tensor)

/* Parses a handle's text form (a str) into *out: 0, or -1 with an
 * exception (TypeError for a non-str, ValueError with the library's
 * message for a malformed one). */
static int handle_arg(PyObject *text, tsr_export_handle *out)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected an export handle or its text form, not %s",
                     Py_TYPE(text)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(text);
    if (s == NULL)
        return -1;
    tsr_status st = tsr_export_handle_parse(s, out);
    if (st != TSR_OK) {
        tsp_raise(st);
        return -1;
    }
    return 0;
}

static PyObject *handle_text(const tsr_export_handle *h)
{
    char text[TSR_EXPORT_HANDLE_STR_MAX];
    tsr_export_handle_str(h, text, sizeof text);
    return PyUnicode_FromString(text);
}

/* Tensor.share_memory_(): moves a cpu tensor's storage to shared memory
 * (opening the session with tesserad, which hands the memory out);
 * nothing to do for accelerator tensors and tensors already shared.
 * Returns the tensor, as torch's does. */
PyObject *tsp_share_memory_(PyObject *self, PyObject *unused)
{
    (void)unused;
    tsr_tensor *t = TENSOR(self);
    if (!tsr_tensor_is_shared(t)) {
        tsr_client *c = tsp_client();
        if (c == NULL)
            return NULL;
        tsr_status st = tsr_tensor_share_memory_(c, t);
        if (st != TSR_OK)
            return tsp_raise(st);
    }
    return Py_NewRef(self);
}

PyObject *tsp_is_shared(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(tsr_tensor_is_shared(TENSOR(self)));
}

/* An id for allow_uid / allow_gid: None (not set) or 0 .. 2^32 - 2. */
static int id_arg(PyObject *obj, const char *name, uint64_t flag, uint64_t *flags, uint32_t *out)
{
    if (obj == Py_None)
        return 0;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "export(): %s must be an int or None, not %s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred() || v >= UINT32_MAX) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "export(): %s must be in [0, %u], got %S", name,
                     UINT32_MAX - 1, obj);
        return -1;
    }
    *out = (uint32_t)v;
    *flags |= flag;
    return 0;
}

/* _export(t, read_only, uid, gid): the text form of a new handle. */
static PyObject *py_export(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *t, *uid, *gid;
    int read_only;
    if (!PyArg_ParseTuple(args, "O!pOO:_export", &tsp_tensor_type, &t, &read_only, &uid, &gid))
        return NULL;
    tsr_export_options o = {.flags = read_only ? TSR_EXPORT_READ_ONLY : 0};
    if (id_arg(uid, "uid", TSR_EXPORT_ALLOW_UID, &o.flags, &o.allow_uid) ||
        id_arg(gid, "gid", TSR_EXPORT_ALLOW_GID, &o.flags, &o.allow_gid))
        return NULL;
    tsr_export_handle h;
    /* With the GIL, as every operation on the tensor: a small device
     * tensor's first export moves its storage. A copy to the host running
     * without the GIL (it holds tsp_storage_lock shared) is waited for;
     * it needs no GIL to finish. */
    pthread_rwlock_wrlock(&tsp_storage_lock);
    tsr_status st = tsr_tensor_export(TENSOR(t), &o, &h);
    pthread_rwlock_unlock(&tsp_storage_lock);
    if (st != TSR_OK)
        return tsp_raise(st);
    return handle_text(&h);
}

/* _import(text): a Tensor over the memory the handle names. */
static PyObject *py_import(PyObject *m, PyObject *text)
{
    (void)m;
    tsr_export_handle h;
    tsr_client *c;
    if (handle_arg(text, &h) || (c = tsp_client()) == NULL)
        return NULL;
    tsr_tensor *t = NULL;
    tsr_status st = tsr_tensor_import(c, &h, &t);
    return st == TSR_OK ? tsp_tensor_wrap(t) : tsp_raise(st);
}

static PyObject *py_revoke(PyObject *m, PyObject *text)
{
    (void)m;
    tsr_export_handle h;
    tsr_client *c;
    if (handle_arg(text, &h) || (c = tsp_client()) == NULL)
        return NULL;
    tsr_status st = tsr_export_revoke(c, &h);
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_NONE;
}

/* _parse_handle(text): (the text, its id), or ValueError with the
 * library's message for a malformed one. */
static PyObject *py_parse_handle(PyObject *m, PyObject *text)
{
    (void)m;
    tsr_export_handle h;
    if (handle_arg(text, &h))
        return NULL;
    PyObject *canonical = handle_text(&h);
    return canonical ? Py_BuildValue("(NK)", canonical, (unsigned long long)h.id) : NULL;
}

/* _synchronize(device): waits for the kernels this process queued on the
 * device (torch.cuda.synchronize), without the GIL, as PyTorch's does. */
static PyObject *py_synchronize(PyObject *m, PyObject *arg)
{
    (void)m;
    tsr_device d;
    tsr_client *c;
    if (tsp_device_arg(arg, &d))
        return NULL;
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META)
        Py_RETURN_NONE; /* computed when called */
    if ((c = tsp_client()) == NULL)
        return NULL;
    PyThreadState *ts = PyEval_SaveThread(); /* others run while this one waits */
    tsr_status st = tsr_synchronize(c, d);
    PyEval_RestoreThread(ts);
    if (st != TSR_OK)
        return tsp_raise(st);
    Py_RETURN_NONE;
}

PyMethodDef tsp_share_functions[] = {
    {"_export", py_export, METH_VARARGS, "_export(t, read_only, uid, gid): a handle's text"},
    {"_import", py_import, METH_O, "_import(text): the tensor a handle names"},
    {"_revoke", py_revoke, METH_O, "_revoke(text): refuses later imports of the export"},
    {"_parse_handle", py_parse_handle, METH_O, "_parse_handle(text): (text, id), strictly"},
    {"_synchronize", py_synchronize, METH_O, "_synchronize(device): torch.cuda.synchronize()"},
    {NULL, NULL, 0, NULL},
};
