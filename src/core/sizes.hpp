// Parsing and printing sizes the way people write them: 1000, 2^24, 2^20+1, 2^30-1.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpulab {

/// "16777216", "2^24", "2^24+1", "2^24-1" (spaces allowed around the sign). nullopt when the
/// text is not such a size or overflows 64 bits.
std::optional<std::size_t> parse_size(std::string_view text);

/// "a,b,c" → {a, b, c}; "" → {} (an empty item stays: "a,,b" → {a, "", b}).
std::vector<std::string> split_commas(std::string_view text);

/// "AxB", each side a size ("16383x16385", "1x2^26"); nullopt unless both parse.
std::optional<std::pair<std::size_t, std::size_t>> parse_size_pair(std::string_view text);

/// A comma-separated list of sizes; nullopt if any item is malformed.
std::optional<std::vector<std::size_t>> parse_size_list(std::string_view text);

/// "16777216 (2^24)", "1025 (2^10+1)", "1000": the exact value, with its power-of-two form.
std::string describe_size(std::size_t n);

/// Decimal bytes for people: "67.1 MB", "4.29 GB".
std::string human_bytes(double bytes);

}  // namespace gpulab
