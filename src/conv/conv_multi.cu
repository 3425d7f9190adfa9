// gpulab::multi::conv3x3 with the image split by rows: each rank filters its band (its rows and a
// neighbour's row above and below); each rank's rows then go to every rank (Gather::all:
// row_block_gather) or stay where they are (Gather::none).
#include <gpulab/conv.hpp>
#include <gpulab/multi/conv.hpp>

#include "lib/multi_phases.cuh"

#include <algorithm>

namespace gpulab::multi {
namespace {

using namespace detail;

Phases conv_phases(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width,
                   std::size_t height, const Filter3x3& filter, Border border, Gather gather, Place place,
                   cudaStream_t stream) {
  const Rows mine = rows_of(height, place.rank, place.ranks);
  // Gather::none: a rank without rows (more ranks than rows) has nothing to write, and may pass none.
  const bool writes = width > 0 && (gather == Gather::all ? height > 0 : mine.end > mine.begin);
  require(!writes || out != nullptr, "conv3x3: a null output");
  const std::size_t row_bytes = 3 * width;
  const std::size_t lo = mine.begin > 0 ? mine.begin - 1 : 0;
  // The band's rows lo … hi − 1, filtered into the same rows of the whole image, or of an output
  // shaped like the band: the rows outside [begin, end) see the band's edge as a border, and are
  // overwritten by their owners' rows (Gather::all) or left as ghost rows (Gather::none).
  std::uint8_t* band_out = gather == Gather::all ? out + lo * row_bytes : out;
  return {[=] {
            if (mine.end == mine.begin || width == 0) return;
            const std::size_t hi = std::min(mine.end + 1, height);
            gpulab::conv3x3(band, in_pitch, band_out, row_bytes, width, hi - lo, filter, border, stream);
          },
          gather == Gather::all ? row_block_gather(out, height, row_bytes, ncclUint8, place)
                                : std::vector<Collective>{}};
}

}  // namespace

void conv3x3(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width, std::size_t height,
             const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream, Gather gather) {
  run_one(comm, stream, [&](Place place) {
    return conv_phases(band, in_pitch, out, width, height, filter, border, gather, place, stream);
  });
}

void conv3x3(std::span<const ConvRank> ranks, std::size_t width, std::size_t height, const Filter3x3& filter,
             Border border, Gather gather) {
  run_ranks(ranks, [&](const ConvRank& r, Place place) {
    return conv_phases(r.band, r.in_pitch, r.out, width, height, filter, border, gather, place, r.stream);
  });
}

}  // namespace gpulab::multi
