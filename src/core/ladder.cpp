#include "core/ladder.hpp"

#include <gpulab/error.hpp>

#include <algorithm>
#include <charconv>

namespace gpulab {
namespace {

bool answers_to(std::span<const RungInfo> ladder, std::size_t i, std::string_view word) {
  const RungInfo& r = ladder[i];
  if (word == r.name || word == rung_id(ladder, i)) return true;
  return (word == "library" && r.role == Role::library) || (word == "vendor" && r.role == Role::vendor);
}

}  // namespace

std::string needs_text(const GpuNeeds& needs) {
  if (needs.cc <= 75 && needs.what.empty()) return "";
  std::string out = "sm_" + std::to_string(needs.cc) + (needs.only ? "a" : "+");
  if (!needs.what.empty()) out += ": " + std::string(needs.what);
  return out;
}

std::optional<std::string> unmet_needs(const RungInfo& rung, int cc) {
  const bool met = rung.needs.only ? cc / 10 == rung.needs.cc / 10 : cc >= rung.needs.cc;
  if (met) return std::nullopt;
  return "needs " + needs_text(rung.needs) + "; this GPU is sm_" + std::to_string(cc);
}

std::string rung_id(std::span<const RungInfo> ladder, std::size_t index) {
  return ladder[index].role == Role::vendor ? "vendor" : std::to_string(index + 1);
}

std::vector<std::size_t> select_rungs(std::span<const RungInfo> ladder, const std::vector<std::string>& words,
                                      std::string_view problem) {
  std::vector<bool> wanted(ladder.size(), words.empty());
  for (const auto& w : words) {
    bool found = false;
    for (std::size_t i = 0; i < ladder.size(); ++i)
      if (answers_to(ladder, i, w)) wanted[i] = found = true;
    if (!found)
      throw Error(std::string(problem) + ": no rung '" + w +
                  "' (a rung is named by its number, its name, library or vendor: see `gpulab list`)");
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < ladder.size(); ++i)
    if (wanted[i]) out.push_back(i);
  return out;
}

std::size_t find_rung(std::span<const RungInfo> ladder, std::string_view word, std::string_view problem) {
  return select_rungs(ladder, {std::string(word)}, problem).front();
}

std::string block_rungs(std::span<const RungInfo> ladder) {
  std::string out;
  for (std::size_t i = 0; i < ladder.size();) {
    if (!ladder[i].uses_block) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < ladder.size() && ladder[j + 1].uses_block) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? rung_id(ladder, i) : rung_id(ladder, i) + "-" + rung_id(ladder, j);
    i = j + 1;
  }
  return out;
}

}  // namespace gpulab
