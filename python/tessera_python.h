/* Internal: what the two halves of the tessera extension share.
 *
 * tessera_module.c owns the module, its errors, the dtype and device
 * objects and the promotion functions; tessera_tensor.c owns the Tensor
 * base type, its factories, views and the DLPack exchange; tessera_ops.c
 * the operations by name and the device functions; tessera_share.c the
 * sharing of tensors between processes. All speak libtessera's public API
 * only. */
#ifndef TESSERA_PYTHON_TESSERA_PYTHON_H
#define TESSERA_PYTHON_TESSERA_PYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>

#include "tessera/tessera.h"

typedef struct {
    PyObject_HEAD tsr_dtype dtype;
} tsp_dtype;

typedef struct {
    PyObject_HEAD tsr_device device;
} tsp_device;

typedef struct {
    PyObject_HEAD tsr_tensor *tensor; /* one reference */
} tsp_tensor;

extern PyTypeObject tsp_dtype_type, tsp_device_type, tsp_tensor_type;

/* Raises the exception PyTorch raises for a failing call: TypeError,
 * ValueError, IndexError or RuntimeError, with tsr_last_error()'s text.
 * Returns NULL. */
PyObject *tsp_raise(tsr_status st);

/* The dtype object of d (a new reference). */
PyObject *tsp_dtype_object(tsr_dtype d);
/* A device object for d (a new reference), or NULL with an exception. */
PyObject *tsp_device_object(tsr_device d);
/* Reads a device argument: a tessera.device, a string or an index.
 * Returns 0, or -1 with an exception set. */
int tsp_device_arg(PyObject *arg, tsr_device *out);
/* The process's session with tesserad, opened at first need (accelerator
 * tensors); NULL with an exception set when it cannot be opened. */
tsr_client *tsp_client(void);
/* The session if one is open, else NULL (no exception). */
tsr_client *tsp_client_if_open(void);
/* Shared by copies to the host while they run without the GIL, taken
 * exclusively (with the GIL) by export(): a small device tensor's first
 * export moves its storage (libtessera's tsr_tensor_export). */
extern pthread_rwlock_t tsp_storage_lock;

/* A Python bool, int, float or complex as a tsr_scalar: 1 when `obj` is
 * one, 0 when it is not (no exception), -1 on error (an int out of
 * int64's range: RuntimeError "Overflow when unpacking long", as
 * PyTorch). */
int tsp_scalar_arg(PyObject *obj, tsr_scalar *out);

/* The Tensor type's module-level functions, added by the module. */
extern PyMethodDef tsp_tensor_functions[];
/* The operations by name and the device functions (tessera_ops.c). */
extern PyMethodDef tsp_ops_functions[];
/* Sharing between processes and synchronize (tessera_share.c). */
extern PyMethodDef tsp_share_functions[];
/* Tensor.share_memory_() and Tensor.is_shared(), METH_NOARGS. */
PyObject *tsp_share_memory_(PyObject *self, PyObject *unused);
PyObject *tsp_is_shared(PyObject *self, PyObject *unused);
/* Wraps t (taking over its reference) in a Tensor object. */
PyObject *tsp_tensor_wrap(tsr_tensor *t);

#endif /* TESSERA_PYTHON_TESSERA_PYTHON_H */
