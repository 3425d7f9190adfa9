// Option parsing the problems share (CLI11 validators and their parsers), written once.
#pragma once

#include "core/dtype.hpp"
#include "core/sizes.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpulab {

/// Throws gpulab::UsageError (exit code 2) with this message.
[[noreturn]] void usage_error(const std::string& message);

/// A comma list whose every item `parse` reads (an optional, empty for an item it refuses), as
/// the problems' shapes and forms: "PROBLEM: 'ITEM' is not EXPECTED" for a refused item, "PROBLEM:
/// the list of WHAT is empty" for none (both UsageError).
template <class Parse>
auto parse_list(std::string_view problem, std::string_view what, std::string_view text, Parse&& parse, std::string_view expected) {
  std::vector<typename std::invoke_result_t<Parse&, const std::string&>::value_type> items;
  for (const std::string& item : split_commas(text)) {
    auto value = parse(item);
    if (!value) usage_error(std::string(problem) + ": '" + item + "' is not " + std::string(expected));
    items.push_back(std::move(*value));
  }
  if (items.empty()) usage_error(std::string(problem) + ": the list of " + std::string(what) + " is empty");
  return items;
}

/// "2^20,2^24+1,1000".
CLI::Validator size_list_validator();
/// The sizes of a list size_list_validator() accepted (throws gpulab::Error otherwise).
std::vector<std::size_t> size_list(const std::string& text);

/// A comma list of words `known` accepts, or "all". `what`: "types"; `choices`: the words, for the
/// message ("int32, float32, float64").
CLI::Validator word_list_validator(std::string what, std::string choices, std::function<bool(const std::string&)> known,
                                   std::string name);

/// A comma list of the types in `allowed` (int32, float32, float64 unless given) or all.
CLI::Validator type_list_validator(std::span<const DType> allowed = kCommonTypes);
std::vector<DType> parse_types(const std::string& text, std::span<const DType> allowed = kCommonTypes);
/// "int32, float32, float64": the allowed types, for help texts.
std::string type_choices(std::span<const DType> allowed = kCommonTypes);

}  // namespace gpulab
