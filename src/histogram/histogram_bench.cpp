#include "histogram/histogram_bench.hpp"

#include "core/memory.hpp"
#include "core/sizes.hpp"
#include "core/timing.hpp"
#include "histogram/histogram_ladder.hpp"
#include "core/variants.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>

namespace gpulab {
namespace {

constexpr std::size_t kCountBytes = sizeof(std::uint32_t);

/// One input: its values in pinned host memory and how it is named in the report.
struct Input {
  std::string source;  // "uniform", "narrow", "degenerate" or "file:PATH"
  PinnedBuffer<std::int32_t> values;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Seed 002's whole program around one variant, `loops` times: allocate, copy in, run, copy
/// out, free, each phase synchronised and timed on its own.
ProgramRun whole_program(const HistogramVariant& v, const Input& input, std::uint32_t m, unsigned block,
                         int loops, cudaStream_t stream) {
  ProgramRun p;
  p.loops = loops;
  const std::size_t n = input.values.size();
  PinnedBuffer<std::uint32_t> h_counts(m);
  Event start, stop;
  for (int i = 0; i < loops; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::optional<DeviceBuffer<std::int32_t>> d_values(std::in_place, n);
    std::optional<DeviceBuffer<std::uint32_t>> d_counts(std::in_place, m);
    const std::size_t ws_bytes = v.workspace_bytes(n, m, block);
    std::optional<DeviceBuffer<unsigned char>> ws(std::in_place, ws_bytes);
    p.allocate_ms += ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_values->data(), input.values.data(), n * 4, cudaMemcpyHostToDevice, stream));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.to_device_ms += ms_since(t0);

    start.record(stream);
    v.run(d_values->data(), n, m, d_counts->data(), ws->data(), ws_bytes, block, stream);
    stop.record(stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.kernels_ms += stop.ms_since(start);

    t0 = std::chrono::steady_clock::now();
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_counts.data(), d_counts->data(), m * kCountBytes, cudaMemcpyDeviceToHost, stream));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.to_host_ms += ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    ws.reset();
    d_counts.reset();
    d_values.reset();
    p.free_ms += ms_since(t0);
  }
  return p;
}

CaseResult bench_case(const HistogramBenchConfig& cfg, const Input& input, std::uint32_t m, const DeviceFacts& device,
                      const Ceilings* ceilings, std::ostream& progress) {
  const std::size_t n = input.values.size();
  CaseResult result;
  result.problem = "histogram";
  result.params = {{"input", input.source}, {"n", describe_size(n)}, {"m", describe_size(m)},
                   {"block", std::to_string(cfg.block)}};
  result.bytes = histogram_bytes_moved(n, m);
  result.ceiling_name = "read";
  result.ceiling_gbs = ceilings ? ceilings->read_gbs : 0.0;

  std::vector<const HistogramVariant*> variants;
  for (const auto& v : histogram_variants()) {
    if (!selected(v, cfg.variants)) continue;
    if (v.supports(m)) variants.push_back(&v);
    else result.notes.push_back(fmt::format("{} {}: cannot count m = {} bins on this device; not run", v.id, v.name, m));
  }
  std::size_t workspace = 0;
  for (const auto* v : variants) workspace = std::max(workspace, v->workspace_bytes(n, m, cfg.block));
  require_device_bytes(n * 4 + m * kCountBytes + workspace + 2 * device.l2_bytes,
                       fmt::format("histogram n={} m={}", n, m));

  const std::span<const std::int32_t> values(input.values.data(), n);
  progress << fmt::format("histogram {} n={} m={}: CPU reference…\n", input.source, describe_size(n), describe_size(m))
           << std::flush;
  std::vector<std::uint32_t> ref;
  const TimingStats ref_time = time_host([&] { ref = histogram_reference(values, m); }, 1, false);
  if (cfg.cpu) {
    result.cpu.push_back({"serial reference (calculateHistogramByCpu)", 1, ref_time, check_histogram(ref, ref), 0.0});
    std::vector<std::uint32_t> omp;
    const TimingStats omp_time = time_host([&] { omp = histogram_openmp(values, m); }, 5);
    result.cpu.push_back({"OpenMP baseline", omp_get_max_threads(), omp_time, check_histogram(omp, ref), 0.0});
  }

  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  DeviceBuffer<std::int32_t> d_values(n);
  DeviceBuffer<std::uint32_t> d_counts(m);
  PinnedBuffer<std::uint32_t> h_counts(m);
  if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_values.data(), input.values.data(), n * 4, cudaMemcpyHostToDevice, stream.get()));

  for (const auto* v : variants) {
    progress << fmt::format("  {} {}\n", v->id, v->name) << std::flush;
    const std::size_t ws_bytes = v->workspace_bytes(n, m, cfg.block);
    DeviceBuffer<unsigned char> ws(ws_bytes);
    auto launch = [&](cudaStream_t s) { v->run(d_values.data(), n, m, d_counts.data(), ws.data(), ws_bytes, cfg.block, s); };

    VariantRow row;
    row.id = v->id;
    row.name = v->name;
    row.adds = v->adds;
    row.vendor = v->vendor;

    // Check before timing, on poisoned counts (0xFFFFFFFF: no bin can hold 2^32 − 1 values
    // unless n = 2^32 − 1 and all fall in it).
    poison_device(d_counts.data(), m * kCountBytes, 0xFF, stream.get());
    launch(stream.get());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_counts.data(), d_counts.data(), m * kCountBytes, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    row.check = check_histogram(std::span<const std::uint32_t>(h_counts.data(), m), ref);

    TimingOptions opt;
    opt.warmup = cfg.warmup;
    opt.reps = cfg.reps;
    opt.working_set_bytes = n * 4 + m * kCountBytes;
    row.kernel = timer.time(launch, opt);

    row.end_to_end = timer.time([&](cudaStream_t s) {
      if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_values.data(), input.values.data(), n * 4, cudaMemcpyHostToDevice, s));
      launch(s);
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_counts.data(), d_counts.data(), m * kCountBytes, cudaMemcpyDeviceToHost, s));
    }, opt.end_to_end(cfg.end_to_end_reps));
    if (cfg.loops > 0) row.program_run = whole_program(*v, input, m, cfg.block, cfg.loops, stream.get());
    result.variants.push_back(std::move(row));
  }
  derive_columns(result);
  return result;
}

}  // namespace

void validate(const HistogramBenchConfig& config) {
  if (!valid_histogram_block(config.block))
    throw Error(fmt::format("histogram: {} threads per block is not a multiple of 32 in [32, 1024]", config.block));
  require_variants(histogram_variants(), config.variants, "histogram");
  if (config.reps < 1 || config.warmup < 0 || config.end_to_end_reps < 1 || config.loops < 0)
    throw Error("histogram: repetitions must be ≥ 1, warm-up runs and loops ≥ 0");
  for (std::uint32_t m : config.bins) validate_histogram_shape(0, m);
  if (config.input_file.empty()) {
    for (std::size_t n : config.sizes) validate_histogram_shape(n, 1);
  } else {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(config.input_file, ec))
      throw Error(fmt::format("input file '{}' does not exist or is not a regular file", config.input_file));
  }
}

std::vector<CaseResult> bench_histogram(const HistogramBenchConfig& config, const DeviceFacts& device,
                                        const Ceilings* ceilings, std::ostream& progress) {
  validate(config);
  std::vector<CaseResult> cases;
  auto run_input = [&](const Input& in) {
    for (std::uint32_t m : config.bins) cases.push_back(bench_case(config, in, m, device, ceilings, progress));
  };
  if (!config.input_file.empty()) {
    const std::vector<std::int32_t> values = load_raw_int32(config.input_file, host_memory_allowance());
    Input in{"file:" + std::filesystem::path(config.input_file).filename().string(), PinnedBuffer<std::int32_t>(values.size())};
    std::copy(values.begin(), values.end(), in.values.data());
    run_input(in);
    return cases;
  }
  for (HistogramDistribution d : config.distributions)
    for (std::size_t n : config.sizes) {
      Input in{std::string(histogram_distribution_name(d)), PinnedBuffer<std::int32_t>(n)};
      fill_histogram_input(in.values.span(), d, config.seed);
      run_input(in);
    }
  return cases;
}

}  // namespace gpulab
