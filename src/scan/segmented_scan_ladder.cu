// The segmented scan's ladder (segmented_scan_problem.hpp): the library's one pass as the compiler
// builds it, then held to two blocks an SM, by key; CUB's scan by key as the vendor.
#include "scan/scan_paths.hpp"
#include "scan/segmented_scan_problem.hpp"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

namespace gpulab {
namespace {

/// Rungs 1 and 2: the library's kernel over head flags by path (scan_paths.hpp).
template <class T, scan_detail::SegmentedScanPath kPath>
struct OnePath {
  static std::size_t workspace_bytes(std::size_t n) { return scan_temp_bytes<T>(n); }
  static void run(const T* in, const std::uint8_t* heads, const std::int32_t*, T* out, std::size_t n, ScanKind kind, void* ws,
                  std::size_t ws_bytes, cudaStream_t stream) {
    scan_detail::segmented_scan_by_path(kPath, in, heads, out, n, kind == ScanKind::inclusive, ws, ws_bytes, stream);
  }
  static ScanDepth depth(std::size_t) { return {scan_accumulation_depth<T>(0), 1, scan_tile_elements<T>()}; }
};

/// Rung 4: the library by key, over the same int32 keys as CUB's.
template <class T>
struct ByKey : OnePath<T, scan_detail::SegmentedScanPath::prefetched_guess> {
  static void run(const T* in, const std::uint8_t*, const std::int32_t* keys, T* out, std::size_t n, ScanKind kind, void* ws,
                  std::size_t ws_bytes, cudaStream_t stream) {
    if (kind == ScanKind::inclusive) inclusive_segmented_scan_by_key(in, keys, out, n, ws, ws_bytes, stream);
    else exclusive_segmented_scan_by_key(in, keys, out, n, ws, ws_bytes, stream);
  }
};

template <class T>
struct Library : OnePath<T, scan_detail::SegmentedScanPath::prefetched_guess> {
  static void run(const T* in, const std::uint8_t* heads, const std::int32_t*, T* out, std::size_t n, ScanKind kind, void* ws,
                  std::size_t ws_bytes, cudaStream_t stream) {
    if (kind == ScanKind::inclusive) inclusive_segmented_scan(in, heads, out, n, ws, ws_bytes, stream);
    else exclusive_segmented_scan(in, heads, out, n, ws, ws_bytes, stream);
  }
};

template <class T>
struct CubByKey {
  static std::size_t workspace_bytes(std::size_t n) {
    const auto count = static_cast<std::int64_t>(n);
    const std::int32_t* keys = nullptr;
    const T* in = nullptr;
    T* out = nullptr;
    std::size_t inclusive = 0, exclusive = 0;
    GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, inclusive, keys, in, out, count));
    GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSumByKey(nullptr, exclusive, keys, in, out, count));
    return std::max(inclusive, exclusive);
  }
  static void run(const T* in, const std::uint8_t*, const std::int32_t* keys, T* out, std::size_t n, ScanKind kind, void* ws,
                  std::size_t ws_bytes, cudaStream_t stream) {
    const auto count = static_cast<std::int64_t>(n);
    const cuda::std::equal_to<> same;
    if (kind == ScanKind::inclusive)
      GPULAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(ws, ws_bytes, keys, in, out, count, same, stream));
    else
      GPULAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSumByKey(ws, ws_bytes, keys, in, out, count, same, stream));
  }
  // CUB's order is its own and, for floats, timing's: the plain scan's bound (scan_ladder.cu's Cub).
  static ScanDepth depth(std::size_t) { return {32 + 16 + 2, 7, 128}; }
};

template <class T, class Impl>
constexpr SegmentedScanRung<T> rung(std::string_view name, std::string_view adds, std::string_view claims, Role role) {
  return {{name, adds, role, false, false, claims}, {&Impl::workspace_bytes, &Impl::run, &Impl::depth}};
}

template <class T>
constexpr SegmentedScanRung<T> kRungs[] = {
    rung<T, OnePath<T, scan_detail::SegmentedScanPath::compiler_registers>>("compiler_registers",
        "the plain scan's one pass (scan rung 7) with the segmented operator on (head, sum) pairs, head flags as bits and "
        "the warp's as a ballot a round; a tile holding a head publishes its inclusive prefix at once. Registers as the "
        "compiler takes them: 116-121 for float32 (two blocks an SM), 134 for int32 and 174 for doubles (one)",
        "registers", Role::rung),
    rung<T, OnePath<T, scan_detail::SegmentedScanPath::two_blocks>>("two_blocks",
        "at most 128 registers (__launch_bounds__): two blocks an SM for every type, twice the loads in flight where "
        "rung 1 had one (doubles spill 48 bytes a thread to the L1)",
        "registers occupancy dram", Role::rung),
    rung<T, OnePath<T, scan_detail::SegmentedScanPath::prefetched_guess>>("prefetched_guess",
        "the guessed tile's values and flags only prefetched into the L2 while the ticket is drawn, the drawn tile "
        "loaded once (the scan's rung 8): a wrong guess read the tile twice", "l2_read", Role::rung),
    rung<T, ByKey<T>>("by_key",
        "rung 3 over int32 keys instead of flags, a head wherever a key differs from the one before (CUB's input): 4 "
        "bytes a element read where a flag is 1",
        "dram_bytes", Role::rung),
    rung<T, Library<T>>("library", "gpulab::inclusive_segmented_scan (rung 3; by key: rung 4)", "dram", Role::library),
    rung<T, CubByKey<T>>("cub::DeviceScan::ScanByKey",
        "the vendor library (CUB InclusiveSumByKey / ExclusiveSumByKey), segments as int32 keys", "dram", Role::vendor),
};

}  // namespace

template <class T>
std::span<const SegmentedScanRung<T>> segmented_scan_rungs() {
  return kRungs<T>;
}

template std::span<const SegmentedScanRung<std::int32_t>> segmented_scan_rungs<std::int32_t>();
template std::span<const SegmentedScanRung<float>> segmented_scan_rungs<float>();
template std::span<const SegmentedScanRung<double>> segmented_scan_rungs<double>();

}  // namespace gpulab
