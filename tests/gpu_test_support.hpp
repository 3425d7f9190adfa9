// Shared by the GPU tests: device copies of host data and back, a cache of cases (their inputs and
// references are made once and reused by every rung) and a ladder test's body. Every rung is
// checked through the harness's own step, run_checked (core/bench.hpp). Without a GPU, gpu_test_main.cpp skips them all.
#pragma once

#include "core/bench.hpp"

#include <gpulab/device_buffer.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

namespace gpulab::test {

/// A device copy of `host`.
template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) GPULAB_CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  return d;
}

/// A host copy of the `n` elements at `d`.
template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// The case for `key`, made by `make` (reference computed) the first time it is asked for.
template <class Key>
BenchCase& cached_case(const Key& key, const std::function<std::unique_ptr<BenchCase>()>& make) {
  static std::map<Key, std::unique_ptr<BenchCase>> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    it = cache.emplace(key, make()).first;
    it->second->compute_reference();
  }
  return *it->second;
}

/// The facts of the device the tests run on (device 0), read once.
inline const DeviceFacts& test_device() {
  static const DeviceFacts facts = query_device(0);
  return facts;
}

/// A ladder test's body: skips (saying why) where this GPU or the case cannot run the rung, else
/// runs it through the harness's checked run and expects it to pass.
inline void expect_rung_passes(BenchCase& bench_case, std::span<const RungInfo> ladder, std::size_t rung) {
  if (auto why = why_not_run(bench_case, ladder, rung, test_device())) GTEST_SKIP() << ladder[rung].name << ": " << *why;
  const CheckResult r = run_checked(bench_case, rung);
  EXPECT_TRUE(r.ok) << r.detail;
}

}  // namespace gpulab::test
