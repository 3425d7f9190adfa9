// Temporary device memory of one library call (split-K's partial sums, realigned rows, a
// histogram's partitioned values), taken from gpulab's own stream-ordered pool and given back in
// stream order: no synchronisation, and safe inside a CUDA graph capture.
#pragma once

#include <gpulab/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>

namespace gpulab {

/// gpulab's own stream-ordered memory pool on the current device, which keeps what it was given
/// (the default pool hands memory back at every synchronisation, and mapping it again costs
/// tens of microseconds a call). The caller's default pool is left as it is.
cudaMemPool_t scratch_pool();

/// `bytes` from scratch_pool() on `stream`, freed on the same stream when it goes out of scope.
/// Throws OutOfMemoryError where the pool cannot grow (the thread's last error already cleared).
class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) GPULAB_CUDA_CHECK(cudaMallocFromPoolAsync(&data_, bytes, scratch_pool(), stream));
  }
  ~StreamScratch() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  /// The storage as an array of T (nullptr for 0 bytes).
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

/// Whether `stream` is being captured into a CUDA graph (where work must stay on the captured
/// streams, and what would synchronise cannot be done).
inline bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  GPULAB_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

/// Fills `slot` with `bytes` from scratch_pool() on `stream`; false, `slot` left empty, where the
/// pool cannot grow (the caller then runs a path without the storage).
inline bool take_scratch(std::optional<StreamScratch>& slot, std::size_t bytes, cudaStream_t stream) {
  try {
    slot.emplace(bytes, stream);
    return true;
  } catch (const OutOfMemoryError&) {  // (the throw already cleared the thread's last error)
    return false;
  }
}

}  // namespace gpulab
