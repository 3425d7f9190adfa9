// Several GPUs: the one-GPU function on each rank's shard, then NCCL. Floats are gathered and added
// in rank order on every rank (an all-reduce's order is NCCL's choice, so its bits could differ
// between runs, algorithms and ranks); integer counts go through an all-reduce (exact in any order).
// Every function is three phases — local, collective, combine — run in a row for one rank, or
// phase by phase over all ranks with the collectives in one NCCL group.
#include <gpulab/atax.hpp>
#include <gpulab/conv.hpp>
#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/multi_gpu.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>
#include <gpulab/sgemm.hpp>

#include "lib/arith.hpp"
#include "lib/launch.cuh"

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpulab::multi {
namespace {

constexpr std::size_t kAlign = 256;

void check_nccl(ncclResult_t r, const char* what, ncclComm_t comm) {
  if (r == ncclSuccess) return;
  std::string msg = std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r);
  if (const char* last = comm ? ncclGetLastError(comm) : nullptr; last && *last) msg += " (" + std::string(last) + ")";
  throw Error(msg);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gpulab::multi::" + what);
}

template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else return ncclFloat64;
}

/// a + b, integers wrapping modulo 2^32 like the one-GPU functions.
template <class T>
__device__ T add_wrapping(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
  else return a + b;
}

/// out = Σ_r parts[r] in rank order; int32 in unsigned arithmetic (wraps like the one-GPU sum).
template <class T>
__global__ void add_in_rank_order(const T* parts, int ranks, T* out) {
  T s = parts[0];
  for (int r = 1; r < ranks; ++r) s = add_wrapping(s, parts[r]);
  *out = s;
}

/// y[j] = Σ_r parts[r·cols + j] in rank order, a thread per column.
__global__ void add_columns_in_rank_order(const float* parts, int ranks, std::uint32_t cols, float* y) {
  const std::size_t j = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = parts[j];
  for (int r = 1; r < ranks; ++r) s += parts[std::size_t(r) * cols + j];
  y[j] = s;
}

/// A rank's temporary storage: the one-GPU function's, its partial result, every rank's gathered.
struct TempLayout {
  std::size_t local = 0, partial = 0, gathered = 0, total = 0;
  TempLayout(std::size_t local_bytes, std::size_t partial_bytes, int ranks)
      : local(align_up(local_bytes, kAlign)),
        partial(align_up(partial_bytes, kAlign)),
        gathered(align_up(partial_bytes * static_cast<std::size_t>(ranks), kAlign)),
        total(local + partial + gathered) {}
  template <class T>
  T* partial_in(void* temp) const {
    return reinterpret_cast<T*>(static_cast<std::byte*>(temp) + local);
  }
  template <class T>
  T* gathered_in(void* temp) const {
    return reinterpret_cast<T*>(static_cast<std::byte*>(temp) + local + partial);
  }
};

/// One rank's three phases.
struct Phases {
  std::function<void()> local, collective, combine;
};

/// The all-ranks form: each rank's phases made on its device (temporary sizes depend on it), then
/// the locals on each device, the collectives of all ranks in one NCCL group, the combines; the
/// caller's device is current again at the end.
template <class Rank, class MakePhases>
void run_ranks(std::span<const Rank> ranks, MakePhases make_phases) {
  int caller = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&caller));
  std::vector<Phases> phases;
  for (const Rank& r : ranks) {
    GPULAB_CUDA_CHECK(cudaSetDevice(r.device));
    phases.push_back(make_phases(r));
  }
  auto each = [&](auto&& step) {
    for (std::size_t i = 0; i < phases.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(ranks[i].device));
      step(phases[i]);
    }
  };
  each([](const Phases& p) { p.local(); });
  check_nccl(ncclGroupStart(), "ncclGroupStart", nullptr);
  each([](const Phases& p) { p.collective(); });
  check_nccl(ncclGroupEnd(), "ncclGroupEnd", nullptr);
  each([](const Phases& p) { p.combine(); });
  GPULAB_CUDA_CHECK(cudaSetDevice(caller));
}

template <class T>
Phases reduce_phases(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                     cudaStream_t stream) {
  const int ranks = ranks_of(comm);
  const TempLayout layout(gpulab::reduce_sum_temp_bytes<T>(n), sizeof(T), ranks);
  require(out != nullptr && temp != nullptr, "reduce_sum: a null output or temporary storage");
  require(temp_bytes >= layout.total, "reduce_sum: temporary storage smaller than reduce_sum_temp_bytes(n, ranks)");
  T* partial = layout.partial_in<T>(temp);
  T* gathered = layout.gathered_in<T>(temp);
  return {[=] { gpulab::reduce_sum(shard, n, partial, temp, layout.local, stream); },
          [=] { check_nccl(ncclAllGather(partial, gathered, 1, nccl_type<T>(), comm, stream), "ncclAllGather", comm); },
          [=] { launch("add_in_rank_order", add_in_rank_order<T>, {1, 1}, stream, gathered, ranks, out); }};
}

Phases histogram_phases(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts,
                        ncclComm_t comm, cudaStream_t stream) {
  ranks_of(comm);  // a bad communicator fails here, before any work
  return {[=] { gpulab::histogram(shard, n, m, counts, stream); },
          [=] { check_nccl(ncclAllReduce(counts, counts, m, ncclUint32, ncclSum, comm, stream), "ncclAllReduce", comm); },
          [] {}};
}

Phases atax_phases(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                   std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream) {
  const int ranks = ranks_of(comm);
  require(cols > 0, "atax: cols must be at least 1");
  require(y != nullptr && temp != nullptr, "atax: a null output or temporary storage");
  const TempLayout layout(rows > 0 ? gpulab::atax_temp_bytes(rows, cols) : 0, std::size_t{cols} * sizeof(float), ranks);
  require(temp_bytes >= layout.total, "atax: temporary storage smaller than atax_temp_bytes(rows, cols, ranks)");
  float* partial = layout.partial_in<float>(temp);
  float* gathered = layout.gathered_in<float>(temp);
  return {[=] {
            if (rows > 0) gpulab::atax(a_rows, x, rows, cols, partial, temp, layout.local, stream);
            else GPULAB_CUDA_CHECK(cudaMemsetAsync(partial, 0, std::size_t{cols} * sizeof(float), stream));
          },
          [=] { check_nccl(ncclAllGather(partial, gathered, cols, ncclFloat32, comm, stream), "ncclAllGather", comm); },
          [=] {
            launch("add_columns_in_rank_order", add_columns_in_rank_order,
                   {static_cast<unsigned>(ceil_div(cols, 256)), 256}, stream, gathered, ranks, cols, y);
          }};
}

/// *total = the shard's sum as its scan left it: the last inclusive prefix, or the last exclusive
/// prefix plus the last element; 0 for an empty shard.
template <class In, class Out>
__global__ void shard_total(const In* in, const Out* out, std::size_t n, bool inclusive, Out* total) {
  if (n == 0) *total = Out{};
  else if (inclusive) *total = out[n - 1];
  else if constexpr (std::is_integral_v<Out>)
    *total = static_cast<Out>(static_cast<std::uint32_t>(out[n - 1]) + static_cast<std::uint32_t>(static_cast<Out>(in[n - 1])));
  else *total = out[n - 1] + static_cast<Out>(in[n - 1]);
}

/// out[i] += the totals of ranks 0 … rank−1, added in that order (every thread the same sum).
template <class Out>
__global__ void add_offset(const Out* totals, int rank, Out* out, std::size_t n) {
  Out offset = totals[0];
  for (int r = 1; r < rank; ++r) offset = add_wrapping(offset, totals[r]);
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = add_wrapping(out[i], offset);
}

template <class In>
Phases scan_phases(const In* shard, scan_result_t<In>* out, std::size_t n, bool inclusive, void* temp,
                   std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream) {
  using Out = scan_result_t<In>;
  const int ranks = ranks_of(comm);
  int rank = 0;
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  const TempLayout layout(gpulab::scan_temp_bytes<In>(n), sizeof(Out), ranks);
  require(temp != nullptr && (n == 0 || (shard != nullptr && out != nullptr)), "scan: a null pointer");
  require(temp_bytes >= layout.total, "scan: temporary storage smaller than scan_temp_bytes(n, ranks)");
  Out* total = layout.partial_in<Out>(temp);
  Out* totals = layout.gathered_in<Out>(temp);
  return {[=] {
            if (inclusive) gpulab::inclusive_scan(shard, out, n, temp, layout.local, stream);
            else gpulab::exclusive_scan(shard, out, n, temp, layout.local, stream);
            launch("shard_total", shard_total<In, Out>, {1, 1}, stream, shard, out, n, inclusive, total);
          },
          [=] { check_nccl(ncclAllGather(total, totals, 1, nccl_type<Out>(), comm, stream), "ncclAllGather", comm); },
          [=] {
            if (rank == 0 || n == 0) return;  // rank 0's share is its own scan
            const auto blocks = static_cast<unsigned>(std::min<std::size_t>(ceil_div(n, 256), 65536));
            launch("add_offset", add_offset<Out>, {blocks, 256}, stream, totals, rank, out, n);
          }};
}

/// Every rank's block of rows broadcast from it into `full` (rows `row_elements` of `type` apart,
/// packed) on every rank; ranks without rows send nothing.
void broadcast_row_blocks(void* full, std::size_t rows, std::size_t row_elements, std::size_t element_bytes,
                          ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  const int ranks = ranks_of(comm);
  for (int q = 0; q < ranks; ++q) {
    const Rows block = rows_of(rows, q, ranks);
    if (block.end == block.begin) continue;
    void* at = static_cast<std::byte*>(full) + block.begin * row_elements * element_bytes;
    check_nccl(ncclBroadcast(at, at, (block.end - block.begin) * row_elements, type, q, comm, stream), "ncclBroadcast",
               comm);
  }
}

int rank_of(ncclComm_t comm) {
  int rank = 0;
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  return rank;
}

Phases sgemm_phases(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream) {
  const Rows mine = rows_of(m, rank_of(comm), ranks_of(comm));
  require(m == 0 || n == 0 || c != nullptr, "sgemm: a null C");
  return {[=] {
            if (mine.end > mine.begin)
              gpulab::sgemm(mine.end - mine.begin, n, k, alpha, a_rows, lda, b, ldb, beta, c + mine.begin * n, n, stream);
          },
          [=] { broadcast_row_blocks(c, m, n, sizeof(float), ncclFloat32, comm, stream); },
          [] {}};
}

Phases conv_phases(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width,
                   std::size_t height, const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream) {
  const Rows mine = rows_of(height, rank_of(comm), ranks_of(comm));
  require(height == 0 || width == 0 || out != nullptr, "conv3x3: a null output");
  const std::size_t row_bytes = 3 * width;
  return {[=] {
            if (mine.end == mine.begin || width == 0) return;
            // The band's rows lo … hi − 1: the output rows outside [begin, end) see the band's edge
            // as a border and are overwritten by their owners' broadcasts.
            const std::size_t lo = mine.begin > 0 ? mine.begin - 1 : 0, hi = std::min(mine.end + 1, height);
            gpulab::conv3x3(band, in_pitch, out + lo * row_bytes, row_bytes, width, hi - lo, filter, border, stream);
          },
          [=] { broadcast_row_blocks(out, height, row_bytes, 1, ncclUint8, comm, stream); },
          [] {}};
}

void run_one(const Phases& p) {
  p.local();
  p.collective();
  p.combine();
}

}  // namespace

Rows rows_of(std::size_t m, int rank, int ranks) {
  require(ranks > 0 && rank >= 0 && rank < ranks, "rows_of: a rank outside 0 … ranks − 1");
  const auto r = static_cast<std::size_t>(rank), count = static_cast<std::size_t>(ranks);
  const std::size_t base = m / count, extra = m % count;
  const std::size_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream) {
  run_one(sgemm_phases(m, n, k, alpha, a_rows, lda, b, ldb, beta, c, comm, stream));
}

void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta) {
  run_ranks(ranks, [&](const SgemmRank& r) {
    return sgemm_phases(m, n, k, alpha, r.a_rows, lda, r.b, ldb, beta, r.c, r.comm, r.stream);
  });
}

void conv3x3(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width, std::size_t height,
             const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream) {
  run_one(conv_phases(band, in_pitch, out, width, height, filter, border, comm, stream));
}

void conv3x3(std::span<const ConvRank> ranks, std::size_t width, std::size_t height, const Filter3x3& filter,
             Border border) {
  run_ranks(ranks, [&](const ConvRank& r) {
    return conv_phases(r.band, r.in_pitch, r.out, width, height, filter, border, r.comm, r.stream);
  });
}

int ranks_of(ncclComm_t comm) {
  require(comm != nullptr, "a null communicator");
  int ranks = 0;
  check_nccl(ncclCommCount(comm, &ranks), "ncclCommCount", comm);
  return ranks;
}

template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n, int ranks) {
  return TempLayout(gpulab::reduce_sum_temp_bytes<T>(n), sizeof(T), ranks).total;
}

template <class T>
void reduce_sum(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                cudaStream_t stream) {
  run_one(reduce_phases(shard, n, out, temp, temp_bytes, comm, stream));
}

template <class T>
void reduce_sum(std::span<const ReduceRank<T>> ranks) {
  run_ranks(ranks, [](const ReduceRank<T>& r) {
    return reduce_phases(r.shard, r.n, r.out, r.temp, r.temp_bytes, r.comm, r.stream);
  });
}

void histogram(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, ncclComm_t comm,
               cudaStream_t stream) {
  run_one(histogram_phases(shard, n, m, counts, comm, stream));
}

void histogram(std::span<const HistogramRank> ranks, std::uint32_t m) {
  run_ranks(ranks, [m](const HistogramRank& r) {
    return histogram_phases(r.shard, r.n, m, r.counts, r.comm, r.stream);
  });
}

std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols, int ranks) {
  return TempLayout(rows > 0 ? gpulab::atax_temp_bytes(rows, cols) : 0, std::size_t{cols} * sizeof(float), ranks).total;
}

void atax(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream) {
  run_one(atax_phases(a_rows, x, rows, cols, y, temp, temp_bytes, comm, stream));
}

void atax(std::span<const AtaxRank> ranks, std::uint32_t cols) {
  run_ranks(ranks, [cols](const AtaxRank& r) {
    return atax_phases(r.a_rows, r.x, r.rows, cols, r.y, r.temp, r.temp_bytes, r.comm, r.stream);
  });
}

template <class In>
std::size_t scan_temp_bytes(std::size_t n, int ranks) {
  return TempLayout(gpulab::scan_temp_bytes<In>(n), sizeof(scan_result_t<In>), ranks).total;
}

template <class In>
void inclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(scan_phases(shard, out, n, true, temp, temp_bytes, comm, stream));
}
template <class In>
void exclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(scan_phases(shard, out, n, false, temp, temp_bytes, comm, stream));
}

template <class In>
void scan_all(std::span<const ScanRank<In>> ranks, bool inclusive) {
  run_ranks(ranks, [inclusive](const ScanRank<In>& r) {
    return scan_phases(r.shard, r.out, r.n, inclusive, r.temp, r.temp_bytes, r.comm, r.stream);
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

template std::size_t reduce_sum_temp_bytes<std::int32_t>(std::size_t, int);
template std::size_t reduce_sum_temp_bytes<float>(std::size_t, int);
template std::size_t reduce_sum_temp_bytes<double>(std::size_t, int);
template void reduce_sum<std::int32_t>(const std::int32_t*, std::size_t, std::int32_t*, void*, std::size_t, ncclComm_t,
                                       cudaStream_t);
template void reduce_sum<float>(const float*, std::size_t, float*, void*, std::size_t, ncclComm_t, cudaStream_t);
template void reduce_sum<double>(const double*, std::size_t, double*, void*, std::size_t, ncclComm_t, cudaStream_t);
template void reduce_sum<std::int32_t>(std::span<const ReduceRank<std::int32_t>>);
template void reduce_sum<float>(std::span<const ReduceRank<float>>);
template void reduce_sum<double>(std::span<const ReduceRank<double>>);

}  // namespace gpulab::multi
