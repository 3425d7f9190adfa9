// gpulab::sgemm (include/gpulab/sgemm.hpp), the entry: its arguments checked, the tensor cores
// where the device's policy and the shape give them (sgemm_mma.cu, sgemm_wgmma.cu), else the CUDA
// cores' paths (sgemm_simt.cu) as the rules pick them (sgemm_dispatch.cu), with the tile
// configuration measured per shape and device (the tuner below).
#include "lib/arith.hpp"
#include "lib/copy_rows.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "lib/memory_layout.hpp"
#include "lib/stream_scratch.hpp"
#include "sgemm/sgemm_device.cuh"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/sgemm.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gpulab {

namespace {

using sgemm_detail::GemmArgs;

// Sides below 2^31 − 1024, so that a tile's indices past the edge still fit an int.
constexpr std::size_t kMaxSide = (std::size_t{1} << 31) - 1024;

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gpulab::sgemm: " + what);
}

/// The bytes a rows × cols matrix with leading dimension ld spans.
ByteRange extent(const float* p, std::size_t rows, std::size_t cols, std::size_t ld) {
  return rows_span(p, rows, cols * sizeof(float), ld * sizeof(float));
}

/// A strided batch as the caller gives it: `count` members, each operand's `stride` floats apart.
struct Batch {
  std::size_t count = 1, stride_a = 0, stride_b = 0, stride_c = 0;
};

/// What `count` copies of `member`, each `stride` floats after the one before, span.
ByteRange batch_span(ByteRange member, std::size_t count, std::size_t stride) {
  if (member.first == member.last || count <= 1) return member;
  const std::size_t step = stride * sizeof(float);
  require(step / sizeof(float) == stride && (step == 0 || count - 1 <= (UINTPTR_MAX - member.last) / step),
          "a batch of " + std::to_string(count) + " members " + std::to_string(stride) + " floats apart spans past the address space");
  return {member.first, member.last + (count - 1) * step};
}

/// Throws on a bad call; returns whether there is anything to do. `copies`: places C is also
/// written to (sgemm_with_copies), each as C lies.
bool validate(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
              std::size_t ldb, const float* c, std::size_t ldc, const Batch& batch = {}, std::span<float* const> copies = {}) {
  require(op_a == Op::as_is || op_a == Op::transposed, "unknown op_a " + std::to_string(static_cast<int>(op_a)));
  require(op_b == Op::as_is || op_b == Op::transposed, "unknown op_b " + std::to_string(static_cast<int>(op_b)));
  require(m < kMaxSide && n < kMaxSide && k < kMaxSide,
          "m, n and k must each be below 2^31 - 1024 (got " + std::to_string(m) + ", " + std::to_string(n) + ", " +
              std::to_string(k) + ")");
  // A stored m × k, or k × m (transposed); B stored k × n, or n × k.
  const bool a_t = op_a == Op::transposed, b_t = op_b == Op::transposed;
  const std::size_t a_rows = a_t ? k : m, a_cols = a_t ? m : k, b_rows = b_t ? n : k, b_cols = b_t ? k : n;
  require(lda >= a_cols, "lda = " + std::to_string(lda) + " is smaller than A's stored row, " + (a_t ? "m = " : "k = ") +
                             std::to_string(a_cols));
  require(ldb >= b_cols, "ldb = " + std::to_string(ldb) + " is smaller than B's stored row, " + (b_t ? "k = " : "n = ") +
                             std::to_string(b_cols));
  require(ldc >= n, "ldc = " + std::to_string(ldc) + " is smaller than n = " + std::to_string(n));
  require(batch.count <= static_cast<std::size_t>(INT_MAX), "a batch of " + std::to_string(batch.count) + " members is more than 2^31 - 1");
  if (m == 0 || n == 0 || batch.count == 0) return false;  // nothing is read or written (BLAS's quick return)
  const bool has_a = m > 0 && k > 0, has_b = k > 0 && n > 0, has_c = m > 0 && n > 0;
  require(!has_a || a != nullptr, "a is null");
  require(!has_b || b != nullptr, "b is null");
  require(!has_c || c != nullptr, "c is null");
  for (const float* p : {a, b, c})
    require(reinterpret_cast<std::uintptr_t>(p) % alignof(float) == 0, "a matrix is not 4-byte aligned");
  const auto ce = extent(c, m, n, ldc);
  // C's members are written: no two may share an element (A's and B's may: they are only read).
  require(batch.count == 1 || batch.stride_c * sizeof(float) >= ce.last - ce.first,
          "stride_c = " + std::to_string(batch.stride_c) + " is smaller than a member of C, " + std::to_string((ce.last - ce.first) / sizeof(float)) +
              " floats: the members would overlap");
  const auto all_c = batch_span(ce, batch.count, batch.stride_c);
  const auto ae = batch_span(extent(a, a_rows, a_cols, lda), batch.count, batch.stride_a);
  const auto be = batch_span(extent(b, b_rows, b_cols, ldb), batch.count, batch.stride_b);
  require(!overlap(all_c, ae) && !overlap(all_c, be), "c overlaps a or b");
  // A copy is written as C is: it may share no byte with A, B, C or another copy, and lies as C
  // does modulo 16 bytes (C's 16-byte stores are the copies' too).
  require(copies.size() <= static_cast<std::size_t>(GemmArgs::kMaxCopies),
          std::to_string(copies.size()) + " copies of c: at most " + std::to_string(GemmArgs::kMaxCopies));
  require(copies.empty() || batch.count == 1, "copies of c in a batch");
  for (std::size_t q = 0; q < copies.size(); ++q) {
    require(copies[q] != nullptr, "copy " + std::to_string(q) + " of c is null");
    require((reinterpret_cast<std::uintptr_t>(copies[q]) - reinterpret_cast<std::uintptr_t>(c)) % 16 == 0,
            "copy " + std::to_string(q) + " of c does not lie as c does modulo 16 bytes");
    const auto qe = extent(copies[q], m, n, ldc);
    require(!overlap(qe, ae) && !overlap(qe, be) && !overlap(qe, ce), "copy " + std::to_string(q) + " of c overlaps a, b or c");
    for (std::size_t r = 0; r < q; ++r)
      require(!overlap(qe, extent(copies[r], m, n, ldc)), "copies " + std::to_string(r) + " and " + std::to_string(q) + " of c overlap");
  }
  return true;
}

/// The tuner's memory: the configuration measured fastest per device and shape.
struct ChoiceKey {
  int device, m, n, k, batch;
  bool vector, a_transposed, b_transposed;
  bool operator<(const ChoiceKey& o) const {
    return std::tie(device, m, n, k, batch, vector, a_transposed, b_transposed) <
           std::tie(o.device, o.m, o.n, o.k, o.batch, o.vector, o.a_transposed, o.b_transposed);
  }
};
std::mutex choices_mutex;
std::map<ChoiceKey, std::size_t> choices;

/// The rule used before (or without) a measurement: big tiles where there are enough of them (of
/// the staged kernels where an operand is stored transposed).
std::size_t rule_config(const GemmArgs& g) {
  const bool many =
      sgemm_detail::tile_count(g.m, g.n, 128, 128) * static_cast<std::size_t>(g.batch) >= 2 * static_cast<std::size_t>(sgemm_detail::sm_count());
  if (!g.as_stored()) return many ? sgemm_detail::kStaged : sgemm_detail::kSmallStaged;
  return many ? sgemm_detail::kDefault : sgemm_detail::kSmall;
}

/// The largest scratch output the tuner allocates to measure a call with beta ≠ 0 (larger ones
/// take the rule's configuration).
constexpr std::size_t kMaxProbeBytes = std::size_t{256} << 20;

/// Times every configuration (two runs each after a warm-up) and returns the fastest; nothing
/// where that would cost the caller's C. With beta = 0 they run on the caller's own operands (C
/// is overwritten by each, then by the chosen one); with beta ≠ 0 they write a scratch output
/// instead, with beta = 0 (reading C costs every configuration the same), up to kMaxProbeBytes.
std::optional<std::size_t> measure_configs(GemmArgs g, int splits, float* partials, cudaStream_t stream) {
  g.copies = 0;  // the chosen configuration's run writes them (a scratch C has none)
  std::optional<StreamScratch> scratch_c;
  if (g.beta != 0.f) {
    const std::size_t member = static_cast<std::size_t>(g.m) * g.n, bytes = member * static_cast<std::size_t>(g.batch) * sizeof(float);
    if (bytes > kMaxProbeBytes) return std::nullopt;
    scratch_c.emplace(bytes, stream);
    g.c = scratch_c->as<float>(), g.ldc = static_cast<std::size_t>(g.n), g.stride_c = member, g.beta = 0.f;
  }
  const Event start, stop;
  auto time_config = [&](std::size_t config, int reps) {  // ms a run, `reps` runs back to back
    start.record(stream);
    for (int rep = 0; rep < reps; ++rep) sgemm_detail::run_config(config, g, splits, partials, stream);
    stop.record(stream);
    GPULAB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return stop.ms_since(start) / static_cast<float>(reps);
  };
  const std::size_t configs = sgemm_detail::tile_configs().size();
  std::vector<float> ms(configs, std::numeric_limits<float>::infinity());  // a configuration that does not fit stays last
  for (std::size_t i = 0; i < configs; ++i) {
    if (!sgemm_detail::config_fits(i) || !sgemm_detail::config_takes(i, g)) continue;
    sgemm_detail::run_config(i, g, splits, partials, stream);  // warm-up
    ms[i] = time_config(i, 2);
  }
  // Short products are timed a second time, every configuration after all have run, each keeping
  // its faster time: one round picked by noise among near-equal tiles (300×260×700 ran 0.0167–0.0193
  // ms over three processes of one build, 0.0159–0.0160 with two rounds; H100, docs/sgemm.md).
  constexpr float kRetimeBelowMs = 1.f;
  if (*std::min_element(ms.begin(), ms.end()) < kRetimeBelowMs)
    for (std::size_t i = 0; i < configs; ++i)
      if (sgemm_detail::config_fits(i) && sgemm_detail::config_takes(i, g)) ms[i] = std::min(ms[i], time_config(i, 4));
  return static_cast<std::size_t>(std::min_element(ms.begin(), ms.end()) - ms.begin());
}

/// Points `data`/`ld` (a rows × cols operand) at a copy with 16-byte-aligned rows held in `copy`,
/// where its rows are not aligned and the copy fits kRealignMaxBytes; else leaves them. A pool out
/// of memory leaves them too: the product then runs on the unaligned rows, only slower.
void realign_rows(const float*& data, std::size_t& ld, int rows, int cols, std::optional<StreamScratch>& copy, cudaStream_t stream) {
  if (sgemm_detail::rows_aligned16(data, ld)) return;
  const std::size_t padded = (static_cast<std::size_t>(cols) + 3) / 4 * 4;
  const std::size_t bytes = static_cast<std::size_t>(rows) * padded * sizeof(float);
  if (bytes > sgemm_detail::kRealignMaxBytes || !take_scratch(copy, bytes, stream)) return;
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float), pitch = padded * sizeof(float);
  copy_rows(data, ld * sizeof(float), copy->as<float>(), pitch, row_bytes, static_cast<std::size_t>(rows), stream);
  // The padding is never used, but a row's last, partial vector is copied with a 16-byte cp.async
  // that reads only the valid bytes, and compute-sanitizer's initcheck counts all 16 as read: zero
  // it, so that a user's program under initcheck sees no report from memory gpulab made.
  if (padded != static_cast<std::size_t>(cols))
    GPULAB_CUDA_CHECK(cudaMemset2DAsync(copy->as<char>() + row_bytes, pitch, 0, pitch - row_bytes,
                                        static_cast<std::size_t>(rows), stream));
  data = copy->as<float>();
  ld = padded;
}

/// The few-rows path (g.m ≤ kFewRows) as the library runs it: one launch of clusters where the
/// columns fill the GPU, else split-K with its partial sums in scratch memory.
void few_rows_product(const GemmArgs& g, cudaStream_t stream) {
  if (const int ranks = sgemm_detail::few_rows_cluster_ranks(g); ranks > 0) {
    sgemm_detail::run_few_rows_cluster(g, ranks, stream);
    return;
  }
  const int splits = sgemm_detail::few_rows_splits(g);
  StreamScratch partials(splits > 1 ? static_cast<std::size_t>(splits) * g.m * g.n * sizeof(float) : 0, stream);
  sgemm_detail::run_few_rows(g, splits, partials.as<float>(), stream);
}

/// The rows × cols block of the product whose C starts at (row, col): A's rows from `row`, B's
/// columns from `col`, all of k.
GemmArgs block_of(GemmArgs g, int row, int col, int rows, int cols) {
  g.a += static_cast<std::size_t>(row) * g.lda;
  g.b += col;
  g.c += static_cast<std::size_t>(row) * g.ldc + static_cast<std::size_t>(col);
  g.m = rows, g.n = cols;
  return g;
}

/// Throws on a precision gpulab does not know, or one the device does not run (tf32 without TF32
/// tensor cores).
void require_precision(SgemmPrecision precision) {
  require(precision == SgemmPrecision::fp32 || precision == SgemmPrecision::fp32_tensor || precision == SgemmPrecision::tf32,
          "unknown precision " + std::to_string(static_cast<int>(precision)));
  require(sgemm_precision_supported(precision),
          "precision tf32 needs TF32 tensor cores (compute capability 8.0 and newer); this GPU is sm_" +
              std::to_string(current_compute_capability()) + ": use fp32 or fp32_tensor");
}

/// The tensor-core form the device's policy gives `precision` (none for fp32).
sgemm_detail::TensorForm tensor_form(SgemmPrecision precision) {
  const sgemm_detail::SgemmPolicy& policy = sgemm_detail::current_sgemm_policy();
  if (precision == SgemmPrecision::fp32) return sgemm_detail::TensorForm::none;
  return precision == SgemmPrecision::tf32 ? policy.tf32 : policy.fp32_tensor;
}

/// Whether the tensor cores take this product at `precision`: the device's policy gives it a form,
/// the shape pays, and the form reads the operands as they lie (mma.sync stages A and B as stored
/// only: operands stored transposed take the CUDA cores there).
bool takes_tensor_cores(const GemmArgs& g, SgemmPrecision precision) {
  const sgemm_detail::TensorForm form = tensor_form(precision);
  return form != sgemm_detail::TensorForm::none && sgemm_detail::takes_tensor_cores(g, precision == SgemmPrecision::tf32) &&
         (form == sgemm_detail::TensorForm::wgmma || g.as_stored());
}

/// The product on the tensor cores where they take it (above); false where the CUDA cores are to run
/// it (also where gpulab's pool could not hold the tensor path's scratch).
bool tensor_product(const GemmArgs& g, SgemmPrecision precision, cudaStream_t stream) {
  using sgemm_detail::TensorForm;
  if (!takes_tensor_cores(g, precision)) return false;
  const bool tf32 = precision == SgemmPrecision::tf32;
  const TensorForm form = tensor_form(precision);
  if (form == TensorForm::wgmma) {
    if (tf32) return sgemm_detail::wgmma_tf32_wide(g, stream);
    return (sgemm_detail::takes_ozaki(g) && sgemm_ozaki::guarded_product(g, stream)) || sgemm_detail::wgmma_tf32x3(g, stream);
  }
  return tf32 ? sgemm_detail::mma_tf32(g, stream) : sgemm_detail::mma_tf32x3(g, stream);
}

/// The tiles over all of g's C (of each member of a batch), k in split_count's slices (none in a
/// batch), in the configuration measured fastest for this shape, batch, form and device (measured
/// on the first call that may wait; the rule's before).
void tiled_product(const GemmArgs& g, cudaStream_t stream) {
  const int splits = g.batch > 1 ? 1 : sgemm_detail::split_count(g);
  StreamScratch partials(splits > 1 ? static_cast<std::size_t>(splits) * g.m * g.n * sizeof(float) : 0, stream);
  const ChoiceKey key{current_device(), g.m, g.n, g.k, g.batch, sgemm_detail::vector_rows(g), g.a_transposed, g.b_transposed};
  std::size_t config = rule_config(g);
  bool known = false;
  {
    std::lock_guard lock(choices_mutex);
    if (const auto it = choices.find(key); it != choices.end()) config = it->second, known = true;
  }
  if (!known && !stream_capturing(stream))
    if (const std::optional<std::size_t> measured = measure_configs(g, splits, partials.as<float>(), stream)) {
      config = *measured;
      std::lock_guard lock(choices_mutex);
      choices[key] = config;
    }
  sgemm_detail::run_config(config, g, splits, partials.as<float>(), stream);
}

/// One product (not a batch) as the library runs it: the tensor cores where the precision, the
/// device's policy and the shape give them, else the CUDA cores' paths.
void product(GemmArgs g, cudaStream_t stream, SgemmPrecision precision) {
  if (precision != SgemmPrecision::fp32 && tensor_product(g, precision, stream)) return;

  if (!g.as_stored()) {
    // Operands stored transposed take the big tiles alone (the streaming paths for few rows or
    // columns, the fringe and the copies to 16-byte rows read A and B as stored).
    tiled_product(g, stream);
    return;
  }
  if (g.m <= sgemm_detail::kFewRows) {
    few_rows_product(g, stream);
    return;
  }
  if (sgemm_detail::few_cols_fits(g)) {
    sgemm_detail::run_few_cols(g, stream);
    return;
  }
  std::optional<StreamScratch> aligned_a, aligned_b;  // declared before the product: freed after it
  if (sgemm_detail::realigns_rows(g)) {
    realign_rows(g.a, g.lda, g.m, g.k, aligned_a, stream);
    realign_rows(g.b, g.ldb, g.k, g.n, aligned_b, stream);
  }
  // The tiles take C but its fringe; the fringe's columns (beside the tiles) and rows (below them,
  // the corner too) go to the paths that stream A or B once.
  const sgemm_detail::Fringe fringe = sgemm_detail::fringe_of(g);
  const GemmArgs tiled = block_of(g, 0, 0, g.m - fringe.rows, g.n - fringe.cols);
  if (fringe.cols > 0) sgemm_detail::run_few_cols(block_of(g, 0, tiled.n, tiled.m, fringe.cols), stream);
  if (fringe.rows > 0) few_rows_product(block_of(g, tiled.m, 0, fringe.rows, g.n), stream);
  tiled_product(tiled, stream);
}

/// A checked call's arguments (alpha = 0: C = beta·C without reading A or B, as in BLAS: their Inf
/// and NaN do not reach C).
GemmArgs args_of(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                 const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
  GemmArgs g = sgemm_device::gemm_args(m, n, alpha == 0.f ? 0 : k, alpha, a, lda, b, ldb, beta, c, ldc);
  g.a_transposed = op_a == Op::transposed, g.b_transposed = op_b == Op::transposed;
  return g;
}

/// The call through cuBLAS where the precision, the device's policy and the rule give it there; false
/// where gpulab's own kernels are to run it.
bool vendor_call(const GemmArgs& g, std::size_t batch, cudaStream_t stream, SgemmPrecision precision) {
  if (precision != SgemmPrecision::tf32 || !sgemm_detail::tf32_through_vendor(g, batch)) return false;
  sgemm_detail::vendor_tf32(g, batch, stream);
  return true;
}

/// A checked call of `batch` members (the operands' strides in g) as the library runs it.
void run_call(const GemmArgs& g, std::size_t batch, cudaStream_t stream, SgemmPrecision precision) {
  if (vendor_call(g, batch, stream, precision)) return;
  // Members the tensor cores take, and members of few rows or columns (the streaming paths), one
  // call each; the others in launches of the tiles over up to 65535 members (blockIdx.y).
  if (batch == 1 || takes_tensor_cores(g, precision) || g.m <= sgemm_detail::kFewRows || g.n <= sgemm_detail::kFewCols) {
    for (std::size_t i = 0; i < batch; ++i) product(g.member(i), stream, precision);
    return;
  }
  constexpr std::size_t kMaxLaunchMembers = 65535;
  for (std::size_t first = 0; first < batch; first += kMaxLaunchMembers) {
    GemmArgs part = g.member(first);
    part.batch = static_cast<int>(std::min(kMaxLaunchMembers, batch - first));
    tiled_product(part, stream);
  }
}

/// The copies' offsets from C, as the kernels read them (GemmArgs::copy_offsets).
struct CopyOffsets {
  std::ptrdiff_t bytes[GemmArgs::kMaxCopies];
};

__global__ void store_copy_offsets(CopyOffsets offsets, int count, std::ptrdiff_t* table) {
  if (static_cast<int>(threadIdx.x) < count) table[threadIdx.x] = offsets.bytes[threadIdx.x];
}

}  // namespace

bool sgemm_precision_supported(SgemmPrecision precision) {
  return precision != SgemmPrecision::tf32 || tensor_form(precision) != sgemm_detail::TensorForm::none;
}

void sgemm(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
           const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream, SgemmPrecision precision) {
  sgemm_strided_batched(op_a, op_b, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1, stream, precision);  // a batch of one
}

void sgemm_detail::sgemm_with_copies(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                                     std::size_t lda, const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc,
                                     std::span<float* const> copies, cudaStream_t stream, SgemmPrecision precision) {
  require_precision(precision);
  if (!validate(op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, {}, copies)) return;
  GemmArgs g = args_of(op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (vendor_call(g, 1, stream, precision)) {
    // cuBLAS writes C alone: C's rows are then copied to each copy, in stream order.
    for (float* copy : copies)
      GPULAB_CUDA_CHECK(cudaMemcpy2DAsync(copy, ldc * sizeof(float), c, ldc * sizeof(float), n * sizeof(float), m, cudaMemcpyDefault, stream));
    return;
  }
  // The offsets go to device memory by a launch of their own (a kernel's argument, in stream order:
  // no copy from host memory that might wait), freed in stream order after the product.
  CopyOffsets offsets{};
  for (std::size_t q = 0; q < copies.size(); ++q)
    offsets.bytes[q] = static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(copies[q]) - reinterpret_cast<std::uintptr_t>(c));
  const StreamScratch table(copies.size() * sizeof(std::ptrdiff_t), stream);
  if (!copies.empty()) {
    launch("sgemm_copy_offsets", store_copy_offsets, {dim3(1), dim3(GemmArgs::kMaxCopies)}, stream, offsets,
           static_cast<int>(copies.size()), table.as<std::ptrdiff_t>());
    g.copies = static_cast<int>(copies.size());
    g.copy_offsets = table.as<std::ptrdiff_t>();
  }
  run_call(g, 1, stream, precision);
}

void sgemm_strided_batched(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                           std::size_t stride_a, const float* b, std::size_t ldb, std::size_t stride_b, float beta, float* c,
                           std::size_t ldc, std::size_t stride_c, std::size_t batch, cudaStream_t stream, SgemmPrecision precision) {
  require_precision(precision);
  if (!validate(op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, {batch, stride_a, stride_b, stride_c})) return;
  GemmArgs g = args_of(op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  g.stride_a = stride_a, g.stride_b = stride_b, g.stride_c = stride_c;
  run_call(g, batch, stream, precision);
}

void sgemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, std::size_t ldc, cudaStream_t stream, SgemmPrecision precision) {
  sgemm(Op::as_is, Op::as_is, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream, precision);
}

}  // namespace gpulab