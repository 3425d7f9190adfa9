#include "lib/copy_rows.hpp"

#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <cstdint>
#include <string>

namespace gpulab {
namespace {

constexpr unsigned kCopyBlock = 256;
constexpr std::size_t kPiece = 16;  // bytes a thread writes: four 4-byte stores

/// Thread p of row y writes the row's bytes [head + 16p, head + 16p + 16), head the bytes before
/// the row's first 4-byte boundary in dst, as four aligned words. Each word is two of the five
/// aligned source words that cover its bytes, funnel-shifted into place. Pieces whose five source
/// words would reach outside the row (its first and last), the head and the tail go byte by byte.
__global__ void __launch_bounds__(kCopyBlock)
copy_rows_kernel(const std::uint8_t* __restrict__ src, std::size_t src_pitch, std::uint8_t* __restrict__ dst,
                 std::size_t dst_pitch, std::size_t row_bytes, std::size_t rows) {
  const std::size_t piece = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (std::size_t y = blockIdx.y; y < rows; y += gridDim.y) {
    const std::uint8_t* s = src + y * src_pitch;
    std::uint8_t* d = dst + y * dst_pitch;
    const std::size_t head = min(row_bytes, (4 - reinterpret_cast<std::uintptr_t>(d) % 4) % 4);
    if (piece == 0)
      for (std::size_t b = 0; b < head; ++b) d[b] = s[b];
    const std::size_t first = head + piece * kPiece;
    if (first >= row_bytes) continue;
    const std::size_t end = min(row_bytes, first + kPiece);
    const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(s + first);
    const std::uintptr_t base = from & ~std::uintptr_t{3};
    const bool words = end - first == kPiece && base >= reinterpret_cast<std::uintptr_t>(s) &&
                       base + 20 <= reinterpret_cast<std::uintptr_t>(s + row_bytes);
    if (words) {
      const auto* w = reinterpret_cast<const std::uint32_t*>(base);
      const unsigned shift = 8 * static_cast<unsigned>(from - base);
      std::uint32_t in[5];
#pragma unroll
      for (int i = 0; i < 5; ++i) in[i] = w[i];
      auto* out = reinterpret_cast<std::uint32_t*>(d + first);  // 4-byte aligned: first − head is a multiple of 16
#pragma unroll
      for (int i = 0; i < 4; ++i) out[i] = __funnelshift_r(in[i], in[i + 1], shift);
    } else {
      for (std::size_t b = first; b < end; ++b) d[b] = s[b];
    }
  }
}

}  // namespace

void copy_rows(const void* src, std::size_t src_pitch, void* dst, std::size_t dst_pitch, std::size_t row_bytes,
               std::size_t rows, cudaStream_t stream) {
  if (rows == 0 || row_bytes == 0) return;
  const dim3 grid(checked_grid(ceil_div(ceil_div(row_bytes, kPiece), std::size_t{kCopyBlock}), "copy_rows"),
                  capped_grid_y(rows));
  launch("copy_rows", copy_rows_kernel, {grid, kCopyBlock}, stream, static_cast<const std::uint8_t*>(src), src_pitch,
         static_cast<std::uint8_t*>(dst), dst_pitch, row_bytes, rows)
      .work([] { return std::string("16 bytes of a row a thread, four aligned stores"); });
}

}  // namespace gpulab
