// gpulab/device_buffer.hpp — RAII owners for device, pinned, managed and pitched memory, host
// registrations, streams, events.
//
// Move-only; destructors never throw (a failing cudaFree at exit is not worth a terminate).
// Allocation failures throw gpulab::OutOfMemoryError naming the bytes asked for and the bytes free.
#pragma once

#include <gpulab/error.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace gpulab {

namespace detail {
inline std::string out_of_device_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaGetLastError();  // a failed cudaMalloc leaves its error as the last error: clear it
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) free_bytes = 0;
  return "cannot allocate " + std::to_string(bytes) + " bytes on the device (" +
         std::to_string(free_bytes) + " bytes free of " + std::to_string(total_bytes) + ")";
}
}  // namespace detail

/// Owns `count` elements of T freed by `Free` (cudaFree or cudaFreeHost): the move-only part
/// that device and pinned buffers share.
template <class T, cudaError_t (*Free)(void*)>
class CudaArray {
 public:
  CudaArray() = default;
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  CudaArray(CudaArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  CudaArray& operator=(CudaArray&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~CudaArray() { reset(); }

  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  std::span<T> span() const { return {ptr_, count_}; }

 protected:
  /// Bytes for `count` elements, refusing sizes that overflow.
  static std::size_t bytes_for(std::size_t count) {
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) throw Error("buffer size overflows");
    return count * sizeof(T);
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;

 private:
  void reset() noexcept {
    if (ptr_ != nullptr) Free(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
};

/// `count` elements of T in device global memory (cudaMalloc: 256-byte aligned).
template <class T>
class DeviceBuffer : public CudaArray<T, cudaFree> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) {
    if (count == 0) return;
    const std::size_t bytes = this->bytes_for(count);
    const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&this->ptr_), bytes);
    if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(detail::out_of_device_memory(bytes));
    check_cuda(err, "cudaMalloc", __FILE__, __LINE__);
    this->count_ = count;
  }
};

/// `count` elements of T in page-locked host memory, so copies run at full PCIe/NVLink speed.
template <class T>
class PinnedBuffer : public CudaArray<T, cudaFreeHost> {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) {
    if (count == 0) return;
    const std::size_t bytes = this->bytes_for(count);
    const cudaError_t err = cudaMallocHost(reinterpret_cast<void**>(&this->ptr_), bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemoryError("cannot allocate " + std::to_string(bytes) + " bytes of pinned host memory");
    }
    GPULAB_CUDA_CHECK(err);
    this->count_ = count;
  }
};

/// `count` elements of T in managed (unified) memory: one address for host and device, pages
/// moved on demand or by cudaMemPrefetchAsync.
template <class T>
class ManagedBuffer : public CudaArray<T, cudaFree> {
 public:
  ManagedBuffer() = default;
  explicit ManagedBuffer(std::size_t count) {
    if (count == 0) return;
    const std::size_t bytes = this->bytes_for(count);
    const cudaError_t err = cudaMallocManaged(reinterpret_cast<void**>(&this->ptr_), bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemoryError("cannot allocate " + std::to_string(bytes) + " bytes of managed memory");
    }
    GPULAB_CUDA_CHECK(err);
    this->count_ = count;
  }
};

/// A 2-D array of `rows` rows of `row_bytes` bytes in device memory, from cudaMallocPitch: each row
/// starts at a multiple of the device's preferred alignment, `pitch()` bytes after the one before.
class PitchedDeviceBuffer : public CudaArray<unsigned char, cudaFree> {
 public:
  PitchedDeviceBuffer() = default;
  PitchedDeviceBuffer(std::size_t row_bytes, std::size_t rows) {
    if (row_bytes == 0 || rows == 0) return;
    const cudaError_t err = cudaMallocPitch(reinterpret_cast<void**>(&this->ptr_), &pitch_, row_bytes, rows);
    if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(detail::out_of_device_memory(row_bytes * rows));
    GPULAB_CUDA_CHECK(err);
    this->count_ = pitch_ * rows;
  }
  std::size_t pitch() const { return pitch_; }

 private:
  std::size_t pitch_ = 0;
};

/// Pins `bytes` of existing host memory at `ptr` (cudaHostRegister) for as long as it lives, so
/// that copies from and to it run as from cudaMallocHost's memory. `flags`: cudaHostRegister's
/// (cudaHostRegisterPortable: pinned for every device's context, not only the current one's).
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(void* ptr, std::size_t bytes, unsigned flags = cudaHostRegisterDefault) {
    if (bytes == 0) return;
    const cudaError_t err = cudaHostRegister(ptr, bytes, flags);
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw Error("cannot pin " + std::to_string(bytes) + " bytes of host memory (cudaHostRegister: " +
                  cudaGetErrorString(err) + ")");
    }
    ptr_ = ptr;
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  HostRegistration(HostRegistration&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  HostRegistration& operator=(HostRegistration&& o) noexcept {
    if (this != &o) {
      if (ptr_ != nullptr) cudaHostUnregister(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
    }
    return *this;
  }
  ~HostRegistration() {
    if (ptr_ != nullptr) cudaHostUnregister(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

/// A non-blocking CUDA stream.
class Stream {
 public:
  Stream() { GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }
  void synchronize() const { GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

/// A CUDA event that records time.
class Event {
 public:
  Event() { GPULAB_CUDA_CHECK(cudaEventCreate(&e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  ~Event() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { GPULAB_CUDA_CHECK(cudaEventRecord(e_, s)); }
  /// Milliseconds from `start` to this event; both must have completed.
  float ms_since(const Event& start) const {
    float ms = 0.f;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace gpulab
