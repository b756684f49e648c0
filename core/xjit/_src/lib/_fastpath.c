/* The per-leaf loops of jit's dispatch fast path, in C.

A jitted training step takes and returns tens of arrays. In Python, reading
each argument's abstract value and buffer, and wrapping each output buffer in
an ``ArrayImpl``, costs about 0.1 us per array: with 20 arrays in and 21 out,
more than JAX's whole C++ dispatch spends. These two functions do the same
work at C speed; everything else (caching, signatures, execution) stays in
``xjit._src.pjit``.

``ArrayImpl`` is a Python class with ``__slots__``: its slots are read and
written here at the offsets its member descriptors give, which is what the
descriptors themselves do.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyTypeObject *array_type = NULL;   /* xjit._src.array.ArrayImpl */
static Py_ssize_t off_buf, off_aval, off_npy;
static PyObject *str_sharding = NULL;     /* "_sharding" */

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static int slot_offset(PyObject *cls, const char *name, Py_ssize_t *off) {
    PyObject *d = PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, name);
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_TypeError, "ArrayImpl has no slot %s", name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "ArrayImpl.%s is not an object slot", name);
        return -1;
    }
    *off = m->offset;
    return 0;
}

PyDoc_STRVAR(init_doc, "init(ArrayImpl): the class whose slots the helpers read and write.");

static PyObject *fp_init(PyObject *self, PyObject *cls) {
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "init() takes a class");
        return NULL;
    }
    Py_ssize_t b, a, n;
    if (slot_offset(cls, "_buf", &b) < 0 || slot_offset(cls, "aval", &a) < 0
        || slot_offset(cls, "_npy", &n) < 0)
        return NULL;
    Py_INCREF(cls);
    Py_XSETREF(array_type, (PyTypeObject *)cls);
    off_buf = b;
    off_aval = a;
    off_npy = n;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(scan_doc,
"scan(leaves, here) -> (avals, buffers, placed) or None\n\n"
"For a sequence whose items are all exactly ArrayImpl: their avals, their\n"
"buffers, and whether any buffer's sharding is not ``here`` (the default\n"
"device's). None when an item is anything else.");

static PyObject *fp_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "scan() takes 2 arguments");
        return NULL;
    }
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.init() was not called");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "scan() takes a sequence");
    if (seq == NULL)
        return NULL;
    PyObject *here = args[1];
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(items[i]) != array_type) {
            Py_DECREF(seq);
            Py_RETURN_NONE;
        }
    }
    PyObject *avals = PyList_New(n), *bufs = PyList_New(n), *result = NULL;
    int placed = 0;
    if (avals == NULL || bufs == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = items[i];
        PyObject *aval = SLOT(x, off_aval), *buf = SLOT(x, off_buf);
        if (aval == NULL || buf == NULL) {  /* a half-made array: the slow path says why */
            Py_INCREF(Py_None);
            result = Py_None;
            goto done;
        }
        Py_INCREF(aval);
        PyList_SET_ITEM(avals, i, aval);
        Py_INCREF(buf);
        PyList_SET_ITEM(bufs, i, buf);
        if (!placed) {
            PyObject *sharding = PyObject_GetAttr(buf, str_sharding);
            if (sharding == NULL)
                goto done;
            placed = sharding != here;
            Py_DECREF(sharding);
        }
    }
    result = PyTuple_Pack(3, avals, bufs, placed ? Py_True : Py_False);
done:
    Py_DECREF(seq);
    Py_XDECREF(avals);
    Py_XDECREF(bufs);
    return result;
}

PyDoc_STRVAR(wrap_doc,
"wrap(cls, buffers, avals) -> list\n\n"
"``cls(buffer, aval)`` for each pair, without running ``__init__``: ``cls`` is\n"
"ArrayImpl or a subclass adding no slots (ShardedArrayImpl).");

static PyObject *fp_wrap(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "wrap() takes 3 arguments");
        return NULL;
    }
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.init() was not called");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    if (!PyType_Check(args[0]) || !PyType_IsSubtype(cls, array_type)
        || cls->tp_basicsize != array_type->tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "wrap(): ArrayImpl or a subclass without new slots");
        return NULL;
    }
    PyObject *bseq = PySequence_Fast(args[1], "wrap() takes sequences");
    if (bseq == NULL)
        return NULL;
    PyObject *aseq = PySequence_Fast(args[2], "wrap() takes sequences");
    if (aseq == NULL) {
        Py_DECREF(bseq);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(bseq);
    PyObject *out = NULL;
    if (PySequence_Fast_GET_SIZE(aseq) != n) {
        PyErr_SetString(PyExc_ValueError, "wrap(): as many avals as buffers");
        goto done;
    }
    PyObject **b = PySequence_Fast_ITEMS(bseq), **a = PySequence_Fast_ITEMS(aseq);
    out = PyList_New(n);
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = cls->tp_alloc(cls, 0);
        if (x == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        Py_INCREF(b[i]);
        SLOT(x, off_buf) = b[i];
        Py_INCREF(a[i]);
        SLOT(x, off_aval) = a[i];
        Py_INCREF(Py_None);
        SLOT(x, off_npy) = Py_None;
        PyList_SET_ITEM(out, i, x);
    }
done:
    Py_DECREF(bseq);
    Py_DECREF(aseq);
    return out;
}

static PyMethodDef methods[] = {
    {"init", (PyCFunction)fp_init, METH_O, init_doc},
    {"scan", (PyCFunction)(void (*)(void))fp_scan, METH_FASTCALL, scan_doc},
    {"wrap", (PyCFunction)(void (*)(void))fp_wrap, METH_FASTCALL, wrap_doc},
    {NULL, NULL, 0, NULL},
};

static int fp_clear(PyObject *m) {
    Py_CLEAR(array_type);
    return 0;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastpath",
    "The per-array loops of jit's dispatch fast path (see _fastpath.c).",
    -1, methods, NULL, NULL, fp_clear, NULL,
};

PyMODINIT_FUNC PyInit__fastpath(void) {
    str_sharding = PyUnicode_InternFromString("_sharding");
    if (str_sharding == NULL)
        return NULL;
    return PyModule_Create(&module);
}
