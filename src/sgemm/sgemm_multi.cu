// gpulab::multi::sgemm with A split by rows: each rank computes its rows of C (gpulab::sgemm), then
// each rank's rows are broadcast from it. Nothing is added across ranks.
#include <gpulab/multi/sgemm.hpp>
#include <gpulab/sgemm.hpp>

#include "lib/multi_phases.cuh"

namespace gpulab::multi {
namespace {

using namespace detail;

Phases sgemm_phases(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, Place place, cudaStream_t stream) {
  const Rows mine = rows_of(m, place.rank, place.ranks);
  require(m == 0 || n == 0 || c != nullptr, "sgemm: a null C");
  return {[=] {
            if (mine.end > mine.begin)
              gpulab::sgemm(mine.end - mine.begin, n, k, alpha, a_rows, lda, b, ldb, beta, c + mine.begin * n, n, stream);
          },
          row_block_broadcasts(c, m, n, ncclFloat32, place.ranks)};
}

}  // namespace

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream) {
  run_one(comm, stream,
          [&](Place place) { return sgemm_phases(m, n, k, alpha, a_rows, lda, b, ldb, beta, c, place, stream); });
}

void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta) {
  run_ranks(ranks, [&](const SgemmRank& r, Place place) {
    return sgemm_phases(m, n, k, alpha, r.a_rows, lda, r.b, ldb, beta, r.c, place, r.stream);
  });
}

}  // namespace gpulab::multi
