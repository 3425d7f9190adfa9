#include "core/clocks.hpp"

#include "core/report.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <array>

namespace gpulab {
namespace {

// The few NVML entry points used, declared here so that the build needs no NVML header or library.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;

struct Nvml {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  bool ok = false;
};

const Nvml& nvml() {
  static const Nvml lib = [] {
    Nvml n;
    void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return n;
    auto sym = [handle](const char* name) { return dlsym(handle, name); };
    n.init = reinterpret_cast<decltype(n.init)>(sym("nvmlInit_v2"));
    n.by_pci = reinterpret_cast<decltype(n.by_pci)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock = reinterpret_cast<decltype(n.clock)>(sym("nvmlDeviceGetClockInfo"));
    n.max_clock = reinterpret_cast<decltype(n.max_clock)>(sym("nvmlDeviceGetMaxClockInfo"));
    n.reasons = reinterpret_cast<decltype(n.reasons)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    n.ok = n.init && n.by_pci && n.clock && n.max_clock && n.init() == 0;
    return n;
  }();
  return lib;
}

}  // namespace

std::optional<ClockReading> read_clocks(int cuda_index, std::string* why) {
  auto fail = [why](const char* reason) -> std::optional<ClockReading> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const Nvml& n = nvml();
  if (!n.ok) return fail("NVML (libnvidia-ml.so.1) is not available");
  std::array<char, 64> bus{};
  if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), cuda_index) != cudaSuccess) {
    cudaGetLastError();
    return fail("the device's PCI bus id is unknown");
  }
  nvmlDevice_t device = nullptr;
  if (n.by_pci(bus.data(), &device) != 0) return fail("NVML does not know the device");
  ClockReading r;
  if (n.clock(device, kNvmlClockSm, &r.sm_mhz) != 0 || n.clock(device, kNvmlClockMem, &r.memory_mhz) != 0)
    return fail("NVML did not report the clocks");
  n.max_clock(device, kNvmlClockSm, &r.max_sm_mhz);
  if (n.reasons) n.reasons(device, &r.throttle_reasons);
  r.utc = utc_now();
  return r;
}

}  // namespace gpulab
