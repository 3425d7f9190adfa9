// gpulab::multi::inclusive_scan and exclusive_scan: reduce, then scan. Every rank but the last sums
// its shard, the totals are gathered, and each rank scans its shard from the totals of the ranks
// before it, added in rank order.
#include <gpulab/multi/scan.hpp>
#include <gpulab/reduce.hpp>

#include "lib/launch.cuh"
#include "lib/multi_phases.cuh"
#include "lib/scan_from.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

namespace gpulab::multi {
namespace {

using namespace detail;

/// An integer as the scan adds it: sign-extended to 32 bits, then unsigned (wrapping sums).
template <class In>
struct WidenToUnsigned {
  __host__ __device__ std::uint32_t operator()(In x) const { return static_cast<std::uint32_t>(static_cast<std::int32_t>(x)); }
};

/// Bytes CUB's transform-reduce needs for an integer shard total of n values of In.
template <class In>
std::size_t integer_total_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  check_cuda(cub::DeviceReduce::TransformReduce(nullptr, bytes, static_cast<const In*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                                n, cuda::std::plus<std::uint32_t>{}, WidenToUnsigned<In>{}, std::uint32_t{0}),
             "cub::DeviceReduce::TransformReduce", __FILE__, __LINE__);
  return bytes;
}

/// A rank's temporary storage for a scan: the one-GPU scan's (kept between calls), the shard
/// total's reduction, the total, every rank's total, the offset.
template <class In>
struct ScanTemp {
  using Out = scan_result_t<In>;
  std::size_t scan = 0, total_of = 0;
  TempLayout totals;  // partial: this rank's total; gathered: every rank's
  ScanTemp(std::size_t n, int ranks)
      : scan(align_up(gpulab::scan_temp_bytes<In>(n), kAlign)),
        total_of(align_up(std::is_integral_v<In> ? integer_total_temp_bytes<In>(n) : gpulab::reduce_sum_temp_bytes<Out>(n),
                          kAlign)),
        totals(scan + total_of, sizeof(Out), ranks) {}
  std::size_t bytes() const { return totals.total + kAlign; }  // the offset last
  void* total_temp(void* temp) const { return static_cast<std::byte*>(temp) + scan; }
  Out* offset(void* temp) const { return reinterpret_cast<Out*>(static_cast<std::byte*>(temp) + totals.total); }
};

/// Reduce, then scan: every rank but the last sums its shard (one read of it) and the totals are
/// gathered; then each rank scans its shard once, from the totals of the ranks before it (rank 0
/// from nothing: the one-GPU scan's bits). A scan followed by adding the offset would write the
/// shard twice; here the last rank, which nobody waits for, reads its shard twice instead of
/// three passes, and the others read it twice and write it once.
template <class In>
Phases scan_phases(const In* shard, scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp,
                   std::size_t temp_bytes, Place place, cudaStream_t stream) {
  using Out = scan_result_t<In>;
  const ScanTemp<In> layout(n, place.ranks);
  require(temp != nullptr && (n == 0 || (shard != nullptr && out != nullptr)), "scan: a null pointer");
  require(temp_bytes >= layout.bytes(), "scan: temporary storage smaller than scan_temp_bytes(n, ranks)");
  Out* total = layout.totals.template partial_in<Out>(temp);
  Out* totals = layout.totals.template gathered_in<Out>(temp);
  Out* offset = layout.offset(temp);
  const bool needed = place.rank < place.ranks - 1 && n > 0;  // a rank after this one adds its total
  return {[=] {
            if (!needed) {
              GPULAB_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(Out), stream));
            } else if constexpr (std::is_integral_v<In>) {
              std::size_t bytes = layout.total_of;
              GPULAB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(layout.total_temp(temp), bytes, shard,
                                                                   reinterpret_cast<std::uint32_t*>(total), n,
                                                                   cuda::std::plus<std::uint32_t>{}, WidenToUnsigned<In>{},
                                                                   std::uint32_t{0}, stream));
            } else {
              gpulab::reduce_sum(shard, n, total, layout.total_temp(temp), layout.total_of, stream);
            }
          },
          {all_gather(total, totals, 1, nccl_type<Out>())},
          [=] {
            if (n == 0) return;
            if (place.rank == 0) {  // rank 0's share is its own scan
              if (inclusive) gpulab::inclusive_scan(shard, out, n, temp, layout.scan, stream);
              else gpulab::exclusive_scan(shard, out, n, temp, layout.scan, stream);
              return;
            }
            launch("add_in_rank_order", add_in_rank_order<Out>, {1, 1}, stream, totals, place.rank, offset);
            gpulab::detail::scan_from(offset, shard, out, n, inclusive, temp, layout.scan, stream);
          }};
}

}  // namespace

template <class In>
std::size_t scan_temp_bytes(std::size_t n, int ranks) {
  return ScanTemp<In>(n, ranks).bytes();
}

template <class In>
void inclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(comm, stream, [&](Place place) { return scan_phases(shard, out, n, true, temp, temp_bytes, place, stream); });
}
template <class In>
void exclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(comm, stream, [&](Place place) { return scan_phases(shard, out, n, false, temp, temp_bytes, place, stream); });
}

template <class In>
void scan_all(std::span<const ScanRank<In>> ranks, bool inclusive) {
  run_ranks(ranks, [inclusive](const ScanRank<In>& r, Place place) {
    return scan_phases(r.shard, r.out, r.n, inclusive, r.temp, r.temp_bytes, place, r.stream);
  });
}
template <class In>
void inclusive_scan(std::span<const ScanRank<In>> ranks) {
  scan_all(ranks, true);
}
template <class In>
void exclusive_scan(std::span<const ScanRank<In>> ranks) {
  scan_all(ranks, false);
}

#define GPULAB_INSTANTIATE_MULTI_SCAN(In)                                                                        \
  template std::size_t scan_temp_bytes<In>(std::size_t, int);                                                   \
  template void inclusive_scan<In>(const In*, scan_result_t<In>*, std::size_t, void*, std::size_t, ncclComm_t,   \
                                   cudaStream_t);                                                                \
  template void exclusive_scan<In>(const In*, scan_result_t<In>*, std::size_t, void*, std::size_t, ncclComm_t,   \
                                   cudaStream_t);                                                                \
  template void inclusive_scan<In>(std::span<const ScanRank<In>>);                                               \
  template void exclusive_scan<In>(std::span<const ScanRank<In>>);
GPULAB_INSTANTIATE_MULTI_SCAN(std::int8_t)
GPULAB_INSTANTIATE_MULTI_SCAN(std::int16_t)
GPULAB_INSTANTIATE_MULTI_SCAN(std::int32_t)
GPULAB_INSTANTIATE_MULTI_SCAN(float)
GPULAB_INSTANTIATE_MULTI_SCAN(double)
#undef GPULAB_INSTANTIATE_MULTI_SCAN

}  // namespace gpulab::multi
