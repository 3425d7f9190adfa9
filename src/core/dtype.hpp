// The element types gpulab's problems are run with, and a way to turn a runtime choice into a
// compile-time type once, at the edge (CLI, tests), instead of in every problem.
#pragma once

#include <gpulab/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpulab {

enum class DType { int8, int16, int32, float32, float64 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::int8: return "int8";
    case DType::int16: return "int16";
    case DType::int32: return "int32";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "?";
}

constexpr std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "int8") return DType::int8;
  if (s == "int16") return DType::int16;
  if (s == "int32" || s == "int") return DType::int32;
  if (s == "float32" || s == "float") return DType::float32;
  if (s == "float64" || s == "double") return DType::float64;
  return std::nullopt;
}

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<std::int8_t>() { return DType::int8; }
template <> constexpr DType dtype_of<std::int16_t>() { return DType::int16; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
template <> constexpr DType dtype_of<float>() { return DType::float32; }
template <> constexpr DType dtype_of<double>() { return DType::float64; }

/// The types most problems take (the default of every type option).
constexpr DType kCommonTypes[] = {DType::int32, DType::float32, DType::float64};

/// Calls fn(T{}) with the C++ type among Ts (int32, float, double unless given) named by t;
/// throws gpulab::Error for a type not among them (option validation keeps users from that).
template <class T = std::int32_t, class... Rest, class Fn>
decltype(auto) visit_dtype_among(DType t, Fn&& fn) {
  if constexpr (sizeof...(Rest) == 0) {
    if (t != dtype_of<T>()) throw Error("type " + std::string(dtype_name(t)) + " is not supported here");
    return fn(T{});
  } else {
    if (t == dtype_of<T>()) return fn(T{});
    return visit_dtype_among<Rest...>(t, fn);
  }
}

template <class Fn>
decltype(auto) visit_dtype(DType t, Fn&& fn) {
  return visit_dtype_among<std::int32_t, float, double>(t, fn);
}

}  // namespace gpulab
