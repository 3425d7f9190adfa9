// gpulab::sgemm's rules (sgemm_paths.hpp): which path and form a shape takes on a device — the
// tensor cores' policy per GPU family, the few-rows and few-columns paths, split-K's slices, the
// fringe left to the strip paths, the copies to 16-byte rows — each measured where it says.
#include "lib/arith.hpp"
#include "lib/launch_limits.hpp"
#include "lib/per_device.hpp"
#include "sgemm/sgemm_big_tiles.cuh"
#include "sgemm/sgemm_paths.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace gpulab::sgemm_detail {

/// Partial sums within 256 MiB, at most 65535 slices.
int capped_splits(const GemmArgs& g, std::size_t splits) {
  const std::size_t per_split = static_cast<std::size_t>(g.m) * g.n * sizeof(float);
  return static_cast<int>(std::clamp<std::size_t>(std::min(splits, (std::size_t{256} << 20) / per_split), 1, 65535));
}

int sm_count() {
  static PerDevice<int> count;
  return count.get([] { return current_device_attribute(cudaDevAttrMultiProcessorCount); });
}

bool cluster_launch() {
  static PerDevice<bool> supported;
  return supported.get([] { return current_device_attribute(cudaDevAttrClusterLaunch) != 0; });
}

std::size_t few_rows_splits_for(std::size_t n, std::size_t k, std::size_t sms) {
  // Two blocks per SM and at least 32 slices, each at least 32 deep. Each slice more is m·n
  // partial sums for add_slices to add in order: with eight blocks per SM, 8×4096×4096 took 128
  // slices and 0.0450 ms, with 64 0.0362; over m = 5…8 and n = 2048…16384 the fastest of 32, 64
  // and 128 slices was the one nearest two blocks per SM, and at n = 16384 32 slices (0.1083 ms at
  // 6×16384×4096) where 17 took 0.1405 (H100, docs/sgemm.md).
  const std::size_t wanted = std::max<std::size_t>(32, ceil_div(2 * sms, ceil_div(n, 1024)));
  return std::min(wanted, std::max<std::size_t>(1, k / 32));
}

int few_rows_splits(const GemmArgs& g) {
  return capped_splits(g, few_rows_splits_for(static_cast<std::size_t>(g.n), static_cast<std::size_t>(g.k),
                                              static_cast<std::size_t>(sm_count())));
}

int few_rows_cluster_ranks_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms, int max_ranks) {
  // Clusters of 8 blocks along k; of 16 where 8 would leave more than half the SMs idle (n ≤ 1024
  // on 132 SMs); none where even 16 would (the split-K form then). More than 4 rows take the
  // split-K form where B holds 64 MiB or more and its grid fills the GPU: its blocks read 4 KB of
  // each row of B where the cluster's read 512 bytes (8×4096×4096 0.0356 against 0.0416 ms,
  // 8×1024×16384 0.0397 against 0.0406); on less the one launch wins (8×1024×8192 0.0244 against
  // 0.0278, 8×3072×4096 0.0310 against 0.0319, 8×1024×1024 0.0102 against 0.0155). At m ≤ 4 the
  // clusters won on every shape measured (1×2048×8192 0.0280 against 0.0315 ms; 8 ranks, not 4, at
  // 1×16384×16384: 0.3563 against 0.3624; H100, docs/sgemm.md).
  constexpr std::size_t kSplitMinBytes = std::size_t{64} << 20;
  const std::size_t groups = ceil_div(n, 128);
  if (m > 4 && n * k * sizeof(float) >= kSplitMinBytes && ceil_div(n, 1024) * few_rows_splits_for(n, k, sms) >= sms) return 0;
  const int ranks = 2 * groups * 8 < sms ? max_ranks : 8;  // 8: the portable cluster size
  return 2 * groups * static_cast<std::size_t>(ranks) < sms ? 0 : ranks;
}

int few_rows_cluster_ranks(const GemmArgs& g) {
  if (!cluster_launch()) return 0;  // the split-K form
  // The device is asked whether it holds clusters of 16 only where the rule wants them.
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n), k = static_cast<std::size_t>(g.k);
  const auto sms = static_cast<std::size_t>(sm_count());
  const int ranks = few_rows_cluster_ranks_for(m, n, k, sms, kMaxClusterRanks);
  if (ranks <= kMaxClusterRanks / 2 || few_rows_max_cluster_ranks() >= ranks) return ranks;
  return few_rows_cluster_ranks_for(m, n, k, sms, few_rows_max_cluster_ranks());
}

bool few_cols_fits(const GemmArgs& g) {
  // One row a warp, eight a block: enough rows for two blocks an SM.
  return g.n <= kFewCols && ceil_div(static_cast<std::size_t>(g.m), 8) >= 2 * static_cast<std::size_t>(sm_count());
}

int splits_for(const GemmArgs& g, std::size_t tiles, int min_slice) {
  const auto sms = static_cast<std::size_t>(sm_count());
  if (tiles >= sms || g.k < 2 * min_slice) return 1;
  return capped_splits(g, std::min<std::size_t>(ceil_div(2 * sms, tiles), static_cast<std::size_t>(g.k / min_slice)));
}

namespace {

/// Waves of T's tiles over an m × n output on the current device.
template <class T>
std::size_t waves_of(int m, int n) {
  return ceil_div(tile_count(m, n, T::kBM, T::kBN), static_cast<std::size_t>(T::kMinBlocks) * sm_count());
}

}  // namespace

constexpr std::size_t kFringeAlwaysMacs = std::size_t{1} << 34;

Fringe fringe_of(const GemmArgs& g) {
  // Products of 2^34 multiply-adds or more take every fringe (below). Smaller ones take a fringe
  // only where it saves waves, counted for the two configurations the tuner picks on large
  // products, added: the big tiles' 128 × 256 at one block an SM and 128 × 128 at two; the fewest
  // of rows and columns that do: each costs a launch and a pass over B (rows) or A
  // (columns), about 35 µs at 4097³. Counted in one form alone, the rule lost: 5000×3000×700 (as
  // many waves either way) lost 2% with 8 rows taken out, and 4097³ with its last row out saves a
  // wave of 128 × 128 tiles but not of 128 × 256 (docs/sgemm.md).
  using Wide = sgemm_device::BigTiles<4>;
  using Square = sgemm_device::BigTiles<2>;
  constexpr int kSide = Square::kBM, kMinDepth = 64;  // shallower products are bound by writing C, not by waves
  static_assert(Wide::kBM == kSide && Square::kBN == kSide && Wide::kBN % kSide == 0);
  if (g.k < kMinDepth) return {};
  auto waves = [&](Fringe f) {
    return waves_of<Wide>(g.m - f.rows, g.n - f.cols) + waves_of<Square>(g.m - f.rows, g.n - f.cols);
  };
  // A fringe is what is left past at least one full tile: a side of 1–8 is not a fringe (the
  // few-rows and few-columns paths' own rules take such products, or not).
  const int rows = g.m > kSide && g.m % kSide <= kFewRows ? g.m % kSide : 0;
  const int cols = g.n > kSide && g.n % kSide <= kFewCols ? g.n % kSide : 0;
  // Large products take every fringe: a strip's launch and its pass over B or A cost about 1% of
  // the product or less, and the tiles a fringe would leave (one to eight rows or columns, run
  // over the whole of k) cost more than their share of waves says: 8192×8193×8192 1.040× faster
  // with its one-column strip out (16 waves of 132 tiles either way), 8193³ 1.048×, 4097³ 1.016×;
  // but 5000×3000×700 (m·n·k below 2^34, its strip of 8 rows 2% of the product) 0.974× (H100,
  // docs/sgemm.md). Below, a fringe is taken where it saves waves.
  const auto macs = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.k);
  if (macs >= kFringeAlwaysMacs) return Fringe{rows, cols};
  Fringe best{};
  for (const Fringe f : {Fringe{rows, 0}, Fringe{0, cols}, Fringe{rows, cols}})
    if (waves(f) < waves(best)) best = f;
  return best;
}

std::size_t split_count_for(std::size_t m, std::size_t n, std::size_t k, std::size_t sms) {
  // The slice count whose busiest SM does the least, counted in 64×64 tiles (the smallest): an
  // SM's work is its blocks (ceil(tiles·s / SMs)) times a slice's depth (k / s), and each slice
  // more adds m·n partial sums, costed as 1/10700 of a tile's 64-deep step each (a 768×768
  // slice's sums 1.8 µs on the H100, a tile's step 0.033 µs). Candidates: no split, and slice
  // counts that give every SM two blocks or more (an SM with one block runs it little faster than
  // two: 512×512×4096 in 2 slices 0.0824 ms, in 4 0.0690), of at least 64 deep. Measured on the
  // H100 (docs/sgemm.md): 768×768×768 0.0505 ms unsplit, 0.0399 in 4; 512×512×4096 0.0788 in 5 (the
  // rule before: two blocks an SM), 0.0689 in 6; 896×896×2048 0.1248 unsplit, 0.0998 in the
  // count's pick; 1024×1024×1024 unsplit 0.0653, 0.0658–0.0786 in 2–8.
  const std::size_t tiles = ceil_div(m, 64) * ceil_div(n, 64);
  if (tiles == 0 || tiles >= 8 * sms) return 1;  // large products: the tuner's larger tiles, not 64×64's waves, decide
  const std::size_t deepest = std::max<std::size_t>(1, k / 64);
  const double sums_cost = static_cast<double>(m) * static_cast<double>(n) / 10700.0;
  auto cost = [&](std::size_t s) {
    return static_cast<double>(ceil_div(tiles * s, sms) * ceil_div(k, s)) + (s > 1 ? static_cast<double>(s) * sums_cost : 0.0);
  };
  const std::size_t fewest = ceil_div(2 * sms, tiles);  // slices for two blocks an SM
  if (fewest > deepest) return deepest;                 // as many as k allows
  // Below an eighth of the SMs in tiles the count's cost did not predict the time: 256×256×4096
  // (16 tiles) in 24 slices 0.0258 ms, in 17 (two blocks an SM) 0.0246; with 20 tiles and more it did.
  if (8 * tiles < sms) return fewest;
  std::size_t best = 1;
  for (std::size_t s = std::max<std::size_t>(2, fewest); s <= std::min(deepest, 4 * fewest + 16); ++s)
    if (cost(s) < cost(best)) best = s;
  return best;
}

int split_count(const GemmArgs& g) {
  return capped_splits(g, split_count_for(static_cast<std::size_t>(g.m), static_cast<std::size_t>(g.n),
                                          static_cast<std::size_t>(g.k), static_cast<std::size_t>(sm_count())));
}

// Rows that do not start on 16-byte boundaries (an odd packed k or n, an offset pointer) make
// every tile configuration copy that operand 4 bytes at a time. Where each of its elements takes
// part in enough products, such operands are first copied once to rows padded to a multiple of 4
// floats (copy_rows into gpulab's pool, in stream order, freed in stream order after the product)
// and the product runs on the copy: same arithmetic, same bits. The staged kernel reads A 4 bytes
// at a time anyway, and only its B copies narrow (4% slower: 8192×8192×8193 22.78 ms on packed
// rows, 22.19 with A copied), so the copies pay from m·n·k ≥ 3072 × the elements copied (4% of the
// product against the copies: about 3300): 8193³ and 8192×8192×8193 (4096×) are copied, 4097³
// (2048×: 1.037× cuBLAS packed, 1.031× copied), 2047×2049×2051 and 2049×2047×1025 (1024×) not.
// Never where m·n·k < 2^32: each copy's calls cost ~10 µs whatever its size (1537×1537×67 went
// from 0.89 to 0.48× cuBLAS with them). H100, docs/sgemm.md.
constexpr std::size_t kRealignMinReuse = 3072;
constexpr std::size_t kRealignMinMacs = std::size_t{1} << 32;
constexpr int kRealignMinDepth = 64;  // shallower products are bound by writing C, not by reading A and B

bool realigns_rows(const GemmArgs& g) {
  if (vector_rows(g)) return false;
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n), k = static_cast<std::size_t>(g.k);
  const std::size_t copied = (rows_aligned16(g.a, g.lda) ? 0 : m * k) + (rows_aligned16(g.b, g.ldb) ? 0 : k * n);
  return g.k >= kRealignMinDepth && m * n * k >= kRealignMinReuse * copied && m * n * k >= kRealignMinMacs && !few_cols_fits(g) &&
         m > static_cast<std::size_t>(kFewRows);
}

// One row per family, oldest first. 3xTF32 costs three tensor-core products for one FP32 product:
// it pays where the TF32 rate is well above three times the FP32 rate. Dense rates from NVIDIA's
// data sheets (FP32 : TF32 TFLOP/s): T4 8.1 : none; A100 19.5 : 156; A10 31 : 62, RTX 3090
// 36 : 36, L4 30 : 60, RTX 4090 83 : 83; H100 SXM 67 : 495 (3xTF32 on wgmma measured 2.2× cuBLAS
// FP32, docs/sgemm.md). Blackwell runs the sm_90 PTX, without wgmma (sm_90a code runs on 9.0 alone):
// TF32 on mma.sync, and fp32_tensor the FP32 path until 3xTF32 on mma.sync is measured there.
// tf32 takes cuBLAS's TF32 GEMM first where that was measured (Hopper; vendor_takes_tf32 below).
constexpr SgemmPolicy kPolicies[] = {
    {75, "Turing (T4, RTX 20)", TensorForm::none, TensorForm::none},
    {80, "A100, A30", TensorForm::mma_sync, TensorForm::mma_sync},
    {86, "Ampere and Ada RTX, A10, L4, L40, Orin", TensorForm::mma_sync, TensorForm::none},
    {90, "Hopper (H100, H200, GH200)", TensorForm::wgmma, TensorForm::wgmma, true},
    {100, "Blackwell and newer (by PTX)", TensorForm::mma_sync, TensorForm::none},
};

const SgemmPolicy& sgemm_policy(int capability) {
  const SgemmPolicy* policy = &kPolicies[0];
  for (const SgemmPolicy& p : kPolicies)
    if (capability >= p.from_capability) policy = &p;
  return *policy;
}

const SgemmPolicy& current_sgemm_policy() { return sgemm_policy(current_compute_capability()); }

// Where the tensor-core paths beat the FP32 path, swept on the H200 (docs/sgemm.md): they first
// split A and B (8 or 12 bytes moved a value), so each value must take part in enough products,
// and a shallow k leaves mostly the writing of C. 3xTF32 (three products for one) pays from
// m·n·k ≥ 2^29 with k ≥ 128 and m·n ≥ 256·(m + n): 896³ 0.048 against 0.050 ms, 4096 × 4096 × 128
// 0.098 against 0.114, but 768³, k = 64 and 65536 × 256 × 256 do not. TF32 pays wider: from k ≥ 64
// and m·n ≥ 128·(m + n) (4096 × 4096 × 64 0.063 against 0.066, 300 × 300 × 20000 0.102 against 0.120).
constexpr std::size_t kTensorMinMacs = std::size_t{1} << 29;
struct TensorReach {
  int min_depth;
  std::size_t min_reuse;  // m·n / (m + n), at least
};
constexpr TensorReach kThreeProducts{128, 256}, kOneProduct{64, 128};

bool takes_tensor_cores(const GemmArgs& g, bool tf32) {
  const TensorReach reach = tf32 ? kOneProduct : kThreeProducts;
  const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n);
  return g.m > kFewRows && g.n > kFewCols && g.k >= reach.min_depth && m * n >= reach.min_reuse * (m + n) &&
         m * n * static_cast<std::size_t>(g.k) >= kTensorMinMacs;
}

// fp32_tensor on Hopper: the guarded Ozaki scheme against 3xTF32 on wgmma (H200, docs/sgemm.md). Its
// cost per element of C (norms, residues, the reconstruction) pays only over a deep k: from k = 4096
// and 2^36 multiply-adds it is faster (8b014a9: 2048 × 2048 × 8192 1.05×, 2048 × 4096 × 4096 1.01×;
// eb2370e: 4096³ 1.026×, 3072 × 3072 × 8192 1.02×, 8192³ 1.25×), and from k = 2048 and 2^37 (8192 ×
// 8192 × 2048 1.05×; 6144 × 6144 × 2048 1.01×, left to 3xTF32); 3xTF32 stays faster at 3072 × 3072
// × 4096 (0.945×, 2.2 waves of the products' tiles), 4096 × 4096 × 2048 (0.91×), 3072³ (0.88×).
constexpr int kOzakiMinDepth = 4096, kOzakiMinDepthLarge = 2048;
constexpr std::size_t kOzakiMinMacs = std::size_t{1} << 36, kOzakiMinMacsLarge = std::size_t{1} << 37;

bool takes_ozaki(const GemmArgs& g) {
  const auto macs = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.k);
  return g.copies == 0 &&
         ((g.k >= kOzakiMinDepth && macs >= kOzakiMinMacs) || (g.k >= kOzakiMinDepthLarge && macs >= kOzakiMinMacsLarge));
}

// tf32 on Hopper: cuBLAS's TF32 GEMM against gpulab's own (wgmma where the tensor cores pay, else
// the FP32 path), H200, docs/sgemm.md: cuBLAS 1.3× faster at 4096³, 1.1× at 8192³, 1.6–3.0× on the
// sweep's smaller products, 2.4× on 16 rows, 1.6–5× on batches (64 × 512³ 0.074 ms against 0.367).
// gpulab's own is faster on rows off 16-byte boundaries from 2^33 multiply-adds (2048³ with rows of
// 2049 floats 0.125 ms against 0.135, 4097³ 0.61 against 1.19; 1031 × 1029 × 1027 stays cuBLAS's:
// 0.047 against 0.054) and with A stored transposed and B as stored from 2^36 (4096³ 0.476 against
// 0.530, 8192³ 3.10 against 4.24; 2048³ stays cuBLAS's: 0.079 against 0.129).
constexpr std::size_t kVendorUnalignedMaxMacs = std::size_t{1} << 33, kVendorTnMaxMacs = std::size_t{1} << 36;

bool vendor_takes_tf32(const GemmArgs& g, std::size_t batch) {
  constexpr std::size_t kIntMax = static_cast<std::size_t>(std::numeric_limits<int>::max());
  constexpr std::size_t kStrideMax = static_cast<std::size_t>(std::numeric_limits<long long>::max());
  if (g.copies > 0 || g.m == 0 || g.n == 0 || g.k == 0) return false;  // k = 0: alpha = 0 (A and B not read) or an empty sum
  if (g.lda > kIntMax || g.ldb > kIntMax || g.ldc > kIntMax) return false;
  if (batch > 1 && (g.stride_a > kStrideMax || g.stride_b > kStrideMax || g.stride_c > kStrideMax)) return false;
  const auto macs = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.k);
  const bool members_aligned = batch == 1 || (g.stride_a % 4 == 0 && g.stride_b % 4 == 0 && g.stride_c % 4 == 0);
  const bool aligned = members_aligned && rows_aligned16(g.a, g.lda) && rows_aligned16(g.b, g.ldb) && rows_aligned16(g.c, g.ldc);
  if (!aligned && macs >= kVendorUnalignedMaxMacs) return false;
  return !(g.a_transposed && !g.b_transposed && macs >= kVendorTnMaxMacs);
}

}  // namespace gpulab::sgemm_detail
