// Every rung of the SGEMM ladder (and both cuBLAS rows) on shapes that cut every tile, through the
// harness's checked run (output poisoned with NaNs, padding and guard band checked, every element
// against the double reference with the rung's bound). Then every tile configuration the tuner may
// pick, and the library's contract as a user calls it.
#include "gpu_test_support.hpp"

#include "lib/launch_log.hpp"
#include "sgemm/sgemm_ozaki.hpp"
#include "sgemm/sgemm_paths.hpp"
#include "sgemm/sgemm_problem.hpp"

#include <gpulab/error.hpp>
#include <gpulab/sgemm.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

using namespace gpulab;

namespace {

/// How a case calls: plain (alpha 1, beta 0, packed), unaligned rows (one float of padding),
/// scaled (alpha 0.5, beta −2: C₀ read), padded to 16 bytes (three floats of padding: where n or k
/// is 1 more than a multiple of 4 the rows are 16-byte aligned and their last vector partial; A
/// and B end at their last element).
enum class Variant { plain, unaligned, scaled, pad3 };
std::string_view variant_name(Variant v) {
  switch (v) {
    case Variant::plain: return "plain";
    case Variant::unaligned: return "pad1";
    case Variant::scaled: return "scaled";
    case Variant::pad3: return "pad3";
  }
  return "?";
}

/// `member`: another input of the same shape and call (a batch's members).
SgemmInput input_for(SgemmShape s, Variant v, std::uint64_t member = 0) {
  return make_sgemm_input(s, v == Variant::unaligned ? 1 : v == Variant::pad3 ? 3 : 0, v == Variant::scaled ? 0.5f : 1.f,
                          v == Variant::scaled ? -2.f : 0.f, 100 + s.m * 3 + s.n * 5 + s.k + 1000 * member);
}

struct Case {
  std::size_t rung;
  SgemmShape shape;
  Variant variant;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << sgemm_rungs()[c.rung].name << " " << sgemm_shape_name(c.shape) << " " << variant_name(c.variant);
}

BenchCase& case_for(const Case& c) {
  const auto key = std::make_tuple(c.shape.m, c.shape.n, c.shape.k, static_cast<int>(c.variant));
  return test::cached_case(key, [&]() -> std::unique_ptr<BenchCase> {
    const SgemmInput in = input_for(c.shape, c.variant);
    return std::make_unique<SgemmCase>(in, 7);
  });
}

// Around the tiles (32, 64, 128; k slices of 8, 16, 32), k = 0, vectors both ways, primes, and
// shapes where the library cuts k (few output tiles, k ≥ 1024); with pad3, 129x65x257 and
// 300x301x1025 (split-K) have 16-byte-aligned rows whose last vector is partial.
const std::vector<SgemmShape> kShapes{{1, 1, 1},      {1, 1, 0},     {3, 5, 0},      {7, 5, 3},       {1, 300, 257},
                                      {300, 1, 257},  {257, 300, 1}, {64, 64, 64},   {127, 129, 131}, {128, 128, 16},
                                      {33, 65, 1000}, {5, 3000, 17}, {1000, 3, 50},  {64, 64, 2048},  {200, 200, 4097},
                                      {1, 4096, 2048}, {129, 65, 257}, {300, 301, 1025}};

bool small_shape(SgemmShape s) {
  return s == SgemmShape{127, 129, 131} || s == SgemmShape{3, 5, 0} || s == SgemmShape{1, 300, 257} ||
         s == SgemmShape{64, 64, 2048} || s == SgemmShape{129, 65, 257};
}

class SgemmLadder : public ::testing::TestWithParam<Case> {};

TEST_P(SgemmLadder, MatchesReference) { test::expect_rung_passes(case_for(GetParam()), ladder_info(sgemm_rungs()), GetParam().rung); }

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (std::size_t r = 0; r < sgemm_rungs().size(); ++r)
    for (const SgemmShape& s : kShapes)
      for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3}) cases.push_back({r, s, v});
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = fmt::format("{}{}_{}_{}", small_shape(c.shape) ? "small_" : "", sgemm_rungs()[c.rung].name,
                                 sgemm_shape_name(c.shape), variant_name(c.variant));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, SgemmLadder, ::testing::ValuesIn(all_cases()), case_name);

// ---- the library as a user calls it ------------------------------------------------------------------

/// An input's three matrices on the device, A and B stored in `form` (stored_operands); C starts as C₀.
struct DeviceGemm {
  SgemmForm form;
  std::size_t lda, ldb;
  DeviceBuffer<float> a, b, c;
  explicit DeviceGemm(const SgemmInput& in, SgemmForm f = {}) : DeviceGemm(in, f, stored_operands(in, f)) {}
  sgemm_detail::GemmArgs args(const SgemmInput& in) const {
    sgemm_detail::GemmArgs g = sgemm_device::gemm_args(in.shape.m, in.shape.n, in.shape.k, in.alpha, a.data(), lda, b.data(), ldb,
                                                       in.beta, c.data(), in.ldc);
    g.a_transposed = form.a_transposed, g.b_transposed = form.b_transposed;
    return g;
  }
  /// gpulab::sgemm on these operands, as a user calls it.
  void call(const SgemmInput& in, SgemmPrecision precision, cudaStream_t stream = nullptr) {
    sgemm(op_of(form.a_transposed), op_of(form.b_transposed), in.shape.m, in.shape.n, in.shape.k, in.alpha, a.data(), lda, b.data(), ldb,
          in.beta, c.data(), in.ldc, stream, precision);
  }
  std::vector<float> result() const {
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    return test::download(c.data(), c.size());
  }

 private:
  DeviceGemm(const SgemmInput& in, SgemmForm f, const SgemmStored& stored)
      : form(f), lda(stored.lda), ldb(stored.ldb), a(test::upload<float>(stored.a)), b(test::upload<float>(stored.b)),
        c(test::upload<float>(in.c)) {}
};

// Every configuration the tuner may pick, with and without split-K, aligned or not, beta or not:
// each must be right, and all must give the same bits (one FMA chain over k per element, in order).
// 300×520×203 holds whole 128×256 tiles with a ragged k (the staged kernels' loop without tests).
TEST(SgemmLibrary, EveryTileConfigurationIsRightAndBitwiseTheSame) {
  for (SgemmShape s : {SgemmShape{127, 129, 131}, SgemmShape{200, 200, 4097}, SgemmShape{1, 300, 257}, SgemmShape{129, 65, 257},
                       SgemmShape{300, 520, 203}})
    for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3}) {
      const SgemmInput in = input_for(s, v);
      const SgemmReference ref = sgemm_reference(in, 7);
      std::vector<float> first;
      for (int splits : {1, 5})
        for (std::size_t config = 0; config < sgemm_detail::tile_configs().size(); ++config) {
          if (!sgemm_detail::config_fits(config)) {  // the tuner never picks it here; asked for, it is refused
            DeviceGemm d(in);
            EXPECT_THROW(sgemm_detail::run_config(config, d.args(in), 1, nullptr, nullptr), Error);
            continue;
          }
          DeviceGemm d(in);
          DeviceBuffer<float> partials(static_cast<std::size_t>(splits) * s.m * s.n);
          sgemm_detail::run_config(config, d.args(in), splits, partials.data(), nullptr);
          const std::vector<float> got = d.result();
          const CheckResult r = check_sgemm(got, in, ref, SgemmMath::fp32);
          const std::string what = fmt::format("{} {} {} splits {}", sgemm_detail::tile_configs()[config].name,
                                               sgemm_shape_name(s), variant_name(v), splits);
          EXPECT_TRUE(r.ok) << what << ": " << r.detail;
          if (splits == 1 && config == 0) first = got;
          if (splits == 1) {
            EXPECT_EQ(std::memcmp(first.data(), got.data(), got.size() * sizeof(float)), 0) << what;
          }
        }
    }
}

/// One path of the library on `in`, run twice on fresh copies: right against the reference, and
/// the same bits both times (C's padding is NaN, so the bits are compared, not the values).
template <class Run>
void expect_path_right(const SgemmInput& in, const std::string& what, Run&& run) {
  DeviceGemm d(in), again(in);
  run(d.args(in));
  run(again.args(in));
  const std::vector<float> got = d.result(), second = again.result();
  const CheckResult r = check_sgemm(got, in, sgemm_reference(in, 7), SgemmMath::fp32);
  EXPECT_TRUE(r.ok) << what << ": " << r.detail;
  EXPECT_EQ(std::memcmp(got.data(), second.data(), got.size() * sizeof(float)), 0) << what;
}

TEST(SgemmLibrary, FewRowsPathIsRightForEveryRowCountAndSlicing) {
  for (std::size_t m = 1; m <= sgemm_detail::kFewRows; ++m)
    for (SgemmShape s : {SgemmShape{m, 1, 5}, SgemmShape{m, 1027, 300}, SgemmShape{m, 3, 0}})
      for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3})
        for (int splits : {1, 3, 70}) {  // 70: add_slices_deep, 8 warps an element
          DeviceBuffer<float> partials(static_cast<std::size_t>(splits) * s.m * s.n);
          expect_path_right(input_for(s, v), fmt::format("{} {} splits {}", sgemm_shape_name(s), variant_name(v), splits),
                            [&](const sgemm_detail::GemmArgs& g) { sgemm_detail::run_few_rows(g, splits, partials.data(), nullptr); });
        }
}

// The one-launch form: k over 1 to 16 blocks of a cluster (16 where the device holds it), columns
// that end inside a warp's 128, rows of B that are and are not 16-byte aligned.
TEST(SgemmLibrary, FewRowsClusterPathIsRightForEveryRowCountAndClusterSize) {
  if (!sgemm_detail::cluster_launch()) GTEST_SKIP() << "clusters of blocks need a GPU of compute capability 9.0";
  std::vector<int> sizes{1, 3, 8};
  if (sgemm_detail::few_rows_max_cluster_ranks() > 8) sizes.push_back(sgemm_detail::few_rows_max_cluster_ranks());
  for (std::size_t m = 1; m <= sgemm_detail::kFewRows; ++m)
    for (SgemmShape s : {SgemmShape{m, 1, 5}, SgemmShape{m, 1027, 300}, SgemmShape{m, 129, 2049}, SgemmShape{m, 3, 0}})
      for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3})
        for (int ranks : sizes)
          expect_path_right(input_for(s, v), fmt::format("{} {} ranks {}", sgemm_shape_name(s), variant_name(v), ranks),
                            [&](const sgemm_detail::GemmArgs& g) { sgemm_detail::run_few_rows_cluster(g, ranks, nullptr); });
}

// Every column count, k around the staged chunk (1024) and not a multiple of 4, A's rows aligned
// or not, fewer rows than a block's 8.
TEST(SgemmLibrary, FewColsPathIsRightForEveryColumnCount) {
  for (std::size_t n = 1; n <= sgemm_detail::kFewCols; ++n)
    for (SgemmShape s : {SgemmShape{3, n, 5}, SgemmShape{1001, n, 1023}, SgemmShape{77, n, 2049}, SgemmShape{9, n, 0}})
      for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3})
        expect_path_right(input_for(s, v), fmt::format("{} {}", sgemm_shape_name(s), variant_name(v)),
                          [](const sgemm_detail::GemmArgs& g) { sgemm_detail::run_few_cols(g, nullptr); });
}

/// `issue(stream)` captured in a CUDA graph on a stream of its own, then the graph launched once and
/// waited for.
template <class Issue>
void run_captured(Issue&& issue) {
  cudaStream_t stream = nullptr;
  GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  issue(stream);
  GPULAB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  GPULAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  GPULAB_CUDA_CHECK(cudaGraphLaunch(exec, stream));
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

TEST(SgemmLibrary, TunedRuleAndCapturedCallsAgreeBitForBit) {
  const SgemmInput in = input_for({300, 260, 700}, Variant::plain);
  DeviceGemm tuned(in), again(in), captured(in);
  sgemm(300, 260, 700, 1.f, tuned.a.data(), in.lda, tuned.b.data(), in.ldb, 0.f, tuned.c.data(), in.ldc);  // measures
  sgemm(300, 260, 700, 1.f, again.a.data(), in.lda, again.b.data(), in.ldb, 0.f, again.c.data(), in.ldc);  // reuses
  // A shape not seen before, inside a graph capture: the rule, no measurement, no wait.
  run_captured([&](cudaStream_t stream) {
    sgemm(300, 259, 700, 1.f, captured.a.data(), in.lda, captured.b.data(), in.ldb, 0.f, captured.c.data(), in.ldc, stream);
  });
  const std::vector<float> t = tuned.result(), a = again.result(), c = captured.result();
  EXPECT_TRUE(check_sgemm(t, in, sgemm_reference(in, 7), SgemmMath::fp32).ok);
  EXPECT_EQ(t, a);
  for (std::size_t i = 0; i < 300; ++i)
    for (std::size_t j = 0; j < 259; ++j) ASSERT_EQ(t[i * in.ldc + j], c[i * in.ldc + j]) << i << " " << j;
  for (std::size_t i = 0; i < 300; ++i) EXPECT_EQ(c[i * in.ldc + 259], in.c[i * in.ldc + 259]);  // column 259 untouched
}

// A new shape with beta ≠ 0: the configurations are timed on a scratch output, so C₀ reaches the
// result unharmed (were they timed on C, beta·C would add their products), and the next call of the
// shape, reusing the choice, gives the same bits.
TEST(SgemmLibrary, FirstCallWithBetaMeasuresOnScratchAndKeepsC) {
  const SgemmShape s{301, 263, 517};
  const SgemmInput in = input_for(s, Variant::scaled);
  DeviceGemm first(in), again(in);
  for (DeviceGemm* d : {&first, &again})
    sgemm(s.m, s.n, s.k, in.alpha, d->a.data(), in.lda, d->b.data(), in.ldb, in.beta, d->c.data(), in.ldc);
  const std::vector<float> got = first.result(), second = again.result();
  const CheckResult r = check_sgemm(got, in, sgemm_reference(in, 7), SgemmMath::fp32);
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_EQ(std::memcmp(got.data(), second.data(), got.size() * sizeof(float)), 0);
}

/// `in` with the same values in rows padded to a multiple of 4 floats (16-byte rows).
SgemmInput with_aligned_rows(const SgemmInput& in) {
  auto pad = [](const std::vector<float>& m, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t new_ld) {
    std::vector<float> out((rows - 1) * new_ld + cols, 0.f);
    for (std::size_t i = 0; i < rows; ++i)
      std::copy_n(m.begin() + static_cast<std::ptrdiff_t>(i * ld), cols, out.begin() + static_cast<std::ptrdiff_t>(i * new_ld));
    return out;
  };
  SgemmInput out = in;
  const SgemmShape s = in.shape;
  out.lda = (s.k + 3) / 4 * 4;
  out.ldb = (s.n + 3) / 4 * 4;
  out.a = pad(in.a, s.m, s.k, in.lda, out.lda);
  out.b = pad(in.b, s.k, s.n, in.ldb, out.ldb);
  return out;
}

// Odd packed rows, in a product large enough for the library to copy them to 16-byte rows first
// (1025×4096×1025: A's rows odd, B's aligned; m·n·k ≥ 3072 × A's elements) and in one where the
// copies would cost more than they save (2049×2047×1025: both odd, the staged kernel copies them 4
// bytes at a time): right, the same bits as the same values given in 16-byte rows, and the same
// again when the call is captured in a graph (the copies and their memory become graph nodes).
TEST(SgemmLibrary, OddRowsGiveTheBitsOfAlignedRowsCopiedOrNot) {
  for (const auto& [s, copied] : {std::pair{SgemmShape{1025, 4096, 1025}, true}, std::pair{SgemmShape{2049, 2047, 1025}, false}}) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
    const SgemmInput packed = input_for(s, Variant::plain), aligned = with_aligned_rows(packed);
    auto call = [&](const SgemmInput& in, DeviceGemm& d, cudaStream_t stream) {
      sgemm(s.m, s.n, s.k, in.alpha, d.a.data(), in.lda, d.b.data(), in.ldb, in.beta, d.c.data(), in.ldc, stream);
    };
    DeviceGemm from_packed(packed), from_aligned(aligned), captured(packed);
    EXPECT_EQ(sgemm_detail::realigns_rows(from_packed.args(packed)), copied);
    ASSERT_FALSE(sgemm_detail::realigns_rows(from_aligned.args(aligned)));
    call(aligned, from_aligned, nullptr);
    call(packed, from_packed, nullptr);
    run_captured([&](cudaStream_t stream) { call(packed, captured, stream); });
    const std::vector<float> got = from_packed.result(), want = from_aligned.result(), in_graph = captured.result();
    const CheckResult r = check_sgemm(got, packed, sgemm_reference(packed, 7), SgemmMath::fp32);
    EXPECT_TRUE(r.ok) << r.detail;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(got.data(), in_graph.data(), got.size() * sizeof(float)), 0);
  }
}

/// The smallest square of t × t tiles of 128, plus 3 rows and 5 columns, whose fringe the library
/// takes both of on this device (taking either alone saves no wave), k = 301.
SgemmShape shape_with_both_fringes() {
  for (std::size_t t = 2; t < 200; ++t) {
    sgemm_detail::GemmArgs g;
    g.m = static_cast<int>(128 * t + 3), g.n = static_cast<int>(128 * t + 5), g.k = 301;
    const sgemm_detail::Fringe f = sgemm_detail::fringe_of(g);
    if (f.rows == 3 && f.cols == 5) return {static_cast<std::size_t>(g.m), static_cast<std::size_t>(g.n), 301};
  }
  return {};
}

// A product whose last 3 rows and 5 columns would cost its tiles a wave: those go to the few-rows
// and few-columns paths. Right in every variant, the same bits twice and in a graph, and the
// tiles' part the bits of a configuration run on the whole product (one FMA chain over k per element).
TEST(SgemmLibrary, FringeRowsAndColumnsTakeTheStreamingPaths) {
  const SgemmShape s = shape_with_both_fringes();
  ASSERT_GT(s.m, 0u) << "no square takes both fringes on this device";
  for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3}) {
    const SgemmInput in = input_for(s, v);
    DeviceGemm d(in), again(in), captured(in), whole(in);
    auto call = [&](DeviceGemm& x, cudaStream_t stream) {
      sgemm(s.m, s.n, s.k, in.alpha, x.a.data(), in.lda, x.b.data(), in.ldb, in.beta, x.c.data(), in.ldc, stream);
    };
    call(d, nullptr);
    call(again, nullptr);
    run_captured([&](cudaStream_t stream) { call(captured, stream); });
    sgemm_detail::run_config(0, whole.args(in), 1, nullptr, nullptr);
    const std::vector<float> got = d.result(), second = again.result(), in_graph = captured.result(), tiles = whole.result();
    const std::string what(variant_name(v));
    const CheckResult r = check_sgemm(got, in, sgemm_reference(in, 7), SgemmMath::fp32);
    EXPECT_TRUE(r.ok) << what << ": " << r.detail;
    EXPECT_EQ(std::memcmp(got.data(), second.data(), got.size() * sizeof(float)), 0) << what;
    EXPECT_EQ(std::memcmp(got.data(), in_graph.data(), got.size() * sizeof(float)), 0) << what;
    for (std::size_t i = 0; i < s.m - 3; ++i)
      ASSERT_EQ(std::memcmp(&got[i * in.ldc], &tiles[i * in.ldc], (s.n - 5) * sizeof(float)), 0) << what << " row " << i;
  }
}

// The Ozaki rungs past what the ladder's shapes reach: k in two chunks of the INT8 products, a wide
// exponent range (within their bound, which is relative to each row's and column's norm), the same
// bits twice, and a row holding a NaN (that row NaN, the others unchanged).
TEST(SgemmOzaki, DeepKWideExponentsAndANaNRow) {
  for (auto [moduli, math] : {std::pair{8, SgemmMath::ozaki8}, std::pair{7, SgemmMath::ozaki7}})
    for (int exponents : {0, 20}) {
      SgemmInput in = make_sgemm_input({33, 40, (1 << 16) + 100}, 1, 0.5f, -2.f, 21, exponents);
      const SgemmReference ref = sgemm_reference(in, 7);
      DeviceGemm d(in);
      sgemm_ozaki::run(d.args(in), nullptr, moduli);
      const std::vector<float> got = d.result();
      const CheckResult r = check_sgemm(got, in, ref, math);
      EXPECT_TRUE(r.ok) << moduli << " moduli, exponents " << exponents << ": " << r.detail;
      DeviceGemm again(in);
      sgemm_ozaki::run(again.args(in), nullptr, moduli);
      EXPECT_EQ(std::memcmp(got.data(), again.result().data(), got.size() * sizeof(float)), 0) << moduli << " " << exponents;
      if (exponents != 0) continue;
      in.a[5 * in.lda + 7] = std::nanf("");
      DeviceGemm with_nan(in);
      sgemm_ozaki::run(with_nan.args(in), nullptr, moduli);
      const std::vector<float> nan_row = with_nan.result();
      for (std::size_t i = 0; i < 33; ++i)
        for (std::size_t j = 0; j < 40; ++j) {
          const float v = nan_row[i * in.ldc + j];
          if (i == 5) EXPECT_TRUE(std::isnan(v)) << "C[5][" << j << "]";
          else EXPECT_EQ(std::bit_cast<std::uint32_t>(v), std::bit_cast<std::uint32_t>(got[i * in.ldc + j])) << "C[" << i << "][" << j << "]";
        }
    }
  EXPECT_THROW(sgemm_ozaki::run(sgemm_device::GemmArgs{}, nullptr, 6), Error);
}

// Where the scheme loses everything, and why fp32_tensor takes it only with the guard (below): a row
// of A and a column of B whose large elements miss each other are scaled until their other elements
// round to 0, so ĉ = 0 where c = 2^30 + 2^30 + (k − 2) (the bound, relative to the norms, allows it).
TEST(SgemmOzaki, LosesARowAndAColumnWhoseLargeElementsMissEachOther) {
  constexpr std::size_t k = 64;
  SgemmInput in = make_sgemm_input({1, 1, k}, 0, 1.f, 0.f, 5);
  for (std::size_t p = 0; p < k; ++p) in.a[p] = in.b[p * in.ldb] = 1.f;
  in.a[0] = in.b[1 * in.ldb] = 0x1p30f;
  for (auto by : {sgemm_ozaki::Products::cublas, sgemm_ozaki::Products::wgmma}) {
    if (by == sgemm_ozaki::Products::wgmma && !sgemm_detail::wgmma_supported()) continue;
    DeviceGemm d(in);
    sgemm_ozaki::run(d.args(in), nullptr, 7, by);
    EXPECT_EQ(d.result()[0], 0.f) << "the exact product is 2^31 + " << k - 2;
  }
}

/// An input whose row m/2 of A and column n/3 of B hold 2^30 at p = 0 and p = 4 (both among the
/// guard's p) and 1 elsewhere: C's element there is 2^31 + …, which the scheme loses (ĉ = 0). Their
/// partners at the large elements' p are 1, not tiny (which the guard's levels round to 0): then the
/// planted element is the one that fails.
SgemmInput input_with_large_elements_that_miss(SgemmShape shape, std::uint64_t seed) {
  SgemmInput in = make_sgemm_input(shape, 1, 1.5f, 0.5f, seed, 0);
  const std::size_t row = shape.m / 2, col = shape.n / 3;
  for (std::size_t p = 0; p < shape.k; ++p) in.a[row * in.lda + p] = in.b[p * in.ldb + col] = 1.f;
  for (std::size_t j = 0; j < shape.n && shape.k > 4; ++j) in.b[j] = 1.f;
  for (std::size_t i = 0; i < shape.m && shape.k > 4; ++i) in.a[i * in.lda + 4] = 1.f;
  in.a[row * in.lda] = in.b[4 * in.ldb + col] = 0x1p30f;
  return in;
}

// The guard (fp32_tensor's Ozaki path): within fp32_tensor's bound on every element, with alpha and
// beta, where a row of A and a column of B have large elements that miss each other (the case above,
// planted: 2^30 at p = 0 of the row, at p = 4 of the column, both among the guard's p), k is deep,
// and exponents spread ±20. Where few tiles fail (one of 128), the others have the unguarded scheme's
// bits and the failed element FP32's; where more than a 16th do (a tile of 9 or 4), all of C is
// 3xTF32's, bit for bit. A row holding a NaN gives NaN there and numbers elsewhere.
TEST(SgemmOzaki, GuardKeepsFp32TensorsBoundWhereTheSchemeLosesIt) {
  static constexpr int kOne = 1;
  if (!sgemm_detail::wgmma_supported()) GTEST_SKIP() << "gpulab's INT8 products need compute capability 9.0";
  for (const SgemmShape shape : {SgemmShape{1, 1, 64}, SgemmShape{2048, 1024, 1000}, SgemmShape{300, 260, 1000},
                                 SgemmShape{130, 140, (1 << 16) + 100}}) {
    const std::string what = std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
    const SgemmInput spread = make_sgemm_input(shape, 1, 1.5f, 0.5f, 43, 20);
    DeviceGemm spread_guarded(spread);
    ASSERT_TRUE(sgemm_ozaki::guarded_product(spread_guarded.args(spread), nullptr));
    const CheckResult spread_check = check_sgemm(spread_guarded.result(), spread, sgemm_reference(spread, 7), SgemmMath::tf32x3);
    EXPECT_TRUE(spread_check.ok) << what << ", exponents ±20: " << spread_check.detail;

    SgemmInput in = input_with_large_elements_that_miss(shape, 41);
    const std::size_t row = shape.m / 2, col = shape.n / 3;
    DeviceGemm guarded(in), plain(in), by_3xtf32(in);
    ASSERT_TRUE(sgemm_ozaki::guarded_product(guarded.args(in), nullptr));
    sgemm_ozaki::run(plain.args(in), nullptr, 7, sgemm_ozaki::Products::wgmma);
    DeviceBuffer<int> one(1);  // an open gate: 3xTF32 as the guard's fallback runs it, k not split
    GPULAB_CUDA_CHECK(cudaMemcpy(one.data(), &kOne, sizeof(int), cudaMemcpyHostToDevice));
    ASSERT_TRUE(sgemm_detail::wgmma_tf32x3_gated(by_3xtf32.args(in), nullptr, {one.data(), 0, true}));
    const std::vector<float> got = guarded.result(), unguarded = plain.result(), tf32x3 = by_3xtf32.result();
    const CheckResult r = check_sgemm(got, in, sgemm_reference(in, 7), SgemmMath::tf32x3);
    EXPECT_TRUE(r.ok) << what << ": " << r.detail;
    EXPECT_NE(unguarded[row * in.ldc + col], got[row * in.ldc + col]) << what << ": the planted element";
    const bool few_fail = shape.m * shape.n >= 16 * 128 * 128;
    for (std::size_t i = 0; i < shape.m; ++i)
      for (std::size_t j = 0; j < shape.n; ++j) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(got[i * in.ldc + j]);
        if (!few_fail) {
          ASSERT_EQ(bits, std::bit_cast<std::uint32_t>(tf32x3[i * in.ldc + j])) << what << ": C[" << i << "][" << j << "] not 3xTF32's";
        } else if (i != row || j != col) {
          ASSERT_EQ(bits, std::bit_cast<std::uint32_t>(unguarded[i * in.ldc + j])) << what << ": C[" << i << "][" << j << "] not the scheme's";
        }
      }
    if (shape.m < 3) continue;
    const std::size_t nan_row = shape.m - 1;
    in.a[nan_row * in.lda + 3] = std::nanf("");
    DeviceGemm with_nan(in);
    ASSERT_TRUE(sgemm_ozaki::guarded_product(with_nan.args(in), nullptr));
    const std::vector<float> nan_got = with_nan.result();
    for (std::size_t i = 0; i < shape.m; ++i)
      for (std::size_t j = 0; j < shape.n; ++j)
        ASSERT_EQ(std::isnan(nan_got[i * in.ldc + j]), i == nan_row) << what << ": C[" << i << "][" << j << "]";
  }
}

// gpulab's own INT8 products (Hopper's wgmma) give the residues cuBLAS's do, so C's bits are the same
// either way: on shapes that leave tiles and slices of k partial, k = 0 and 1, a block's rows past m
// and columns past n, and k deep enough for the sums to be reduced on the way (513 slices of 128).
TEST(SgemmOzaki, OwnProductsGiveCublassBits) {
  if (!sgemm_detail::wgmma_supported()) GTEST_SKIP() << "gpulab's INT8 products need compute capability 9.0";
  for (int moduli : {7, 8}) {
    for (const SgemmShape shape : {SgemmShape{1, 1, 1}, SgemmShape{130, 257, 129}, SgemmShape{257, 513, 1000}, SgemmShape{64, 300, 0},
                                   SgemmShape{300, 7, 17}, SgemmShape{129, 260, (1 << 16) + 100}}) {
      const SgemmInput in = make_sgemm_input(shape, 1, 1.5f, 0.5f, 33, 20);
      DeviceGemm by_cublas(in), own(in);
      sgemm_ozaki::run(by_cublas.args(in), nullptr, moduli, sgemm_ozaki::Products::cublas);
      sgemm_ozaki::run(own.args(in), nullptr, moduli, sgemm_ozaki::Products::wgmma);
      const std::vector<float> want = by_cublas.result(), got = own.result();
      EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0)
          << moduli << " moduli, " << shape.m << "x" << shape.n << "x" << shape.k;
      if (shape.k > 0) {
        EXPECT_TRUE(check_sgemm(got, in, sgemm_reference(in, 7), moduli == 8 ? SgemmMath::ozaki8 : SgemmMath::ozaki7).ok);
      }
    }
  }
}

/// Whether this device refuses `precision` (tf32 without TF32 tensor cores, sm_75).
bool refused_here(SgemmPrecision precision) { return !sgemm_precision_supported(precision); }

/// The names of the launches (and other libraries' calls) one gpulab::sgemm call makes.
template <class Call>
std::vector<std::string> launches_of(Call&& call) {
  LaunchLog log(nullptr);
  call();
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::string> names;
  for (const LaunchNote& n : log.notes()) names.push_back(n.kernel);
  return names;
}

// tf32 where the policy gives it cuBLAS (Hopper, with libcublas found): cuBLAS's call alone where
// the rule gives it the product (a batch in one strided call, each member within the bound),
// gpulab's own kernels on rows off 16-byte boundaries from 2^33 multiply-adds; either within TF32's
// bound and the same bits again and when captured in a graph.
TEST(SgemmLibrary, Tf32TakesCublasWhereTheRuleSays) {
  if (!sgemm_detail::current_sgemm_policy().tf32_vendor) GTEST_SKIP() << "this GPU's family has no vendor path for tf32";
  if (!sgemm_detail::vendor_tf32_found()) GTEST_SKIP() << "no libcublas could be opened here";
  struct Run {
    SgemmShape shape;
    Variant variant;
    bool vendor;
  };
  for (const Run& r : {Run{{512, 520, 4100}, Variant::scaled, true}, Run{{33, 65, 17}, Variant::unaligned, true},
                       Run{{2048, 2048, 2049}, Variant::plain, false}}) {
    const SgemmInput in = input_for(r.shape, r.variant);
    DeviceGemm first(in), again(in), captured(in);
    ASSERT_EQ(sgemm_detail::tf32_through_vendor(first.args(in), 1), r.vendor) << sgemm_shape_name(r.shape);
    const std::vector<std::string> names = launches_of([&] { first.call(in, SgemmPrecision::tf32); });
    const bool cublas_called = std::ranges::find(names, "cublasGemmEx") != names.end();
    EXPECT_EQ(cublas_called, r.vendor) << sgemm_shape_name(r.shape);
    if (r.vendor) {
      EXPECT_EQ(names.size(), 1u) << sgemm_shape_name(r.shape);
    }
    again.call(in, SgemmPrecision::tf32);
    run_captured([&](cudaStream_t stream) { captured.call(in, SgemmPrecision::tf32, stream); });
    const std::vector<float> got = first.result();
    const CheckResult check = check_sgemm(got, in, sgemm_reference(in, 7), SgemmMath::tf32);
    EXPECT_TRUE(check.ok) << sgemm_shape_name(r.shape) << ": " << check.detail;
    EXPECT_EQ(std::memcmp(got.data(), again.result().data(), got.size() * sizeof(float)), 0) << sgemm_shape_name(r.shape);
    EXPECT_EQ(std::memcmp(got.data(), captured.result().data(), got.size() * sizeof(float)), 0) << sgemm_shape_name(r.shape);
  }
  // A batch: one strided call of cuBLAS's; each member as the same product called alone.
  const SgemmShape member{256, 264, 300};
  constexpr std::size_t kMembers = 5;
  const SgemmInput in = input_for(member, Variant::scaled);
  const std::size_t stride_a = in.a.size(), stride_b = in.b.size(), stride_c = in.c.size();
  std::vector<float> a, b, c;
  for (std::size_t i = 0; i < kMembers; ++i) a.insert(a.end(), in.a.begin(), in.a.end()), b.insert(b.end(), in.b.begin(), in.b.end()),
                                               c.insert(c.end(), in.c.begin(), in.c.end());
  const DeviceBuffer<float> da = test::upload<float>(a), db = test::upload<float>(b);
  DeviceBuffer<float> dc = test::upload<float>(c);
  const std::vector<std::string> names = launches_of([&] {
    sgemm_strided_batched(Op::as_is, Op::as_is, member.m, member.n, member.k, in.alpha, da.data(), in.lda, stride_a, db.data(), in.ldb,
                          stride_b, in.beta, dc.data(), in.ldc, stride_c, kMembers, nullptr, SgemmPrecision::tf32);
  });
  EXPECT_EQ(names, std::vector<std::string>{"cublasGemmStridedBatchedEx"});
  const std::vector<float> got = test::download(dc.data(), dc.size());
  const SgemmReference ref = sgemm_reference(in, 7);
  for (std::size_t i = 0; i < kMembers; ++i) {
    const auto first = got.begin() + static_cast<std::ptrdiff_t>(i * stride_c);
    const CheckResult check = check_sgemm(std::vector<float>(first, first + static_cast<std::ptrdiff_t>(stride_c)), in, ref, SgemmMath::tf32);
    EXPECT_TRUE(check.ok) << "member " << i << ": " << check.detail;
  }
}

// The precisions: a shape the tensor cores take (odd sides, beta, wide exponents) is within the
// 3xTF32 (or TF32) bound, the same bits twice and in a graph, on whichever form the device's policy
// gives it (wgmma on Hopper, mma.sync on the A100 and, for tf32, on Ampere and Ada RTX; run under
// GPULAB_TREAT_AS for the others); fp32_tensor's split-K form (few tiles, deep k) too; a shape they
// do not take gives fp32's bits. tf32 is refused where the device has no TF32 tensor cores.
TEST(SgemmLibrary, TensorCorePrecisionsAreWithinTheirBoundsAndReproducible) {
  const sgemm_detail::SgemmPolicy& policy = sgemm_detail::current_sgemm_policy();
  SgemmInput wide = make_sgemm_input({1031, 1029, 1027}, 0, 0.5f, -2.f, 11, 20);
  for (SgemmShape s : {SgemmShape{1031, 1029, 1027}, SgemmShape{1100, 1030, 4100}})
    for (auto [precision, math] : {std::pair{SgemmPrecision::fp32_tensor, SgemmMath::tf32x3}, std::pair{SgemmPrecision::tf32, SgemmMath::tf32}})
      for (const SgemmInput& in : {input_for(s, Variant::scaled), s.m == 1031 ? wide : input_for(s, Variant::unaligned)}) {
        auto call = [&](DeviceGemm& d, cudaStream_t stream) {
          sgemm(s.m, s.n, s.k, in.alpha, d.a.data(), in.lda, d.b.data(), in.ldb, in.beta, d.c.data(), in.ldc, stream, precision);
        };
        DeviceGemm first(in), again(in), captured(in);
        EXPECT_TRUE(sgemm_detail::takes_tensor_cores(first.args(in), precision == SgemmPrecision::tf32));
        if (refused_here(precision)) {
          EXPECT_THROW(call(first, nullptr), Error) << policy.family;
          continue;
        }
        call(first, nullptr);
        call(again, nullptr);
        run_captured([&](cudaStream_t stream) { call(captured, stream); });
        const std::vector<float> got = first.result();
        const CheckResult r = check_sgemm(got, in, sgemm_reference(in, 7), math);
        const std::string what = fmt::format("{} exponents {} precision {}", sgemm_shape_name(s), in.exponents, static_cast<int>(precision));
        EXPECT_TRUE(r.ok) << what << ": " << r.detail;
        EXPECT_EQ(std::memcmp(got.data(), again.result().data(), got.size() * sizeof(float)), 0) << what;
        EXPECT_EQ(std::memcmp(got.data(), captured.result().data(), got.size() * sizeof(float)), 0) << what;
      }
  const SgemmInput small = input_for({127, 129, 131}, Variant::scaled);
  DeviceGemm fp32(small), tensor(small);
  ASSERT_FALSE(sgemm_detail::takes_tensor_cores(tensor.args(small), false));
  for (auto [d, precision] : {std::pair{&fp32, SgemmPrecision::fp32}, std::pair{&tensor, SgemmPrecision::fp32_tensor}})
    sgemm(127, 129, 131, small.alpha, d->a.data(), small.lda, d->b.data(), small.ldb, small.beta, d->c.data(), small.ldc,
          nullptr, precision);
  EXPECT_EQ(fp32.result(), tensor.result());
}

// fp32_tensor on operands at the ends of FP32's range: subnormal A times 2^100·B (the
// split lost the bits below TF32's subnormal grid: 1.67× over the bound before the rows and columns
// were scaled), tiny times tiny, huge times tiny; each within the 3xTF32 bound of the double
// reference, as the fp32 path is within its own.
TEST(SgemmLibrary, TensorCorePrecisionKeepsItsBoundOnSubnormalTinyAndHugeOperands) {
  const SgemmShape s{1024, 1280, 1088};
  for (auto [a_exponent, b_exponent] : {std::pair{-135, 100}, std::pair{-100, -20}, std::pair{120, -120}, std::pair{-140, 0}}) {
    SgemmInput in = make_sgemm_input(s, 0, 1.f, 0.f, 61);
    for (float& v : in.a) v = std::ldexp(v, a_exponent);
    for (float& v : in.b) v = std::ldexp(v, b_exponent);
    const SgemmReference ref = sgemm_reference(in, 7);
    for (auto [precision, math] : {std::pair{SgemmPrecision::fp32_tensor, SgemmMath::tf32x3}, std::pair{SgemmPrecision::fp32, SgemmMath::fp32}}) {
      // (the fp32 path's products of 2^−140 lie in FP32's subnormal range, where its bound, like
      // any FP32 arithmetic's, does not hold: each operation there may add 2^−150; fp32_tensor is
      // the fp32 path where the device's policy gives it no tensor cores)
      const bool fp32_path = precision == SgemmPrecision::fp32 || sgemm_detail::current_sgemm_policy().fp32_tensor == sgemm_detail::TensorForm::none;
      if (fp32_path && a_exponent + b_exponent < -126) continue;
      DeviceGemm d(in);
      if (precision == SgemmPrecision::fp32_tensor) {
        EXPECT_TRUE(sgemm_detail::takes_tensor_cores(d.args(in), false));
      }
      sgemm(s.m, s.n, s.k, 1.f, d.a.data(), in.lda, d.b.data(), in.ldb, 0.f, d.c.data(), in.ldc, nullptr, precision);
      const CheckResult r = check_sgemm(d.result(), in, ref, math);
      EXPECT_TRUE(r.ok) << "A·2^" << a_exponent << " B·2^" << b_exponent << " precision " << static_cast<int>(precision) << ": " << r.detail;
    }
    if (!sgemm_detail::wgmma_supported()) continue;  // fp32_tensor's Ozaki path (from k = 4096 in the library): the same bound
    DeviceGemm guarded(in);
    ASSERT_TRUE(sgemm_ozaki::guarded_product(guarded.args(in), nullptr));
    const CheckResult r = check_sgemm(guarded.result(), in, ref, SgemmMath::tf32x3);
    EXPECT_TRUE(r.ok) << "A·2^" << a_exponent << " B·2^" << b_exponent << " the guarded Ozaki scheme: " << r.detail;
  }
}

// ±Inf and NaN in A and B reach C under fp32_tensor (and tf32, and fp32_tensor's Ozaki path) as under
// fp32: the same elements are NaN, +Inf and −Inf (the split made an infinite value's small part NaN),
// and the others stay finite.
TEST(SgemmLibrary, TensorCorePrecisionsPropagateInfAndNanAsFp32Does) {
  const SgemmShape s{1024, 1100, 1030};
  SgemmInput in = make_sgemm_input(s, 0, 1.f, 0.f, 62);
  const float inf = std::numeric_limits<float>::infinity();
  in.a[3 * in.lda + 5] = inf;      // row 3: ±Inf where B's row 5 is nonzero, NaN where it meets B's NaN column
  in.a[700 * in.lda + 9] = -inf;   // row 700
  in.a[701 * in.lda + 2] = std::nanf("");  // row 701: NaN everywhere
  in.b[5 * in.ldb + 17] = 0.f;     // C[3][17]: Inf · 0 = NaN
  in.b[11 * in.ldb + 40] = inf;    // column 40: +Inf, −Inf and NaN mixed by A's signs
  in.b[12 * in.ldb + 41] = inf, in.b[13 * in.ldb + 41] = -inf;  // column 41: Inf − Inf = NaN
  in.a[900 * in.lda + 11] = 0.f;   // C[900][40]: 0 · Inf = NaN
  std::vector<float> fp32;
  // (the last pass: fp32_tensor's Ozaki path, where its rows and columns fail the guard)
  const bool ozaki = sgemm_detail::wgmma_supported();
  for (int pass = 0; pass < (ozaki ? 4 : 3); ++pass) {
    const SgemmPrecision precision = std::array{SgemmPrecision::fp32, SgemmPrecision::fp32_tensor, SgemmPrecision::tf32,
                                                SgemmPrecision::fp32_tensor}[pass];
    if (refused_here(precision)) continue;
    DeviceGemm d(in);
    if (pass == 3) ASSERT_TRUE(sgemm_ozaki::guarded_product(d.args(in), nullptr));
    else sgemm(s.m, s.n, s.k, 1.f, d.a.data(), in.lda, d.b.data(), in.ldb, 0.f, d.c.data(), in.ldc, nullptr, precision);
    const std::vector<float> got = d.result();
    if (precision == SgemmPrecision::fp32) {
      fp32 = got;
      EXPECT_TRUE(std::isnan(got[3 * in.ldc + 17]) && std::isnan(got[900 * in.ldc + 40]) && std::isnan(got[5 * in.ldc + 41]));
      EXPECT_TRUE(std::isinf(got[3 * in.ldc + 0]) && std::isnan(got[701 * in.ldc + 0]));
      continue;
    }
    std::size_t differ = 0;
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t j = 0; j < s.n; ++j) {
        const float f = fp32[i * in.ldc + j], t = got[i * in.ldc + j];
        const bool same = std::isnan(f) ? std::isnan(t) : std::isinf(f) ? t == f : std::isfinite(t);
        if (!same && differ++ < 5) ADD_FAILURE() << "pass " << pass << " C[" << i << "][" << j << "] = " << t << ", fp32 " << f;
      }
    EXPECT_EQ(differ, 0u);
  }
}

// alpha = 0: C = beta·C and A and B are not read (BLAS): their NaN and Inf do not reach C, and
// with beta = 0 too, C (poisoned with NaN) becomes zeros; on every precision.
TEST(SgemmLibrary, AlphaZeroReadsNeitherAnorB) {
  const SgemmShape s{1024, 1024, 1024};
  for (SgemmPrecision precision : {SgemmPrecision::fp32, SgemmPrecision::fp32_tensor, SgemmPrecision::tf32})
    for (float beta : {-2.f, 0.f}) {
      if (refused_here(precision)) continue;
      SgemmInput in = make_sgemm_input(s, 0, 0.f, beta, 63);
      in.a[10] = std::nanf(""), in.b[20] = std::numeric_limits<float>::infinity();
      if (beta == 0.f) std::fill(in.c.begin(), in.c.end(), std::nanf(""));
      DeviceGemm d(in);
      sgemm(s.m, s.n, s.k, 0.f, d.a.data(), in.lda, d.b.data(), in.ldb, beta, d.c.data(), in.ldc, nullptr, precision);
      std::vector<float> want = in.c;
      for (float& v : want) v = beta == 0.f ? 0.f : beta * v;
      EXPECT_EQ(d.result(), want) << "precision " << static_cast<int>(precision) << " beta " << beta;
    }
}

TEST(SgemmLibrary, EmptyShapesDoNothingAndKZeroScalesC) {
  EXPECT_NO_THROW(sgemm(0, 5, 5, 1.f, nullptr, 5, nullptr, 5, 0.f, nullptr, 5));
  EXPECT_NO_THROW(sgemm(5, 0, 5, 1.f, nullptr, 5, nullptr, 0, 0.f, nullptr, 0));
  const SgemmInput in = input_for({3, 5, 0}, Variant::scaled);
  DeviceGemm d(in);
  sgemm(3, 5, 0, 0.5f, nullptr, 0, nullptr, 5, -2.f, d.c.data(), 5);
  std::vector<float> want = in.c;
  for (float& v : want) v *= -2.f;
  EXPECT_EQ(d.result(), want);
}

// ---- operands stored transposed -----------------------------------------------------------------

/// The forms with an operand stored transposed (NT, TN, TT).
constexpr SgemmForm kTransposedForms[] = {{false, true}, {true, false}, {true, true}};

// The big tiles in every form: right, and the bits of the same configuration on operands as stored
// (the forms change which copies fill shared memory, not the FMAs), with split-K and without,
// aligned rows or not, beta or not. Configurations that take operands as stored only refuse.
TEST(SgemmForms, BigTilesReadTransposedOperandsInPlaceWithTheBitsOfAsStored) {
  for (SgemmShape s : {SgemmShape{127, 129, 131}, SgemmShape{200, 200, 4097}, SgemmShape{1, 300, 257}, SgemmShape{129, 65, 257},
                       SgemmShape{300, 520, 203}, SgemmShape{5, 3, 0}})
    for (Variant v : {Variant::plain, Variant::unaligned, Variant::scaled, Variant::pad3}) {
      const SgemmInput in = input_for(s, v);
      const SgemmReference ref = sgemm_reference(in, 7);
      for (std::size_t config = 0; config < sgemm_detail::tile_configs().size(); ++config) {
        if (!sgemm_detail::config_fits(config)) continue;
        for (int splits : {1, 5}) {
          DeviceGemm as_stored(in);
          DeviceBuffer<float> partials(static_cast<std::size_t>(splits) * s.m * s.n);
          sgemm_detail::run_config(config, as_stored.args(in), splits, partials.data(), nullptr);
          const std::vector<float> want = as_stored.result();
          for (const SgemmForm form : kTransposedForms) {
            DeviceGemm d(in, form);
            const std::string what = fmt::format("{} {} {} {} splits {}", sgemm_detail::tile_configs()[config].name, sgemm_form_name(form),
                                                 sgemm_shape_name(s), variant_name(v), splits);
            if (!sgemm_detail::tile_configs()[config].every_form) {
              EXPECT_THROW(sgemm_detail::run_config(config, d.args(in), splits, partials.data(), nullptr), Error) << what;
              continue;
            }
            sgemm_detail::run_config(config, d.args(in), splits, partials.data(), nullptr);
            const std::vector<float> got = d.result();
            const CheckResult r = check_sgemm(got, in, ref, SgemmMath::fp32);
            EXPECT_TRUE(r.ok) << what << ": " << r.detail;
            EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0) << what;
          }
        }
      }
    }
}

/// Every configuration that takes operands stored transposed, in each such form, on `in`: right
/// against the reference.
void expect_every_form_right(const SgemmInput& in, int splits, const std::string& what) {
  const SgemmReference ref = sgemm_reference(in, 7);
  const SgemmShape s = in.shape;
  DeviceBuffer<float> partials(static_cast<std::size_t>(splits) * s.m * s.n);
  for (std::size_t config = 0; config < sgemm_detail::tile_configs().size(); ++config) {
    if (!sgemm_detail::config_fits(config) || !sgemm_detail::tile_configs()[config].every_form) continue;
    for (const SgemmForm form : kTransposedForms) {
      DeviceGemm d(in, form);
      sgemm_detail::run_config(config, d.args(in), splits, partials.data(), nullptr);
      const CheckResult r = check_sgemm(d.result(), in, ref, SgemmMath::fp32);
      EXPECT_TRUE(r.ok) << what << " " << sgemm_detail::tile_configs()[config].name << " " << sgemm_form_name(form) << ": " << r.detail;
    }
  }
}

// The forms' copies under compute-sanitizer (scripts/device_run.sh runs the small_ tests under each
// tool): ragged edges, a partial last vector (pad3), unaligned rows, split-K.
TEST(SgemmForms, small_EveryFormOnRaggedEdges) {
  expect_every_form_right(input_for({129, 65, 257}, Variant::pad3), 1, "129x65x257 pad3");
  expect_every_form_right(input_for({33, 65, 17}, Variant::unaligned), 1, "33x65x17 pad1");
  expect_every_form_right(input_for({64, 64, 600}, Variant::scaled), 3, "64x64x600 scaled, 3 slices");
}

// fp32_tensor's Ozaki path in every form: each operand's lines (rows of op(A), columns of op(B)) are
// read where they lie, along the stored rows or down the stored columns, into the same residue
// planes and facts, so each form gives the bits of operands as stored: the scheme's elements, the
// FP32 fix-up's (the planted element of a tile of 128, its tile's FMA chains reading op(A) and
// op(B) in their form) and 3xTF32's where most tiles fail; k past one chunk of the products with
// exponents spread ±20. Within fp32_tensor's bound everywhere.
TEST(SgemmForms, TheGuardedOzakiSchemeReadsEveryFormInPlaceWithTheBitsOfAsStored) {
  if (!sgemm_detail::wgmma_supported()) GTEST_SKIP() << "gpulab's INT8 products need compute capability 9.0";
  const SgemmInput inputs[] = {input_with_large_elements_that_miss({2048, 1024, 1000}, 47),
                               input_with_large_elements_that_miss({300, 260, 1000}, 53),
                               make_sgemm_input({130, 140, (1 << 16) + 100}, 1, 1.5f, 0.5f, 59, 20)};
  for (const SgemmInput& in : inputs) {
    const SgemmReference ref = sgemm_reference(in, 7);
    DeviceGemm as_stored(in);
    ASSERT_TRUE(sgemm_ozaki::guarded_product(as_stored.args(in), nullptr));
    const std::vector<float> want = as_stored.result();
    for (const SgemmForm form : kTransposedForms) {
      const std::string what = fmt::format("{} {}", sgemm_form_name(form), sgemm_shape_name(in.shape));
      DeviceGemm d(in, form);
      ASSERT_TRUE(sgemm_ozaki::guarded_product(d.args(in), nullptr)) << what;
      const std::vector<float> got = d.result();
      const CheckResult r = check_sgemm(got, in, ref, SgemmMath::tf32x3);
      EXPECT_TRUE(r.ok) << what << ": " << r.detail;
      EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0) << what;
    }
  }
}

// The library in every form and precision, on shapes each path of operands as stored would take
// (few rows, few columns, fringes, split-K, the tensor cores' sizes): within the precision's bound;
// where the tensor cores take a form (wgmma splits op(A) and op(B)ᵀ the same way whatever their
// form), the bits of operands as stored; a captured call gives the bits of an eager one.
TEST(SgemmForms, TheLibraryTakesEveryFormInEveryPrecision) {
  const sgemm_detail::SgemmPolicy& policy = sgemm_detail::current_sgemm_policy();
  for (SgemmShape s : {SgemmShape{1, 4096, 2048}, SgemmShape{6, 700, 300}, SgemmShape{3000, 5, 600}, SgemmShape{4100, 3, 64},
                       SgemmShape{257, 300, 1}, SgemmShape{1031, 1029, 1027}, SgemmShape{512, 520, 4100}})
    for (auto [precision, math] : {std::pair{SgemmPrecision::fp32, SgemmMath::fp32}, std::pair{SgemmPrecision::fp32_tensor, SgemmMath::tf32x3},
                                   std::pair{SgemmPrecision::tf32, SgemmMath::tf32}}) {
      if (refused_here(precision)) continue;
      const SgemmInput in = input_for(s, s.m % 2 == 1 ? Variant::unaligned : Variant::scaled);
      const SgemmReference ref = sgemm_reference(in, 7);
      DeviceGemm as_stored(in);
      as_stored.call(in, precision);
      const std::vector<float> want = as_stored.result();
      const bool tensor = precision != SgemmPrecision::fp32 && sgemm_detail::takes_tensor_cores(as_stored.args(in), precision == SgemmPrecision::tf32);
      // cuBLAS's TF32 GEMM (tf32 on Hopper) gives each form its own bits.
      const bool vendor = precision == SgemmPrecision::tf32 && sgemm_detail::tf32_through_vendor(as_stored.args(in), 1);
      for (const SgemmForm form : kTransposedForms) {
        DeviceGemm d(in, form), captured(in, form), logged(in, form);
        d.call(in, precision);  // the first call of a shape and form may time the tile configurations
        const std::string what = fmt::format("{} {} precision {}", sgemm_form_name(form), sgemm_shape_name(s), static_cast<int>(precision));
        {
          // Read in place: the call launches the product's own kernels, no copy of an operand.
          LaunchLog log(nullptr);
          logged.call(in, precision);
          GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
          ASSERT_FALSE(log.notes().empty()) << what;
          for (const LaunchNote& n : log.notes())
            EXPECT_TRUE(n.kernel.starts_with("big_tiles") || n.kernel.starts_with("add_slices") || n.kernel.starts_with("sgemm_") ||
                        (vendor && n.kernel == "cublasGemmEx"))
                << what << ": " << n.kernel;
        }
        run_captured([&](cudaStream_t stream) { captured.call(in, precision, stream); });
        const std::vector<float> got = d.result();
        // Where a form leaves the tensor cores (mma.sync), its result is FP32's, within both bounds.
        const CheckResult r = check_sgemm(got, in, ref, math);
        EXPECT_TRUE(r.ok) << what << ": " << r.detail;
        EXPECT_EQ(std::memcmp(got.data(), captured.result().data(), got.size() * sizeof(float)), 0) << what;
        if (tensor && !vendor && policy.fp32_tensor == sgemm_detail::TensorForm::wgmma) {
          EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0) << what;
        }
      }
    }
}

// C written to copies as it is made (multi::sgemm's ranks send their rows of C this way, each copy
// on another GPU): on every path a shape may take — few rows, few columns, the fringe's strips,
// split-K's sums, unaligned rows, an operand stored transposed, the tensor cores — every copy holds
// C's bits (beta's too), C is what gpulab::sgemm gives, and past the m × n elements (padding) a copy
// is untouched. Copies that do not lie as C does modulo 16 bytes, overlap an operand, or are more
// than seven are refused.
TEST(SgemmLibrary, CopiesOfCHoldCsBitsOnEveryPath) {
  const SgemmShape fringed = shape_with_both_fringes();
  ASSERT_GT(fringed.m, 0u);
  struct Run {
    SgemmShape shape;
    Variant variant;
    SgemmForm form;
    SgemmPrecision precision;
  };
  std::vector<Run> runs = {{{6, 700, 300}, Variant::scaled, {}, SgemmPrecision::fp32},
                           {{3000, 5, 600}, Variant::plain, {}, SgemmPrecision::fp32},
                           {fringed, Variant::unaligned, {}, SgemmPrecision::fp32},
                           {{512, 520, 4100}, Variant::scaled, {}, SgemmPrecision::fp32},
                           {{1031, 1029, 1027}, Variant::unaligned, {}, SgemmPrecision::fp32},
                           {{301, 263, 517}, Variant::scaled, {true, true}, SgemmPrecision::fp32}};
  for (SgemmPrecision precision : {SgemmPrecision::fp32_tensor, SgemmPrecision::tf32})
    if (!refused_here(precision)) runs.push_back({{1031, 1029, 1027}, Variant::scaled, {}, precision});
  for (const Run& run : runs) {
    const SgemmShape s = run.shape;
    const std::string what = fmt::format("{} {} precision {}", sgemm_form_name(run.form), sgemm_shape_name(s), static_cast<int>(run.precision));
    const SgemmInput in = input_for(s, run.variant);
    DeviceGemm plain(in, run.form), copied(in, run.form);
    plain.call(in, run.precision);
    const std::vector<float> poison(in.c.size(), std::bit_cast<float>(~0u));
    std::vector<DeviceBuffer<float>> copies;
    for (int q = 0; q < 3; ++q) copies.push_back(test::upload<float>(poison));
    const std::vector<float*> at = {copies[0].data(), copies[1].data(), copies[2].data()};
    sgemm_detail::sgemm_with_copies(op_of(run.form.a_transposed), op_of(run.form.b_transposed), s.m, s.n, s.k, in.alpha, copied.a.data(),
                                    copied.lda, copied.b.data(), copied.ldb, in.beta, copied.c.data(), in.ldc, at, nullptr, run.precision);
    const std::vector<float> want = plain.result(), got = copied.result();
    EXPECT_EQ(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)), 0) << what;
    for (const DeviceBuffer<float>& copy : copies) {
      const std::vector<float> held = test::download(copy.data(), copy.size());
      for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < in.ldc && i * in.ldc + j < held.size(); ++j) {
          const std::uint32_t bits = std::bit_cast<std::uint32_t>(held[i * in.ldc + j]);
          ASSERT_EQ(bits, j < s.n ? std::bit_cast<std::uint32_t>(got[i * in.ldc + j]) : ~0u) << what << " at " << i << ", " << j;
        }
    }
  }
  // Refused: a copy 4 bytes off C's lie, one over B, eight copies.
  const SgemmInput in = input_for({64, 64, 64}, Variant::plain);
  DeviceGemm d(in);
  DeviceBuffer<float> spare(in.c.size() + 4);
  auto call = [&](std::vector<float*> at) {
    sgemm_detail::sgemm_with_copies(Op::as_is, Op::as_is, 64, 64, 64, 1.f, d.a.data(), d.lda, d.b.data(), d.ldb, 0.f, d.c.data(), in.ldc, at,
                                    nullptr);
  };
  EXPECT_THROW(call({spare.data() + 1}), Error);
  EXPECT_THROW(call({d.b.data()}), Error);
  EXPECT_THROW(call(std::vector<float*>(8, spare.data())), Error);
  EXPECT_THROW(call({spare.data(), spare.data()}), Error);  // two copies on the same bytes
  EXPECT_NO_THROW(call({spare.data()}));
}

// ---- strided batches ------------------------------------------------------------------------------

/// `count` members of a shape, each its own input (seeds apart), laid out as the batched call takes
/// them: each operand stored in `form`, members `gap` floats of NaN apart; C's members too.
struct DeviceBatch {
  std::vector<SgemmInput> members;
  SgemmForm form;
  std::size_t lda = 0, ldb = 0, stride_a = 0, stride_b = 0, stride_c = 0;
  DeviceBuffer<float> a, b, c;
  DeviceBatch(SgemmShape s, Variant v, SgemmForm f, std::size_t count, std::size_t gap) : form(f) {
    std::vector<float> host_a, host_b, host_c;
    auto append = [&](std::vector<float>& all, const std::vector<float>& member, std::size_t& stride) {
      stride = member.size() + gap;
      all.insert(all.end(), member.begin(), member.end());
      all.resize(all.size() + gap, std::bit_cast<float>(~0u));
    };
    for (std::size_t i = 0; i < count; ++i) {
      SgemmInput in = input_for(s, v, i);
      const SgemmStored stored = stored_operands(in, f);
      lda = stored.lda, ldb = stored.ldb;
      append(host_a, stored.a, stride_a);
      append(host_b, stored.b, stride_b);
      append(host_c, in.c, stride_c);
      members.push_back(std::move(in));
    }
    a = test::upload<float>(host_a), b = test::upload<float>(host_b), c = test::upload<float>(host_c);
  }
  void call(SgemmPrecision precision) {
    const SgemmInput& in = members.front();
    sgemm_strided_batched(op_of(form.a_transposed), op_of(form.b_transposed), in.shape.m, in.shape.n, in.shape.k, in.alpha, a.data(), lda,
                          stride_a, b.data(), ldb, stride_b, in.beta, c.data(), in.ldc, stride_c, members.size(), nullptr, precision);
  }
  /// Each member against its reference, and the gaps between C's members untouched (NaN bits).
  void expect_right(SgemmMath math, const std::string& what) const {
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = test::download(c.data(), c.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      const SgemmInput& in = members[i];
      const std::span<const float> member(got.data() + i * stride_c, in.c.size());
      const CheckResult r = check_sgemm(member, in, sgemm_reference(in, 7), math);
      EXPECT_TRUE(r.ok) << what << " member " << i << ": " << r.detail;
      for (std::size_t e = in.c.size(); e < stride_c; ++e)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i * stride_c + e]), ~0u) << what << " member " << i << " gap " << e;
    }
  }
};

// A batch through every route: the tiles over the batch (small members, every form, aligned rows
// or not), members one call each (few rows, few columns, the tensor cores' sizes), each member
// against its own reference and C's gaps untouched.
TEST(SgemmBatched, EveryMemberIsRightOnEveryRoute) {
  struct Run {
    SgemmShape shape;
    Variant variant;
    SgemmForm form;
    SgemmPrecision precision;
    SgemmMath math;
    std::size_t count, gap;
  };
  const std::vector<Run> runs{
      {{64, 48, 33}, Variant::plain, {}, SgemmPrecision::fp32, SgemmMath::fp32, 7, 0},
      {{129, 65, 257}, Variant::scaled, {}, SgemmPrecision::fp32, SgemmMath::fp32, 5, 3},
      {{127, 129, 131}, Variant::unaligned, {false, true}, SgemmPrecision::fp32, SgemmMath::fp32, 4, 1},
      {{200, 120, 64}, Variant::plain, {true, false}, SgemmPrecision::fp32_tensor, SgemmMath::tf32x3, 3, 4},
      {{100, 300, 17}, Variant::scaled, {true, true}, SgemmPrecision::fp32, SgemmMath::fp32, 3, 2},
      {{3, 700, 300}, Variant::plain, {}, SgemmPrecision::fp32, SgemmMath::fp32, 3, 1},
      {{500, 5, 300}, Variant::scaled, {false, true}, SgemmPrecision::fp32, SgemmMath::fp32, 3, 0},
      {{1031, 1029, 1027}, Variant::scaled, {false, true}, SgemmPrecision::fp32_tensor, SgemmMath::tf32x3, 2, 5},
      {{1031, 1029, 1027}, Variant::plain, {}, SgemmPrecision::tf32, SgemmMath::tf32, 2, 0},
  };
  for (const Run& r : runs) {
    if (refused_here(r.precision)) continue;
    DeviceBatch d(r.shape, r.variant, r.form, r.count, r.gap);
    d.call(r.precision);
    d.expect_right(r.math, fmt::format("{} {} {} x{} precision {}", sgemm_shape_name(r.shape), variant_name(r.variant),
                                       sgemm_form_name(r.form), r.count, static_cast<int>(r.precision)));
  }
}

// A batch's tiles under compute-sanitizer: members whose gaps would show a write past a member.
TEST(SgemmBatched, small_TilesOverABatch) {
  for (SgemmForm form : {SgemmForm{}, SgemmForm{true, true}}) {
    DeviceBatch d({40, 36, 33}, Variant::unaligned, form, 3, 2);
    d.call(SgemmPrecision::fp32);
    d.expect_right(SgemmMath::fp32, "40x36x33 x3 " + sgemm_form_name(form));
  }
}

TEST(SgemmBatched, StridesOfZeroShareAnOperandAndCsMembersMustNotOverlap) {
  // Every member the same B (stride 0): member i is A_i·B.
  DeviceBatch d({96, 80, 40}, Variant::plain, {}, 3, 0);
  const SgemmInput& first = d.members.front();
  for (SgemmInput& in : d.members) in.b = first.b;  // what the call sees with stride_b = 0
  sgemm_strided_batched(Op::as_is, Op::as_is, 96, 80, 40, 1.f, d.a.data(), d.lda, d.stride_a, d.b.data(), d.ldb, 0, 0.f, d.c.data(),
                        first.ldc, d.stride_c, 3);
  d.expect_right(SgemmMath::fp32, "stride_b 0");
  // C's members overlapping (stride_c below a member's span) are refused; so is C over A's batch.
  EXPECT_THROW(sgemm_strided_batched(Op::as_is, Op::as_is, 96, 80, 40, 1.f, d.a.data(), d.lda, d.stride_a, d.b.data(), d.ldb, 0, 0.f,
                                     d.c.data(), first.ldc, 96 * 80 - 1, 3),
               Error);
  EXPECT_THROW(sgemm_strided_batched(Op::as_is, Op::as_is, 96, 80, 40, 1.f, d.a.data(), d.lda, d.stride_a, d.b.data(), d.ldb, 0, 0.f,
                                     const_cast<float*>(d.a.data()) + d.stride_a, first.ldc, d.stride_c, 3),
               Error);
  // batch 0 does nothing (null pointers are fine then).
  EXPECT_NO_THROW(sgemm_strided_batched(Op::as_is, Op::as_is, 96, 80, 40, 1.f, nullptr, 40, 0, nullptr, 80, 0, 0.f, nullptr, 80, 0, 0));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST(SgemmLibrary, BadArgumentsThrow) {
  DeviceBuffer<float> buf(64 * 64 * 3);
  float* a = buf.data();
  float* b = a + 64 * 64;
  float* c = b + 64 * 64;
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 63, b, 64, 0.f, c, 64), Error);  // lda < k
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 63, 0.f, c, 64), Error);  // ldb < n
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 64, 0.f, c, 63), Error);  // ldc < n
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, nullptr, 64, b, 64, 0.f, c, 64), Error);
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, nullptr, 64, 0.f, c, 64), Error);
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 64, 0.f, nullptr, 64), Error);
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 64, 0.f, c, 64, nullptr, static_cast<SgemmPrecision>(7)), Error);
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 64, 0.f, a + 64, 64), Error);  // c overlaps a
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, a, 64, b, 64, 0.f, b - 1, 64), Error);   // c's last row overlaps b
  EXPECT_THROW(sgemm(64, 64, 64, 1.f, reinterpret_cast<const float*>(reinterpret_cast<const char*>(a) + 2), 64, b, 64, 0.f, c,
                     64),
               Error);  // not 4-byte aligned
  EXPECT_THROW(sgemm(std::size_t{1} << 31, 1, 1, 1.f, a, 1, b, 1, 0.f, c, 1), Error);
  // Operands stored transposed (m = 32, n = 48, k = 64): A stored k × m needs lda ≥ 32, B stored
  // n × k ldb ≥ 64; A stored 64 × 32 (lda 32) spans 2048 floats: a C at its last one overlaps it.
  EXPECT_NO_THROW(sgemm(Op::transposed, Op::transposed, 32, 48, 64, 1.f, a, 32, b, 64, 0.f, c, 48));
  EXPECT_THROW(sgemm(Op::transposed, Op::as_is, 32, 48, 64, 1.f, a, 31, b, 48, 0.f, c, 48), Error);  // lda < m
  EXPECT_THROW(sgemm(Op::as_is, Op::transposed, 32, 48, 64, 1.f, a, 64, b, 63, 0.f, c, 48), Error);  // ldb < k
  EXPECT_THROW(sgemm(static_cast<Op>(2), Op::as_is, 32, 48, 64, 1.f, a, 64, b, 48, 0.f, c, 48), Error);
  EXPECT_THROW(sgemm(Op::transposed, Op::as_is, 32, 48, 64, 1.f, a, 32, b, 48, 0.f, a + 2047, 48), Error);
  // Every row one float apart from the next is fine (lda = k), misaligned by one float too.
  EXPECT_NO_THROW(sgemm(8, 8, 8, 1.f, a + 1, 8, b + 1, 8, 0.f, c + 1, 8));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
