// gpulab/conv.hpp — a 3×3 integer filter over an interleaved 8-bit RGB image, the top rung of
// gpulab's convolution ladder.
//
//   gpulab::Filter3x3 sharpen{{0, -1, 0, -1, 5, -1, 0, -1, 0}, 1};
//   gpulab::conv3x3(d_in, in_pitch, d_out, out_pitch, width, height, sharpen,
//                   gpulab::Border::replicate, stream);
//
// Contract
// - Images are width × height pixels of 3 bytes (R, G, B) in device memory, row y starting
//   `pitch` bytes after the image's start (≥ 3·width; cudaMallocPitch's, or packed). Sides from 1
//   to 2^20, at most 2^31 pixels. Padding bytes are never read or written.
// - Per channel: s = Σ k[3·(dy+1) + (dx+1)] · p(x+dx, y+dy) for dx, dy in −1..1 (a correlation, as
//   OpenCV's filter2D), computed exactly in int32; out = s / divisor rounded to nearest, ties away
//   from zero, clamped to [0, 255]. Pixels outside the image follow `border`: replicate (the edge
//   pixel), zero, or mirror (reflect without repeating the edge: −1 → 1; a side of 1 pixel
//   replicates). Results are exact: every rung and the CPU give the same bytes.
// - In and out must not overlap. Work is issued on `stream`. Rows may start at any byte (packed
//   rows of any width, offset pointers); filters whose weights' magnitudes sum to at most 128 (every
//   named filter) run on them at full width. Large images (2^24 pixels up) whose rows do not start
//   on 16-byte boundaries, filtered by larger weights, are staged: copied to 16-byte-aligned rows
//   in gpulab's stream-ordered pool, filtered there and copied back (two copies of the image's
//   size, given back in stream order; if the pool cannot grow, the path without them). Nothing
//   else is allocated.
// - Throws gpulab::Error on a zero divisor, weights whose sums could overflow int32 (|k| summed
//   over the nine above 2^22), a bad image (null data, pitch < 3·width, sides out of range),
//   overlapping images, and on any CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpulab {

struct Filter3x3 {
  int k[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};  // row by row: k[0..2] the row above
  int divisor = 1;
};

enum class Border { replicate, zero, mirror };

/// The filters known by name: "box" (1/9 each), "gaussian" (1,2,1,2,4,2,1,2,1/16), "sharpen"
/// (0,-1,0,-1,5,-1,0,-1,0), "edge" (-1 around 8), "emboss" (-2,-1,0,-1,1,1,0,1,2); nullopt for
/// any other name.
std::optional<Filter3x3> named_filter(std::string_view name);
/// "box, gaussian, sharpen, edge, emboss", for messages.
std::string_view named_filter_list();
/// "replicate", "zero", "mirror" → the border rule; nullopt otherwise.
std::optional<Border> parse_border(std::string_view name);
std::string_view border_name(Border b);

void conv3x3(const std::uint8_t* in, std::size_t in_pitch, std::uint8_t* out, std::size_t out_pitch, std::size_t width,
             std::size_t height, const Filter3x3& filter, Border border = Border::replicate, cudaStream_t stream = nullptr);

}  // namespace gpulab
