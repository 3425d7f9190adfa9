#include "atax/atax_bench.hpp"

#include "atax/atax_cpu.hpp"
#include "atax/atax_ladder.hpp"
#include "core/memory.hpp"
#include "core/sizes.hpp"
#include "core/timing.hpp"
#include "core/variants.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <ostream>

namespace gpulab {
namespace {

CaseResult bench_case(const AtaxBenchConfig& cfg, AtaxShape shape, const DeviceFacts& device, const Ceilings* ceilings,
                      std::ostream& progress) {
  std::vector<const AtaxVariant*> variants;
  for (const auto& v : atax_variants())
    if (selected(v, cfg.variants)) variants.push_back(&v);
  std::size_t workspace = 0;
  for (const auto* v : variants) workspace = std::max(workspace, v->workspace_bytes(shape.rows, shape.cols));
  const std::size_t a_bytes = shape.elements() * sizeof(float);
  require_device_bytes(a_bytes + 2 * std::size_t{shape.cols} * sizeof(float) + workspace + 2 * device.l2_bytes,
                       fmt::format("atax {}x{}", shape.cols, shape.rows));

  CaseResult result;
  result.problem = "atax";
  result.params = {{"cols", std::to_string(shape.cols)}, {"rows", std::to_string(shape.rows)}};
  result.bytes = atax_bytes_moved(shape);
  result.ceiling_name = "read";
  result.ceiling_gbs = ceilings ? ceilings->read_gbs : 0.0;

  progress << fmt::format("atax {}x{}: input and CPU reference…\n", shape.cols, shape.rows) << std::flush;
  const AtaxInput in = make_atax_input(shape, cfg.seed);
  AtaxReference ref;
  const TimingStats ref_time = time_host([&] { ref = atax_reference(in); }, 1, false);
  if (cfg.cpu) {
    std::vector<float> serial(ref.y.begin(), ref.y.end());
    result.cpu.push_back({"serial reference (double)", 1, ref_time, check_atax_any_order(serial, ref, shape), 0.0});
    std::vector<float> omp;
    const TimingStats omp_time = time_host([&] { omp = atax_openmp(in); }, 3);
    result.cpu.push_back({"OpenMP baseline", omp_get_max_threads(), omp_time, check_atax_any_order(omp, ref, shape), 0.0});
  }

  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  DeviceBuffer<float> d_a(shape.elements()), d_x(shape.cols), d_y(shape.cols);
  PinnedBuffer<float> h_y(shape.cols);
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_a.data(), in.a.data(), a_bytes, cudaMemcpyHostToDevice, stream.get()));
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), in.x.data(), shape.cols * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
  for (const auto* v : variants) {
    progress << fmt::format("  {} {}\n", v->id, v->name) << std::flush;
    const std::size_t ws_bytes = v->workspace_bytes(shape.rows, shape.cols);
    DeviceBuffer<unsigned char> ws(ws_bytes);
    auto launch = [&](cudaStream_t s) { v->run(d_a.data(), d_x.data(), shape.rows, shape.cols, d_y.data(), ws.data(), ws_bytes, s); };
    VariantRow row;
    row.id = v->id;
    row.name = v->name;
    row.adds = v->adds;
    row.vendor = v->vendor;
    poison_device(d_y.data(), shape.cols * sizeof(float), 0xFF, stream.get());  // 0xFFFFFFFF is a NaN
    launch(stream.get());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_y.data(), d_y.data(), shape.cols * sizeof(float), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    row.check = check_atax_any_order(h_y.span(), ref, shape);
    TimingOptions opt;
    opt.warmup = cfg.warmup;
    opt.reps = cfg.reps;
    opt.working_set_bytes = a_bytes;
    row.kernel = timer.time(launch, opt);
    row.end_to_end = timer.time([&](cudaStream_t s) {
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_a.data(), in.a.data(), a_bytes, cudaMemcpyHostToDevice, s));
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), in.x.data(), shape.cols * sizeof(float), cudaMemcpyHostToDevice, s));
      launch(s);
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_y.data(), d_y.data(), shape.cols * sizeof(float), cudaMemcpyDeviceToHost, s));
    }, opt.end_to_end(cfg.end_to_end_reps));
    result.variants.push_back(std::move(row));
  }
  derive_columns(result);
  return result;
}

}  // namespace

std::optional<AtaxShape> parse_atax_shape(std::string_view s) {
  const auto x = s.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view part) -> std::optional<std::uint32_t> {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 1 || v > 0x7FFFFFFFu) return std::nullopt;
    return static_cast<std::uint32_t>(v);
  };
  const auto cols = number(s.substr(0, x)), rows = number(s.substr(x + 1));
  if (!cols || !rows) return std::nullopt;
  return AtaxShape{*cols, *rows};
}

CheckResult check_atax_any_order(std::span<const float> y, const AtaxReference& ref, AtaxShape shape) {
  return check_atax(y, ref, std::size_t{shape.cols} + 1, std::size_t{shape.rows} + 1).result;
}

void validate(const AtaxBenchConfig& config) {
  require_variants(atax_variants(), config.variants, "atax");
  if (config.reps < 1 || config.warmup < 0 || config.end_to_end_reps < 1)
    throw Error("atax: repetitions must be ≥ 1 and warm-up runs ≥ 0");
  for (const auto& s : config.shapes) validate_atax_shape(s.cols, s.rows);
}

std::vector<CaseResult> bench_atax(const AtaxBenchConfig& config, const DeviceFacts& device, const Ceilings* ceilings,
                                   std::ostream& progress) {
  validate(config);
  std::vector<CaseResult> cases;
  for (const auto& s : config.shapes) cases.push_back(bench_case(config, s, device, ceilings, progress));
  return cases;
}

}  // namespace gpulab
