// Several GPUs: the one-GPU function on each rank's shard, then NCCL. Floats are gathered and added
// in rank order on every rank (an all-reduce's order is NCCL's choice, so its bits could differ
// between runs, algorithms and ranks); integer counts go through an all-reduce (exact in any order).
// Every function is three phases — local, collectives, combine — run in a row for one rank, or
// phase by phase over all ranks with the collectives in one NCCL group. A rank's collectives are
// data (what it sends where), so that a test seam can carry them out by copies on one GPU
// (lib/multi_loopback.hpp).
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
#include "lib/multi_loopback.hpp"
#include "lib/nccl_check.hpp"
#include "lib/per_device.hpp"
#include "lib/scan_from.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpulab::multi {
namespace {

constexpr std::size_t kAlign = 256;

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

/// An integer as the scan adds it: sign-extended to 32 bits, then unsigned (wrapping sums).
template <class In>
struct WidenToUnsigned {
  __host__ __device__ std::uint32_t operator()(In x) const { return static_cast<std::uint32_t>(static_cast<std::int32_t>(x)); }
};

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

/// Where a rank stands: rank `rank` of `ranks`.
struct Place {
  int rank = 0, ranks = 1;
};

Place place_of(ncclComm_t comm) {
  Place p;
  p.ranks = ranks_of(comm);
  check_nccl(ncclCommUserRank(comm, &p.rank), "ncclCommUserRank", comm);
  return p;
}

/// One collective of a rank, as data: what it sends and where it receives. Run through NCCL, or by
/// the loopback's copies in tests.
struct Collective {
  enum class Kind { all_gather, all_reduce_sum, broadcast } kind;
  const void* send;
  void* recv;
  std::size_t count;  // elements per rank (all-gather), or in all
  ncclDataType_t type;
  int root = 0;  // broadcast
};

Collective all_gather(const void* send, void* recv, std::size_t count, ncclDataType_t type) {
  return {Collective::Kind::all_gather, send, recv, count, type};
}
Collective all_reduce_sum(const void* send, void* recv, std::size_t count, ncclDataType_t type) {
  return {Collective::Kind::all_reduce_sum, send, recv, count, type};
}
Collective broadcast(void* data, std::size_t count, ncclDataType_t type, int root) {
  return {Collective::Kind::broadcast, data, data, count, type, root};
}

void enqueue(const Collective& c, ncclComm_t comm, cudaStream_t stream) {
  switch (c.kind) {
    case Collective::Kind::all_gather:
      return check_nccl(ncclAllGather(c.send, c.recv, c.count, c.type, comm, stream), "ncclAllGather", comm);
    case Collective::Kind::all_reduce_sum:
      return check_nccl(ncclAllReduce(c.send, c.recv, c.count, c.type, ncclSum, comm, stream), "ncclAllReduce", comm);
    case Collective::Kind::broadcast:
      return check_nccl(ncclBroadcast(c.send, c.recv, c.count, c.type, c.root, comm, stream), "ncclBroadcast", comm);
  }
}

std::size_t element_bytes(ncclDataType_t type) {
  switch (type) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclFloat64: return 8;
    default: throw Error("gpulab::multi: an NCCL type the loopback does not know");
  }
}

/// One rank's three phases: its local part, its collectives (in the order every rank issues
/// them), the combining step.
struct Phases {
  std::function<void()> local;
  std::vector<Collective> collectives;
  std::function<void()> combine;
};

thread_local bool loopback_active = false;

/// The loopback's collectives over every rank, after every rank's local part finished: copies with
/// NCCL's semantics (see multi_loopback.hpp).
template <class Rank>
void loopback_collectives(std::span<const Rank> ranks, const std::vector<Phases>& phases) {
  for (const Rank& r : ranks) {
    GPULAB_CUDA_CHECK(cudaSetDevice(r.device));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(r.stream));
  }
  const std::size_t n = phases.size();
  for (const Phases& p : phases)
    require(p.collectives.size() == phases[0].collectives.size(), "loopback: the ranks disagree on their collectives");
  for (std::size_t j = 0; j < phases[0].collectives.size(); ++j) {
    const Collective& c = phases[0].collectives[j];
    for (const Phases& p : phases)
      require(p.collectives[j].kind == c.kind && p.collectives[j].count == c.count && p.collectives[j].type == c.type &&
                  p.collectives[j].root == c.root,
              "loopback: the ranks disagree on their collectives");
    const std::size_t bytes = c.count * element_bytes(c.type);
    if (bytes == 0) continue;
    auto copy = [](void* to, const void* from, std::size_t b) {
      GPULAB_CUDA_CHECK(cudaMemcpy(to, from, b, cudaMemcpyDefault));
    };
    switch (c.kind) {
      case Collective::Kind::all_gather:
        for (const Phases& to : phases)
          for (std::size_t q = 0; q < n; ++q)
            copy(static_cast<std::byte*>(to.collectives[j].recv) + q * bytes, phases[q].collectives[j].send, bytes);
        break;
      case Collective::Kind::all_reduce_sum: {
        require(c.type == ncclUint32, "loopback: a sum all-reduce of a type other than uint32");
        std::vector<std::uint32_t> sum(c.count, 0), part(c.count);
        for (const Phases& from : phases) {
          copy(part.data(), from.collectives[j].send, bytes);
          for (std::size_t i = 0; i < c.count; ++i) sum[i] += part[i];
        }
        for (const Phases& to : phases) copy(to.collectives[j].recv, sum.data(), bytes);
        break;
      }
      case Collective::Kind::broadcast: {
        require(c.root >= 0 && static_cast<std::size_t>(c.root) < n, "loopback: a broadcast from a rank outside");
        const void* from = phases[static_cast<std::size_t>(c.root)].collectives[j].send;
        for (const Phases& to : phases)
          if (to.collectives[j].recv != from) copy(to.collectives[j].recv, from, bytes);
        break;
      }
    }
  }
}

/// The all-ranks form: each rank's phases made on its device (temporary sizes depend on it), then
/// the locals on each device, the collectives of all ranks in one NCCL group, the combines; the
/// caller's device is current again at the end.
template <class Rank, class MakePhases>
void run_ranks(std::span<const Rank> ranks, MakePhases make_phases) {
  if (ranks.empty()) return;
  const KeepCurrentDevice keep;  // also when a rank's step throws
  const bool loopback = loopback_active;
  std::vector<Phases> phases;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    GPULAB_CUDA_CHECK(cudaSetDevice(ranks[i].device));
    const Place place = loopback ? Place{static_cast<int>(i), static_cast<int>(ranks.size())} : place_of(ranks[i].comm);
    phases.push_back(make_phases(ranks[i], place));
  }
  auto each = [&](auto&& step) {
    for (std::size_t i = 0; i < phases.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(ranks[i].device));
      step(phases[i], ranks[i]);
    }
  };
  each([](const Phases& p, const Rank&) { p.local(); });
  if (loopback) {
    loopback_collectives(ranks, phases);
  } else {
    NcclGroup group;
    each([](const Phases& p, const Rank& r) {
      for (const Collective& c : p.collectives) enqueue(c, r.comm, r.stream);
    });
    group.end();
  }
  each([](const Phases& p, const Rank&) { p.combine(); });
}

/// The per-rank form: one rank's phases in a row on its stream.
void run_one(const Phases& p, ncclComm_t comm, cudaStream_t stream) {
  p.local();
  for (const Collective& c : p.collectives) enqueue(c, comm, stream);
  p.combine();
}

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

Phases histogram_phases(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, Place,
                        cudaStream_t stream) {
  return {[=] { gpulab::histogram(shard, n, m, counts, stream); }, {all_reduce_sum(counts, counts, m, ncclUint32)}, [] {}};
}

Phases atax_phases(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
                   std::size_t temp_bytes, Place place, cudaStream_t stream) {
  require(cols > 0, "atax: cols must be at least 1");
  require(y != nullptr && temp != nullptr, "atax: a null output or temporary storage");
  const TempLayout layout(rows > 0 ? gpulab::atax_temp_bytes(rows, cols) : 0, std::size_t{cols} * sizeof(float),
                          place.ranks);
  require(temp_bytes >= layout.total, "atax: temporary storage smaller than atax_temp_bytes(rows, cols, ranks)");
  float* partial = layout.partial_in<float>(temp);
  float* gathered = layout.gathered_in<float>(temp);
  return {[=] {
            if (rows > 0) gpulab::atax(a_rows, x, rows, cols, partial, temp, layout.local, stream);
            else GPULAB_CUDA_CHECK(cudaMemsetAsync(partial, 0, std::size_t{cols} * sizeof(float), stream));
          },
          {all_gather(partial, gathered, cols, ncclFloat32)},
          [=] {
            launch("add_columns_in_rank_order", add_columns_in_rank_order,
                   {static_cast<unsigned>(ceil_div(cols, 256)), 256}, stream, gathered, place.ranks, cols, y);
          }};
}

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

/// *offset = the totals of ranks 0 … rank−1, added in that order.
template <class Out>
__global__ void offset_of_rank(const Out* totals, int rank, Out* offset) {
  Out s = totals[0];
  for (int r = 1; r < rank; ++r) s = add_wrapping(s, totals[r]);
  *offset = s;
}

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
            launch("offset_of_rank", offset_of_rank<Out>, {1, 1}, stream, totals, place.rank, offset);
            gpulab::detail::scan_from(offset, shard, out, n, inclusive, temp, layout.scan, stream);
          }};
}

/// Every rank's block of rows broadcast from it into `full` (rows `row_elements` of `type` apart,
/// packed) on every rank; ranks without rows send nothing.
std::vector<Collective> row_block_broadcasts(void* full, std::size_t rows, std::size_t row_elements,
                                             ncclDataType_t type, int ranks) {
  std::vector<Collective> out;
  for (int q = 0; q < ranks; ++q) {
    const Rows block = rows_of(rows, q, ranks);
    if (block.end == block.begin || row_elements == 0) continue;
    void* at = static_cast<std::byte*>(full) + block.begin * row_elements * element_bytes(type);
    out.push_back(broadcast(at, (block.end - block.begin) * row_elements, type, q));
  }
  return out;
}

Phases sgemm_phases(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, Place place, cudaStream_t stream) {
  const Rows mine = rows_of(m, place.rank, place.ranks);
  require(m == 0 || n == 0 || c != nullptr, "sgemm: a null C");
  return {[=] {
            if (mine.end > mine.begin)
              gpulab::sgemm(mine.end - mine.begin, n, k, alpha, a_rows, lda, b, ldb, beta, c + mine.begin * n, n, stream);
          },
          row_block_broadcasts(c, m, n, ncclFloat32, place.ranks),
          [] {}};
}

Phases conv_phases(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width,
                   std::size_t height, const Filter3x3& filter, Border border, Gather gather, Place place,
                   cudaStream_t stream) {
  const Rows mine = rows_of(height, place.rank, place.ranks);
  // Gather::none: a rank without rows (more ranks than rows) has nothing to write, and may pass none.
  const bool writes = width > 0 && (gather == Gather::all ? height > 0 : mine.end > mine.begin);
  require(!writes || out != nullptr, "conv3x3: a null output");
  const std::size_t row_bytes = 3 * width;
  const std::size_t lo = mine.begin > 0 ? mine.begin - 1 : 0;
  // The band's rows lo … hi − 1, filtered into the same rows of the whole image, or of an output
  // shaped like the band: the rows outside [begin, end) see the band's edge as a border, and are
  // overwritten by their owners' broadcasts (Gather::all) or left as ghost rows (Gather::none).
  std::uint8_t* band_out = gather == Gather::all ? out + lo * row_bytes : out;
  return {[=] {
            if (mine.end == mine.begin || width == 0) return;
            const std::size_t hi = std::min(mine.end + 1, height);
            gpulab::conv3x3(band, in_pitch, band_out, row_bytes, width, hi - lo, filter, border, stream);
          },
          gather == Gather::all ? row_block_broadcasts(out, height, row_bytes, ncclUint8, place.ranks)
                                : std::vector<Collective>{},
          [] {}};
}

}  // namespace

namespace detail {
LoopbackRanks::LoopbackRanks() : previous_(loopback_active) { loopback_active = true; }
LoopbackRanks::~LoopbackRanks() { loopback_active = previous_; }
}  // namespace detail

Rows rows_of(std::size_t m, int rank, int ranks) {
  require(ranks > 0 && rank >= 0 && rank < ranks, "rows_of: a rank outside 0 … ranks − 1");
  const auto r = static_cast<std::size_t>(rank), count = static_cast<std::size_t>(ranks);
  const std::size_t base = m / count, extra = m % count;
  const std::size_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

int ranks_of(ncclComm_t comm) {
  require(comm != nullptr, "a null communicator");
  int ranks = 0;
  check_nccl(ncclCommCount(comm, &ranks), "ncclCommCount", comm);
  return ranks;
}

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a_rows, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, ncclComm_t comm, cudaStream_t stream) {
  run_one(sgemm_phases(m, n, k, alpha, a_rows, lda, b, ldb, beta, c, place_of(comm), stream), comm, stream);
}

void sgemm(std::span<const SgemmRank> ranks, std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
           std::size_t ldb, float beta) {
  run_ranks(ranks, [&](const SgemmRank& r, Place place) {
    return sgemm_phases(m, n, k, alpha, r.a_rows, lda, r.b, ldb, beta, r.c, place, r.stream);
  });
}

void conv3x3(const std::uint8_t* band, std::size_t in_pitch, std::uint8_t* out, std::size_t width, std::size_t height,
             const Filter3x3& filter, Border border, ncclComm_t comm, cudaStream_t stream, Gather gather) {
  run_one(conv_phases(band, in_pitch, out, width, height, filter, border, gather, place_of(comm), stream), comm, stream);
}

void conv3x3(std::span<const ConvRank> ranks, std::size_t width, std::size_t height, const Filter3x3& filter,
             Border border, Gather gather) {
  run_ranks(ranks, [&](const ConvRank& r, Place place) {
    return conv_phases(r.band, r.in_pitch, r.out, width, height, filter, border, gather, place, r.stream);
  });
}

template <class T>
std::size_t reduce_sum_temp_bytes(std::size_t n, int ranks) {
  return TempLayout(gpulab::reduce_sum_temp_bytes<T>(n), sizeof(T), ranks).total;
}

template <class T>
void reduce_sum(const T* shard, std::size_t n, T* out, void* temp, std::size_t temp_bytes, ncclComm_t comm,
                cudaStream_t stream) {
  run_one(reduce_phases(shard, n, out, temp, temp_bytes, place_of(comm), stream), comm, stream);
}

template <class T>
void reduce_sum(std::span<const ReduceRank<T>> ranks) {
  run_ranks(ranks, [](const ReduceRank<T>& r, Place place) {
    return reduce_phases(r.shard, r.n, r.out, r.temp, r.temp_bytes, place, r.stream);
  });
}

void histogram(const std::int32_t* shard, std::size_t n, std::uint32_t m, std::uint32_t* counts, ncclComm_t comm,
               cudaStream_t stream) {
  run_one(histogram_phases(shard, n, m, counts, place_of(comm), stream), comm, stream);
}

void histogram(std::span<const HistogramRank> ranks, std::uint32_t m) {
  run_ranks(ranks, [m](const HistogramRank& r, Place place) {
    return histogram_phases(r.shard, r.n, m, r.counts, place, r.stream);
  });
}

std::size_t atax_temp_bytes(std::uint32_t rows, std::uint32_t cols, int ranks) {
  return TempLayout(rows > 0 ? gpulab::atax_temp_bytes(rows, cols) : 0, std::size_t{cols} * sizeof(float), ranks).total;
}

void atax(const float* a_rows, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* temp,
          std::size_t temp_bytes, ncclComm_t comm, cudaStream_t stream) {
  run_one(atax_phases(a_rows, x, rows, cols, y, temp, temp_bytes, place_of(comm), stream), comm, stream);
}

void atax(std::span<const AtaxRank> ranks, std::uint32_t cols) {
  run_ranks(ranks, [cols](const AtaxRank& r, Place place) {
    return atax_phases(r.a_rows, r.x, r.rows, cols, r.y, r.temp, r.temp_bytes, place, r.stream);
  });
}

template <class In>
std::size_t scan_temp_bytes(std::size_t n, int ranks) {
  return ScanTemp<In>(n, ranks).bytes();
}

template <class In>
void inclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(scan_phases(shard, out, n, true, temp, temp_bytes, place_of(comm), stream), comm, stream);
}
template <class In>
void exclusive_scan(const In* shard, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t temp_bytes,
                    ncclComm_t comm, cudaStream_t stream) {
  run_one(scan_phases(shard, out, n, false, temp, temp_bytes, place_of(comm), stream), comm, stream);
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
