// gpulab._ops — gpulab's functions as PyTorch operators (namespace gpulab), and the direct path that
// gpulab.<function>(tensor) takes in eager mode.
//
// Built only where the interpreter that builds gpulab can import torch (python/CMakeLists.txt): a
// C++ extension of PyTorch must be built against the torch it runs with. One implementation, two
// ways in:
// - torch.ops.gpulab.<name>: through the dispatcher, so the functions live inside torch.compile'd
//   and exported programs and CUDA graphs, with a gradient where one is defined (below).
//   gpulab/_torch.py gives each operator its fake implementation (shapes and dtypes without
//   running).
// - gpulab._ops.<name>(...): the same function called straight from Python (nanobind), without
//   the dispatcher's cost, for eager calls on plain PyTorch tensors. It takes only what it can run
//   as is (a torch.Tensor on a CUDA device that needs no gradient, right dtypes and layouts) and
//   answers None for anything else: the general path (gpulab/__init__.py) then runs it or says
//   what is wrong, with the same messages as for CuPy or JAX arrays.
// Each operator's checks are written once (a `problem` function: the first thing wrong, in words,
// or nothing): the operator raises them as errors, the direct path declines.
#include <gpulab/conv.hpp>
#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/matrix.hpp>
#include <gpulab/sgemm.hpp>

#include "call_support.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

using gpulab_python::DeviceScope;

/// The first thing wrong with a call's arguments: the Python exception it raises (TypeError for
/// what is not a CUDA array of a supported dtype, ValueError for shapes, strides and values) and its
/// message. Each message is, word for word, the one gpulab/__init__.py's general path raises for
/// the same argument (gpulab/_arrays.py), in the same order of checks, so that a bad call raises
/// the same exception on every route: the direct path, the operator under autograd, torch.compile.
struct Problem {
  bool type_error = false;
  std::string message;
};
using MaybeProblem = std::optional<Problem>;
Problem type_problem(std::string message) { return {true, std::move(message)}; }
Problem value_problem(std::string message) { return {false, std::move(message)}; }

/// As c10::TypeError / c10::ValueError, which PyTorch raises in Python as TypeError / ValueError.
void raise_if(const MaybeProblem& problem) {
  if (!problem) return;
  if (problem->type_error) TORCH_CHECK_TYPE(false, problem->message);
  TORCH_CHECK_VALUE(false, problem->message);
}

at::Tensor new_result(at::IntArrayRef shape, at::ScalarType dtype, const at::Tensor& like) {
  // Straight from the CUDA backend's own factory rather than through the dispatcher (at::empty),
  // which took 0.3–0.5 µs more a call on the H100's host (python_call_cost.py).
  return at::Tensor(at::detail::empty_cuda(shape, dtype, like.device(), std::nullopt));
}

cudaStream_t current_stream(const at::Tensor& t) { return c10::cuda::getCurrentCUDAStream(t.device().index()).stream(); }

/// "(2, 3)", "(5,)", "()": a shape or strides as Python prints a tuple. Written out by hand rather
/// than with c10::str (an iostream in this module once crashed; see python/CMakeLists.txt).
std::string tuple_text(at::IntArrayRef values) {
  std::string text = "(";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

/// The dtype's name as gpulab/_arrays.py's Torch.names gives it ("float32"), else as Python prints
/// it ("torch.complex64").
std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kChar: return "int8";
    case at::kShort: return "int16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kByte: return "uint8";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kBool: return "bool";
    case at::kUInt16: return "uint16";
    case at::kUInt32: return "uint32";
    case at::kUInt64: return "uint64";
    case at::kComplexHalf: return "torch.complex32";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    default: return std::string("torch.") + c10::toString(dtype);
  }
}

/// _arrays.view: a CUDA tensor (Torch.describe) of one of `dtypes` (names in the general path's
/// order).
MaybeProblem view_problem(const char* what, const at::Tensor& t, std::initializer_list<at::ScalarType> dtypes) {
  if (!t.is_cuda())
    return type_problem(std::string(what) + " takes CUDA arrays; got a torch.Tensor on " + t.device().str() + ": move it with x.cuda()");
  std::string names;
  for (at::ScalarType d : dtypes) {
    if (t.scalar_type() == d) return std::nullopt;
    names += (names.empty() ? "" : ", ") + dtype_name(d);
  }
  return type_problem(std::string(what) + ": dtype " + dtype_name(t.scalar_type()) + " is not supported; use " + names);
}

/// _arrays.contiguous (an empty tensor is contiguous, as in PyTorch).
MaybeProblem contiguous_problem(const char* what, const char* name, const at::Tensor& t) {
  if (t.is_contiguous()) return std::nullopt;
  return value_problem(std::string(what) + " needs " + name + " contiguous; got shape " + tuple_text(t.sizes()) + " with strides " +
                       tuple_text(t.strides()) + " (elements): call .contiguous() (PyTorch) or cupy.ascontiguousarray()");
}

/// _arrays.same_device.
MaybeProblem same_device_problem(const char* what, const at::Tensor& first, const at::Tensor& other) {
  if (other.device() == first.device()) return std::nullopt;
  return value_problem(std::string(what) + ": arrays on devices " + std::to_string(first.get_device()) + " and " +
                       std::to_string(other.get_device()) + "; put them on one GPU");
}

/// _arrays.Call.output on a caller's out=: a CUDA tensor of `dtype`, contiguous unless
/// `strided_rows`, of `shape` (a 0-d result may go into any one-element tensor), on the input's
/// device.
MaybeProblem out_problem(const char* what, const at::Tensor& out, const at::Tensor& input, at::ScalarType dtype, at::IntArrayRef shape,
                         bool strided_rows = false) {
  if (auto p = view_problem(what, out, {dtype})) return p;
  if (!strided_rows)
    if (auto p = contiguous_problem(what, "out", out)) return p;
  if (out.sizes() != shape && !(shape.empty() && out.numel() == 1))
    return value_problem(std::string(what) + ": out must have shape " + tuple_text(shape) + ", got " + tuple_text(out.sizes()));
  if (out.device() != input.device())
    return value_problem(std::string(what) + ": out is on device " + std::to_string(out.get_device()) + ", the input on " +
                         std::to_string(input.get_device()));
  return std::nullopt;
}

/// _arrays.rows_pitch: a 2-D matrix whose rows are each contiguous (a slice of a wider one is fine).
MaybeProblem rows_problem(const char* what, const char* name, const at::Tensor& t) {
  if (t.dim() != 2) return value_problem(std::string(what) + ": " + name + " must be 2-D, got shape " + tuple_text(t.sizes()));
  if (t.numel() == 0) return std::nullopt;  // nothing is read or written: any strides will do
  if ((t.size(1) > 1 && t.stride(1) != 1) || (t.size(0) > 1 && t.stride(0) < t.size(1)))
    return value_problem(std::string(what) + ": " + name + " must have contiguous rows (strides (pitch, 1) with pitch >= columns); got strides " +
                         tuple_text(t.strides()) + ": call .contiguous() first");
  return std::nullopt;
}

/// gpulab/__init__.py's _matrix: a float32 CUDA tensor with contiguous rows.
MaybeProblem matrix_problem(const char* what, const char* name, const at::Tensor& t) {
  if (auto p = view_problem(what, t, {at::kFloat})) return p;
  return rows_problem(what, name, t);
}

/// gpulab/_arrays.py's operand_layout: a matrix read in place with contiguous rows (as it is) or
/// contiguous columns (a transposed view, stored transposed), and its leading dimension.
struct Operand {
  const float* data;
  bool transposed;
  std::size_t ld;  // elements
};
std::optional<Operand> operand(const at::Tensor& t) {
  const std::int64_t rows = t.size(0), cols = t.size(1), row_stride = t.stride(0), col_stride = t.stride(1);
  const auto* data = static_cast<const float*>(t.data_ptr());
  if (rows == 0 || cols == 0) return Operand{data, false, static_cast<std::size_t>(std::max<std::int64_t>(cols, 1))};
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols))
    return Operand{data, false, static_cast<std::size_t>(rows > 1 ? std::max(row_stride, cols) : cols)};
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= rows))
    return Operand{data, true, static_cast<std::size_t>(cols > 1 ? std::max(col_stride, rows) : rows)};
  return std::nullopt;
}
MaybeProblem operand_problem(const char* what, const char* name, const at::Tensor& t) {
  if (auto p = view_problem(what, t, {at::kFloat})) return p;
  if (t.dim() != 2) return value_problem(std::string(what) + ": " + name + " must be 2-D, got shape " + tuple_text(t.sizes()));
  if (!operand(t))
    return value_problem(std::string(what) + ": " + name +
                         " must have contiguous rows (strides (pitch, 1)) or contiguous columns (strides (1, pitch), a transposed view); got "
                         "strides " + tuple_text(t.strides()) + ": call .contiguous() first");
  return std::nullopt;
}

template <class T>
gpulab::MatrixView<T> matrix(const at::Tensor& t) {
  const auto rows = static_cast<std::size_t>(t.size(0)), cols = static_cast<std::size_t>(t.size(1));
  const std::size_t pitch = rows > 1 ? std::max<std::size_t>(static_cast<std::size_t>(t.stride(0)), cols) : cols;
  return {static_cast<T*>(t.data_ptr()), rows, cols, std::max<std::size_t>(pitch, 1) * sizeof(float)};
}

/// gpulab/__init__.py's _output: a float32 out= of rows × cols whose rows may be strided.
MaybeProblem matrix_out_problem(const char* what, const at::Tensor& out, const at::Tensor& input, std::int64_t rows, std::int64_t cols) {
  if (auto p = out_problem(what, out, input, at::kFloat, {rows, cols}, true)) return p;
  return rows_problem(what, "out", out);
}

// ---- each function: its checks, its call into the library, its result ---------------------------
// One struct per function, all alike, over the operator's arguments (Args, without out):
//   problem(args..., out or nullptr)  the first thing wrong with the arguments and the out tensor;
//   result(args...)                   a new tensor for the result;
//   into(args..., out)                runs, on checked arguments.
// The operators and the direct path below are written once over this shape.

struct Sum {
  static constexpr const char* kWhat = "gpulab.sum";
  static MaybeProblem problem(const at::Tensor& x, const at::Tensor* out) {
    if (auto p = view_problem(kWhat, x, {at::kInt, at::kFloat, at::kDouble})) return p;
    if (auto p = contiguous_problem(kWhat, "the input", x)) return p;
    return out != nullptr ? out_problem(kWhat, *out, x, x.scalar_type(), {}) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& x) { return new_result({}, x.scalar_type(), x); }
  static void into(const at::Tensor& x, const at::Tensor& out) {
    DeviceScope scope(x.device().index());
    const cudaStream_t s = current_stream(x);
    const auto n = static_cast<std::size_t>(x.numel());
    switch (x.scalar_type()) {
      case at::kInt: return gpulab_python::sum(x.const_data_ptr<std::int32_t>(), n, out.mutable_data_ptr<std::int32_t>(), s);
      case at::kFloat: return gpulab_python::sum(x.const_data_ptr<float>(), n, out.mutable_data_ptr<float>(), s);
      default: return gpulab_python::sum(x.const_data_ptr<double>(), n, out.mutable_data_ptr<double>(), s);
    }
  }
};

struct Histogram {
  static constexpr const char* kWhat = "gpulab.histogram";
  static MaybeProblem problem(const at::Tensor& values, std::int64_t bins, const at::Tensor* out) {
    if (bins < 1 || bins >= (std::int64_t{1} << 32))
      return value_problem(std::string(kWhat) + ": bins must be an integer from 1 to 2^32 - 1, got " + std::to_string(bins));
    if (auto p = view_problem(kWhat, values, {at::kInt})) return p;
    if (auto p = contiguous_problem(kWhat, "the input", values)) return p;
    if (values.numel() >= (std::int64_t{1} << 32))
      return value_problem(std::string(kWhat) + ": " + std::to_string(values.numel()) +
                           " values; at most 2^32 - 1 (a count could overflow uint32)");
    return out != nullptr ? out_problem(kWhat, *out, values, at::kUInt32, {bins}) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& values, std::int64_t bins) { return new_result({bins}, at::kUInt32, values); }
  static void into(const at::Tensor& values, std::int64_t bins, const at::Tensor& out) {
    DeviceScope scope(values.device().index());
    gpulab::histogram(values.const_data_ptr<std::int32_t>(), static_cast<std::size_t>(values.numel()), static_cast<std::uint32_t>(bins),
                      out.mutable_data_ptr<std::uint32_t>(), current_stream(values));
  }
};

struct Atax {
  static constexpr const char* kWhat = "gpulab.atax";
  static MaybeProblem problem(const at::Tensor& a, const at::Tensor& x, const at::Tensor* out) {
    if (auto p = view_problem(kWhat, a, {at::kFloat})) return p;
    if (auto p = contiguous_problem(kWhat, "A", a)) return p;
    if (auto p = view_problem(kWhat, x, {at::kFloat})) return p;
    if (auto p = contiguous_problem(kWhat, "x", x)) return p;
    if (auto p = same_device_problem(kWhat, a, x)) return p;
    if (a.dim() != 2 || a.size(0) < 1 || a.size(1) < 1 || a.size(0) >= (std::int64_t{1} << 31) || a.size(1) >= (std::int64_t{1} << 31))
      return value_problem(std::string(kWhat) + ": A must be a 2-D matrix with 1 to 2^31 - 1 rows and columns, got shape " +
                           tuple_text(a.sizes()));
    if (x.dim() != 1 || x.size(0) != a.size(1))
      return value_problem(std::string(kWhat) + ": x must have shape " + tuple_text({a.size(1)}) + " for A of shape " + tuple_text(a.sizes()) +
                           ", got " + tuple_text(x.sizes()));
    return out != nullptr ? out_problem(kWhat, *out, a, at::kFloat, {a.size(1)}) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& a, const at::Tensor&) { return new_result({a.size(1)}, at::kFloat, a); }
  static void into(const at::Tensor& a, const at::Tensor& x, const at::Tensor& out) {
    DeviceScope scope(a.device().index());
    gpulab_python::atax(a.const_data_ptr<float>(), x.const_data_ptr<float>(), static_cast<std::uint32_t>(a.size(0)),
                        static_cast<std::uint32_t>(a.size(1)), out.mutable_data_ptr<float>(), current_stream(a));
  }
};

template <bool kInclusive>
struct Scan {
  static constexpr const char* kWhat = kInclusive ? "gpulab.inclusive_scan" : "gpulab.exclusive_scan";
  static at::ScalarType result_type(at::ScalarType in) { return at::isFloatingType(in) ? in : at::kInt; }
  static MaybeProblem problem(const at::Tensor& x, const at::Tensor* out) {
    if (auto p = view_problem(kWhat, x, {at::kChar, at::kShort, at::kInt, at::kFloat, at::kDouble})) return p;
    if (auto p = contiguous_problem(kWhat, "the input", x)) return p;
    return out != nullptr ? out_problem(kWhat, *out, x, result_type(x.scalar_type()), x.sizes()) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& x) { return new_result(x.sizes(), result_type(x.scalar_type()), x); }
  template <class In>
  static void typed(const at::Tensor& x, const at::Tensor& out) {
    gpulab_python::scan(x.const_data_ptr<In>(), out.mutable_data_ptr<gpulab::scan_result_t<In>>(), static_cast<std::size_t>(x.numel()),
                        kInclusive, current_stream(x));
  }
  static void into(const at::Tensor& x, const at::Tensor& out) {
    DeviceScope scope(x.device().index());
    switch (x.scalar_type()) {
      case at::kChar: return typed<std::int8_t>(x, out);
      case at::kShort: return typed<std::int16_t>(x, out);
      case at::kInt: return typed<std::int32_t>(x, out);
      case at::kFloat: return typed<float>(x, out);
      default: return typed<double>(x, out);
    }
  }
};

/// gpulab.segmented_scan: the segments `by` heads (bool, uint8 or int8 flags of x's shape), keys
/// (int32 or int64 of x's shape) or offsets (int32 or int64, 1-D, any length).
struct SegmentedScan {
  static constexpr const char* kWhat = "gpulab.segmented_scan";
  static MaybeProblem problem(const at::Tensor& x, const at::Tensor& segments, c10::string_view by, bool, const at::Tensor* out) {
    if (by != "heads" && by != "keys" && by != "offsets")
      return value_problem(std::string(kWhat) + ": segments by 'heads', 'keys' or 'offsets', got '" + std::string(by) + "'");
    const std::string name(by);
    if (auto p = view_problem(kWhat, x, {at::kChar, at::kShort, at::kInt, at::kFloat, at::kDouble})) return p;
    if (auto p = contiguous_problem(kWhat, "x", x)) return p;
    if (auto p = by == "heads" ? view_problem(kWhat, segments, {at::kBool, at::kByte, at::kChar})
                               : view_problem(kWhat, segments, {at::kInt, at::kLong}))
      return p;
    if (auto p = contiguous_problem(kWhat, name.c_str(), segments)) return p;
    if (auto p = same_device_problem(kWhat, x, segments)) return p;
    if (by == "offsets" && segments.dim() != 1)
      return value_problem(std::string(kWhat) + ": offsets must be 1-D, got shape " + tuple_text(segments.sizes()));
    if (by != "offsets" && segments.sizes() != x.sizes())
      return value_problem(std::string(kWhat) + ": " + name + " must have x's shape " + tuple_text(x.sizes()) + ", got " +
                           tuple_text(segments.sizes()));
    return out != nullptr ? out_problem(kWhat, *out, x, Scan<true>::result_type(x.scalar_type()), x.sizes()) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& x, const at::Tensor&, c10::string_view, bool) {
    return new_result(x.sizes(), Scan<true>::result_type(x.scalar_type()), x);
  }
  template <class In>
  static void typed(const at::Tensor& x, gpulab_python::Segments segments, bool exclusive, const at::Tensor& out) {
    gpulab_python::scan(x.const_data_ptr<In>(), out.mutable_data_ptr<gpulab::scan_result_t<In>>(), static_cast<std::size_t>(x.numel()),
                        !exclusive, current_stream(x), segments);
  }
  static void into(const at::Tensor& x, const at::Tensor& segments, c10::string_view by, bool exclusive, const at::Tensor& out) {
    DeviceScope scope(x.device().index());
    using Form = gpulab_python::Segments::Form;
    const bool wide = segments.scalar_type() == at::kLong;
    gpulab_python::Segments s{Form::flags, segments.const_data_ptr(), 0};
    if (by == "keys") s.form = wide ? Form::keys64 : Form::keys32;
    if (by == "offsets") s = {wide ? Form::offsets64 : Form::offsets32, segments.const_data_ptr(), static_cast<std::size_t>(segments.numel())};
    switch (x.scalar_type()) {
      case at::kChar: return typed<std::int8_t>(x, s, exclusive, out);
      case at::kShort: return typed<std::int16_t>(x, s, exclusive, out);
      case at::kInt: return typed<std::int32_t>(x, s, exclusive, out);
      case at::kFloat: return typed<float>(x, s, exclusive, out);
      default: return typed<double>(x, s, exclusive, out);
    }
  }
};

/// gpulab.histogram with weights=: each bin's sum of its values' weights (float32 or float64).
struct HistogramWeighted {
  static constexpr const char* kWhat = "gpulab.histogram";
  static MaybeProblem problem(const at::Tensor& values, std::int64_t bins, const at::Tensor& weights, const at::Tensor* out) {
    if (bins < 1 || bins >= (std::int64_t{1} << 32))
      return value_problem(std::string(kWhat) + ": bins must be an integer from 1 to 2^32 - 1, got " + std::to_string(bins));
    if (auto p = view_problem(kWhat, values, {at::kInt})) return p;
    if (auto p = contiguous_problem(kWhat, "values", values)) return p;
    if (auto p = view_problem(kWhat, weights, {at::kFloat, at::kDouble})) return p;
    if (auto p = contiguous_problem(kWhat, "weights", weights)) return p;
    if (auto p = same_device_problem(kWhat, values, weights)) return p;
    if (weights.sizes() != values.sizes())
      return value_problem(std::string(kWhat) + ": weights must have the values' shape " + tuple_text(values.sizes()) + ", got " +
                           tuple_text(weights.sizes()));
    return out != nullptr ? out_problem(kWhat, *out, values, weights.scalar_type(), {bins}) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& values, std::int64_t bins, const at::Tensor& weights) {
    return new_result({bins}, weights.scalar_type(), values);
  }
  static void into(const at::Tensor& values, std::int64_t bins, const at::Tensor& weights, const at::Tensor& out) {
    DeviceScope scope(values.device().index());
    const auto n = static_cast<std::size_t>(values.numel());
    const auto m = static_cast<std::uint32_t>(bins);
    const auto* v = values.const_data_ptr<std::int32_t>();
    if (weights.scalar_type() == at::kFloat)
      gpulab_python::histogram_weighted(v, weights.const_data_ptr<float>(), n, m, out.mutable_data_ptr<float>(), current_stream(values));
    else
      gpulab_python::histogram_weighted(v, weights.const_data_ptr<double>(), n, m, out.mutable_data_ptr<double>(), current_stream(values));
  }
};

/// gpulab.histogram of float values with range= or edges=: the checks both forms share, in the
/// general path's order (the values, their count and the bins, the rows where `per_row`).
MaybeProblem float_values_problem(const char* what, const at::Tensor& values, std::int64_t bins, bool per_row) {
  if (bins < 1 || bins >= (std::int64_t{1} << 32))
    return value_problem(std::string(what) + ": bins must be an integer from 1 to 2^32 - 1, got " + std::to_string(bins));
  if (auto p = view_problem(what, values, {at::kFloat, at::kDouble})) return p;
  if (auto p = contiguous_problem(what, "values", values)) return p;
  if (values.numel() >= (std::int64_t{1} << 32) || bins >= (std::int64_t{1} << 32) - 1)
    return value_problem(std::string(what) + ": at most 2^32 - 1 values and 2^32 - 2 bins with range= or edges=");
  if (per_row && values.dim() != 2)
    return value_problem(std::string(what) + ": dim= takes a 2-D input (a histogram per row), got shape " + tuple_text(values.sizes()));
  const std::int64_t rows = per_row ? values.size(0) : 1;
  if (rows < 1 || rows * (bins + 1) >= (std::int64_t{1} << 32))
    return value_problem(std::string(what) + ": " + std::to_string(rows) + " rows of " + std::to_string(bins) +
                         " bins; at least one row, and rows * (bins + 1) below 2^32");
  return std::nullopt;
}

/// The counts' shape: (rows, bins) per row, else (bins,).
std::vector<std::int64_t> float_counts_shape(const at::Tensor& values, std::int64_t bins, bool per_row) {
  if (per_row) return {values.size(0), bins};
  return {bins};
}

/// A number as Python's format(x, "g") writes it (C's %g).
std::string g_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

/// gpulab.histogram(values, bins, range=(lo, hi)[, dim=-1]): torch.histc's bins, of the whole or per row.
struct HistogramRange {
  static constexpr const char* kWhat = "gpulab.histogram";
  static MaybeProblem problem(const at::Tensor& values, std::int64_t bins, double lo, double hi, bool per_row, const at::Tensor* out) {
    if (auto p = float_values_problem(kWhat, values, bins, per_row)) return p;
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi))
      return value_problem(std::string(kWhat) + ": range must be finite with lo < hi, got (" + g_text(lo) + ", " + g_text(hi) + ")");
    return out != nullptr ? out_problem(kWhat, *out, values, at::kUInt32, float_counts_shape(values, bins, per_row)) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& values, std::int64_t bins, double, double, bool per_row) {
    return new_result(float_counts_shape(values, bins, per_row), at::kUInt32, values);
  }
  static void into(const at::Tensor& values, std::int64_t bins, double lo, double hi, bool per_row, const at::Tensor& out) {
    DeviceScope scope(values.device().index());
    const auto rows = static_cast<std::size_t>(per_row ? values.size(0) : 1);
    const auto cols = static_cast<std::size_t>(values.numel()) / rows;
    const auto m = static_cast<std::uint32_t>(bins);
    if (values.scalar_type() == at::kFloat)
      gpulab::histogram_range_rows(values.const_data_ptr<float>(), rows, cols, m, static_cast<float>(lo), static_cast<float>(hi),
                                   out.mutable_data_ptr<std::uint32_t>(), current_stream(values));
    else
      gpulab::histogram_range_rows(values.const_data_ptr<double>(), rows, cols, m, lo, hi, out.mutable_data_ptr<std::uint32_t>(),
                                   current_stream(values));
  }
};

/// gpulab.histogram(values, bins, edges=e[, dim=-1]): torch.histogram's bins between bins + 1
/// sorted edges, of the whole or per row.
struct HistogramEdges {
  static constexpr const char* kWhat = "gpulab.histogram";
  static MaybeProblem problem(const at::Tensor& values, std::int64_t bins, const at::Tensor& edges, bool per_row, const at::Tensor* out) {
    if (auto p = float_values_problem(kWhat, values, bins, per_row)) return p;
    if (auto p = view_problem(kWhat, edges, {values.scalar_type()})) return p;
    if (auto p = contiguous_problem(kWhat, "edges", edges)) return p;
    if (auto p = same_device_problem(kWhat, values, edges)) return p;
    if (edges.dim() != 1 || edges.size(0) != bins + 1)
      return value_problem(std::string(kWhat) + ": edges must have bins + 1 = " + std::to_string(bins + 1) + " elements, got shape " +
                           tuple_text(edges.sizes()));
    return out != nullptr ? out_problem(kWhat, *out, values, at::kUInt32, float_counts_shape(values, bins, per_row)) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& values, std::int64_t bins, const at::Tensor&, bool per_row) {
    return new_result(float_counts_shape(values, bins, per_row), at::kUInt32, values);
  }
  static void into(const at::Tensor& values, std::int64_t bins, const at::Tensor& edges, bool per_row, const at::Tensor& out) {
    DeviceScope scope(values.device().index());
    const auto rows = static_cast<std::size_t>(per_row ? values.size(0) : 1);
    const auto cols = static_cast<std::size_t>(values.numel()) / rows;
    const auto m = static_cast<std::uint32_t>(bins);
    if (values.scalar_type() == at::kFloat)
      gpulab::histogram_edges_rows(values.const_data_ptr<float>(), rows, cols, edges.const_data_ptr<float>(), m,
                                   out.mutable_data_ptr<std::uint32_t>(), current_stream(values));
    else
      gpulab::histogram_edges_rows(values.const_data_ptr<double>(), rows, cols, edges.const_data_ptr<double>(), m,
                                   out.mutable_data_ptr<std::uint32_t>(), current_stream(values));
  }
};

struct Transpose {
  static constexpr const char* kWhat = "gpulab.transpose";
  static MaybeProblem problem(const at::Tensor& a, const at::Tensor* out) {
    if (auto p = matrix_problem(kWhat, "a", a)) return p;
    return out != nullptr ? matrix_out_problem(kWhat, *out, a, a.size(1), a.size(0)) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& a) { return new_result({a.size(1), a.size(0)}, at::kFloat, a); }
  static void into(const at::Tensor& a, const at::Tensor& out) {
    DeviceScope scope(a.device().index());
    gpulab::transpose(matrix<const float>(a), matrix<float>(out), current_stream(a));
  }
};

struct Add {
  static constexpr const char* kWhat = "gpulab.add";
  static MaybeProblem problem(const at::Tensor& a, const at::Tensor& b, double, double, const at::Tensor* out) {
    if (auto p = matrix_problem(kWhat, "a", a)) return p;
    if (auto p = matrix_problem(kWhat, "b", b)) return p;
    if (auto p = same_device_problem(kWhat, a, b)) return p;
    if (a.sizes() != b.sizes())
      return value_problem(std::string(kWhat) + ": a and b differ in shape: " + tuple_text(a.sizes()) + " and " + tuple_text(b.sizes()));
    return out != nullptr ? matrix_out_problem(kWhat, *out, a, a.size(0), a.size(1)) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& a, const at::Tensor&, double, double) { return new_result(a.sizes(), at::kFloat, a); }
  static void into(const at::Tensor& a, const at::Tensor& b, double alpha, double beta, const at::Tensor& out) {
    DeviceScope scope(a.device().index());
    gpulab::add(static_cast<float>(alpha), matrix<const float>(a), static_cast<float>(beta), matrix<const float>(b), matrix<float>(out),
                current_stream(a));
  }
};

/// c = alpha·a·b + beta·c, for the new result (beta = 0) and for sgemm_ (c in place), at a precision
/// named as gpulab.sgemm's precision=. a and b: matrices, or strided batches of them (3-D, the batch
/// first: torch.bmm's form), each matrix read in place with contiguous rows or columns.
struct Sgemm {
  static constexpr const char* kWhat = "gpulab.sgemm";
  static std::string_view name(c10::string_view precision) { return {precision.data(), precision.size()}; }
  /// A matrix, or the first of a batch's (its layout is every member's; the batch is not empty).
  static at::Tensor member(const at::Tensor& t) { return t.dim() == 3 ? t.select(0, 0) : t; }
  static std::vector<std::int64_t> shape(const at::Tensor& a, const at::Tensor& b) {
    if (a.dim() == 3) return {a.size(0), a.size(1), b.size(2)};
    return {a.size(0), b.size(1)};
  }
  static MaybeProblem problem(const at::Tensor& a, const at::Tensor& b, double, c10::string_view precision, const at::Tensor* c) {
    if (!gpulab_python::sgemm_precision(name(precision)))
      return value_problem(gpulab_python::unknown_sgemm_precision(kWhat, name(precision)));
    if (auto p = view_problem(kWhat, a, {at::kFloat})) return p;
    if (auto p = view_problem(kWhat, b, {at::kFloat})) return p;
    if (a.dim() != b.dim() || (a.dim() != 2 && a.dim() != 3))
      return value_problem(std::string(kWhat) + ": a and b must be matrices (2-D) or batches of them (3-D), got shapes " + tuple_text(a.sizes()) +
                           " and " + tuple_text(b.sizes()));
    if (a.dim() == 3 && a.size(0) != b.size(0))
      return value_problem(std::string(kWhat) + ": batches of " + std::to_string(a.size(0)) + " and " + std::to_string(b.size(0)) + " matrices");
    if (auto p = same_device_problem(kWhat, a, b)) return p;
    const std::int64_t k = a.size(-1);
    if (k != b.size(-2))
      return value_problem(std::string(kWhat) + ": a is " + std::to_string(a.size(-2)) + " x " + std::to_string(k) + " and b is " +
                           std::to_string(b.size(-2)) + " x " + std::to_string(b.size(-1)) + ": the inner sizes differ");
    if (c != nullptr)
      if (auto p = out_problem(kWhat, *c, a, at::kFloat, shape(a, b), true)) return p;
    if (a.dim() == 3 && a.size(0) == 0) return std::nullopt;  // an empty batch: nothing is read or written
    if (auto p = operand_problem(kWhat, "a", member(a))) return p;
    if (auto p = operand_problem(kWhat, "b", member(b))) return p;
    return c != nullptr ? rows_problem(kWhat, "out", member(*c)) : std::nullopt;
  }
  static at::Tensor result(const at::Tensor& a, const at::Tensor& b, double, c10::string_view) { return new_result(shape(a, b), at::kFloat, a); }
  static void run(const at::Tensor& a, const at::Tensor& b, double alpha, double beta, c10::string_view precision, const at::Tensor& c) {
    const gpulab::SgemmPrecision chosen = *gpulab_python::sgemm_precision(name(precision));  // problem() checked it
    if (a.dim() == 3 && a.size(0) == 0) return;
    DeviceScope scope(a.device().index());
    const Operand oa = *operand(member(a)), ob = *operand(member(b));  // problem() checked both
    const auto vc = matrix<float>(member(c));
    const auto m = static_cast<std::size_t>(a.size(-2)), n = static_cast<std::size_t>(b.size(-1)), k = static_cast<std::size_t>(a.size(-1));
    const auto op_a = gpulab::op_of(oa.transposed), op_b = gpulab::op_of(ob.transposed);
    // A matrix is a batch of one.
    const bool batched = a.dim() == 3;
    auto stride = [&](const at::Tensor& t) { return batched ? static_cast<std::size_t>(t.stride(0)) : std::size_t{0}; };
    gpulab::sgemm_strided_batched(op_a, op_b, m, n, k, static_cast<float>(alpha), oa.data, oa.ld, stride(a), ob.data, ob.ld, stride(b),
                                  static_cast<float>(beta), vc.data, vc.pitch_bytes / sizeof(float), stride(c),
                                  batched ? static_cast<std::size_t>(a.size(0)) : std::size_t{1}, current_stream(a), chosen);
  }
  static void into(const at::Tensor& a, const at::Tensor& b, double alpha, c10::string_view precision, const at::Tensor& c) {
    run(a, b, alpha, 0.0, precision, c);
  }
};

struct Conv3x3 {
  static constexpr const char* kWhat = "gpulab.conv3x3";
  /// gpulab/__init__.py's _image.
  static MaybeProblem image_problem(const char* name, const at::Tensor& t) {
    if (t.dim() != 3 || t.size(2) != 3 || t.size(0) < 1 || t.size(1) < 1)
      return value_problem(std::string(kWhat) + ": " + name + " must have shape (height, width, 3) of 8-bit RGB, got " + tuple_text(t.sizes()));
    if (t.stride(2) != 1 || t.stride(1) != 3 || (t.size(0) > 1 && t.stride(0) < 3 * t.size(1)))
      return value_problem(std::string(kWhat) + ": " + name + " must store each row's pixels contiguously (strides (pitch, 3, 1)); got " +
                           tuple_text(t.strides()) + ": call .contiguous() first");
    return std::nullopt;
  }
  static std::size_t pitch(const at::Tensor& t) { return static_cast<std::size_t>(t.size(0) > 1 ? t.stride(0) : 3 * t.size(1)); }
  static MaybeProblem problem(const at::Tensor& image, at::IntArrayRef weights, std::int64_t divisor, c10::string_view border,
                              const at::Tensor* out) {
    // The filter's, the divisor's and the border's checks come first, as in gpulab.conv3x3 (which
    // makes them before any route); an operator called directly may still get weights that do not
    // fit the library's int.
    if (weights.size() != 9) return value_problem(std::string(kWhat) + ": a 3x3 filter has 9 weights, got " + std::to_string(weights.size()));
    for (std::int64_t w : weights)
      if (w < INT32_MIN || w > INT32_MAX) return value_problem(std::string(kWhat) + ": a weight does not fit in int32");
    if (divisor == 0) return value_problem(std::string(kWhat) + ": the divisor is 0");
    if (divisor < INT32_MIN || divisor > INT32_MAX) return value_problem(std::string(kWhat) + ": the divisor does not fit in int32");
    if (!gpulab::parse_border(border))
      return value_problem(std::string(kWhat) + ": border must be replicate, zero or mirror, got '" + std::string(border) + "'");
    if (auto p = view_problem(kWhat, image, {at::kByte})) return p;
    if (auto p = image_problem("image", image)) return p;
    if (out == nullptr) return std::nullopt;
    if (auto p = out_problem(kWhat, *out, image, at::kByte, image.sizes(), true)) return p;
    return image_problem("out", *out);
  }
  static at::Tensor result(const at::Tensor& image, at::IntArrayRef, std::int64_t, c10::string_view) {
    return new_result(image.sizes(), at::kByte, image);
  }
  static void into(const at::Tensor& image, at::IntArrayRef weights, std::int64_t divisor, c10::string_view border, const at::Tensor& out) {
    gpulab::Filter3x3 filter;
    for (std::size_t i = 0; i < 9; ++i) filter.k[i] = static_cast<int>(weights[i]);
    filter.divisor = static_cast<int>(divisor);
    DeviceScope scope(image.device().index());
    gpulab::conv3x3(image.const_data_ptr<std::uint8_t>(), pitch(image), out.mutable_data_ptr<std::uint8_t>(), pitch(out),
                    static_cast<std::size_t>(image.size(1)), static_cast<std::size_t>(image.size(0)), filter,
                    *gpulab::parse_border(border), current_stream(image));
  }
};

/// zero_triangle_ has no result: it only writes m, in place.
struct ZeroTriangle {
  static constexpr const char* kWhat = "gpulab.zero_triangle";
  static MaybeProblem problem(const at::Tensor& m, c10::string_view part) {
    if (part != "upper" && part != "lower")
      return value_problem(std::string(kWhat) + ": part must be 'upper' or 'lower', got '" + std::string(part) + "'");
    return matrix_problem(kWhat, "m", m);
  }
  static void run(const at::Tensor& m, c10::string_view part) {
    DeviceScope scope(m.device().index());
    gpulab::zero_triangle(matrix<float>(m), part == "upper" ? gpulab::Triangle::upper : gpulab::Triangle::lower, current_stream(m));
  }
};

// ---- the operators -----------------------------------------------------------------------------
// Each functional operator checks, allocates and runs; each .out form checks its out too. Mutating
// operators return nothing, so that torch.compile can functionalise them.

template <class F, class... Args>
at::Tensor functional_operator(Args... args) {
  raise_if(F::problem(args..., nullptr));
  at::Tensor out = F::result(args...);
  F::into(args..., out);
  return out;
}

template <class F, class... Args>
void out_operator(Args... args, const at::Tensor& out) {
  raise_if(F::problem(args..., &out));
  F::into(args..., out);
}

void sgemm_in_place_operator(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, double alpha, double beta,
                             c10::string_view precision) {
  raise_if(Sgemm::problem(a, b, alpha, precision, &c));
  Sgemm::run(a, b, alpha, beta, precision, c);
}

void zero_triangle_operator(const at::Tensor& m, c10::string_view part) {
  raise_if(ZeroTriangle::problem(m, part));
  ZeroTriangle::run(m, part);
}

TORCH_LIBRARY(gpulab, m) {
  m.def("sum(Tensor x) -> Tensor");
  m.def("sum.out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("histogram(Tensor values, int bins) -> Tensor");
  m.def("histogram.out(Tensor values, int bins, *, Tensor(a!) out) -> ()");
  m.def("atax(Tensor a, Tensor x) -> Tensor");
  m.def("atax.out(Tensor a, Tensor x, *, Tensor(a!) out) -> ()");
  m.def("inclusive_scan(Tensor x) -> Tensor");
  m.def("inclusive_scan.out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("exclusive_scan(Tensor x) -> Tensor");
  m.def("exclusive_scan.out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("transpose(Tensor a) -> Tensor");
  m.def("transpose.out(Tensor a, *, Tensor(a!) out) -> ()");
  m.def("add(Tensor a, Tensor b, float alpha=1.0, float beta=1.0) -> Tensor");
  m.def("add.out(Tensor a, Tensor b, float alpha=1.0, float beta=1.0, *, Tensor(a!) out) -> ()");
  m.def("zero_triangle_(Tensor(a!) m, str part='upper') -> ()");
  m.def("sgemm(Tensor a, Tensor b, float alpha=1.0, str precision='fp32') -> Tensor");
  m.def("sgemm_(Tensor a, Tensor b, Tensor(a!) c, float alpha=1.0, float beta=0.0, str precision='fp32') -> ()");
  m.def("conv3x3(Tensor image, int[] weights, int divisor, str border='replicate') -> Tensor");
  m.def("conv3x3.out(Tensor image, int[] weights, int divisor, str border='replicate', *, Tensor(a!) out) -> ()");
  m.def("segmented_scan(Tensor x, Tensor segments, str by='heads', bool exclusive=False) -> Tensor");
  m.def("segmented_scan.out(Tensor x, Tensor segments, str by='heads', bool exclusive=False, *, Tensor(a!) out) -> ()");
  m.def("histogram_weighted(Tensor values, int bins, Tensor weights) -> Tensor");
  m.def("histogram_weighted.out(Tensor values, int bins, Tensor weights, *, Tensor(a!) out) -> ()");
  m.def("histogram_range(Tensor values, int bins, float lo, float hi, bool per_row=False) -> Tensor");
  m.def("histogram_range.out(Tensor values, int bins, float lo, float hi, bool per_row=False, *, Tensor(a!) out) -> ()");
  m.def("histogram_edges(Tensor values, int bins, Tensor edges, bool per_row=False) -> Tensor");
  m.def("histogram_edges.out(Tensor values, int bins, Tensor edges, bool per_row=False, *, Tensor(a!) out) -> ()");
}

using Tensor = const at::Tensor&;
using Weights = at::IntArrayRef;
using Text = c10::string_view;

/// The implementations, for CUDA tensors and for CPU ones: on a CPU tensor the checks raise the
/// general path's TypeError ("takes CUDA arrays"), where a missing CPU kernel would raise
/// NotImplementedError.
void implement(torch::Library& m) {
  m.impl("sum", &functional_operator<Sum, Tensor>);
  m.impl("sum.out", &out_operator<Sum, Tensor>);
  m.impl("histogram", &functional_operator<Histogram, Tensor, std::int64_t>);
  m.impl("histogram.out", &out_operator<Histogram, Tensor, std::int64_t>);
  m.impl("atax", &functional_operator<Atax, Tensor, Tensor>);
  m.impl("atax.out", &out_operator<Atax, Tensor, Tensor>);
  m.impl("inclusive_scan", &functional_operator<Scan<true>, Tensor>);
  m.impl("inclusive_scan.out", &out_operator<Scan<true>, Tensor>);
  m.impl("exclusive_scan", &functional_operator<Scan<false>, Tensor>);
  m.impl("exclusive_scan.out", &out_operator<Scan<false>, Tensor>);
  m.impl("transpose", &functional_operator<Transpose, Tensor>);
  m.impl("transpose.out", &out_operator<Transpose, Tensor>);
  m.impl("add", &functional_operator<Add, Tensor, Tensor, double, double>);
  m.impl("add.out", &out_operator<Add, Tensor, Tensor, double, double>);
  m.impl("zero_triangle_", &zero_triangle_operator);
  m.impl("sgemm", &functional_operator<Sgemm, Tensor, Tensor, double, Text>);
  m.impl("sgemm_", &sgemm_in_place_operator);
  m.impl("conv3x3", &functional_operator<Conv3x3, Tensor, Weights, std::int64_t, Text>);
  m.impl("conv3x3.out", &out_operator<Conv3x3, Tensor, Weights, std::int64_t, Text>);
  m.impl("segmented_scan", &functional_operator<SegmentedScan, Tensor, Tensor, Text, bool>);
  m.impl("segmented_scan.out", &out_operator<SegmentedScan, Tensor, Tensor, Text, bool>);
  m.impl("histogram_weighted", &functional_operator<HistogramWeighted, Tensor, std::int64_t, Tensor>);
  m.impl("histogram_weighted.out", &out_operator<HistogramWeighted, Tensor, std::int64_t, Tensor>);
  m.impl("histogram_range", &functional_operator<HistogramRange, Tensor, std::int64_t, double, double, bool>);
  m.impl("histogram_range.out", &out_operator<HistogramRange, Tensor, std::int64_t, double, double, bool>);
  m.impl("histogram_edges", &functional_operator<HistogramEdges, Tensor, std::int64_t, Tensor, bool>);
  m.impl("histogram_edges.out", &out_operator<HistogramEdges, Tensor, std::int64_t, Tensor, bool>);
}

TORCH_LIBRARY_IMPL(gpulab, CUDA, m) { implement(m); }
TORCH_LIBRARY_IMPL(gpulab, CPU, m) { implement(m); }

// ---- gradients ---------------------------------------------------------------------------------
// Where the derivative is another gpulab call or a broadcast: sum, the scans, transpose, add, sgemm.
// In C++ rather than through torch.library.register_autograd: a Python autograd kernel runs on
// every call of the operator, gradient wanted or not (~3 µs of host time on the H100's host). Each
// forward calls the operator again below the autograd key (the dispatcher then reaches the CUDA
// implementation, or a fake one under torch.compile); each backward calls gpulab's operators.

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <class Signature>
c10::TypedOperatorHandle<Signature> operator_handle(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).typed<Signature>();
}

at::Tensor call_sum(const at::Tensor& x) {
  static const auto op = operator_handle<at::Tensor(const at::Tensor&)>("gpulab::sum");
  return op.call(x);
}
at::Tensor call_scan(const at::Tensor& x, bool inclusive) {
  static const auto inclusive_op = operator_handle<at::Tensor(const at::Tensor&)>("gpulab::inclusive_scan");
  static const auto exclusive_op = operator_handle<at::Tensor(const at::Tensor&)>("gpulab::exclusive_scan");
  return (inclusive ? inclusive_op : exclusive_op).call(x);
}
at::Tensor call_transpose(const at::Tensor& a) {
  static const auto op = operator_handle<at::Tensor(const at::Tensor&)>("gpulab::transpose");
  return op.call(a);
}
at::Tensor call_add(const at::Tensor& a, const at::Tensor& b, double alpha, double beta) {
  static const auto op = operator_handle<at::Tensor(const at::Tensor&, const at::Tensor&, double, double)>("gpulab::add");
  return op.call(a, b, alpha, beta);
}
at::Tensor call_sgemm(const at::Tensor& a, const at::Tensor& b, double alpha, c10::string_view precision) {
  static const auto op = operator_handle<at::Tensor(const at::Tensor&, const at::Tensor&, double, c10::string_view)>("gpulab::sgemm");
  return op.call(a, b, alpha, precision);
}

/// d sum / d x: the output's gradient broadcast to x's shape (symbolic under torch.compile).
struct SumGradient : torch::autograd::Function<SumGradient> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x) {
    ctx->saved_data["shape"] = x.sym_sizes().vec();
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_sum(x);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0].expand_symint(ctx->saved_data["shape"].toSymIntVector())};
  }
};

/// d out[j] / d x[i] = 1 for j ≥ i (inclusive) or j > i (exclusive): the same scan, run from the end
/// (memory order, any shape).
template <bool kInclusive>
struct ScanGradient : torch::autograd::Function<ScanGradient<kInclusive>> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x) {
    ctx->saved_data["shape"] = x.sym_sizes().vec();
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_scan(x, kInclusive);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor reversed = grads[0].reshape(-1).flip(0).contiguous();
    return {call_scan(reversed, kInclusive).flip(0).reshape_symint(ctx->saved_data["shape"].toSymIntVector())};
  }
};

at::Tensor call_segmented_scan(const at::Tensor& x, const at::Tensor& segments, c10::string_view by, bool exclusive) {
  static const auto op =
      operator_handle<at::Tensor(const at::Tensor&, const at::Tensor&, c10::string_view, bool)>("gpulab::segmented_scan");
  return op.call(x, segments, by, exclusive);
}

/// The same segments, read from the end of n elements, in the same form: a segment starts there
/// where one ends here. Keys: the keys reversed (runs stay runs). Offsets: n − o for each offset o
/// (a segment ending at o − 1 starts at n − o; offsets outside [0, n) stay outside, or land on the
/// reversed element 0, which starts a segment anyway). Heads: each element's successor's flag, the
/// last element's set, reversed.
at::Tensor reversed_segments(const at::Tensor& segments, const std::string& by, const c10::SymInt& n) {
  const at::Tensor s = segments.reshape(-1);
  if (by == "keys") return s.flip(0).contiguous();
  if (by == "offsets") return at::rsub(s.to(at::kLong), c10::Scalar(n));
  return at::cat({s.slice(0, 1), at::ones({1}, s.options())}).flip(0).contiguous();
}

/// d out[j] / d x[i] = 1 for j ≥ i (inclusive) or j > i (exclusive) within i's segment: the same
/// segmented scan of the gradient run from the end, over the segments read from the end.
struct SegmentedScanGradient : torch::autograd::Function<SegmentedScanGradient> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& segments, c10::string_view by, bool exclusive) {
    ctx->saved_data["shape"] = x.sym_sizes().vec();
    ctx->saved_data["by"] = std::string(by);
    ctx->saved_data["exclusive"] = exclusive;
    ctx->save_for_backward({segments});
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_segmented_scan(x, segments, by, exclusive);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor g = grads[0].reshape(-1);
    const auto shape = ctx->saved_data["shape"].toSymIntVector();
    if (g.sym_numel() == 0) return {at::zeros_like(grads[0]).reshape_symint(shape), at::Tensor(), at::Tensor(), at::Tensor()};
    const std::string by = ctx->saved_data["by"].toStringRef();
    const at::Tensor segments = reversed_segments(ctx->get_saved_variables()[0], by, g.sym_size(0));
    const at::Tensor reversed = call_segmented_scan(g.flip(0).contiguous(), segments, by, ctx->saved_data["exclusive"].toBool());
    return {reversed.flip(0).reshape_symint(shape), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

struct TransposeGradient : torch::autograd::Function<TransposeGradient> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& a) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_transpose(a);
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {call_transpose(grads[0].contiguous())}; }
};

struct AddGradient : torch::autograd::Function<AddGradient> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, double alpha, double beta) {
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["beta"] = beta;
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_add(a, b, alpha, beta);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["alpha"].toDouble(), grads[0] * ctx->saved_data["beta"].toDouble(), at::Tensor(), at::Tensor()};
  }
};

/// c = alpha·a·b: d a = alpha·g·bᵀ, d b = alpha·aᵀ·g, each one more sgemm at the forward's
/// precision on a transposed view (read in place, no copy).
struct SgemmGradient : torch::autograd::Function<SgemmGradient> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, double alpha, c10::string_view precision) {
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["precision"] = std::string(precision);
    ctx->save_for_backward({a, b});
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return call_sgemm(a, b, alpha, precision);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor g = grads[0].contiguous();
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const std::string precision = ctx->saved_data["precision"].toStringRef();
    at::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = call_sgemm(g, saved[1].transpose(-2, -1), alpha, precision);
    if (ctx->needs_input_grad(1)) grad_b = call_sgemm(saved[0].transpose(-2, -1), g, alpha, precision);
    return {grad_a, grad_b, at::Tensor(), at::Tensor()};
  }
};

TORCH_LIBRARY_IMPL(gpulab, Autograd, m) {
  m.impl("sum", [](const at::Tensor& x) { return SumGradient::apply(x); });
  m.impl("inclusive_scan", [](const at::Tensor& x) { return ScanGradient<true>::apply(x); });
  m.impl("exclusive_scan", [](const at::Tensor& x) { return ScanGradient<false>::apply(x); });
  m.impl("segmented_scan", [](const at::Tensor& x, const at::Tensor& segments, c10::string_view by, bool exclusive) {
    return SegmentedScanGradient::apply(x, segments, by, exclusive);
  });
  m.impl("transpose", [](const at::Tensor& a) { return TransposeGradient::apply(a); });
  m.impl("add", [](const at::Tensor& a, const at::Tensor& b, double alpha, double beta) { return AddGradient::apply(a, b, alpha, beta); });
  m.impl("sgemm", [](const at::Tensor& a, const at::Tensor& b, double alpha, c10::string_view precision) {
    return SgemmGradient::apply(a, b, alpha, precision);
  });
}

// ---- the direct path ---------------------------------------------------------------------------

/// The tensor behind `h` where the direct path may take it: a torch.Tensor (or Parameter; not a
/// subclass such as a fake or functional tensor) on a CUDA device, needing no gradient.
const at::Tensor* direct_tensor(nb::handle h) {
  if (!THPVariable_CheckExact(h.ptr())) return nullptr;
  const at::Tensor& t = THPVariable_Unpack(h.ptr());
  if (!t.is_cuda() || (t.requires_grad() && at::GradMode::is_enabled())) return nullptr;
  return &t;
}

// A direct call's arguments: tensors as direct_tensor's pointers (null: declined), the rest as is.
bool declined(const at::Tensor* t) { return t == nullptr; }
template <class T>
bool declined(const T&) { return false; }
const at::Tensor& value(const at::Tensor* t) { return *t; }
template <class T>
const T& value(const T& v) { return v; }

nb::object wrap(at::Tensor&& t) { return nb::steal(THPVariable_Wrap(std::move(t))); }

/// F on the direct path: a new result as a torch.Tensor, or into `out` (returned as the caller's own
/// object); None where the direct path declines (a tensor it cannot take, or a Problem).
template <class F, class... Args>
nb::object direct(nb::handle out, const Args&... args) {
  if ((declined(args) || ...)) return nb::none();
  const at::Tensor* o = nullptr;
  if (!out.is_none() && (o = direct_tensor(out)) == nullptr) return nb::none();
  if (F::problem(value(args)..., o)) return nb::none();
  if (o != nullptr) {
    F::into(value(args)..., *o);
    return nb::borrow(out);
  }
  at::Tensor made = F::result(value(args)...);
  F::into(value(args)..., made);
  return wrap(std::move(made));
}

nb::object direct_sum(nb::handle x, nb::handle out) { return direct<Sum>(out, direct_tensor(x)); }

nb::object direct_histogram(nb::handle values, std::int64_t bins, nb::handle out) {
  return direct<Histogram>(out, direct_tensor(values), bins);
}

nb::object direct_atax(nb::handle a, nb::handle x, nb::handle out) { return direct<Atax>(out, direct_tensor(a), direct_tensor(x)); }

nb::object direct_scan(nb::handle x, bool inclusive, nb::handle out) {
  return inclusive ? direct<Scan<true>>(out, direct_tensor(x)) : direct<Scan<false>>(out, direct_tensor(x));
}

nb::object direct_segmented_scan(nb::handle x, nb::handle segments, const std::string& by, bool exclusive, nb::handle out) {
  return direct<SegmentedScan>(out, direct_tensor(x), direct_tensor(segments), c10::string_view(by), exclusive);
}

nb::object direct_histogram_weighted(nb::handle values, std::int64_t bins, nb::handle weights, nb::handle out) {
  return direct<HistogramWeighted>(out, direct_tensor(values), bins, direct_tensor(weights));
}

nb::object direct_histogram_range(nb::handle values, std::int64_t bins, double lo, double hi, bool per_row, nb::handle out) {
  return direct<HistogramRange>(out, direct_tensor(values), bins, lo, hi, per_row);
}

nb::object direct_histogram_edges(nb::handle values, std::int64_t bins, nb::handle edges, bool per_row, nb::handle out) {
  return direct<HistogramEdges>(out, direct_tensor(values), bins, direct_tensor(edges), per_row);
}

nb::object direct_transpose(nb::handle a, nb::handle out) { return direct<Transpose>(out, direct_tensor(a)); }

nb::object direct_add(nb::handle a, nb::handle b, double alpha, double beta, nb::handle out) {
  return direct<Add>(out, direct_tensor(a), direct_tensor(b), alpha, beta);
}

nb::object direct_conv3x3(nb::handle image, const std::vector<std::int64_t>& weights, std::int64_t divisor, const std::string& border,
                          nb::handle out) {
  return direct<Conv3x3>(out, direct_tensor(image), at::IntArrayRef(weights), divisor, c10::string_view(border));
}

/// c given: c = alpha·a·b + beta·c in place, c returned; c None: a new alpha·a·b.
nb::object direct_sgemm(nb::handle a, nb::handle b, nb::handle c, double alpha, double beta, const std::string& precision) {
  if (c.is_none()) return direct<Sgemm>(c, direct_tensor(a), direct_tensor(b), alpha, c10::string_view(precision));
  const at::Tensor *ta = direct_tensor(a), *tb = direct_tensor(b), *tc = direct_tensor(c);
  if (ta == nullptr || tb == nullptr || tc == nullptr || Sgemm::problem(*ta, *tb, alpha, precision, tc)) return nb::none();
  Sgemm::run(*ta, *tb, alpha, beta, precision, *tc);
  return nb::borrow(c);
}

/// m, zeroed above or below its diagonal in place, returned; None where declined.
nb::object direct_zero_triangle(nb::handle m, const std::string& part) {
  const at::Tensor* t = direct_tensor(m);
  if (t == nullptr || ZeroTriangle::problem(*t, part)) return nb::none();
  ZeroTriangle::run(*t, part);
  return nb::borrow(m);
}

}  // namespace

NB_MODULE(_ops, m) {
  m.doc() = "gpulab's functions as PyTorch operators (torch.ops.gpulab) and their direct path; use the gpulab package.";

  // The library's errors as gpulab._core's exception types, so that both paths raise the same. The
  // types are kept for the process's life (never released: the translator may run until exit).
  nb::module_ core = nb::module_::import_("gpulab._core");
  static const gpulab_python::ErrorTypes types{nb::object(core.attr("Error")).release().ptr(),
                                              nb::object(core.attr("NoDeviceError")).release().ptr(),
                                              nb::object(core.attr("OutOfMemoryError")).release().ptr()};
  nb::register_exception_translator([](const std::exception_ptr& p, void*) { gpulab_python::raise_as_python(p, types); });

  m.def("sum", &direct_sum, nb::arg("x"), nb::arg("out").none());
  m.def("histogram", &direct_histogram, nb::arg("values"), nb::arg("bins"), nb::arg("out").none());
  m.def("atax", &direct_atax, nb::arg("a"), nb::arg("x"), nb::arg("out").none());
  m.def("scan", &direct_scan, nb::arg("x"), nb::arg("inclusive"), nb::arg("out").none());
  m.def("segmented_scan", &direct_segmented_scan, nb::arg("x"), nb::arg("segments"), nb::arg("by"), nb::arg("exclusive"),
        nb::arg("out").none());
  m.def("histogram_weighted", &direct_histogram_weighted, nb::arg("values"), nb::arg("bins"), nb::arg("weights"), nb::arg("out").none());
  m.def("histogram_range", &direct_histogram_range, nb::arg("values"), nb::arg("bins"), nb::arg("lo"), nb::arg("hi"), nb::arg("per_row"),
        nb::arg("out").none());
  m.def("histogram_edges", &direct_histogram_edges, nb::arg("values"), nb::arg("bins"), nb::arg("edges"), nb::arg("per_row"),
        nb::arg("out").none());
  m.def("transpose", &direct_transpose, nb::arg("a"), nb::arg("out").none());
  m.def("add", &direct_add, nb::arg("a"), nb::arg("b"), nb::arg("alpha"), nb::arg("beta"), nb::arg("out").none());
  m.def("zero_triangle", &direct_zero_triangle, nb::arg("m"), nb::arg("part"));
  m.def("sgemm", &direct_sgemm, nb::arg("a"), nb::arg("b"), nb::arg("c").none(), nb::arg("alpha"), nb::arg("beta"),
        nb::arg("precision"));
  m.def("conv3x3", &direct_conv3x3, nb::arg("image"), nb::arg("weights"), nb::arg("divisor"), nb::arg("border"), nb::arg("out").none());
}
