// The library's scan (include/gpulab/scan.hpp), rungs 5 to 9 of the scan ladder: one pass over the data
// with decoupled look-back (Merrill & Garland, 2016), made deterministic.
//
// What it adds over rung 4 (reduce-then-scan: three launches, the input read twice):
// - each element is read once and written once: a block scans its tile, publishes the tile's sum
//   (its aggregate), and its first warp looks back over up to 32 predecessors at once for the
//   prefix before the tile; the nearest predecessor that has published an inclusive prefix ends
//   the look-back;
// - tiles are numbered by an atomic ticket taken when a block starts, so a block only ever waits
//   for blocks that are already running: no deadlock whatever order the hardware starts blocks in;
// - 16 elements a thread, loaded as 16-byte vectors (one to four a thread by element size) and
//   stored as 16-byte vectors.
// Deterministic: CUB sums the looked-back aggregates as a tree whose shape depends on how far back
// the nearest inclusive prefix happened to be, so float results change from run to run. Here a
// tile's inclusive prefix is defined as its predecessor's inclusive prefix plus its aggregate,
// and the look-back adds the aggregates after the nearest inclusive prefix one at a time, oldest
// first: it reproduces exactly that chain, so the bits do not depend on timing. The price: the
// chain grows by one addition per tile (the error bound's k, scan_accumulation_depth), and the
// look-back's additions are serial (usually one to three).
//
// Temporary storage, kept valid between calls so that no call needs a clearing launch:
//   [0, 256)  header: a 64-bit ticket counter, and the ticket the current call's tile 0 gets;
//   then      one 16-byte status word a tile: (ticket << 2) | state, and the value. A word written
//             by an earlier call carries an older ticket and reads as "not yet published"
//             (tickets never repeat: 2^62 of them).
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "lib/scan_from.hpp"
#include "scan/scan_lookback.cuh"
#include "scan/scan_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/scan.hpp>

#include <cuda/ptx>

#include <algorithm>
#include <limits>
#include <string>

namespace gpulab {
namespace {

using namespace scan_detail;

template <class In>
using Segment = WarpSegment<acc_t<scan_result_t<In>>, TileShape<In>::kRounds, TileShape<In>::kItems>;

/// What precedes the thread's warp segment once `seg` is scanned: publishes the tile's aggregate,
/// looks back, publishes its inclusive prefix. `offset` (null for a plain scan): a value every
/// output gets added first, as tile 0's prefix. Two barriers.
template <class In>
__device__ __forceinline__ acc_t<scan_result_t<In>> segment_offset_after_look_back(
    const scan_result_t<In>* offset, const TileStatus& status, unsigned long long first_ticket, unsigned long long tile,
    Segment<In>& seg, acc_t<scan_result_t<In>>* warp_totals, acc_t<scan_result_t<In>>* tile_prefix,
    acc_t<scan_result_t<In>>* kept) {
  using A = acc_t<scan_result_t<In>>;
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) warp_totals[warp] = seg.total;
  __syncthreads();
  // The tile's aggregate and this warp's offset within the tile: warp totals added in order.
  A aggregate = warp_totals[0], warp_offset = 0;
#pragma unroll
  for (unsigned w = 1; w < kWarps; ++w) {
    if (w == warp) warp_offset = aggregate;
    aggregate = aggregate + warp_totals[w];
  }

  if (warp == 0) {
    A prefix = 0;
    const unsigned long long ticket = first_ticket + tile;
    if (tile == 0) {
      // The chain starts at tile 0: from its aggregate, or from the offset plus its aggregate (one
      // more addition in every element's chain). Without an offset, exactly the plain scan's bits.
      if (offset != nullptr) prefix = static_cast<A>(*offset);
      if (lane == 0) publish(status, tile, ticket, kInclusive, offset != nullptr ? prefix + aggregate : aggregate);
    } else {
      if (lane == 0) publish(status, tile, ticket, kAggregate, aggregate);
      prefix = look_back(status, first_ticket, tile, kept);
      if (lane == 0) publish(status, tile, ticket, kInclusive, prefix + aggregate);
    }
    if (lane == 0) *tile_prefix = prefix;
  }
  __syncthreads();
  return *tile_prefix + warp_offset;
}

/// Blocks an SM that scan_kernel's registers must allow (0: the compiler's choice). With load_guess
/// the compiler takes 80 registers for 1- to 4-byte inputs (three blocks); with prefetch_guess it
/// would take 97-127 (two), so that kernel is held to three. Doubles: 128 either way (two).
template <class In, TileStart kStart>
constexpr int kScanMinBlocks = kStart == TileStart::load_guess ? 0 : sizeof(acc_t<scan_result_t<In>>) == 8 ? 2 : 3;

/// A block a tile. Tiles are taken in order from an atomic ticket, so a block only ever waits for
/// tiles that running blocks hold; what it does while the ticket is drawn: kStart (start_tile).
/// The block that draws the last ticket of the call moves `first` on for the next call.
/// `evict_first_stores` (rungs 7 and 8): the outputs leave the L2 first (see store_vector).
template <class In, bool kVectors, TileStart kStart>
__global__ void __launch_bounds__(kBlock, kScanMinBlocks<In, kStart>)
scan_kernel(const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive, const scan_result_t<In>* offset,
            TileStatus status, bool evict_first_stores) {
  using A = acc_t<scan_result_t<In>>;
  using S = TileShape<In>;
  __shared__ unsigned long long drawn[2];  // this block's tile, the call's first ticket
  __shared__ A warp_totals[kWarps];
  __shared__ A tile_prefix;
  __shared__ A kept[kMaxWindows * kWarp];  // the look-back's predecessors
  auto is_full = [n](unsigned long long tile) { return kVectors && (tile + 1) * S::kTile <= n; };

  Segment<In> seg;
  start_tile<kStart>(
      status, drawn, is_full, [&](unsigned long long tile) { load_tile<In>(in, n, tile, is_full(tile), seg); },
      [&](unsigned long long tile) { prefetch_to_l2(in, n, tile * S::kTile, S::kTile); });
  const unsigned long long tile = drawn[0], first_ticket = drawn[1];
  const bool full = is_full(tile);
  seg.scan();
  const A segment_offset = segment_offset_after_look_back<In>(offset, status, first_ticket, tile, seg, warp_totals,
                                                              &tile_prefix, kept);
  store_tile<In>(out, n, inclusive, tile, full, seg, segment_offset, [](unsigned) {}, evict_first_stores);
}

// ---- rung 6: the tile staged in shared memory by the copy engine --------------------------------------
//
// What it adds over rung 5: ncu on rung 5 at 2^28 shows warps stalled at a block barrier two
// thirds of the time (warp 0's look-back), with DRAM at 79% of its peak: while a block waits, the
// data it holds is all its SM has in flight, and registers cap that at 3 blocks × 48 KB. Here the
// tile lands in shared memory through one bulk copy (cp.async.bulk, the tensor memory
// accelerator), and the threads keep only what the scan needs between its two reads of the tile:
// registers no longer bound the blocks, shared memory does (4 blocks × 48 KB on an H100). Same
// tiles, same scan, same chain: the same bits as rung 5.
// Measured (H100, docs/scan.md): 4 blocks an SM, yet slower than rung 5 for 4- and 8-byte inputs
// (0.89–0.96×): a wrong guess costs a second bulk copy that the block waits for. Started as rung 8
// (rung 9, kStart = prefetch_guess) it beats rung 8 for 1- and 8-byte inputs on the H200, which is
// where the library takes it.

template <class In>
constexpr std::size_t kStageBytes = TileShape<In>::kTile * sizeof(In);
template <class In>
constexpr unsigned kStagedBlocksPerSm = 228 * 1024 / (kStageBytes<In> + 2048);  // ≤ an H100's shared memory

template <class In, TileStart kStart>
__global__ void __launch_bounds__(kBlock, std::min(kStagedBlocksPerSm<In>, 4u))
scan_staged_kernel(const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive, const scan_result_t<In>* offset,
                   TileStatus status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using A = acc_t<scan_result_t<In>>;
  using S = TileShape<In>;
  extern __shared__ __align__(16) unsigned char stage_memory[];  // the tile's input
  __shared__ std::uint64_t stage_filled;                         // mbarrier: the bulk copy's bytes arrived
  __shared__ unsigned long long drawn[2];
  __shared__ A warp_totals[kWarps];
  __shared__ A tile_prefix;
  __shared__ A kept[kMaxWindows * kWarp];
  In* const stage = reinterpret_cast<In*>(stage_memory);
  auto is_full = [n](unsigned long long tile) { return (tile + 1) * S::kTile <= n; };
  auto fill_stage = [&](unsigned long long tile) {  // thread 0: starts the bulk copy of a full tile
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &stage_filled, static_cast<std::uint32_t>(kStageBytes<In>));
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, stage, in + tile * S::kTile,
                             static_cast<std::uint32_t>(kStageBytes<In>), &stage_filled);
  };
  auto wait_stage = [&](unsigned parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&stage_filled, parity)) {
    }
  };

  // As rung 5: copy the tile the block will most likely draw while the ticket is in flight (or,
  // prefetch_guess, only ask the L2 for it; see start_tile).
  const unsigned long long guess = blockIdx.x;
  const bool guess_copied = kStart == TileStart::load_guess && is_full(guess);
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&stage_filled, 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the copy engine sees the initialised barrier
    if (guess_copied) fill_stage(guess);
    if (kStart == TileStart::prefetch_guess && is_full(guess))
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + guess * S::kTile),
                   "r"(static_cast<std::uint32_t>(kStageBytes<In>)) : "memory");
    draw_tile(status, drawn);
  }
  __syncthreads();
  const unsigned long long tile = drawn[0], first_ticket = drawn[1];
  const bool full = is_full(tile);
  if (guess_copied) wait_stage(0);  // the stage is settled before anything else writes it
  if (!guess_copied || tile != guess || !full) {
    if (full) {  // drew another full tile: copy it instead
      // Every thread past its wait for phase 0 first: a thread that came to it after phase 1 had
      // also completed would wait for phase 2's parity, and wait for ever.
      __syncthreads();
      if (threadIdx.x == 0) fill_stage(tile);
      wait_stage(guess_copied ? 1 : 0);
    } else {     // the partial last tile: the threads fill the stage, zeros past n
      for (std::size_t j = threadIdx.x; j < S::kTile; j += kBlock) {
        const std::size_t i = tile * S::kTile + j;
        stage[j] = i < n ? in[i] : In(0);
      }
      __syncthreads();
    }
  }

  // A round of the thread's values from the stage: read once for the scan, and again for the
  // outputs, since keeping them across the look-back would bound the blocks by registers again.
  // The same additions give the same bits.
  Segment<In> seg;
  auto load_round = [&](unsigned r) {
    using V = Vec<In, S::kItems>;
    const V v = *reinterpret_cast<const V*>(stage + run_begin<In>(0, r));
#pragma unroll
    for (unsigned k = 0; k < S::kItems; ++k) seg.item[r][k] = to_acc<scan_result_t<In>>(v.v[k]);
  };
  seg.scan(load_round);
  const A segment_offset = segment_offset_after_look_back<In>(offset, status, first_ticket, tile, seg, warp_totals,
                                                              &tile_prefix, kept);
  store_tile<In>(out, n, inclusive, tile, full, seg, segment_offset, [&](unsigned r) {
    load_round(r);
    seg.scan_run(r);
  });
#else
  __trap();  // launched only on compute capability 9.0 and later (staged_resident_blocks says 0)
#endif
}

/// Blocks of the staged kernels for In that the current device holds at once; 0 where it cannot
/// run them (before compute capability 9.0: no bulk copies). Raises their shared-memory limit once.
template <class In>
unsigned staged_resident_blocks() {
  static PerDevice<unsigned> cache;
  return cache.get([] {
    if (current_device_attribute(cudaDevAttrComputeCapabilityMajor) < 9) return 0u;
    unsigned blocks = std::numeric_limits<unsigned>::max();
    for (const void* kernel : {reinterpret_cast<const void*>(scan_staged_kernel<In, TileStart::load_guess>),
                               reinterpret_cast<const void*>(scan_staged_kernel<In, TileStart::prefetch_guess>)}) {
      allow_dynamic_smem(kernel, kStageBytes<In>, "gpulab::scan");
      blocks = std::min(blocks, resident_blocks(kernel, kBlock, kStageBytes<In>));
    }
    return blocks;
  });
}

template <class In>
void scan(const char* name, ScanPath path, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive,
          const scan_result_t<In>* offset, void* temp, std::size_t temp_bytes, cudaStream_t stream) {
  if (n == 0) return;
  if (in == nullptr || out == nullptr || temp == nullptr) throw Error(std::string(name) + ": null device pointer");
  const std::size_t tiles = checked_tiles<In>(name, n, temp_bytes);
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const bool aligned16 = address(in) % 16 == 0 && address(out) % 16 == 0;
  // Bulk copies need 16-byte aligned addresses and Hopper: otherwise a staged path falls to the
  // rung it starts as (6 to 5, 9 to 8). (Asked only where a staged path is wanted: the first ask
  // sets the staged kernels' attributes.)
  const auto can_stage = [&] { return aligned16 && staged_resident_blocks<In>() > 0; };
  bool evict_first = path == ScanPath::evict_first || path == ScanPath::prefetched_guess;
  if (path == ScanPath::library) {
    // Rung 9 where its four blocks an SM pay (H200, docs/scan.md): 1-byte inputs of the L2's size
    // or more (1.03-1.05x rung 8 from 2^26), 8-byte ones of 8 times it (1.02-1.03x from 2^26;
    // level at 2^25, 0.94-0.98x below); for 2- and 4-byte inputs it is level or slower. Else rung
    // 8, its stores evict-first only where the output outgrows the L2 and so cannot stay there for
    // a next reader anyway.
    const std::size_t l2 = current_l2_bytes(), in_bytes = n * sizeof(In);
    const bool stage = (sizeof(In) == 1 && in_bytes >= l2) || (sizeof(In) == 8 && in_bytes >= 8 * l2);
    path = stage && can_stage() ? ScanPath::staged_prefetched : ScanPath::prefetched_guess;
    evict_first = n * sizeof(scan_result_t<In>) >= l2;
  }
  if (path == ScanPath::staged && !can_stage()) path = ScanPath::one_tile_a_block;
  if (path == ScanPath::staged_prefetched && !can_stage()) path = ScanPath::prefetched_guess;

  if (path == ScanPath::staged || path == ScanPath::staged_prefetched) {
    const bool prefetch = path == ScanPath::staged_prefetched;
    const auto kernel = prefetch ? scan_staged_kernel<In, TileStart::prefetch_guess> : scan_staged_kernel<In, TileStart::load_guess>;
    launch(name, kernel, {static_cast<unsigned>(tiles), kBlock, kStageBytes<In>}, stream, in, out, n,
           inclusive, offset, TileStatus::in(temp))
        .work([&] {
          return count_of(TileShape<In>::kTile, "element") + " per tile, bulk-copied into shared memory" +
                 (prefetch ? ", the guessed tile prefetched into the L2" : "");
        });
    return;
  }
  constexpr std::size_t kInVector = sizeof(In) * TileShape<In>::kItems;
  const bool aligned = address(in) % kInVector == 0 && address(out) % 16 == 0;
  const bool prefetch = path == ScanPath::prefetched_guess;
  constexpr auto kLoad = TileStart::load_guess, kPrefetch = TileStart::prefetch_guess;
  const auto kernel = prefetch ? (aligned ? scan_kernel<In, true, kPrefetch> : scan_kernel<In, false, kPrefetch>)
                               : (aligned ? scan_kernel<In, true, kLoad> : scan_kernel<In, false, kLoad>);
  launch(name, kernel, {static_cast<unsigned>(tiles), kBlock}, stream, in, out, n, inclusive, offset, TileStatus::in(temp),
         evict_first)
      .work([&] {
        return count_of(TileShape<In>::kTile, "element") + " per tile" +
               (aligned ? ", vector loads and stores" : ", unaligned: element by element") +
               (evict_first && aligned ? ", stored evict-first" : "") +
               (prefetch ? ", the guessed tile prefetched into the L2, the drawn one loaded" : "");
      });
}

}  // namespace

template <class In>
std::size_t scan_temp_bytes(std::size_t n) {
  return TileStatus::bytes(tiles_for<In>(n));
}

template <class In>
void inclusive_scan(const In* in, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    cudaStream_t stream) {
  scan("inclusive_scan", ScanPath::library, in, out, n, true, nullptr, temp, temp_bytes, stream);
}

template <class In>
void exclusive_scan(const In* in, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    cudaStream_t stream) {
  scan("exclusive_scan", ScanPath::library, in, out, n, false, nullptr, temp, temp_bytes, stream);
}

namespace detail {
template <class In>
void scan_from(const scan_result_t<In>* offset, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive,
               void* temp, std::size_t temp_bytes, cudaStream_t stream) {
  if (offset == nullptr && n > 0) throw Error("scan_from: a null offset");
  scan(inclusive ? "inclusive_scan_from" : "exclusive_scan_from", ScanPath::library, in, out, n, inclusive, offset, temp, temp_bytes, stream);
}
}  // namespace detail

namespace scan_detail {
template <class In>
void scan_by_path(ScanPath path, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp,
                  std::size_t temp_bytes, cudaStream_t stream) {
  scan(inclusive ? "inclusive_scan" : "exclusive_scan", path, in, out, n, inclusive, nullptr, temp, temp_bytes, stream);
}
}  // namespace scan_detail

template <class In>
std::size_t scan_tile_elements() {
  return TileShape<In>::kTile;
}

// An element's prefix within its tile: its warp segment (WarpSegment::depth), the warp offsets
// added in order (kWarps), the segment offset, run base and element added (3). A tile's aggregate:
// the same without the last three. The prefix before tile t: tile 0's aggregate chained through t
// inclusive prefixes, one addition each, plus one to join the element's own prefix. One more for
// the final rounding.
template <class In>
std::size_t scan_accumulation_depth(std::size_t i) {
  using S = TileShape<In>;
  using Seg = WarpSegment<double, S::kRounds, S::kItems>;
  return Seg::depth() + kWarps + 3 + i / S::kTile + 1;
}

#define GPULAB_INSTANTIATE_SCAN(In)                                                                               \
  template std::size_t scan_temp_bytes<In>(std::size_t);                                                          \
  template void inclusive_scan<In>(const In*, scan_result_t<In>*, std::size_t, void*, std::size_t, cudaStream_t); \
  template void exclusive_scan<In>(const In*, scan_result_t<In>*, std::size_t, void*, std::size_t, cudaStream_t); \
  template std::size_t scan_tile_elements<In>();                                                                  \
  template std::size_t scan_accumulation_depth<In>(std::size_t);                                                  \
  template void detail::scan_from<In>(const scan_result_t<In>*, const In*, scan_result_t<In>*, std::size_t, bool,  \
                                      void*, std::size_t, cudaStream_t);                                          \
  template void scan_detail::scan_by_path<In>(scan_detail::ScanPath, const In*, scan_result_t<In>*, std::size_t,  \
                                              bool, void*, std::size_t, cudaStream_t);
GPULAB_INSTANTIATE_SCAN(std::int8_t)
GPULAB_INSTANTIATE_SCAN(std::int16_t)
GPULAB_INSTANTIATE_SCAN(std::int32_t)
GPULAB_INSTANTIATE_SCAN(float)
GPULAB_INSTANTIATE_SCAN(double)
#undef GPULAB_INSTANTIATE_SCAN

}  // namespace gpulab
