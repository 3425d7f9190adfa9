// A problem's table of rungs, as the harness, the CLI and the tests see it. A rung is addressed
// by its name, by its number (its position in the table, from 1: numbers follow the table), or by
// the aliases `library` (the library function's rung) and `vendor` (the vendor baseline, always
// last and numbered "vendor").
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

enum class Role { rung, library, vendor };

/// What every rung says of itself; a problem's table row adds its launch functions to this.
/// What a rung's code needs of the GPU beyond the oldest GPU gpulab builds for (sm_75, CUDA 13's
/// floor): where this GPU lacks it, the harness skips the rung with one line (unmet_needs), never a
/// launch that fails. A rung whose kernels trap below some family (a cluster launch, wgmma) must say so here.
struct GpuNeeds {
  int cc = 75;              // the lowest compute capability, 10·major + minor
  bool only = false;        // that family alone (sm_90a: wgmma and TMA of Hopper, not on sm_100)
  std::string_view what{};  // the features, in words ("TF32 mma.sync")
};

/// The tensor cores a rung's arithmetic runs on, when it is judged by their own ceiling (`gpulab
/// ceilings`' TF32 or INT8 rate) rather than the problem's: `products` of them make one operation of
/// the problem (3xTF32: 3; the Ozaki scheme with 8 moduli: 8 INT8 products).
enum class TensorUnit { none, tf32, int8 };
struct TensorWork {
  TensorUnit unit = TensorUnit::none;
  int products = 1;
};

struct RungInfo {
  std::string_view name;  // the idea, as a name
  std::string_view adds;  // what it adds over the rung before, one line
  Role role = Role::rung;
  bool uses_block = false;  // honours the problem's threads-per-block option
  /// Computes on units the problem's measured ceiling does not cover (tensor cores under an FP32
  /// FMA ceiling): its row shows no share of the ceiling and is never judged against it.
  bool other_units = false;
  /// The counters its line says it changes (keys of core/counters.hpp, space-separated, e.g.
  /// "divergence bank_conflicts"): `gpulab profile` marks them and shows them beside the rung.
  std::string_view claims{};
  GpuNeeds needs{};
  /// Where other_units: the tensor ceiling its rate is shown against, if one applies.
  TensorWork tensor{};
};

/// A problem's table row: RungInfo plus the problem's own launch functions (Ops).
template <class Ops>
struct Rung : RungInfo, Ops {};

/// The RungInfo of every row of a table.
template <class R>
std::vector<RungInfo> ladder_info(std::span<const R> table) {
  return {table.begin(), table.end()};
}

/// "3" for the third row, "vendor" for the vendor.
std::string rung_id(std::span<const RungInfo> ladder, std::size_t index);

/// The rows `words` name (numbers, names, `library`, `vendor`), in table order, each once; every
/// row for an empty list. Throws gpulab::Error naming the first word no row answers to.
std::vector<std::size_t> select_rungs(std::span<const RungInfo> ladder, const std::vector<std::string>& words,
                                      std::string_view problem);

/// The one row `word` names (see select_rungs).
std::size_t find_rung(std::span<const RungInfo> ladder, std::string_view word, std::string_view problem);

/// "sm_80+: TF32 mma.sync", "sm_90a: wgmma, TMA"; empty where the rung runs on every supported GPU.
std::string needs_text(const GpuNeeds& needs);

/// Why a GPU of compute capability `cc` (10·major + minor) cannot run the rung, in one line
/// ("needs sm_90a: wgmma, TMA; this GPU is sm_86"), or nothing.
std::optional<std::string> unmet_needs(const RungInfo& rung, int cc);

/// "1-7" style list of the numbers of the rows that use the block option ("1-5", "1, 3").
std::string block_rungs(std::span<const RungInfo> ladder);

}  // namespace gpulab
