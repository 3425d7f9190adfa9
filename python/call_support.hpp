// What both Python modules (gpulab._core, and gpulab._ops where PyTorch is there) need around a
// library call: the array's device made current for the call, the library's temporary storage,
// which a call from Python has no place to keep (each module holds its own cache), and the library's
// errors as the package's exceptions.
#pragma once

#include <gpulab/atax.hpp>
#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>
#include <gpulab/sgemm.hpp>

#include <Python.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace gpulab_python {

/// gpulab.Error and its two subclasses, as Python types.
struct ErrorTypes {
  PyObject* error = nullptr;
  PyObject* no_device = nullptr;
  PyObject* out_of_memory = nullptr;
};

/// An exception translator's body (nanobind's translators are shared by every nanobind module of one
/// build, so both modules register this same one): the library's errors as gpulab.Error,
/// OutOfMemoryError and NoDeviceError, the last saying what gpulab needs whichever CUDA call found
/// no device (error.hpp sorts them). Anything else is left to the next translator.
inline void raise_as_python(const std::exception_ptr& p, const ErrorTypes& types) {
  try {
    std::rethrow_exception(p);
  } catch (const gpulab::NoDeviceError& e) {
    const std::string message = std::string("no usable CUDA device: gpulab needs an NVIDIA GPU and its driver (") + e.what() + ")";
    PyErr_SetString(types.no_device, message.c_str());
  } catch (const gpulab::OutOfMemoryError& e) {
    PyErr_SetString(types.out_of_memory, e.what());
  } catch (const gpulab::Error& e) {
    PyErr_SetString(types.error, e.what());
  }
}

/// Makes `device` current for one call and restores the caller's device after it: the frameworks
/// keep their own notion of the current device, and the library works on the current one.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    GPULAB_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) GPULAB_CUDA_CHECK(cudaSetDevice(device));
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
};

/// Temporary storage for the library's calls from Python, which have no place to keep it. One
/// buffer per (device, stream, purpose), zero-filled when made and grown when a call needs more; reduce and
/// scan leave theirs zero-filled again, as their contracts ask. Buffers are keyed by the stream's
/// unique id (cudaStreamGetId), never by its handle: a handle can come back for a new stream after
/// the old one was destroyed with work still queued, an id never does, so a buffer is only ever
/// used in one stream's order and needs no events. A call under stream capture gets a buffer of its
/// capture's own (a graph may be replayed on any stream, beside direct calls), which is never freed:
/// the graph keeps its address. Past kMaxEntries the least recently used buffer is freed (cudaFree
/// waits for the device first).
class ScratchCache {
 public:
  enum class Purpose { reduce, scan, atax, segment_heads, histogram_weighted };
  static constexpr std::size_t kMaxEntries = 64;

  /// Runs `use(pointer, bytes)` on `stream` with at least `bytes` of this purpose's storage.
  template <class Use>
  void with(Purpose purpose, cudaStream_t stream, std::size_t bytes, Use&& use) {
    int device = 0;
    GPULAB_CUDA_CHECK(cudaGetDevice(&device));
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    GPULAB_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, &id));
    const bool capturing = status == cudaStreamCaptureStatusActive;
    if (!capturing) GPULAB_CUDA_CHECK(cudaStreamGetId(stream, &id));  // refused on a capturing stream
    Entry& entry = entries_[{device, capturing, id, purpose}];
    entry.last_use = ++uses_;
    entry.captured = entry.captured || capturing;
    if (entry.buffer.bytes() < bytes) {
      RelaxedCapture relaxed(capturing);  // a capture in global mode refuses cudaMalloc
      gpulab::DeviceBuffer<std::byte> grown(std::max<std::size_t>(bytes, 2 * entry.buffer.bytes()));
      GPULAB_CUDA_CHECK(cudaMemsetAsync(grown.data(), 0, grown.bytes(), stream));  // under capture: a graph node
      retire(entry);
      entry.buffer = std::move(grown);
      entry.captured = capturing;
    }
    use(entry.buffer.data(), entry.buffer.bytes());
    if (entries_.size() > kMaxEntries) evict_least_recent();
  }

 private:
  struct Entry {
    gpulab::DeviceBuffer<std::byte> buffer;
    std::uint64_t last_use = 0;
    bool captured = false;
  };
  // (device, under capture, the stream's id or the capture's id, purpose); the default stream's id
  // is per device
  using Key = std::tuple<int, bool, unsigned long long, Purpose>;

  /// The calling thread's capture mode set to relaxed while it lives, where `on`.
  class RelaxedCapture {
   public:
    explicit RelaxedCapture(bool on) : on_(on) {
      if (on_) GPULAB_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_));
    }
    RelaxedCapture(const RelaxedCapture&) = delete;
    RelaxedCapture& operator=(const RelaxedCapture&) = delete;
    ~RelaxedCapture() {
      if (on_) cudaThreadExchangeStreamCaptureMode(&mode_);
    }

   private:
    bool on_;
    cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  };

  /// Frees an entry's buffer now (cudaFree waits for the work queued on it) or, if a captured graph
  /// may use it, never.
  void retire(Entry& entry) {
    if (entry.captured) kept_for_graphs_.push_back(std::move(entry.buffer));
    entry.buffer = {};
    entry.captured = false;
  }

  void evict_least_recent() {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    retire(oldest->second);
    entries_.erase(oldest);
  }

  std::map<Key, Entry> entries_;
  std::uint64_t uses_ = 0;
  std::vector<gpulab::DeviceBuffer<std::byte>> kept_for_graphs_;
};

// Never destroyed: at interpreter exit the CUDA runtime may already be gone.
inline ScratchCache& scratch() {
  static auto* cache = new ScratchCache;
  return *cache;
}

// ---- the library's calls that take temporary storage, with it from the module's cache ----------

template <class T>
void sum(const T* in, std::size_t n, T* out, cudaStream_t stream) {
  scratch().with(ScratchCache::Purpose::reduce, stream, gpulab::reduce_sum_temp_bytes<T>(n),
                 [&](void* temp, std::size_t bytes) { gpulab::reduce_sum(in, n, out, temp, bytes, stream); });
}

/// Where a scan's segments lie: none (the plain scan), head flags, int32 or int64 keys, or `count`
/// int32 or int64 offsets.
struct Segments {
  enum class Form { none, flags, keys32, keys64, offsets32, offsets64 } form = Form::none;
  const void* at = nullptr;
  std::size_t count = 0;
};

/// The scan of in[0, n), or the segmented scan over `segments` (gpulab/scan.hpp). All take the same
/// temporary storage: the same cache entry.
template <class In>
void scan(const In* in, gpulab::scan_result_t<In>* out, std::size_t n, bool inclusive, cudaStream_t stream,
          Segments segments = {}) {
  scratch().with(ScratchCache::Purpose::scan, stream, gpulab::scan_temp_bytes<In>(n), [&](void* temp, std::size_t bytes) {
    const auto by_key = [&](const auto* keys) {
      if (inclusive) gpulab::inclusive_segmented_scan_by_key(in, keys, out, n, temp, bytes, stream);
      else gpulab::exclusive_segmented_scan_by_key(in, keys, out, n, temp, bytes, stream);
    };
    const auto by_flags = [&](const std::uint8_t* flags) {
      if (inclusive) gpulab::inclusive_segmented_scan(in, flags, out, n, temp, bytes, stream);
      else gpulab::exclusive_segmented_scan(in, flags, out, n, temp, bytes, stream);
    };
    // Offsets become head flags first, in storage of their own (the scan's must stay as it leaves it).
    const auto by_offsets = [&](const auto* offsets) {
      scratch().with(ScratchCache::Purpose::segment_heads, stream, n, [&](void* flags, std::size_t) {
        gpulab::segment_heads_from_offsets(offsets, segments.count, n, static_cast<std::uint8_t*>(flags), stream);
        by_flags(static_cast<const std::uint8_t*>(flags));
      });
    };
    switch (segments.form) {
      case Segments::Form::flags: return by_flags(static_cast<const std::uint8_t*>(segments.at));
      case Segments::Form::offsets32: return by_offsets(static_cast<const std::int32_t*>(segments.at));
      case Segments::Form::offsets64: return by_offsets(static_cast<const std::int64_t*>(segments.at));
      case Segments::Form::keys32: return by_key(static_cast<const std::int32_t*>(segments.at));
      case Segments::Form::keys64: return by_key(static_cast<const std::int64_t*>(segments.at));
      case Segments::Form::none:
        if (inclusive) gpulab::inclusive_scan(in, out, n, temp, bytes, stream);
        else gpulab::exclusive_scan(in, out, n, temp, bytes, stream);
        return;
    }
  });
}

template <class W>
void histogram_weighted(const std::int32_t* values, const W* weights, std::size_t n, std::uint32_t m, W* sums,
                        cudaStream_t stream) {
  scratch().with(ScratchCache::Purpose::histogram_weighted, stream, gpulab::histogram_weighted_temp_bytes(n, m),
                 [&](void* temp, std::size_t bytes) { gpulab::histogram_weighted(values, weights, n, m, sums, temp, bytes, stream); });
}

inline void atax(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, cudaStream_t stream) {
  scratch().with(ScratchCache::Purpose::atax, stream, gpulab::atax_temp_bytes(rows, cols),
                 [&](void* temp, std::size_t bytes) { gpulab::atax(a, x, rows, cols, y, temp, bytes, stream); });
}

/// gpulab.sgemm's precision= names, as the library's SgemmPrecision; none for a name it does not know.
inline std::optional<gpulab::SgemmPrecision> sgemm_precision(std::string_view name) {
  if (name == "fp32") return gpulab::SgemmPrecision::fp32;
  if (name == "fp32_tensor") return gpulab::SgemmPrecision::fp32_tensor;
  if (name == "tf32") return gpulab::SgemmPrecision::tf32;
  return std::nullopt;
}

inline std::string unknown_sgemm_precision(const char* what, std::string_view name) {
  return std::string(what) + ": precision must be 'fp32', 'fp32_tensor' or 'tf32', got '" + std::string(name) + "'";
}

}  // namespace gpulab_python
