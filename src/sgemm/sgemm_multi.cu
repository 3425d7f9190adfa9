// gpulab::multi::sgemm with A split by rows: each rank computes its rows of C (gpulab::sgemm), and
// each rank's rows are broadcast from it — for large blocks of rows in pieces, each piece's
// broadcasts while the next piece is computed. Nothing is added across ranks.
#include <gpulab/multi/sgemm.hpp>
#include <gpulab/sgemm.hpp>

#include "lib/multi_phases.cuh"

#include <algorithm>

namespace gpulab::multi {
namespace {

using namespace detail;

/// How many pieces each rank computes and sends its rows of C in: each piece's broadcasts run
/// while the next piece is computed. A piece keeps at least 2^24 elements of C (about four waves of
/// 128×256 tiles on 132 SMs), so that cutting the rows costs the sgemm little; at most four. From
/// m, n and the rank count alone: every rank must make as many pieces.
constexpr std::size_t kPieceElements = std::size_t{1} << 24;
std::size_t piece_count(std::size_t m, std::size_t n, int ranks) {
  if (ranks < 2) return 1;
  return std::clamp<std::size_t>(m / static_cast<std::size_t>(ranks) * n / kPieceElements, 1, 4);
}

Phases sgemm_phases(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, Place place, cudaStream_t stream) {
  const Rows mine = rows_of(m, place.rank, place.ranks);
  require(m == 0 || n == 0 || c != nullptr, "sgemm: a null C");
  // Rows [begin, end) of C, a_rows' rows from `begin` of this rank's block.
  const auto rows_of_c = [=](Rows r) {
    return [=] {
      if (r.end > r.begin)
        gpulab::sgemm(r.end - r.begin, n, k, alpha, a_rows + (r.begin - mine.begin) * lda, lda, b, ldb, beta,
                      c + r.begin * n, n, stream);
    };
  };
  const std::size_t count = piece_count(m, n, place.ranks);
  if (count == 1) return {rows_of_c(mine), row_block_broadcasts(c, m, n, ncclFloat32, place.ranks)};
  // Piece j of every rank's block of rows (rows_of again, within the block), broadcast from it.
  const auto piece = [=](int rank, std::size_t j) {
    const Rows block = rows_of(m, rank, place.ranks);
    const Rows part = rows_of(block.end - block.begin, static_cast<int>(j), static_cast<int>(count));
    return Rows{block.begin + part.begin, block.begin + part.end};
  };
  std::vector<Piece> pieces;
  for (std::size_t j = 0; j < count; ++j) {
    Piece p{rows_of_c(piece(place.rank, j)), {}};
    for (int q = 0; q < place.ranks; ++q)
      if (const Rows r = piece(q, j); r.end > r.begin && n > 0)
        p.collectives.push_back(broadcast(c + r.begin * n, (r.end - r.begin) * n, ncclFloat32, q));
    pieces.push_back(std::move(p));
  }
  return Phases(std::move(pieces));
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
