// How a ladder's variants are named on the command line, written once for every problem's table:
// a variant answers to its id ("5", "vendor") or its name ("fused_cooperative").
#pragma once

#include <gpulab/error.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

template <class Variant>
bool answers_to(const Variant& v, std::string_view word) {
  return word == v.id || word == v.name;
}

/// Whether `v` is among `wanted`; an empty list wants every variant.
template <class Variant>
bool selected(const Variant& v, const std::vector<std::string>& wanted) {
  return wanted.empty() || std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return answers_to(v, w); });
}

/// The variant of `table` that answers to `word`, or nullptr.
template <class Table>
auto find_variant(const Table& table, std::string_view word) -> decltype(&*std::begin(table)) {
  for (const auto& v : table)
    if (answers_to(v, word)) return &v;
  return nullptr;
}

/// Throws "<problem>: no variant '<word>' (see `gpulab list`)" for the first word of `words` that no
/// variant of `table` answers to.
template <class Table>
void require_variants(const Table& table, const std::vector<std::string>& words, std::string_view problem) {
  for (const auto& w : words)
    if (find_variant(table, w) == nullptr)
      throw Error(std::string(problem) + ": no variant '" + w + "' (see `gpulab list`)");
}

}  // namespace gpulab
