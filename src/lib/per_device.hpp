// The one way gpulab caches a fact about a device (an occupancy, an attribute, a kernel setting
// made once): computed on first use from that device, then read without a lock. The library's
// functions are called with sizes small enough for a microsecond of querying to matter.
#pragma once

#include <gpulab/error.hpp>

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <string>

namespace gpulab {

/// The device this thread is using (cudaGetDevice, errors thrown).
inline int current_device() {
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

/// Makes the caller's current device current again when the scope ends, however it ends: for code
/// that visits several devices in turn (a rank each).
class KeepCurrentDevice {
 public:
  KeepCurrentDevice() : device_(current_device()) {}
  ~KeepCurrentDevice() { (void)cudaSetDevice(device_); }
  KeepCurrentDevice(const KeepCurrentDevice&) = delete;
  KeepCurrentDevice& operator=(const KeepCurrentDevice&) = delete;

 private:
  int device_;
};

/// One value of T per device, made by `compute()` the first time it is asked for on that device.
template <class T>
class PerDevice {
 public:
  static constexpr std::size_t kMaxDevices = 64;

  template <class Compute>
  const T& get(Compute&& compute) {
    const int device = current_device();
    if (device < 0 || static_cast<std::size_t>(device) >= kMaxDevices)
      throw Error("gpulab supports device indices below " + std::to_string(kMaxDevices));
    Slot& slot = slots_[static_cast<std::size_t>(device)];
    std::call_once(slot.once, [&] { slot.value = compute(); });
    return slot.value;
  }

 private:
  struct Slot {
    std::once_flag once;
    T value{};
  };
  std::array<Slot, kMaxDevices> slots_;
};

}  // namespace gpulab
