// gpulab/multi/reduce.hpp — gpulab::reduce_sum over several GPUs.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// Bytes of temporary storage reduce_sum<T> needs on a rank with n local elements among `ranks`.
template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n, int ranks);

/// *out = the sum of every rank's shard, on every rank. T is std::int32_t (wraps modulo 2^32),
/// float or double (within k·ε·Σ|x| with k = reduce_sum_accumulation_depth<T>(largest shard) +
/// ranks). The temporary storage is zero-filled before its first use and left so.
template <class T>
void reduce_sum(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                cudaStream_t stream = nullptr);

/// Every rank at once, each with its device (one process driving several GPUs).
template <class T>
struct ReduceRank {
  int device;
  const T* shard;
  std::size_t n;
  T* out;
  void* temp;
  std::size_t temp_bytes;
  ncclComm_t comm;
  cudaStream_t stream;
};
template <class T>
void reduce_sum(std::span<const ReduceRank<T>> ranks);

}  // namespace gpulab::multi
