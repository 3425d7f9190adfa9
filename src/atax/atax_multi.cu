// gpulab::multi::atax with A split by rows: each rank computes A_rᵀ(A_r·x) of its rows
// (gpulab::atax), the partial vectors are gathered, and every rank adds them in rank order.
#include <gpulab/atax.hpp>
#include <gpulab/multi/atax.hpp>

#include "lib/launch.cuh"
#include "lib/multi_phases.cuh"

namespace gpulab::multi {
namespace {

using namespace detail;

/// y[j] = Σ_r parts[r·cols + j] in rank order, a thread per column.
__global__ void add_columns_in_rank_order(const float* parts, int ranks, std::uint32_t cols, float* y) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = parts[j];
  for (int r = 1; r < ranks; ++r) s += parts[std::size_t(r) * cols + j];
  y[j] = s;
}

TempLayout atax_layout(std::uint32_t rows, std::uint32_t cols, int ranks) {
  return TempLayout(rows > 0 ? gpulab::atax_temp_bytes(rows, cols) : 0, std::size_t{cols} * sizeof(float), ranks);
}

Phases atax_phases(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                   std::size_t temp_bytes, Place place, cudaStream_t stream) {
  require(cols > 0, "atax: cols must be at least 1");
  require(y != nullptr && temp != nullptr, "atax: a null output or temporary storage");
  const TempLayout layout = atax_layout(rows, cols, place.ranks);
  require(temp_bytes >= layout.total, "atax: temporary storage smaller than atax_temp_bytes(rows, cols, ranks)");
  float* partial = layout.partial_in<float>(temp);
  float* gathered = layout.gathered_in<float>(temp);
  return {[=] {
            if (rows > 0) gpulab::atax(a_rows, x, rows, cols, partial, temp, layout.local, stream);
            else GPULAB_CUDA_CHECK(cudaMemsetAsync(partial, 0, std::size_t{cols} * sizeof(float), stream));
          },
          {all_gather(partial, gathered, cols, ncclFloat32)},
          [=] {
            launch("add_columns_in_rank_order", add_columns_in_rank_order,
                   {static_cast<unsigned>(ceil_div(cols, 256)), 256}, stream, gathered, place.ranks, cols, y);
          }};
}

}  // namespace

std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols, int ranks) { return atax_layout(rows, cols, ranks).total; }

void atax(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream) {
  run_one(comm, stream, [&](Place place) { return atax_phases(a_rows, x, rows, cols, y, temp, temp_bytes, place, stream); });
}

void atax(std::span<const AtaxRank> ranks, std::uint32_t cols) {
  run_ranks(ranks, [cols](const AtaxRank& r, Place place) {
    return atax_phases(r.a_rows, r.x, r.rows, cols, r.y, r.temp, r.temp_bytes, place, r.stream);
  });
}

}  // namespace gpulab::multi
