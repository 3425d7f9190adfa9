#include "conv/npp_filter.hpp"

#include "core/device_info.hpp"
#include "lib/per_device.hpp"

#include <gpulab/error.hpp>

#include <dlfcn.h>
#include <fmt/format.h>

#include <climits>
#include <cstdint>

namespace gpulab {

namespace {

// NPP's ABI as its headers (nppdefs.h, CUDA 13) declare it.
struct NppiSize {
  int width, height;
};
struct NppiPoint {
  int x, y;
};
struct NppStreamContext {
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  std::size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  std::uint32_t hWorkspace;  // 0: none
};
constexpr int kNppBorderReplicate = 2;
using FilterBorder = int (*)(const std::uint8_t*, int, NppiSize, NppiPoint, std::uint8_t*, int, NppiSize, const std::int32_t*,
                             NppiSize, NppiPoint, int, int, NppStreamContext);

struct Npp {
  FilterBorder filter_border = nullptr;
  std::string why;
};

const Npp& npp() {
  static const Npp loaded = [] {
    Npp n;
    void* lib = nullptr;
    for (const char* name : {"libnppif.so.13", "libnppif.so", "/usr/local/cuda/lib64/libnppif.so.13"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (lib == nullptr) {
      n.why = fmt::format("NPP not found (libnppif.so.13: {})", dlerror());
      return n;
    }
    n.filter_border = reinterpret_cast<FilterBorder>(dlsym(lib, "nppiFilterBorder_8u_C3R_Ctx"));
    if (n.filter_border == nullptr) n.why = "libnppif has no nppiFilterBorder_8u_C3R_Ctx";
    return n;
  }();
  return loaded;
}

int npp_int(std::size_t x, const char* what) {
  if (x > static_cast<std::size_t>(INT_MAX)) throw Error(fmt::format("NPP takes int sizes: {} = {}", what, x));
  return static_cast<int>(x);
}

}  // namespace

std::optional<std::string> npp_unavailable() {
  if (!npp().why.empty()) return npp().why;
  return std::nullopt;
}

void npp_filter_border(const conv_device::ConvArgs& a, cudaStream_t stream) {
  if (const auto why = npp_unavailable()) throw Error(*why);
  if (a.border != Border::replicate) throw Error("NPP's FilterBorder supports only the replicate border");
  static PerDevice<NppStreamContext> contexts;
  NppStreamContext ctx = contexts.get([] {
    const DeviceFacts d = query_device(current_device());
    NppStreamContext c{};
    c.nCudaDeviceId = d.index;
    c.nMultiProcessorCount = d.sm_count;
    c.nMaxThreadsPerMultiProcessor = d.max_threads_per_sm;
    c.nMaxThreadsPerBlock = d.max_threads_per_block;
    c.nSharedMemPerBlock = d.smem_per_block;
    c.nCudaDevAttrComputeCapabilityMajor = d.cc_major;
    c.nCudaDevAttrComputeCapabilityMinor = d.cc_minor;
    return c;
  });
  ctx.hStream = stream;
  GPULAB_CUDA_CHECK(cudaStreamGetFlags(stream, &ctx.nStreamFlags));
  const NppiSize size{a.width, a.height};
  const int status = npp().filter_border(a.in, npp_int(a.in_pitch, "in pitch"), size, {0, 0}, a.out,
                                         npp_int(a.out_pitch, "out pitch"), size, a.weights_reversed, {3, 3}, {1, 1},
                                         a.filter.divisor, kNppBorderReplicate, ctx);
  if (status < 0) throw Error(fmt::format("nppiFilterBorder_8u_C3R_Ctx returned NPP error {}", status));  // > 0: warnings
}

}  // namespace gpulab
