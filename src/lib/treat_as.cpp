#include "lib/treat_as.hpp"

#include <gpulab/error.hpp>

#include <cstdlib>
#include <iterator>

namespace gpulab {
namespace {

// Each family's reference GPU, from NVIDIA's tables of compute capabilities (bytes).
constexpr GpuFamily kFamilies[] = {
    {"sm_75", "T4", 75, 64 << 10, 64 << 10, 4 << 20, 1024, 16},
    {"sm_80", "A100", 80, 164 << 10, 163 << 10, 40 << 20, 2048, 32},
    {"sm_86", "A10, RTX 3090", 86, 100 << 10, 99 << 10, 6 << 20, 1536, 16},
    {"sm_89", "L4, RTX 4090", 89, 100 << 10, 99 << 10, 48 << 20, 1536, 24},
};

}  // namespace

const GpuFamily* gpu_family(std::string_view word) {
  for (const GpuFamily& f : kFamilies)
    if (f.name == word) return &f;
  return nullptr;
}

std::string gpu_family_names() {
  std::string out;
  for (const GpuFamily& f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

const GpuFamily* treated_as() {
  static const GpuFamily* const family = [] {
    const char* word = std::getenv("GPULAB_TREAT_AS");
    if (word == nullptr || *word == '\0') return static_cast<const GpuFamily*>(nullptr);
    const GpuFamily* f = gpu_family(word);
    if (f == nullptr)
      throw Error("GPULAB_TREAT_AS=" + std::string(word) + " names no GPU family (" + gpu_family_names() + ")");
    return f;
  }();
  return family;
}

int treated_attribute(cudaDeviceAttr attribute, int real) { return family_attribute(treated_as(), attribute, real); }

int family_attribute(const GpuFamily* f, cudaDeviceAttr attribute, int real) {
  if (f == nullptr) return real;
  switch (attribute) {
    case cudaDevAttrComputeCapabilityMajor: return f->compute_capability / 10;
    case cudaDevAttrComputeCapabilityMinor: return f->compute_capability % 10;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return f->smem_per_block_optin;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return f->smem_per_sm;
    case cudaDevAttrL2CacheSize: return f->l2_bytes;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return f->max_threads_per_sm;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return f->max_blocks_per_sm;
    case cudaDevAttrClusterLaunch: return f->compute_capability >= 90 ? real : 0;
    default: return real;
  }
}

}  // namespace gpulab
