// The element types gpulab's problems are run with, and a way to turn a runtime choice into a
// compile-time type once, at the edge (CLI, tests), instead of in every problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpulab {

enum class DType { int32, float32, float64 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::int32: return "int32";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "?";
}

constexpr std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "int32" || s == "int") return DType::int32;
  if (s == "float32" || s == "float") return DType::float32;
  if (s == "float64" || s == "double") return DType::float64;
  return std::nullopt;
}

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
template <> constexpr DType dtype_of<float>() { return DType::float32; }
template <> constexpr DType dtype_of<double>() { return DType::float64; }

/// Calls fn(T{}) with the C++ type named by t.
template <class Fn>
decltype(auto) visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::int32: return fn(std::int32_t{});
    case DType::float32: return fn(float{});
    case DType::float64: break;
  }
  return fn(double{});
}

}  // namespace gpulab
