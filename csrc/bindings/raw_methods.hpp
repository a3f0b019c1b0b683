// Methods of a pybind11 class written against the CPython API, for the few calls that a Python
// loop makes once per action (PlayState.apply, legal_actions, is_over, ...). pybind11's
// dispatcher (argument loaders, overload resolution, the result cast) costs 100-200 ns a call,
// more than the work itself; a method descriptor of a plain C function costs a few ns.
#pragma once
#include "common.hpp"

/// The C++ value of a pybind11 instance of T (a class bound with the default holder and no
/// base classes), or nullptr with a TypeError set when its __init__ has not run.
template <class T>
T* raw_value(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  void* p = inst->simple_layout ? inst->simple_value_holder[0] : inst->get_value_and_holder().value_ptr();
  if (!p) PyErr_SetString(PyExc_TypeError, "the object is not initialised (its __init__ was not called)");
  return static_cast<T*>(p);
}

/// Runs a raw method's body: a C++ exception becomes the Python exception the module's
/// translators give it (the engine's errors keep their classes and .code), returning nullptr.
template <class F>
PyObject* raw_call(F&& body) noexcept {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

/// Installs `def` (static storage: the descriptor keeps a pointer to it) as a method of `cls`,
/// replacing any pybind11 definition of the same name.
inline void add_raw_method(py::handle cls, PyMethodDef* def) {
  PyObject* d = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (!d) throw py::error_already_set();
  int rc = PyObject_SetAttrString(cls.ptr(), def->ml_name, d);
  Py_DECREF(d);
  if (rc < 0) throw py::error_already_set();
}

/// Installs `def` (static storage) as a read-only attribute of `cls`.
inline void add_raw_getter(py::handle cls, PyGetSetDef* def) {
  PyObject* d = PyDescr_NewGetSet(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (!d) throw py::error_already_set();
  int rc = PyObject_SetAttrString(cls.ptr(), def->name, d);
  Py_DECREF(d);
  if (rc < 0) throw py::error_already_set();
}
