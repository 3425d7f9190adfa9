// The bin of a float value, on the GPU and in the CPU reference alike (so the tests compare the
// same arithmetic): equal-width bins over [lo, hi] as torch.histc computes them, and the bins between
// sorted edges as torch.histogram's. A value that is not counted (outside, NaN) gets bin m.
#pragma once

#include "lib/host_device.hpp"
#include "lib/unsigned_divider.hpp"

#include <cstddef>
#include <cstdint>

namespace gpulab {

/// torch.histc's rule: (v − lo)·m / (hi − lo) in T, truncated; v == hi (and any value the rounding
/// puts at m) into bin m − 1; v outside [lo, hi], and NaN, to m.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t range_bin(T v, std::uint32_t m, T lo, T hi) {
  if (!(v >= lo && v <= hi)) return m;  // (NaN fails both)
  const T x = (v - lo) * static_cast<T>(m) / (hi - lo);
  return x < static_cast<T>(m) ? static_cast<std::uint32_t>(x) : m - 1;
}

/// torch.histogram's rule over m + 1 sorted edges: the b with edges[b] ≤ v < edges[b + 1], the last
/// bin closed (v == edges[m] in m − 1); v outside [edges[0], edges[m]], and NaN, to m. A binary
/// search: the first edge above v, less one.
template <class T>
GPULAB_HOST_DEVICE std::uint32_t edge_bin(T v, const T* edges, std::uint32_t m) {
  if (!(v >= edges[0] && v <= edges[m])) return m;
  std::uint32_t low = 0, high = m;  // edges[low] ≤ v; the answer is below high
  while (high - low > 1) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (edges[mid] <= v) low = mid;
    else high = mid;
  }
  return low;
}

/// The rules as the counting kernels take them (histogram_path_kernels.cuh): Value, the value's
/// bin, and where a rule reads tables (the edges), the bytes of shared memory it wants them in.

/// histogram_range's rule: range_bin.
template <class T>
struct RangeRule {
  using Value = T;
  std::uint32_t m;
  T lo, hi;
  GPULAB_HOST_DEVICE std::uint32_t operator()(T v) const { return range_bin(v, m, lo, hi); }
};

/// histogram_edges's rule: edge_bin over m + 1 edges in device memory, searched in shared memory by
/// the kernels that stage them there (a search's steps are dependent loads: L1's latency on each).
template <class T>
struct EdgeRule {
  using Value = T;
  const T* edges;
  std::uint32_t m;
  GPULAB_HOST_DEVICE std::uint32_t operator()(T v) const { return edge_bin(v, edges, m); }
  std::size_t staged_bytes() const { return (std::size_t{m} + 1) * sizeof(T); }
#ifdef __CUDACC__
  /// The rule reading the edges from `shared` (staged_bytes() there, aligned for T), which the
  /// block's threads fill; the caller synchronises the block before the first use.
  __device__ EdgeRule staged(void* shared) const {
    T* copy = static_cast<T*>(shared);
    for (std::uint32_t k = threadIdx.x; k <= m; k += blockDim.x) copy[k] = edges[k];
    return {copy, m};
  }
#endif
};

/// A histogram per row of `cols` values: value i counted among its row's m + 1 bins (the last for
/// values not counted), row r's at r·(m + 1); rows·(m + 1) < 2^32. One row is the whole input.
template <class Rule>
struct PerRow {
  using Value = typename Rule::Value;
  Rule rule;
  UnsignedDivider cols;
  std::uint32_t rows;
  GPULAB_HOST_DEVICE std::uint32_t bins() const { return rows * (rule.m + 1); }
  GPULAB_HOST_DEVICE std::uint32_t operator()(Value v, std::size_t i) const {
    return cols.divide(static_cast<std::uint32_t>(i)) * (rule.m + 1) + rule(v);
  }
  std::size_t staged_bytes() const {
    if constexpr (requires { rule.staged_bytes(); }) return rule.staged_bytes();
    else return 0;
  }
#ifdef __CUDACC__
  __device__ PerRow staged(void* shared) const {
    if constexpr (requires { rule.staged(shared); }) return {rule.staged(shared), cols, rows};
    else return *this;
  }
#endif
};

}  // namespace gpulab
