// gpulab/multi/conv.hpp — gpulab::conv3x3 over several GPUs, the image split by rows.
// The contract every multi-GPU function shares is gpulab/multi_gpu.hpp's. The second form takes
// every rank at once, for one process driving several GPUs (communicators from ncclCommInitAll).
#pragma once

#include <gpulab/multi_gpu.hpp>
#include <gpulab/conv.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::multi {

/// gpulab::conv3x3 with the image split by rows: this rank passes its rows rows_of(height, …) with
/// one row more above and below where the image has them (`band`: rows lo = max(begin, 1) − 1 up
/// to hi = min(end + 1, height), in_pitch apart). Each rank filters its band (the extra rows give
/// its edge rows their true neighbours; the border rule applies at the image's edges only).
/// Gather::all: `out` is the whole output image packed (3·width bytes a row) on every rank, and each
/// rank's rows are broadcast from it: every rank ends with the whole image, byte for byte the
/// one-GPU result. Gather::none: `out` is shaped like the band (rows lo … hi − 1, packed); its rows
/// begin … end − 1 are the result's, the neighbours' rows around them are left unspecified (ghost
/// rows), and nothing is communicated.
void conv3x3(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width, std::size_t height,
             const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream = nullptr,
             Gather gather = Gather::all);

/// Every rank at once, each with its device (one process driving several GPUs).
struct ConvRank {
  int device;
  const std::uint8_t* band;
  std::size_t in_pitch;
  std::uint8_t* out;
  ncclComm_t comm;
  cudaStream_t stream;
};
void conv3x3(std::span<const ConvRank> ranks, std::size_t width, std::size_t height, const Filter3x3& filter,
             Border border, Gather gather = Gather::all);

}  // namespace gpulab::multi
