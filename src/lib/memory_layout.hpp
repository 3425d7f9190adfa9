// Facts about rows of data in device memory that the library's argument checks and path choices
// share: the bytes a row-pitched array spans, whether two spans overlap, whether every row starts
// on 16 bytes (the 16-byte access paths); and the parts of one temporary allocation, laid end to end.
#pragma once

#include "lib/arith.hpp"

#include <cstddef>
#include <cstdint>

namespace gpulab {

/// Bytes [first, last); empty when first == last.
struct ByteRange {
  std::uintptr_t first = 0, last = 0;
};

/// What `rows` rows of `row_bytes`, `pitch_bytes` apart from `data`, span (the padding between
/// rows included, not after the last); empty when there are no rows or no bytes in a row.
inline ByteRange rows_span(const void* data, std::size_t rows, std::size_t row_bytes, std::size_t pitch_bytes) {
  if (rows == 0 || row_bytes == 0) return {};
  const auto first = reinterpret_cast<std::uintptr_t>(data);
  return {first, first + (rows - 1) * pitch_bytes + row_bytes};
}

inline bool overlap(ByteRange x, ByteRange y) { return x.first < y.last && y.first < x.last; }

/// Whether each of `rows` rows `pitch_bytes` apart from `data` starts on a 16-byte boundary.
inline bool rows_aligned16(const void* data, std::size_t pitch_bytes, std::size_t rows) {
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 && (pitch_bytes % 16 == 0 || rows <= 1);
}

/// Parts of one temporary allocation laid end to end, each starting on `kAlign` bytes: take() gives
/// a part's offset, `total` the bytes of all so far.
struct Offsets {
  static constexpr std::size_t kAlign = 256;
  std::size_t total = 0;
  std::size_t take(std::size_t bytes) {
    const std::size_t start = total;
    total = align_up(total + bytes, kAlign);
    return start;
  }
};

}  // namespace gpulab
