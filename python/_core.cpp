// gpulab._core — the library's functions for Python, one thin call each.
//
// The Python layer (python/gpulab/) turns the caller's arrays into device pointers, shapes and a
// stream, checks them, and allocates the results with the caller's own framework; this module takes
// those plain integers, makes the array's device current for the call, and calls the library. Every
// gpulab::Error becomes a Python exception of the same name (gpulab.Error, NoDeviceError,
// OutOfMemoryError). The GIL stays held: every call only enqueues work (but sgemm's first call of a
// shape, which times its tile candidates once), and holding it also serialises the scratch cache.
#include <gpulab/atax.hpp>
#include <gpulab/conv.hpp>
#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/matrix.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>
#include <gpulab/sgemm.hpp>

#include "call_support.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

using Address = std::uintptr_t;  // a device pointer as Python passes it

template <class T>
T* at(Address address) {
  return reinterpret_cast<T*>(address);
}

cudaStream_t as_stream(Address stream) { return reinterpret_cast<cudaStream_t>(stream); }

using gpulab_python::DeviceScope;

// ---- reduce, scan -----------------------------------------------------------------------------

template <class T>
void sum_of(Address in, std::size_t n, Address out, cudaStream_t stream) {
  gpulab_python::sum(at<const T>(in), n, at<T>(out), stream);
}

void sum(Address in, std::size_t n, const std::string& dtype, Address out, int device, Address stream) {
  DeviceScope scope(device);
  if (dtype == "int32") return sum_of<std::int32_t>(in, n, out, as_stream(stream));
  if (dtype == "float32") return sum_of<float>(in, n, out, as_stream(stream));
  if (dtype == "float64") return sum_of<double>(in, n, out, as_stream(stream));
  throw gpulab::Error("sum: unsupported dtype " + dtype);
}

template <class In>
void scan_of(Address in, Address out, std::size_t n, bool inclusive, cudaStream_t stream, gpulab_python::Segments segments) {
  gpulab_python::scan(at<const In>(in), at<gpulab::scan_result_t<In>>(out), n, inclusive, stream, segments);
}

/// The scan (`segmented_by` empty), or the segmented scan by "heads" (one-byte flags at
/// `segments`), "keys" or "offsets" (`offset_count` of them), keys and offsets int32 or int64 as
/// `index_dtype` says.
void scan(Address in, const std::string& dtype, Address out, std::size_t n, bool inclusive, int device, Address stream,
          const std::string& segmented_by, Address segments_at, std::size_t offset_count, const std::string& index_dtype) {
  DeviceScope scope(device);
  using Form = gpulab_python::Segments::Form;
  gpulab_python::Segments segments;
  const bool wide = index_dtype == "int64";
  if ((segmented_by == "keys" || segmented_by == "offsets") && !wide && index_dtype != "int32")
    throw gpulab::Error("scan: unsupported key or offset dtype " + index_dtype);
  if (segmented_by == "heads") segments = {Form::flags, at<const void>(segments_at)};
  else if (segmented_by == "keys") segments = {wide ? Form::keys64 : Form::keys32, at<const void>(segments_at)};
  else if (segmented_by == "offsets")
    segments = {wide ? Form::offsets64 : Form::offsets32, at<const void>(segments_at), offset_count};
  else if (!segmented_by.empty()) throw gpulab::Error("scan: segments by " + segmented_by + "?");
  const cudaStream_t s = as_stream(stream);
  if (dtype == "int8") return scan_of<std::int8_t>(in, out, n, inclusive, s, segments);
  if (dtype == "int16") return scan_of<std::int16_t>(in, out, n, inclusive, s, segments);
  if (dtype == "int32") return scan_of<std::int32_t>(in, out, n, inclusive, s, segments);
  if (dtype == "float32") return scan_of<float>(in, out, n, inclusive, s, segments);
  if (dtype == "float64") return scan_of<double>(in, out, n, inclusive, s, segments);
  throw gpulab::Error("scan: unsupported dtype " + dtype);
}

// ---- histogram, atax --------------------------------------------------------------------------

/// Counts into uint32 or (`dtype` "uint64") uint64 counts.
void histogram(Address values, std::size_t n, std::uint32_t bins, Address counts, int device, Address stream,
               const std::string& dtype) {
  DeviceScope scope(device);
  if (dtype == "uint64") return gpulab::histogram(at<const std::int32_t>(values), n, bins, at<std::uint64_t>(counts), as_stream(stream));
  gpulab::histogram(at<const std::int32_t>(values), n, bins, at<std::uint32_t>(counts), as_stream(stream));
}

/// Float values (`dtype` float32 or float64, rows × cols; one row: the whole input) into bins over
/// [lo, hi], or between the bins + 1 edges at `edges` where it is not 0.
void histogram_float(Address values, std::size_t rows, std::size_t cols, std::uint32_t bins, const std::string& dtype, double lo,
                     double hi, Address edges, Address counts, int device, Address stream) {
  DeviceScope scope(device);
  auto run = [&](auto type) {
    using T = decltype(type);
    if (edges != 0)
      gpulab::histogram_edges_rows(at<const T>(values), rows, cols, at<const T>(edges), bins, at<std::uint32_t>(counts), as_stream(stream));
    else
      gpulab::histogram_range_rows(at<const T>(values), rows, cols, bins, static_cast<T>(lo), static_cast<T>(hi),
                                   at<std::uint32_t>(counts), as_stream(stream));
  };
  if (dtype == "float32") return run(float{});
  if (dtype == "float64") return run(double{});
  throw gpulab::Error("histogram: unsupported value dtype " + dtype);
}

/// Sums of weights (float32 or float64 as `dtype` says) by bin, into `sums` of that type.
void histogram_weighted(Address values, Address weights, std::size_t n, std::uint32_t bins, const std::string& dtype,
                        Address sums, int device, Address stream) {
  DeviceScope scope(device);
  const auto* v = at<const std::int32_t>(values);
  if (dtype == "float32")
    return gpulab_python::histogram_weighted(v, at<const float>(weights), n, bins, at<float>(sums), as_stream(stream));
  if (dtype == "float64")
    return gpulab_python::histogram_weighted(v, at<const double>(weights), n, bins, at<double>(sums), as_stream(stream));
  throw gpulab::Error("histogram: unsupported weight dtype " + dtype);
}

void atax(Address a, Address x, std::uint32_t rows, std::uint32_t cols, Address y, int device, Address stream) {
  DeviceScope scope(device);
  gpulab_python::atax(at<const float>(a), at<const float>(x), rows, cols, at<float>(y), as_stream(stream));
}

// ---- matrices ---------------------------------------------------------------------------------

// (address, rows, cols, pitch in bytes), as the Python layer describes a row-major matrix
using Matrix = std::tuple<Address, std::size_t, std::size_t, std::size_t>;

template <class T>
gpulab::MatrixView<T> view(const Matrix& m) {
  return {at<T>(std::get<0>(m)), std::get<1>(m), std::get<2>(m), std::get<3>(m)};
}

void transpose(const Matrix& a, const Matrix& b, int device, Address stream) {
  DeviceScope scope(device);
  gpulab::transpose(view<const float>(a), view<float>(b), as_stream(stream));
}

void add(float alpha, const Matrix& a, float beta, const Matrix& b, const Matrix& c, int device, Address stream) {
  DeviceScope scope(device);
  gpulab::add(alpha, view<const float>(a), beta, view<const float>(b), view<float>(c), as_stream(stream));
}

void zero_triangle(const Matrix& m, bool upper, int device, Address stream) {
  DeviceScope scope(device);
  gpulab::zero_triangle(view<float>(m), upper ? gpulab::Triangle::upper : gpulab::Triangle::lower, as_stream(stream));
}

/// gpulab::sgemm_strided_batched (a matrix is a batch of one): strides in elements; a_transposed,
/// b_transposed: the operand is stored transposed (A k × m, B n × k: gpulab::Op).
void sgemm_strided_batched(std::size_t m, std::size_t n, std::size_t k, float alpha, Address a, std::size_t lda, std::size_t stride_a,
                           bool a_transposed, Address b, std::size_t ldb, std::size_t stride_b, bool b_transposed, float beta, Address c,
                           std::size_t ldc, std::size_t stride_c, std::size_t batch, const std::string& precision, int device,
                           Address stream) {
  const auto chosen = gpulab_python::sgemm_precision(precision);
  if (!chosen) throw gpulab::Error(gpulab_python::unknown_sgemm_precision("gpulab.sgemm", precision));
  DeviceScope scope(device);
  gpulab::sgemm_strided_batched(gpulab::op_of(a_transposed), gpulab::op_of(b_transposed), m, n, k, alpha, at<const float>(a), lda,
                                stride_a, at<const float>(b), ldb, stride_b, beta, at<float>(c), ldc, stride_c, batch, as_stream(stream),
                                *chosen);
}

bool sgemm_precision_supported(const std::string& precision, int device) {
  const auto chosen = gpulab_python::sgemm_precision(precision);
  if (!chosen) throw gpulab::Error(gpulab_python::unknown_sgemm_precision("gpulab.sgemm_precision_supported", precision));
  if (device < 0) return gpulab::sgemm_precision_supported(*chosen);  // the current device
  DeviceScope scope(device);
  return gpulab::sgemm_precision_supported(*chosen);
}

// ---- conv -------------------------------------------------------------------------------------

void conv3x3(Address in, std::size_t in_pitch, Address out, std::size_t out_pitch, std::size_t width, std::size_t height,
             const std::vector<int>& weights, int divisor, const std::string& border, int device, Address stream) {
  if (weights.size() != 9) throw gpulab::Error("conv3x3: a 3x3 filter has 9 weights, got " + std::to_string(weights.size()));
  gpulab::Filter3x3 filter;
  for (std::size_t i = 0; i < 9; ++i) filter.k[i] = weights[i];
  filter.divisor = divisor;
  const auto rule = gpulab::parse_border(border);
  if (!rule) throw gpulab::Error("conv3x3: border '" + border + "' is not one of replicate, zero, mirror");
  DeviceScope scope(device);
  gpulab::conv3x3(at<const std::uint8_t>(in), in_pitch, at<std::uint8_t>(out), out_pitch, width, height, filter, *rule,
                  as_stream(stream));
}

std::optional<std::tuple<std::vector<int>, int>> named_filter(const std::string& name) {
  const auto f = gpulab::named_filter(name);
  if (!f) return std::nullopt;
  return std::make_tuple(std::vector<int>(std::begin(f->k), std::end(f->k)), f->divisor);
}

// ---- arrays that are neither PyTorch's nor CuPy's ----------------------------------------------

const char* dtype_name(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  if (t.lanes != 1) return "";
  if (t.code == static_cast<std::uint8_t>(Code::Int)) {
    switch (t.bits) { case 8: return "int8"; case 16: return "int16"; case 32: return "int32"; case 64: return "int64"; }
  } else if (t.code == static_cast<std::uint8_t>(Code::UInt)) {
    switch (t.bits) { case 8: return "uint8"; case 16: return "uint16"; case 32: return "uint32"; case 64: return "uint64"; }
  } else if (t.code == static_cast<std::uint8_t>(Code::Float)) {
    switch (t.bits) { case 16: return "float16"; case 32: return "float32"; case 64: return "float64"; }
  } else if (t.code == static_cast<std::uint8_t>(Code::Bfloat)) {
    if (t.bits == 16) return "bfloat16";
  } else if (t.code == static_cast<std::uint8_t>(Code::Bool)) {
    return "bool";
  }
  return "";
}

nb::dlpack::dtype dtype_of(const std::string& name) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, int bits) { return nb::dlpack::dtype{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1}; };
  if (name == "int8") return make(Code::Int, 8);
  if (name == "int16") return make(Code::Int, 16);
  if (name == "int32") return make(Code::Int, 32);
  if (name == "int64") return make(Code::Int, 64);
  if (name == "uint8") return make(Code::UInt, 8);
  if (name == "bool") return make(Code::Bool, 8);
  if (name == "uint32") return make(Code::UInt, 32);
  if (name == "float16") return make(Code::Float, 16);
  if (name == "float32") return make(Code::Float, 32);
  if (name == "float64") return make(Code::Float, 64);
  throw gpulab::Error("no DLPack dtype for " + name);
}

/// What DLPack says of any array: (address, shape, strides in elements, dtype name, device type,
/// device id). Device type 2 is CUDA, 1 the CPU (DLPack's numbering).
nb::tuple dlpack_info(nb::ndarray<nb::ro> a) {
  std::vector<std::size_t> shape(a.ndim());
  std::vector<std::int64_t> strides(a.ndim());
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = a.shape(i);
    strides[i] = a.stride(i);
  }
  return nb::make_tuple(reinterpret_cast<Address>(a.data()), nb::tuple(nb::cast(shape)), nb::tuple(nb::cast(strides)),
                        std::string(dtype_name(a.dtype())), a.device_type(), a.device_id());
}

/// (array, address): a new contiguous device array owned by gpulab (cudaMalloc; freed with cudaFree, which waits for
/// the device, when the last consumer lets go), exported through DLPack: for callers whose
/// framework gpulab cannot ask for memory (JAX and other DLPack producers).
nb::tuple empty(const std::vector<std::size_t>& shape, const std::string& dtype, int device) {
  DeviceScope scope(device);
  const nb::dlpack::dtype t = dtype_of(dtype);
  std::size_t count = 1;
  for (std::size_t s : shape) count *= s;
  auto buffer = std::make_unique<gpulab::DeviceBuffer<std::byte>>(std::max<std::size_t>(count * t.bits / 8, 1));
  void* data = buffer->data();
  nb::capsule owner(buffer.release(), [](void* p) noexcept { delete static_cast<gpulab::DeviceBuffer<std::byte>*>(p); });
  nb::ndarray<nb::array_api> array(data, shape.size(), shape.data(), owner, nullptr, t, nb::device::cuda::value, device);
  return nb::make_tuple(array, reinterpret_cast<Address>(data));
}

void synchronize(int device, Address stream) {
  DeviceScope scope(device);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
}

/// A DLPack array of `shape` at `address`, owned by nobody: only for the CPU tests of argument
/// checks, which need a "CUDA array" on a machine without a GPU. Its memory is not real.
nb::ndarray<nb::array_api> fake_cuda_array(const std::vector<std::size_t>& shape, const std::string& dtype, Address address,
                              std::optional<std::vector<std::int64_t>> strides) {
  if (strides && strides->size() != shape.size()) throw gpulab::Error("strides and shape differ in length");
  nb::str owner("nothing to own");  // nanobind wants an owner to hand the array out without copying it
  return nb::ndarray<nb::array_api>(at<void>(address), shape.size(), shape.data(), owner, strides ? strides->data() : nullptr,
                       dtype_of(dtype), nb::device::cuda::value, 0);
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "gpulab's library functions over device pointers; use the gpulab package, not this module.";

  // The types live as long as the process (the translator may run until exit).
  static const gpulab_python::ErrorTypes types{
      nb::exception<gpulab::Error>(m, "Error", PyExc_RuntimeError).ptr(),
      nb::exception<gpulab::NoDeviceError>(m, "NoDeviceError", m.attr("Error")).ptr(),
      nb::exception<gpulab::OutOfMemoryError>(m, "OutOfMemoryError", m.attr("Error")).ptr()};
  nb::register_exception_translator([](const std::exception_ptr& p, void*) { gpulab_python::raise_as_python(p, types); });

  m.def("device_count", &device_count, "CUDA devices the driver shows (0 without a driver or a GPU).");
  m.def("sum", &sum, nb::arg("data"), nb::arg("n"), nb::arg("dtype"), nb::arg("out"), nb::arg("device"), nb::arg("stream"));
  m.def("scan", &scan, nb::arg("data"), nb::arg("dtype"), nb::arg("out"), nb::arg("n"), nb::arg("inclusive"),
        nb::arg("device"), nb::arg("stream"), nb::arg("segmented_by") = "", nb::arg("segments") = 0,
        nb::arg("offset_count") = 0, nb::arg("index_dtype") = "");
  m.def("histogram", &histogram, nb::arg("values"), nb::arg("n"), nb::arg("bins"), nb::arg("counts"), nb::arg("device"),
        nb::arg("stream"), nb::arg("dtype") = "uint32");
  m.def("histogram_float", &histogram_float, nb::arg("values"), nb::arg("rows"), nb::arg("cols"), nb::arg("bins"), nb::arg("dtype"),
        nb::arg("lo"), nb::arg("hi"), nb::arg("edges"), nb::arg("counts"), nb::arg("device"), nb::arg("stream"));
  m.def("histogram_weighted", &histogram_weighted, nb::arg("values"), nb::arg("weights"), nb::arg("n"), nb::arg("bins"),
        nb::arg("dtype"), nb::arg("sums"), nb::arg("device"), nb::arg("stream"));
  m.def("atax", &atax, nb::arg("a"), nb::arg("x"), nb::arg("rows"), nb::arg("cols"), nb::arg("y"), nb::arg("device"),
        nb::arg("stream"));
  m.def("transpose", &transpose, nb::arg("a"), nb::arg("b"), nb::arg("device"), nb::arg("stream"));
  m.def("add", &add, nb::arg("alpha"), nb::arg("a"), nb::arg("beta"), nb::arg("b"), nb::arg("c"), nb::arg("device"),
        nb::arg("stream"));
  m.def("zero_triangle", &zero_triangle, nb::arg("m"), nb::arg("upper"), nb::arg("device"), nb::arg("stream"));
  m.def("sgemm_strided_batched", &sgemm_strided_batched, nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("a"),
        nb::arg("lda"), nb::arg("stride_a"), nb::arg("a_transposed"), nb::arg("b"), nb::arg("ldb"), nb::arg("stride_b"),
        nb::arg("b_transposed"), nb::arg("beta"), nb::arg("c"), nb::arg("ldc"), nb::arg("stride_c"), nb::arg("batch"), nb::arg("precision"),
        nb::arg("device"), nb::arg("stream"));
  m.def("sgemm_precision_supported", &sgemm_precision_supported, nb::arg("precision"), nb::arg("device"));
  m.def("conv3x3", &conv3x3, nb::arg("data"), nb::arg("pitch"), nb::arg("out"), nb::arg("out_pitch"), nb::arg("width"),
        nb::arg("height"), nb::arg("weights"), nb::arg("divisor"), nb::arg("border"), nb::arg("device"), nb::arg("stream"));
  m.def("named_filter", &named_filter, nb::arg("name"), "(weights, divisor) of a named filter, or None.");
  m.def("named_filter_list", [] { return std::string(gpulab::named_filter_list()); });
  m.def("dlpack_info", &dlpack_info, nb::arg("array"));
  m.def("empty", &empty, nb::arg("shape"), nb::arg("dtype"), nb::arg("device"));
  m.def("synchronize", &synchronize, nb::arg("device"), nb::arg("stream"));
  m.def("fake_cuda_array", &fake_cuda_array, nb::arg("shape"), nb::arg("dtype"), nb::arg("address") = 0,
        nb::arg("strides") = nb::none());
}
