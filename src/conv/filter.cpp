#include "conv/filter.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <vector>

namespace gpulab {

namespace {

// 2·255·Σ|k| must fit 32 bits (the rounding doubles s): |k| summed up to 2^22.
constexpr long kMaxWeightSum = 1L << 22;

int parse_int(std::string_view text, std::string_view whole) {
  int v = 0;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw Error(fmt::format("filter '{}': '{}' is not an integer (expected a name — {} — or nine integers with an optional "
                            "/divisor, e.g. 1,2,1,2,4,2,1,2,1/16)",
                            whole, text, named_filter_list()));
  return v;
}

}  // namespace

Filter3x3 parse_filter(std::string_view text) {
  if (const auto named = named_filter(text)) return *named;
  Filter3x3 f;
  std::string_view weights = text;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    weights = text.substr(0, slash);
    f.divisor = parse_int(text.substr(slash + 1), text);
    if (f.divisor == 0) throw Error(fmt::format("filter '{}': the divisor is 0", text));
  }
  std::vector<int> k;
  std::size_t start = 0;
  while (true) {
    const auto comma = weights.find(',', start);
    k.push_back(parse_int(weights.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start), text));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (k.size() != 9)
    throw Error(fmt::format("filter '{}': {} weights, a 3x3 filter has 9 (or a name: {})", text, k.size(), named_filter_list()));
  long sum = 0;
  for (int i = 0; i < 9; ++i) {
    f.k[i] = k[static_cast<std::size_t>(i)];
    sum += std::labs(static_cast<long>(f.k[i]));
  }
  if (sum > kMaxWeightSum) throw Error(fmt::format("filter '{}': weights summing to {} in magnitude could overflow int32", text, sum));
  return f;
}

std::string filter_text(const Filter3x3& f) {
  return fmt::format("{},{},{},{},{},{},{},{},{}/{}", f.k[0], f.k[1], f.k[2], f.k[3], f.k[4], f.k[5], f.k[6], f.k[7], f.k[8],
                     f.divisor);
}

}  // namespace gpulab
