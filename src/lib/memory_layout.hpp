// Facts about rows of data in device memory that the library's argument checks and path choices
// share: the bytes a row-pitched array spans, whether two spans overlap, whether every row starts
// on 16 bytes (the 16-byte access paths).
#pragma once

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

}  // namespace gpulab
