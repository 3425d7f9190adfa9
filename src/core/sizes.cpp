#include "core/sizes.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <limits>

namespace gpulab {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::optional<std::size_t> parse_plain(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::size_t> parse_size(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("2^")) return parse_plain(text);
  std::string_view rest = text.substr(2);
  const std::size_t sign = rest.find_first_of("+-");
  const auto exponent = parse_plain(rest.substr(0, sign));
  if (!exponent || *exponent >= 64) return std::nullopt;
  const std::size_t base = std::size_t{1} << *exponent;
  if (sign == std::string_view::npos) return base;
  const auto offset = parse_plain(rest.substr(sign + 1));
  if (!offset) return std::nullopt;
  if (rest[sign] == '+') {
    if (*offset > std::numeric_limits<std::size_t>::max() - base) return std::nullopt;
    return base + *offset;
  }
  if (*offset > base) return std::nullopt;
  return base - *offset;
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  while (true) {
    const std::size_t comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

std::optional<std::pair<std::size_t, std::size_t>> parse_size_pair(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  const auto a = parse_size(text.substr(0, x)), b = parse_size(text.substr(x + 1));
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

std::optional<std::vector<std::size_t>> parse_size_list(std::string_view text) {
  const std::vector<std::string> items = split_commas(text);
  if (items.empty()) return std::nullopt;
  std::vector<std::size_t> out;
  for (const auto& item : items) {
    const auto v = parse_size(item);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::string describe_size(std::size_t n) {
  if (n < 2) return fmt::format("{}", n);
  // Nearest power of two, and the offset from it when small enough to read.
  const int lo = static_cast<int>(std::bit_width(n)) - 1;
  const std::size_t below = std::size_t{1} << lo;
  if (n == below) return fmt::format("{} (2^{})", n, lo);
  if (n - below <= 64) return fmt::format("{} (2^{}+{})", n, lo, n - below);
  if (lo < 63) {
    const std::size_t above = below << 1;
    if (above - n <= 64) return fmt::format("{} (2^{}-{})", n, lo + 1, above - n);
  }
  return fmt::format("{}", n);
}

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace gpulab
