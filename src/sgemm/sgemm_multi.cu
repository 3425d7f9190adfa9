// gpulab::multi::sgemm with A split by rows: each rank computes its rows of C (gpulab::sgemm).
// From one process whose GPUs reach each other's memory, each rank writes its rows into every
// rank's C as its tiles are made; otherwise each rank's rows go to every other after they are made
// (row_block_gather), a large product in stages, each part's rows broadcast while the next part is
// computed. Nothing is added across ranks.
#include <gpulab/multi/sgemm.hpp>
#include <gpulab/sgemm.hpp>

#include "lib/arith.hpp"
#include "lib/multi_phases.cuh"
#include "sgemm/sgemm_paths.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace gpulab {

std::size_t sgemm_detail::multi_sgemm_stages(std::size_t m, std::size_t n, int ranks) {
  // At 16384³ over four H100s the broadcasts of C (768 MB into each GPU) took 2.4 ms after 44 ms
  // of compute, 5% (8cc802d). In s stages only the last stage's gather is left after the compute;
  // at most four. NCCL's kernels take SMs from the next stage's product: a stage keeps at least
  // 512 tiles of 128 × 128 (four waves on 132 SMs). 4096³ over four stays one stage.
  if (ranks < 2) return 1;
  const std::size_t rows = ceil_div(m, static_cast<std::size_t>(ranks));  // the largest rank's
  return std::clamp<std::size_t>(ceil_div(rows, 128) * ceil_div(n, 128) / 512, 1, 4);
}

namespace multi {
namespace {

using namespace detail;

/// Whether a rank may write its rows into every rank's C as it makes them: one process whose GPUs
/// write each other's memory, every C lying alike modulo 16 bytes (C's 16-byte stores are the
/// copies' too) and at most GemmArgs::kMaxCopies others. The same answer on every rank.
bool writes_every_c(Place place, std::span<float* const> every_c) {
  if (!place.peer_writes || every_c.size() != static_cast<std::size_t>(place.ranks) ||
      place.ranks > sgemm_detail::GemmArgs::kMaxCopies + 1)
    return false;
  for (float* c : every_c)
    if (c == nullptr || (reinterpret_cast<std::uintptr_t>(c) - reinterpret_cast<std::uintptr_t>(every_c[0])) % 16 != 0) return false;
  return true;
}

/// `every_c`: each rank's C, where the caller passes every rank (one process), else empty.
Phases sgemm_phases(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, std::span<float* const> every_c, Place place,
                    cudaStream_t stream) {
  const Rows mine = rows_of(m, place.rank, place.ranks);
  require(m == 0 || n == 0 || c != nullptr, "sgemm: a null C");
  if (writes_every_c(place, every_c)) {
    // The rows written to every rank's C as the tiles are made (sgemm_with_copies): nothing is sent
    // after the product. Four H200s, same run: 16384³ 3.89× where the stages left 3.82×, 4096³
    // 3.23× where the all-gather after the product left 3.10× (8c9617c; docs/multi_gpu.md).
    std::vector<float*> copies;
    for (int q = 0; q < place.ranks; ++q)
      if (q != place.rank) copies.push_back(every_c[static_cast<std::size_t>(q)] + mine.begin * n);
    Phases p{[=] {
               sgemm_detail::sgemm_with_copies(Op::as_is, Op::as_is, mine.end - mine.begin, n, k, alpha, a_rows, lda, b, ldb, beta,
                                               c + mine.begin * n, n, copies, stream);
             },
             {}};
    p.writes_peers = true;
    return p;
  }
  const std::size_t stages = sgemm_detail::multi_sgemm_stages(m, n, place.ranks);
  auto stage = [=](std::size_t s) {
    return Stage{[=] {
                   const Rows part = rows_of(mine.end - mine.begin, static_cast<int>(s), static_cast<int>(stages));
                   if (part.end > part.begin)
                     gpulab::sgemm(part.end - part.begin, n, k, alpha, a_rows + part.begin * lda, lda, b, ldb, beta,
                                   c + (mine.begin + part.begin) * n, n, stream);
                 },
                 row_block_gather(c, m, n, ncclFloat32, place, s, stages)};
  };
  Stage first = stage(0);
  Phases p{std::move(first.local), std::move(first.collectives)};
  for (std::size_t s = 1; s < stages; ++s) p.later.push_back(stage(s));
  return p;
}

}  // namespace

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream) {
  run_one(comm, stream,
          [&](Place place) { return sgemm_phases(m, n, k, alpha, a_rows, lda, b, ldb, beta, c, {}, place, stream); });
}

void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta) {
  std::vector<float*> every_c;
  for (const SgemmRank& r : ranks) every_c.push_back(r.c);
  run_ranks(ranks, [&](const SgemmRank& r, Place place) {
    return sgemm_phases(m, n, k, alpha, r.a_rows, lda, r.b, ldb, beta, r.c, every_c, place, r.stream);
  });
}

}  // namespace multi
}  // namespace gpulab
