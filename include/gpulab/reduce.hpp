// gpulab/reduce.hpp — the sum of a device vector, the top rung of gpulab's reduction ladder.
//
//   std::size_t temp_bytes = gpulab::reduce_sum_temp_bytes<float>(n);
//   gpulab::DeviceBuffer<std::byte> temp(temp_bytes);
//   cudaMemset(temp.data(), 0, temp_bytes);                  // once, when the storage is new
//   gpulab::reduce_sum(d_in, n, d_out, temp.data(), temp_bytes, stream);   // as often as needed
//
// Contract
// - T is std::int32_t, float or double. `in` points to n elements in device memory (any
//   alignment of T; no size restriction: n = 0 writes 0), `out` to one element in device memory.
// - int32 sums wrap modulo 2^32 (the same bits as a serial loop in unsigned arithmetic).
//   float and double sums accumulate in T; the result is within k·ε·Σ|xᵢ| of the exact sum,
//   with k = reduce_sum_accumulation_depth(n).
// - Deterministic: the same input on the same device gives the same bits on every call (no
//   floating-point atomics; the order of the additions depends only on n and the device's SM
//   count).
// - One kernel launch on `stream`, asynchronous to the host; nothing is allocated.
// - Temporary storage: at least reduce_sum_temp_bytes<T>(n) bytes of device memory, zero-filled
//   before its first use. Every call leaves it zero-filled again, so it can be reused by later
//   calls, but not by two calls that may run at the same time (other streams).
// - Throws gpulab::Error on a null pointer with n > 0, on too little temporary storage, and on
//   any CUDA error of the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpulab {

/// Bytes of temporary storage reduce_sum<T> needs on the current device (at most a few KiB).
template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n);

/// *out = in[0] + ... + in[n-1], in one launch on `stream` (see the contract above).
template <class T>
void reduce_sum(const T* in, std::size_t n, T* out, void* temp, std::size_t temp_bytes,
                cudaStream_t stream = nullptr);

/// The longest chain of additions any element goes through in reduce_sum<T> on the current
/// device, plus one for the final rounding: the k of the error bound above.
template <class T>
std::size_t reduce_sum_accumulation_depth(std::size_t n);

}  // namespace gpulab
