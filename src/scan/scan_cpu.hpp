// The CPU side of the prefix scan: the serial reference every rung is checked against, the OpenMP
// baseline, and the check that applies SPEC.md's rules to every element of a scan.
#pragma once

#include "core/check.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace gpulab {

enum class ScanKind { inclusive, exclusive };

constexpr std::string_view scan_kind_name(ScanKind k) { return k == ScanKind::inclusive ? "inclusive" : "exclusive"; }

/// The output (and accumulator) type of a scan of In: int8, int16 and int32 sum into int32
/// (wrapping modulo 2^32), floats into their own type.
template <class In>
using scan_out_t = std::conditional_t<std::is_integral_v<In>, std::int32_t, In>;

/// What the reference holds per element: the exact int32 bits, or the compensated double prefix.
template <class Out>
using scan_ref_t = std::conditional_t<std::is_integral_v<Out>, Out, double>;

/// The longest chain of additions behind output i (core/check.hpp's k), as a rung derives it:
/// k(i) = base + per_tile · ⌊i / tile⌋. A scan that chains tiles (each tile's prefix is its
/// predecessor's plus one addition) grows by per_tile a tile; the others have per_tile = 0.
struct ScanDepth {
  std::size_t base = 0;
  std::size_t per_tile = 0;
  std::size_t tile = 1;
  std::size_t at(std::size_t i) const { return base + per_tile * (i / tile); }
};

/// Serial and simple: integers in uint32 (wrapping), floats with Neumaier-compensated double
/// accumulation (off by at most ≈ 2^-53·Σ|x|, the ref_err of core/check.hpp). `heads` (empty: one
/// segment): a segmented scan, a segment starting at every i with heads[i] ≠ 0.
template <class In>
void scan_reference(std::span<const In> x, ScanKind kind, std::span<scan_ref_t<scan_out_t<In>>> out,
                    std::span<const std::uint8_t> heads = {});

/// The multi-threaded baseline: each thread sums its chunk, the chunk sums are scanned in order,
/// then each thread scans its chunk from its offset, in the output type's own arithmetic.
template <class In>
void scan_openmp(std::span<const In> x, ScanKind kind, std::span<scan_out_t<In>> out);

/// scan_openmp's chain with `threads` threads: a chunk's sum, the chunk offsets in order, then the
/// chunk again, sequentially.
ScanDepth scan_openmp_depth(std::size_t n, std::size_t threads);

/// Every element: integers the same bits; floats within γ_k(i)·Σ_{l≤i}|x_l| (l < i for exclusive)
/// of the reference, k(i) from `depth`, the sum from the start of i's segment where `heads` is given.
/// The detail names the first bad element and how many are.
template <class In>
CheckResult check_scan(std::span<const scan_out_t<In>> got, std::span<const In> x,
                       std::span<const scan_ref_t<scan_out_t<In>>> ref, ScanKind kind, ScanDepth depth,
                       std::span<const std::uint8_t> heads = {});

/// check_scan of the outputs first, first + 1, … of the whole scan of x (one rank's share of a scan
/// over several GPUs): each element against its global reference, with Σ|x| from element 0.
template <class In>
CheckResult check_scan_part(std::span<const scan_out_t<In>> got_part, std::span<const In> x,
                            std::span<const scan_ref_t<scan_out_t<In>>> ref, std::size_t first, ScanKind kind,
                            ScanDepth depth, std::span<const std::uint8_t> heads = {});

}  // namespace gpulab
