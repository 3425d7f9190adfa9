// The scan ladder's table (see scan_ladder.hpp): launchers for the rungs of scan_kernels.cuh, the
// library's scan, and the vendor baseline.
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "scan/scan_kernels.cuh"
#include "scan/scan_ladder.hpp"
#include "scan/scan_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gpulab {
namespace {

using namespace scan_ladder;

constexpr std::size_t align256(std::size_t x) { return align_up(x, 256); }

void require_valid_block(unsigned block) {
  if (!valid_scan_block(block))
    throw Error("scan: block size " + std::to_string(block) + " is not a power of two in [32, 1024]");
}

unsigned checked_grid(std::size_t blocks) { return gpulab::checked_grid(blocks, "scan"); }

// ---- rungs 1–3: a block scan of 2B elements, the block sums scanned the same way, added back ----

/// The number of elements each level leaves for the next: n, ceil(n / 2B), … down to 1.
std::vector<std::size_t> level_counts(std::size_t n, std::size_t per_block) {
  std::vector<std::size_t> counts{n};
  while (counts.back() > per_block) counts.push_back(ceil_div(counts.back(), per_block));
  return counts;
}

template <class In>
using BlockScanKernel = void (*)(const In*, scan_result_t<In>*, std::size_t, scan_result_t<In>*, bool);

template <class In, template <class> class Pick>
struct ThreePhase {
  using Out = scan_result_t<In>;
  static std::size_t per_block(unsigned block) { return 2 * std::size_t{block}; }

  static std::size_t workspace_bytes(std::size_t n, unsigned block) {
    const auto counts = level_counts(n, per_block(block));
    std::size_t bytes = 0;
    for (std::size_t l = 1; l < counts.size(); ++l) bytes += align256(counts[l] * sizeof(Out));
    return bytes;
  }

  /// Scans src into dst (count elements) and, when one block is not enough, scans the block sums
  /// into the next workspace level and adds them back.
  template <class T>
  static void level(const T* src, Out* dst, std::size_t count, bool inclusive, Out* sums, unsigned block,
                    std::size_t depth, cudaStream_t stream) {
    const std::size_t blocks = ceil_div(count, per_block(block));
    Out* level_sums = blocks > 1 ? sums : nullptr;
    launch("block_scan", Pick<T>::kernel, {checked_grid(blocks), block, Pick<T>::smem(block)}, stream, src, dst, count,
           level_sums, inclusive)
        .work([&] { return "level " + std::to_string(depth + 1) + ": " + count_of(per_block(block), "element") + " per block"; });
    if (blocks == 1) return;
    level<Out>(level_sums, level_sums, blocks, false, sums + align256(blocks * sizeof(Out)) / sizeof(Out), block,
               depth + 1, stream);
    launch("add_block_offsets", add_block_offsets<Out>, {checked_grid(ceil_div(count, 256)), 256}, stream, dst, count,
           static_cast<const Out*>(level_sums), per_block(block))
        .work([&] { return "level " + std::to_string(depth + 1) + ": 256 elements per block"; });
  }

  static void run(const In* in, Out* out, std::size_t n, ScanKind kind, void* ws, std::size_t, unsigned block,
                  cudaStream_t stream) {
    require_valid_block(block);
    if (n == 0) return;
    level<In>(in, out, n, kind == ScanKind::inclusive, static_cast<Out*>(ws), block, 0, stream);
  }

  // A level: the block's tree (up-sweep and down-sweep: 2·log2(2B) levels, which bounds rung 3's
  // warp and block scans too), the inclusive add, then the offset of the level above (its own
  // chain) added once. One more for the final rounding.
  static ScanDepth depth(std::size_t n, unsigned block) {
    const std::size_t levels = level_counts(n, per_block(block)).size();
    return {levels * (2 * log2_ceil(per_block(block)) + 2) + 1};
  }
};

template <class T> struct PickBlelloch {
  static constexpr BlockScanKernel<T> kernel = scan_blelloch<T, false>;
  static std::size_t smem(unsigned block) { return 2 * std::size_t{block} * sizeof(acc_t<scan_result_t<T>>); }
};
template <class T> struct PickPadded {
  static constexpr BlockScanKernel<T> kernel = scan_blelloch<T, true>;
  static std::size_t smem(unsigned block) { return (2 * std::size_t{block} + 2 * block / kWarp) * sizeof(acc_t<scan_result_t<T>>); }
};
template <class T> struct PickWarpShuffle {
  static constexpr BlockScanKernel<T> kernel = scan_warp_shuffle<T>;
  static std::size_t smem(unsigned) { return 0; }
};

// ---- rung 4: reduce, then scan ----------------------------------------------------------------------

template <class In>
struct ReduceThenScan {
  using Out = scan_result_t<In>;
  static constexpr unsigned kScanBlock = 1024;  // the one block of pass 2
  // kRounds4 values a thread stay in registers: 1024 threads would need more than an SM has.
  static constexpr unsigned kMaxBlock = 512;
  static std::size_t tiles(std::size_t n, unsigned block) {
    return ceil_div(n, std::size_t{std::min(block, kMaxBlock)} * kRounds4);
  }
  static std::size_t workspace_bytes(std::size_t n, unsigned block) { return tiles(n, block) * sizeof(Out); }
  static void run(const In* in, Out* out, std::size_t n, ScanKind kind, void* ws, std::size_t, unsigned block,
                  cudaStream_t stream) {
    require_valid_block(block);
    if (n == 0) return;
    const std::size_t g = tiles(n, block);
    block = std::min(block, kMaxBlock);
    Out* tile_sums = static_cast<Out*>(ws);
    const auto per_tile = [&] { return count_of(std::size_t{block} * kRounds4, "element") + " per tile"; };
    launch("reduce_tiles", reduce_tiles<In>, {checked_grid(g), block}, stream, in, n, tile_sums).work(per_tile);
    launch("scan_tile_sums", scan_tile_sums<Out>, {1, kScanBlock}, stream, tile_sums, g)
        .work([&] { return count_of(g, "tile sum"); });
    launch("scan_tiles_from_offsets", scan_tiles_from_offsets<In>, {checked_grid(g), block}, stream, in, out, n,
           static_cast<const Out*>(tile_sums), kind == ScanKind::inclusive)
        .work(per_tile);
  }
  // Pass 1: kRounds4 serial adds and the block tree. Pass 2: a thread's run twice and the block
  // scan (two warp scans and one add). Pass 3: the warp segment, the warp totals added in order,
  // the run base and the element. One more for the final rounding.
  static ScanDepth depth(std::size_t n, unsigned block) {
    const std::size_t run = ceil_div(tiles(n, block), kScanBlock);
    block = std::min(block, kMaxBlock);
    const std::size_t pass1 = kRounds4 + log2_ceil(block);
    const std::size_t pass2 = 2 * run + 11;
    const std::size_t pass3 = scan_detail::WarpSegment<double, kRounds4, 1>::depth() + block / kWarp + 2;
    return {pass1 + pass2 + pass3 + 1};
  }
};

// ---- rungs 5-7: one pass with decoupled look-back, by path (scan.cu) --------------------------------
// Rung 5 a tile in registers, rung 6 the tile bulk-copied into shared memory, rung 7 rung 5 with
// evict-first stores: the same tiles, workspace and chain of additions as the library's scan.

template <class In, scan_detail::ScanPath kPath>
struct OnePath {
  static std::size_t workspace_bytes(std::size_t n, unsigned) { return scan_temp_bytes<In>(n); }
  static void run(const In* in, scan_result_t<In>* out, std::size_t n, ScanKind kind, void* ws, std::size_t ws_bytes,
                  unsigned, cudaStream_t stream) {
    scan_detail::scan_by_path(kPath, in, out, n, kind == ScanKind::inclusive, ws, ws_bytes, stream);
  }
  static ScanDepth depth(std::size_t, unsigned) {
    return {scan_accumulation_depth<In>(0), 1, scan_tile_elements<In>()};
  }
};

// ---- the library function: rung 5, 6 or 7 -------------------------------------------------------------

template <class In>
struct Library : OnePath<In, scan_detail::ScanPath::library> {  // its workspace and depth
  static void run(const In* in, scan_result_t<In>* out, std::size_t n, ScanKind kind, void* ws, std::size_t ws_bytes,
                  unsigned, cudaStream_t stream) {
    if (kind == ScanKind::inclusive) inclusive_scan(in, out, n, ws, ws_bytes, stream);
    else exclusive_scan(in, out, n, ws, ws_bytes, stream);
  }
};

// ---- vendor: CUB ----------------------------------------------------------------------------------

template <class In>
struct Cub {
  static std::size_t workspace_bytes(std::size_t n, unsigned) {
    std::size_t bytes = 0;
    GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const In*>(nullptr),
                                                    static_cast<scan_result_t<In>*>(nullptr), static_cast<std::int64_t>(n)));
    std::size_t exclusive_bytes = 0;
    GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, exclusive_bytes, static_cast<const In*>(nullptr),
                                                    static_cast<scan_result_t<In>*>(nullptr), static_cast<std::int64_t>(n)));
    return std::max(bytes, exclusive_bytes);
  }
  static void run(const In* in, scan_result_t<In>* out, std::size_t n, ScanKind kind, void* ws, std::size_t ws_bytes,
                  unsigned, cudaStream_t stream) {
    const auto count = static_cast<std::int64_t>(n);
    if (kind == ScanKind::inclusive)
      GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(ws, ws_bytes, in, out, count, stream));
    else
      GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws, ws_bytes, in, out, count, stream));
  }
  // CUB's order of additions is its own, and for floats not even fixed: its look-back adds the
  // predecessors' aggregates as a tree shaped by timing. Bound used (docs/scan.md): tiles of at
  // least 128 elements, at most 32 serial additions within a thread plus 16 tree levels in a tile,
  // and at most 7 additions a tile along the look-back (a 5-level warp tree, its add to the running
  // prefix and the tile's own aggregate).
  static ScanDepth depth(std::size_t, unsigned) { return {32 + 16 + 2, 7, 128}; }
};

/// One table line from a launcher struct with workspace_bytes, run and depth.
template <class In, class Impl>
constexpr ScanRung<In> rung(std::string_view name, std::string_view adds, std::string_view claims, Role role,
                            bool uses_block) {
  return {{name, adds, role, uses_block, false, claims}, {&Impl::workspace_bytes, &Impl::run, &Impl::depth}};
}

// Read top to bottom: each rung's kernel is in scan_kernels.cuh (rung 5: scan.cu). Each line: name,
// what it adds, the counters that says it changes (`gpulab profile`), role, --block.
template <class In>
constexpr ScanRung<In> kRungs[] = {
    rung<In, ThreePhase<In, PickBlelloch>>("blelloch",
        "the manual's kernel: up-sweep/down-sweep over 2B elements in shared memory; block sums scanned and added back", "bank_conflicts",
        Role::rung, true),
    rung<In, ThreePhase<In, PickPadded>>("blelloch_padded",
        "one pad word every 32: the tree's strided accesses spread over the banks", "bank_conflicts", Role::rung, true),
    rung<In, ThreePhase<In, PickWarpShuffle>>("warp_shuffle",
        "warp-shuffle scans in registers and one scan of warp totals: 2 barriers a half, no tree", "bank_conflicts instructions", Role::rung, true),
    rung<In, ReduceThenScan<In>>("reduce_then_scan",
        "tile sums, one scan of them, tiles scanned from their offsets: output written once, input read twice "
        "(blocks of at most 512)", "dram_bytes dram",
        Role::rung, true),
    rung<In, OnePath<In, scan_detail::ScanPath::one_tile_a_block>>("decoupled_lookback",
        "one pass, deterministic look-back, 16-byte loads and stores", "dram_bytes load_sectors store_sectors", Role::rung, false),
    rung<In, OnePath<In, scan_detail::ScanPath::staged>>("staged",
        "the tile bulk-copied into shared memory and read twice, not held in registers across the look-back: "
        "4 blocks an SM, not 3 (16-byte aligned pointers on Hopper; otherwise rung 5)",
        "occupancy registers", Role::rung, false),
    rung<In, OnePath<In, scan_detail::ScanPath::evict_first>>("evict_first_stores",
        "rung 5 with its output stores marked evict-first (st.global.cs): written lines leave the L2 before the rest",
        "dram", Role::rung, false),
    rung<In, OnePath<In, scan_detail::ScanPath::prefetched_guess>>("prefetched_guess",
        "rung 7 asking the L2 for its guessed tile while the ticket is drawn, then loading the tile drawn: tickets "
        "come out of block order, and a wrong guess read the tile twice", "l2_read", Role::rung, false),
    rung<In, OnePath<In, scan_detail::ScanPath::staged_prefetched>>("staged_prefetched",
        "rung 6 started as rung 8: its guess prefetched into the L2, the drawn tile bulk-copied once (16-byte aligned "
        "pointers on Hopper; otherwise rung 8)", "l2_read", Role::rung, false),
    rung<In, Library<In>>("library",
        "gpulab::inclusive_scan: rung 9 for 1-byte inputs of the L2's size or more and 8-byte ones of 8 times it; "
        "else rung 8, its stores evict-first where the output outgrows the L2", "dram", Role::library, false),
    rung<In, Cub<In>>("cub::DeviceScan", "the vendor library (CUB InclusiveSum / ExclusiveSum)", "dram", Role::vendor, false),
};

}  // namespace

template <class In>
std::span<const ScanRung<In>> scan_rungs() {
  return kRungs<In>;
}

template std::span<const ScanRung<std::int8_t>> scan_rungs<std::int8_t>();
template std::span<const ScanRung<std::int16_t>> scan_rungs<std::int16_t>();
template std::span<const ScanRung<std::int32_t>> scan_rungs<std::int32_t>();
template std::span<const ScanRung<float>> scan_rungs<float>();
template std::span<const ScanRung<double>> scan_rungs<double>();

}  // namespace gpulab
