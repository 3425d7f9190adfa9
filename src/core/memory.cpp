#include "core/memory.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <unistd.h>

namespace gpulab {

void require_device_bytes(std::size_t bytes, std::string_view what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr std::size_t kMargin = 64u << 20;  // allocator granularity, CUB/cuBLAS handles
  if (bytes + kMargin > free_bytes) {
    throw Error(fmt::format("{} needs {} bytes ({:.2f} GiB) of device memory, but only {} bytes "
                            "({:.2f} GiB) of {:.2f} GiB are free",
                            what, bytes, static_cast<double>(bytes) / (1u << 30), free_bytes,
                            static_cast<double>(free_bytes) / (1u << 30),
                            static_cast<double>(total_bytes) / (1u << 30)));
  }
}

std::size_t host_memory_allowance() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2
                               : std::size_t{1} << 32;
}

void poison_device(void* ptr, std::size_t bytes, unsigned char byte, void* stream) {
  if (bytes == 0) return;
  GPULAB_CUDA_CHECK(cudaMemsetAsync(ptr, byte, bytes, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpulab
