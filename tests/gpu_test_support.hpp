// Shared by the GPU tests: a device copy of host data, and a cache of cases (their inputs and
// references are made once and reused by every rung). Every rung is checked through the
// harness's own step, run_checked (core/bench.hpp). Without a GPU, gpu_test_main.cpp skips them all.
#pragma once

#include "core/bench.hpp"

#include <gpulab/device_buffer.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <span>

namespace gpulab::test {

/// A device copy of `host`.
template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) GPULAB_CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  return d;
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

}  // namespace gpulab::test
