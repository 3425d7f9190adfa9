// Shared by the GPU tests: skip visibly where there is no GPU, and run one reduce variant
// checked on a poisoned output.
#pragma once

#include "core/memory.hpp"
#include "reduce/reduce_cpu.hpp"
#include "reduce/reduce_ladder.hpp"

#include <gpulab/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <span>

namespace gpulab::test {

bool has_gpu();

/// A device copy of `host`.
template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty())
    GPULAB_CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  return d;
}

/// Runs variant `v` on device input `d_in[0, n)` and returns its result, read back from an
/// output poisoned with 0xFF bytes first.
template <class T>
T run_reduce_variant(const ReduceVariant<T>& v, const T* d_in, std::size_t n, unsigned block) {
  const std::size_t ws_bytes = v.workspace_bytes(n, block);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  if (ws_bytes > 0) GPULAB_CUDA_CHECK(cudaMemset(ws.data(), 0, ws_bytes));
  DeviceBuffer<T> out(1);
  poison_device(out.data(), sizeof(T), 0xFF, nullptr);
  v.run(d_in, n, out.data(), ws.data(), ws_bytes, block, nullptr);
  T result;
  GPULAB_CUDA_CHECK(cudaMemcpy(&result, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
  return result;
}

}  // namespace gpulab::test

#define GPULAB_REQUIRE_GPU()                                                  \
  do {                                                                        \
    if (!::gpulab::test::has_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped"; \
  } while (0)
