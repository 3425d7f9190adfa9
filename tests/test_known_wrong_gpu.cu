// Rungs that are wrong on purpose, kept for the tests alone: for every problem (reduce, scan,
// histogram, atax, the three matrix problems, sgemm, conv) one that writes zeros, one with a NaN or
// one wrong element, one that skips the tail (or the last row), and one that writes one element
// past the end. The harness's checked run must reject every one (the last through the
// guard band after each output). Below them, one wrong rung for each compute-sanitizer tool (a
// write past an output with no guard band, a race, a bad warp-sync mask, an uninitialized read),
// which `gpulab sanitize`'s pipeline must catch (SanitizerPipeline).
#include "gpu_test_support.hpp"

#include "atax/atax_problem.hpp"
#include "conv/conv_problem.hpp"
#include "core/process.hpp"
#include "core/sanitizer.hpp"
#include "histogram/histogram_problem.hpp"
#include "lib/launch.cuh"
#include "matrix/matrix_problem.hpp"
#include "reduce/reduce_problem.hpp"
#include "scan/scan_problem.hpp"
#include "sgemm/sgemm_problem.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/conv.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/matrix.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>
#include <gpulab/sgemm.hpp>

#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

using namespace gpulab;

namespace {

/// One thread writes `value` to `at`.
template <class T>
__global__ void write_one(T* at, T value) {
  *at = value;
}

template <class T>
void write_value(T* at, T value, cudaStream_t stream) {
  launch("write_one", write_one<T>, {1, 1}, stream, at, value);
}

/// One thread adds one to the byte at `at` (wrapping): a value that cannot be the right one.
__global__ void add_one(std::uint8_t* at) { *at = static_cast<std::uint8_t>(*at + 1); }

constexpr std::size_t kTail = 256;  // "skips the tail": the last n % 256 elements
std::size_t without_tail(std::size_t n) { return n - n % kTail; }

// ---- reduce (float) -------------------------------------------------------------------------------

std::size_t reduce_ws(std::size_t n, unsigned) { return reduce_sum_temp_bytes<float>(n); }
std::size_t reduce_depth(std::size_t n, unsigned) { return reduce_sum_accumulation_depth<float>(n); }
void reduce_zeros(const float*, std::size_t, float* out, void*, std::size_t, unsigned, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), s));
}
void reduce_nan(const float* in, std::size_t n, float* out, void* ws, std::size_t bytes, unsigned, cudaStream_t s) {
  reduce_sum(in, n, out, ws, bytes, s);
  write_value(out, std::numeric_limits<float>::quiet_NaN(), s);
}
void reduce_skip_tail(const float* in, std::size_t n, float* out, void* ws, std::size_t bytes, unsigned, cudaStream_t s) {
  reduce_sum(in, without_tail(n), out, ws, bytes, s);
}
void reduce_past_end(const float* in, std::size_t n, float* out, void* ws, std::size_t bytes, unsigned, cudaStream_t s) {
  reduce_sum(in, n, out, ws, bytes, s);
  write_value(out + 1, 1.0f, s);
}
constexpr ReduceRung<float> kWrongReduce[] = {
    {{"writes_zeros", "", Role::rung, false}, {reduce_ws, reduce_zeros, reduce_depth}},
    {{"nan_result", "", Role::rung, false}, {reduce_ws, reduce_nan, reduce_depth}},
    {{"skips_tail", "", Role::rung, false}, {reduce_ws, reduce_skip_tail, reduce_depth}},
    {{"writes_past_end", "", Role::rung, false}, {reduce_ws, reduce_past_end, reduce_depth}},
};

// ---- scan (float) ----------------------------------------------------------------------------------

std::size_t scan_ws(std::size_t n, unsigned) { return scan_temp_bytes<float>(n); }
ScanDepth scan_depth(std::size_t, unsigned) { return {scan_accumulation_depth<float>(0), 1, scan_tile_elements<float>()}; }
void scan_zeros(const float*, float* out, std::size_t n, ScanKind, void*, std::size_t, unsigned, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(out, 0, n * sizeof(float), s));
}
void scan_one_off(const float* in, float* out, std::size_t n, ScanKind, void* ws, std::size_t bytes, unsigned,
                  cudaStream_t s) {
  inclusive_scan(in, out, n, ws, bytes, s);
  write_value(out + n / 2, 0.0f, s);  // one element of the middle forgets its prefix
}
void scan_skip_tail(const float* in, float* out, std::size_t n, ScanKind, void* ws, std::size_t bytes, unsigned,
                    cudaStream_t s) {
  inclusive_scan(in, out, without_tail(n), ws, bytes, s);
}
void scan_past_end(const float* in, float* out, std::size_t n, ScanKind, void* ws, std::size_t bytes, unsigned,
                   cudaStream_t s) {
  inclusive_scan(in, out, n, ws, bytes, s);
  write_value(out + n, 1.0f, s);
}
constexpr ScanRung<float> kWrongScan[] = {
    {{"writes_zeros", "", Role::rung, false}, {scan_ws, scan_zeros, scan_depth}},
    {{"one_element_wrong", "", Role::rung, false}, {scan_ws, scan_one_off, scan_depth}},
    {{"skips_tail", "", Role::rung, false}, {scan_ws, scan_skip_tail, scan_depth}},
    {{"writes_past_end", "", Role::rung, false}, {scan_ws, scan_past_end, scan_depth}},
};

// ---- histogram --------------------------------------------------------------------------------------

bool any_m(std::size_t, std::uint32_t) { return true; }
std::size_t no_ws(std::size_t, std::uint32_t, unsigned) { return 0; }
void hist_zeros(const std::int32_t*, std::size_t, std::uint32_t m, std::uint32_t* counts, void*, std::size_t, unsigned,
                cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t{m} * 4, s));
}
void hist_one_wrong(const std::int32_t* v, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*, std::size_t,
                    unsigned, cudaStream_t s) {
  histogram(v, n, m, counts, s);
  write_value(counts + m / 2, 12345u, s);
}
void hist_skip_tail(const std::int32_t* v, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*, std::size_t,
                    unsigned, cudaStream_t s) {
  histogram(v, without_tail(n), m, counts, s);
}
void hist_past_end(const std::int32_t* v, std::size_t n, std::uint32_t m, std::uint32_t* counts, void*, std::size_t,
                   unsigned, cudaStream_t s) {
  histogram(v, n, m, counts, s);
  write_value(counts + m, 0u, s);
}
constexpr HistogramRung kWrongHistogram[] = {
    {{"writes_zeros", "", Role::rung, false}, {any_m, no_ws, hist_zeros}},
    {{"one_wrong_count", "", Role::rung, false}, {any_m, no_ws, hist_one_wrong}},
    {{"skips_tail", "", Role::rung, false}, {any_m, no_ws, hist_skip_tail}},
    {{"writes_past_end", "", Role::rung, false}, {any_m, no_ws, hist_past_end}},
};

// ---- atax ----------------------------------------------------------------------------------------------

std::size_t atax_ws(std::uint32_t rows, std::uint32_t cols) { return atax_temp_bytes(rows, cols); }
void atax_zeros(const float*, const float*, std::uint32_t, std::uint32_t cols, float* y, void*, std::size_t, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(y, 0, std::size_t{cols} * 4, s));
}
void atax_nan(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t bytes,
              cudaStream_t s) {
  atax(a, x, rows, cols, y, ws, bytes, s);
  write_value(y + cols / 2, std::numeric_limits<float>::quiet_NaN(), s);
}
void atax_skip_tail(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws,
                    std::size_t bytes, cudaStream_t s) {
  atax(a, x, static_cast<std::uint32_t>(std::max<std::size_t>(1, without_tail(rows))), cols, y, ws, bytes, s);
}
void atax_past_end(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws,
                   std::size_t bytes, cudaStream_t s) {
  atax(a, x, rows, cols, y, ws, bytes, s);
  write_value(y + cols, 1.0f, s);
}
constexpr AtaxRung kWrongAtax[] = {
    {{"writes_zeros", "", Role::rung, false}, {atax_ws, atax_zeros}},
    {{"nan_in_one_column", "", Role::rung, false}, {atax_ws, atax_nan}},
    {{"skips_tail", "", Role::rung, false}, {atax_ws, atax_skip_tail}},
    {{"writes_past_end", "", Role::rung, false}, {atax_ws, atax_past_end}},
};

// ---- transpose, add, triangle zeroing (packed matrices: one element past the last is past the end) ---

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The view without its last row.
template <class T>
MatrixView<T> without_last_row(MatrixView<T> v) {
  return {v.data, v.rows - 1, v.cols, v.pitch_bytes};
}
float* past_end(const MatrixView<float>& v) { return v.data + (v.rows - 1) * v.pitch_bytes / sizeof(float) + v.cols; }
void zero_matrix(const MatrixView<float>& v, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemset2DAsync(v.data, v.pitch_bytes, 0, v.cols * sizeof(float), v.rows, s));
}

void transpose_zeros(const MatrixArgs& m, cudaStream_t s) { zero_matrix(m.out, s); }
void transpose_nan(const MatrixArgs& m, cudaStream_t s) {
  transpose(m.a, m.out, s);
  write_value(m.out.data + m.out.cols / 2, kNaN, s);
}
void transpose_skip_row(const MatrixArgs& m, cudaStream_t s) {  // a's last row: b's last column
  transpose(without_last_row(m.a), MatrixView<float>{m.out.data, m.out.rows, m.out.cols - 1, m.out.pitch_bytes}, s);
}
void transpose_past_end(const MatrixArgs& m, cudaStream_t s) {
  transpose(m.a, m.out, s);
  write_value(past_end(m.out), 1.0f, s);
}
constexpr MatrixRung kWrongTranspose[] = {
    {{"writes_zeros", "", Role::rung, false}, {transpose_zeros}},
    {{"nan_in_one_element", "", Role::rung, false}, {transpose_nan}},
    {{"skips_last_row", "", Role::rung, false}, {transpose_skip_row}},
    {{"writes_past_end", "", Role::rung, false}, {transpose_past_end}},
};

void add_zeros(const MatrixArgs& m, cudaStream_t s) { zero_matrix(m.out, s); }
void add_nan(const MatrixArgs& m, cudaStream_t s) {
  add(m.alpha, m.a, m.beta, m.b, m.out, s);
  write_value(m.out.data + m.out.cols / 2, kNaN, s);
}
void add_skip_row(const MatrixArgs& m, cudaStream_t s) {
  add(m.alpha, without_last_row(m.a), m.beta, without_last_row(m.b), without_last_row(m.out), s);
}
void add_past_end(const MatrixArgs& m, cudaStream_t s) {
  add(m.alpha, m.a, m.beta, m.b, m.out, s);
  write_value(past_end(m.out), 1.0f, s);
}
constexpr MatrixRung kWrongAdd[] = {
    {{"writes_zeros", "", Role::rung, false}, {add_zeros}},
    {{"nan_in_one_element", "", Role::rung, false}, {add_nan}},
    {{"skips_last_row", "", Role::rung, false}, {add_skip_row}},
    {{"writes_past_end", "", Role::rung, false}, {add_past_end}},
};

// In place: `out` starts as the input.
void triangle_zeros(const MatrixArgs& m, cudaStream_t s) { zero_matrix(m.out, s); }
void triangle_nan(const MatrixArgs& m, cudaStream_t s) {
  zero_triangle(m.out, m.part, s);
  write_value(past_end(m.out) - 1, kNaN, s);  // the last element, kept by one triangle, zeroed by the other
}
void triangle_skip_row(const MatrixArgs& m, cudaStream_t s) { zero_triangle(without_last_row(m.out), m.part, s); }
void triangle_past_end(const MatrixArgs& m, cudaStream_t s) {
  zero_triangle(m.out, m.part, s);
  write_value(past_end(m.out), 1.0f, s);
}
constexpr MatrixRung kWrongTriangle[] = {
    {{"writes_zeros", "", Role::rung, false}, {triangle_zeros, true}},
    {{"nan_in_one_element", "", Role::rung, false}, {triangle_nan, true}},
    {{"skips_last_row", "", Role::rung, false}, {triangle_skip_row, true}},
    {{"writes_past_end", "", Role::rung, false}, {triangle_past_end, true}},
};

// ---- sgemm (C packed, ldc = n) -------------------------------------------------------------------------

void sgemm_zeros(const sgemm_device::GemmArgs& g, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemset2DAsync(g.c, g.ldc * sizeof(float), 0, std::size_t(g.n) * sizeof(float), std::size_t(g.m), s));
}
void sgemm_whole(const sgemm_device::GemmArgs& g, int m, cudaStream_t s) {
  sgemm(std::size_t(m), std::size_t(g.n), std::size_t(g.k), g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc, s);
}
void sgemm_nan(const sgemm_device::GemmArgs& g, cudaStream_t s) {
  sgemm_whole(g, g.m, s);
  write_value(g.c + g.ldc * std::size_t(g.m / 2) + std::size_t(g.n / 2), kNaN, s);
}
void sgemm_skip_row(const sgemm_device::GemmArgs& g, cudaStream_t s) { sgemm_whole(g, g.m - 1, s); }
void sgemm_past_end(const sgemm_device::GemmArgs& g, cudaStream_t s) {
  sgemm_whole(g, g.m, s);
  write_value(g.c + g.ldc * std::size_t(g.m - 1) + std::size_t(g.n), 1.0f, s);
}
constexpr SgemmRung kWrongSgemm[] = {
    {{"writes_zeros", "", Role::rung, false}, {sgemm_zeros}},
    {{"nan_in_one_element", "", Role::rung, false}, {sgemm_nan}},
    {{"skips_last_row", "", Role::rung, false}, {sgemm_skip_row}},
    {{"writes_past_end", "", Role::rung, false}, {sgemm_past_end}},
};

// ---- conv (packed rows) ---------------------------------------------------------------------------------

void conv_whole(const conv_device::ConvArgs& a, int height, cudaStream_t s) {
  conv3x3(a.in, a.in_pitch, a.out, a.out_pitch, std::size_t(a.width), std::size_t(height), a.filter, a.border, s);
}
void conv_zeros(const conv_device::ConvArgs& a, cudaStream_t s) {
  GPULAB_CUDA_CHECK(cudaMemset2DAsync(a.out, a.out_pitch, 0, 3 * std::size_t(a.width), std::size_t(a.height), s));
}
void conv_one_wrong(const conv_device::ConvArgs& a, cudaStream_t s) {
  conv_whole(a, a.height, s);
  launch("add_one", add_one, {1, 1}, s, a.out + a.out_pitch * std::size_t(a.height / 2) + std::size_t(a.width));
}
void conv_skip_row(const conv_device::ConvArgs& a, cudaStream_t s) { conv_whole(a, a.height - 1, s); }
void conv_past_end(const conv_device::ConvArgs& a, cudaStream_t s) {
  conv_whole(a, a.height, s);
  write_value(a.out + a.out_pitch * std::size_t(a.height - 1) + 3 * std::size_t(a.width), std::uint8_t{1}, s);
}
constexpr ConvRung kWrongConv[] = {
    {{"writes_zeros", "", Role::rung, false}, {conv_zeros}},
    {{"one_byte_wrong", "", Role::rung, false}, {conv_one_wrong}},
    {{"skips_last_row", "", Role::rung, false}, {conv_skip_row}},
    {{"writes_past_end", "", Role::rung, false}, {conv_past_end}},
};

// Sizes with a tail (not a multiple of 256) and results that zeros cannot match.
/// Every row of `table` (a C array or span of rungs) run on `c` must fail the check.
template <class Table>
void expect_every_one_rejected(BenchCase& c, const Table& table, const std::string& where = "") {
  c.compute_reference();
  for (std::size_t r = 0; r < std::size(table); ++r)
    EXPECT_FALSE(run_checked(c, r).ok) << table[r].name << where << " passed the check";
}

/// The library's row of `table` (the problem's ladder) on `c` passes.
template <class Table>
void expect_library_passes(BenchCase& c, const Table& table, std::string_view problem) {
  c.compute_reference();
  const std::vector<RungInfo> ladder(std::begin(table), std::end(table));
  EXPECT_TRUE(run_checked(c, find_rung({ladder.data(), ladder.size()}, "library", problem)).ok) << problem;
}

TEST(KnownWrong, ReduceEveryOneRejected) {
  ReduceCase<float> c({100'003, 256, 5}, kWrongReduce);
  expect_every_one_rejected(c, kWrongReduce);
}

TEST(KnownWrong, ScanEveryOneRejected) {
  ScanCase<float> c({100'003, ScanKind::inclusive, 256, 5}, kWrongScan);
  expect_every_one_rejected(c, kWrongScan);
}

TEST(KnownWrong, HistogramEveryOneRejected) {
  PinnedBuffer<std::int32_t> values(100'003);
  fill_histogram_input(values.span(), HistogramDistribution::uniform, 5);
  for (std::uint32_t m : {8u, 4096u}) {
    HistogramCase c({"uniform", std::span<const std::int32_t>(values.data(), values.size()), m, 256}, kWrongHistogram);
    expect_every_one_rejected(c, kWrongHistogram, " m=" + std::to_string(m));
  }
}

TEST(KnownWrong, AtaxEveryOneRejected) {
  AtaxCase c(make_atax_input({1000, 1001}, 5), kWrongAtax);
  expect_every_one_rejected(c, kWrongAtax);
}

TEST(KnownWrong, MatrixEveryOneRejected) {
  const MatrixShape wide{300, 517};  // the last row holds elements of both triangles
  const std::pair<MatrixOp, std::span<const MatrixRung>> tables[] = {
      {MatrixOp::transpose, kWrongTranspose}, {MatrixOp::add, kWrongAdd}, {MatrixOp::triangle, kWrongTriangle}};
  for (const auto& [op, table] : tables)
    for (Triangle part : {Triangle::upper, Triangle::lower}) {
      MatrixCaseSpec spec = matrix_case_spec(op, wide, MatrixLayout::packed);
      spec.part = part;
      spec.seed = 5;
      MatrixCase c(spec, table);
      expect_every_one_rejected(c, table, " (matrix op " + std::to_string(static_cast<int>(op)) + ")");
    }
}

TEST(KnownWrong, SgemmEveryOneRejected) {
  SgemmCase c(make_sgemm_input({131, 257, 67}, 0, 1.0f, 0.0f, 5), 5, kWrongSgemm);
  expect_every_one_rejected(c, kWrongSgemm);
}

TEST(KnownWrong, ConvEveryOneRejected) {
  ConvCase c(generate_image(301, 203, 5), *named_filter("sharpen"), Border::mirror, 0, kWrongConv);
  expect_every_one_rejected(c, kWrongConv);
}

// The same rungs, right where they should be: the harness rejects them for their faults, not for
// being run through it (the library functions they wrap pass).
TEST(KnownWrong, TheWrappedLibraryFunctionsPass) {
  ReduceCase<float> r({100'003, 256, 5});
  expect_library_passes(r, reduce_rungs<float>(), "reduce");
  ScanCase<float> sc({100'003, ScanKind::inclusive, 256, 5});
  expect_library_passes(sc, scan_rungs<float>(), "scan");
  AtaxCase a(make_atax_input({1000, 1001}, 5));
  expect_library_passes(a, atax_rungs(), "atax");
  SgemmCase g(make_sgemm_input({131, 257, 67}, 0, 1.0f, 0.0f, 5), 5);
  expect_library_passes(g, sgemm_rungs(), "sgemm");
  ConvCase v(generate_image(301, 203, 5), *named_filter("sharpen"), Border::mirror);
  expect_library_passes(v, conv_rungs(), "conv");
  MatrixCase t(matrix_case_spec(MatrixOp::transpose, {300, 517}, MatrixLayout::packed), transpose_rungs());
  expect_library_passes(t, transpose_rungs(), "transpose");
}

// ---- one rung wrong for each compute-sanitizer tool ------------------------------------------------
// Each test below runs a right rung (0) and a wrong one (1) between the markers `gpulab sanitize`
// reads, and is run only under its tool: by SanitizerPipeline below and by scripts/device_run.sh.
// The tool must report errors inside rung 1's markers and none inside rung 0's.

constexpr unsigned kSanitizerBlock = 256;

/// Each thread stores its value in shared memory and reads its neighbour's: with the barrier
/// between (right), or without it, a race across warps (wrong).
template <bool kBarrier>
__global__ void neighbour_through_shared(const float* in, float* out) {
  __shared__ float values[kSanitizerBlock];
  values[threadIdx.x] = in[threadIdx.x];
  if constexpr (kBarrier) __syncthreads();
  out[threadIdx.x] = values[(threadIdx.x + 1) % kSanitizerBlock];
}

/// Every lane syncs its warp with a mask naming every lane (right), or with one that leaves lane 0
/// out although lane 0 calls it too (wrong: synccheck's "invalid arguments"; a barrier only half a
/// block reaches is not reported on Hopper, where the warps that skip it exit).
template <bool kBadMask>
__global__ void warp_sync(float* out) {
  __syncwarp(kBadMask ? 0xFFFFFFFEu : 0xFFFFFFFFu);
  out[threadIdx.x] = 1.0f;
}

__global__ void copy_values(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

/// Runs `right` as rung 0 and `wrong` as rung 1, each between the markers, each synchronised.
void two_rungs(const std::function<void()>& right, const std::function<void()>& wrong) {
  const std::function<void()>* rungs[] = {&right, &wrong};
  for (std::size_t r = 0; r < 2; ++r) {
    std::cout << begin_marker(r, 0) << std::endl;
    (*rungs[r])();
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::cout << end_marker(r, true, "") << std::endl;
  }
}

// Writes one element past an output without a guard band: reduce, histogram and scan in turn.
TEST(KnownWrongSanitizer, DISABLED_memcheck) {
  Stream stream;
  DeviceBuffer<float> in(1000), sum(1);
  DeviceBuffer<unsigned char> ws(reduce_sum_temp_bytes<float>(1000));
  GPULAB_CUDA_CHECK(cudaMemset(in.data(), 0, 4000));
  GPULAB_CUDA_CHECK(cudaMemset(ws.data(), 0, ws.size()));
  DeviceBuffer<std::int32_t> values(1000);
  DeviceBuffer<std::uint32_t> counts(64);
  GPULAB_CUDA_CHECK(cudaMemset(values.data(), 0, 4000));
  DeviceBuffer<float> prefixes(1000);
  DeviceBuffer<unsigned char> scan_temp(scan_temp_bytes<float>(1000));
  GPULAB_CUDA_CHECK(cudaMemset(scan_temp.data(), 0, scan_temp.size()));
  two_rungs([&] { reduce_sum(in.data(), 1000, sum.data(), ws.data(), ws.size(), stream.get()); },
            [&] {
              reduce_past_end(in.data(), 1000, sum.data(), ws.data(), ws.size(), 256, stream.get());
              hist_past_end(values.data(), 1000, 64, counts.data(), nullptr, 0, 256, stream.get());
              scan_past_end(in.data(), prefixes.data(), 1000, ScanKind::inclusive, scan_temp.data(), scan_temp.size(),
                            256, stream.get());
              stream.synchronize();
            });
}

TEST(KnownWrongSanitizer, DISABLED_racecheck) {
  DeviceBuffer<float> in(kSanitizerBlock), out(kSanitizerBlock);
  GPULAB_CUDA_CHECK(cudaMemset(in.data(), 0, in.size() * sizeof(float)));
  two_rungs([&] { neighbour_through_shared<true><<<1, kSanitizerBlock>>>(in.data(), out.data()); },
            [&] { neighbour_through_shared<false><<<1, kSanitizerBlock>>>(in.data(), out.data()); });
}

TEST(KnownWrongSanitizer, DISABLED_synccheck) {
  DeviceBuffer<float> out(kSanitizerBlock);
  two_rungs([&] { warp_sync<false><<<1, kSanitizerBlock>>>(out.data()); },
            [&] { warp_sync<true><<<1, kSanitizerBlock>>>(out.data()); });
}

// Reads device memory nothing has written (right: after a memset).
TEST(KnownWrongSanitizer, DISABLED_initcheck) {
  DeviceBuffer<float> written(kSanitizerBlock), never_written(kSanitizerBlock), out(kSanitizerBlock);
  GPULAB_CUDA_CHECK(cudaMemset(written.data(), 0, written.size() * sizeof(float)));
  two_rungs([&] { copy_values<<<1, kSanitizerBlock>>>(written.data(), out.data()); },
            [&] { copy_values<<<1, kSanitizerBlock>>>(never_written.data(), out.data()); });
}

// The pipeline of `gpulab sanitize` on them: each tool's reports land on the wrong rung alone.
TEST(SanitizerPipeline, EachToolCatchesItsWrongRungAndPassesTheRightOne) {
  const std::string sanitizer = find_tool("compute-sanitizer", "", "GPULAB_COMPUTE_SANITIZER");
  if (sanitizer.empty()) GTEST_SKIP() << "no compute-sanitizer";
  for (std::string_view tool : kSanitizerTools) {
    const ProcessResult r = run_process({sanitizer, "--tool", std::string(tool), "--error-exitcode", "86",
                                         executable_path(), "--gtest_also_run_disabled_tests",
                                         "--gtest_filter=KnownWrongSanitizer.DISABLED_" + std::string(tool)},
                                        true);
    const SanitizedRun run = parse_sanitized_run(r.out);
    ASSERT_EQ(run.rungs.count(0), 1u) << tool << ": the right rung never ran\n" << r.out;
    EXPECT_EQ(run.rungs.at(0).errors, 0) << tool << " reported the right rung\n" << r.out;
    const bool caught = (run.rungs.count(1) && run.rungs.at(1).errors > 0) || run.unfinished == 1u;
    EXPECT_TRUE(caught) << tool << " missed the wrong rung\n" << r.out;
    EXPECT_EQ(r.exit_code, 86) << tool << "'s exit code\n" << r.out;
    std::cout << tool << ": " << (caught ? "caught " : "missed ") << (run.rungs.count(1) ? run.rungs.at(1).first_error : "")
              << "\n";
  }
}

}  // namespace
