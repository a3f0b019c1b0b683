// numpy argument checks shared by the encoder and vector-environment bindings: integer input
// arrays of a given shape, and caller-owned output arrays of an exact dtype and shape.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "common.hpp"

template <class T>
using CArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

inline std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

inline std::string shape_str(std::initializer_list<py::ssize_t> shape) {
  std::string s = "(";
  size_t i = 0;
  for (py::ssize_t d : shape) s += (i++ ? ", " : "") + (d < 0 ? std::string("any") : std::to_string(d));
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// An integer numpy array (any integer dtype and layout; bool, float and object arrays are type
/// errors) of the given shape (-1 = any length), converted to a C-contiguous array of T.
template <class T>
CArray<T> int_array(py::handle h, const char* what, std::initializer_list<py::ssize_t> shape) {
  if (!py::isinstance<py::array>(h))
    throw ArgumentTypeError(std::string(what) + " must be a numpy integer array, not " + type_name(h));
  py::array a = py::reinterpret_borrow<py::array>(h);
  const char k = a.dtype().kind();
  if (k != 'u' && k != 'i')
    throw ArgumentTypeError(std::string(what) + " must be an integer array, not dtype " + std::string(py::str(a.dtype())));
  bool ok = a.ndim() == py::ssize_t(shape.size());
  size_t i = 0;
  for (py::ssize_t d : shape) ok = ok && (d < 0 || a.shape(py::ssize_t(i)) == d), ++i;
  if (!ok) throw ArgumentError(std::string(what) + " must have shape " + shape_str(shape) + ", not " + shape_str(a));
  auto c = CArray<T>::ensure(h);
  if (!c) throw py::error_already_set();
  return c;
}

/// A caller-owned output array: exactly dtype T, C-contiguous, writeable, of the given shape.
template <class T>
py::array_t<T> out_array(py::handle h, const char* what, std::initializer_list<py::ssize_t> shape) {
  const std::string want = std::string(py::str(py::dtype::of<T>()));
  if (!py::isinstance<py::array>(h))
    throw ArgumentTypeError(std::string(what) + " must be a numpy " + want + " array, not " + type_name(h));
  py::array a = py::reinterpret_borrow<py::array>(h);
  if (!a.dtype().is(py::dtype::of<T>()))
    throw ArgumentTypeError(std::string(what) + " must have dtype " + want + ", not " + std::string(py::str(a.dtype())));
  bool ok = a.ndim() == py::ssize_t(shape.size());
  size_t i = 0;
  for (py::ssize_t d : shape) ok = ok && (d < 0 || a.shape(py::ssize_t(i)) == d), ++i;
  if (!ok) throw ArgumentError(std::string(what) + " must have shape " + shape_str(shape) + ", not " + shape_str(a));
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw ArgumentError(std::string(what) + " must be C-contiguous and writeable");
  return py::reinterpret_borrow<py::array_t<T>>(h);
}

/// The name of an IllegalCode (for messages), e.g. NOT_HELD.
inline std::string illegal_name(Illegal why) { return std::string(py::str(py::cast(why).attr("name"))); }
