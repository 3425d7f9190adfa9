// Rungs that are wrong on purpose, kept for the tests alone: for every problem one that writes
// zeros, one with a NaN or one wrong element, one that skips the tail, and one that writes one
// element past the end. The harness's checked run must reject every one (the last through the
// guard band after each output). Below them, one wrong rung for each compute-sanitizer tool (a
// write past an output with no guard band, a race, a bad warp-sync mask, an uninitialized read),
// which `gpulab sanitize`'s pipeline must catch (SanitizerPipeline).
#include "gpu_test_support.hpp"

#include "atax/atax_problem.hpp"
#include "core/process.hpp"
#include "core/sanitizer.hpp"
#include "histogram/histogram_problem.hpp"
#include "lib/launch.cuh"
#include "reduce/reduce_problem.hpp"
#include "scan/scan_problem.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/reduce.hpp>
#include <gpulab/scan.hpp>


#include <cmath>
#include <functional>
#include <iostream>
#include <limits>

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

// Sizes with a tail (not a multiple of 256) and results that zeros cannot match.
TEST(KnownWrong, ReduceEveryOneRejected) {
  ReduceCase<float> c({100'003, 256, 5}, kWrongReduce);
  c.compute_reference();
  for (std::size_t r = 0; r < std::size(kWrongReduce); ++r)
    EXPECT_FALSE(run_checked(c, r).ok) << kWrongReduce[r].name << " passed the check";
}

TEST(KnownWrong, ScanEveryOneRejected) {
  ScanCase<float> c({100'003, ScanKind::inclusive, 256, 5}, kWrongScan);
  c.compute_reference();
  for (std::size_t r = 0; r < std::size(kWrongScan); ++r)
    EXPECT_FALSE(run_checked(c, r).ok) << kWrongScan[r].name << " passed the check";
}

TEST(KnownWrong, HistogramEveryOneRejected) {
  PinnedBuffer<std::int32_t> values(100'003);
  fill_histogram_input(values.span(), HistogramDistribution::uniform, 5);
  for (std::uint32_t m : {8u, 4096u}) {
    HistogramCase c({"uniform", std::span<const std::int32_t>(values.data(), values.size()), m, 256}, kWrongHistogram);
    c.compute_reference();
    for (std::size_t r = 0; r < std::size(kWrongHistogram); ++r)
      EXPECT_FALSE(run_checked(c, r).ok) << kWrongHistogram[r].name << " m=" << m << " passed the check";
  }
}

TEST(KnownWrong, AtaxEveryOneRejected) {
  AtaxCase c(make_atax_input({1000, 1001}, 5), kWrongAtax);
  c.compute_reference();
  for (std::size_t r = 0; r < std::size(kWrongAtax); ++r)
    EXPECT_FALSE(run_checked(c, r).ok) << kWrongAtax[r].name << " passed the check";
}

// The same rungs, right where they should be: the harness rejects them for their faults, not for
// being run through it (the library functions they wrap pass).
TEST(KnownWrong, TheWrappedLibraryFunctionsPass) {
  const auto reduce_ladder = ladder_info(reduce_rungs<float>());
  ReduceCase<float> r({100'003, 256, 5});
  r.compute_reference();
  EXPECT_TRUE(run_checked(r, find_rung({reduce_ladder.data(), reduce_ladder.size()}, "library", "reduce")).ok);
  const auto scan_ladder = ladder_info(scan_rungs<float>());
  ScanCase<float> sc({100'003, ScanKind::inclusive, 256, 5});
  sc.compute_reference();
  EXPECT_TRUE(run_checked(sc, find_rung({scan_ladder.data(), scan_ladder.size()}, "library", "scan")).ok);
  const auto atax_ladder = ladder_info(atax_rungs());
  AtaxCase a(make_atax_input({1000, 1001}, 5));
  a.compute_reference();
  EXPECT_TRUE(run_checked(a, find_rung({atax_ladder.data(), atax_ladder.size()}, "library", "atax")).ok);
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
