// gpulab::multi::reduce_sum: each rank sums its shard (gpulab::reduce_sum), the partial sums are
// gathered, and every rank adds them in rank order.
#include <gpulab/multi/reduce.hpp>
#include <gpulab/reduce.hpp>

#include "lib/launch.cuh"
#include "lib/multi_phases.cuh"

namespace gpulab::multi {
namespace {

using namespace detail;

template <class T>
Phases reduce_phases(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, Place place,
                     cudaStream_t stream) {
  const TempLayout layout(gpulab::reduce_sum_temp_bytes<T>(n), sizeof(T), place.ranks);
  require(out != nullptr && temp != nullptr, "reduce_sum: a null output or temporary storage");
  require(temp_bytes >= layout.total, "reduce_sum: temporary storage smaller than reduce_sum_temp_bytes(n, ranks)");
  T* partial = layout.partial_in<T>(temp);
  T* gathered = layout.gathered_in<T>(temp);
  return {[=] { gpulab::reduce_sum(shard, n, partial, temp, layout.local, stream); },
          {all_gather(partial, gathered, 1, nccl_type<T>())},
          [=] { launch("add_in_rank_order", add_in_rank_order<T>, {1, 1}, stream, gathered, place.ranks, out); }};
}

}  // namespace

template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n, int ranks) {
  return detail::TempLayout(gpulab::reduce_sum_temp_bytes<T>(n), sizeof(T), ranks).total;
}

template <class T>
void reduce_sum(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                cudaStream_t stream) {
  run_one(comm, stream, [&](Place place) { return reduce_phases(shard, n, out, temp, temp_bytes, place, stream); });
}

template <class T>
void reduce_sum(std::span<const ReduceRank<T>> ranks) {
  run_ranks(ranks, [](const ReduceRank<T>& r, Place place) {
    return reduce_phases(r.shard, r.n, r.out, r.temp, r.temp_bytes, place, r.stream);
  });
}

#define GPULAB_INSTANTIATE_MULTI_REDUCE(T)                                                                 \
  template std::size_t reduce_sum_temp_bytes<T>(std::size_t, int);                                         \
  template void reduce_sum<T>(const T*, std::size_t, T*, void*, std::size_t, ncclComm_t, cudaStream_t);    \
  template void reduce_sum<T>(std::span<const ReduceRank<T>>);
GPULAB_INSTANTIATE_MULTI_REDUCE(std::int32_t)
GPULAB_INSTANTIATE_MULTI_REDUCE(float)
GPULAB_INSTANTIATE_MULTI_REDUCE(double)
#undef GPULAB_INSTANTIATE_MULTI_REDUCE

}  // namespace gpulab::multi
