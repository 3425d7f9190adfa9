#include "reduce/reduce_bench.hpp"

#include "core/memory.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "core/timing.hpp"
#include "reduce/reduce_cpu.hpp"
#include "reduce/reduce_ladder.hpp"
#include "core/variants.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <ostream>

namespace gpulab {
namespace {

/// A poison byte whose repetition is not the expected result, so an unwritten output fails.
template <class T>
unsigned char poison_byte_for(T expected) {
  T all_ff;
  std::memset(&all_ff, 0xFF, sizeof(T));
  return std::memcmp(&all_ff, &expected, sizeof(T)) == 0 ? 0xA5 : 0xFF;
}

template <class T>
CaseResult bench_case(const ReduceBenchConfig& cfg, std::size_t n, const DeviceFacts& device,
                      const Ceilings* ceilings, std::ostream& progress) {
  std::vector<const ReduceVariant<T>*> variants;
  for (const auto& v : reduce_variants<T>())
    if (selected(v, cfg.variants)) variants.push_back(&v);

  std::size_t workspace = 0;
  for (const auto* v : variants) workspace = std::max(workspace, v->workspace_bytes(n, cfg.block));
  require_device_bytes(n * sizeof(T) + workspace + sizeof(T) + 2 * device.l2_bytes,
                       fmt::format("reduce {} n={}", dtype_name(dtype_of<T>()), n));

  CaseResult result;
  result.problem = "reduce";
  result.params = {{"type", std::string(dtype_name(dtype_of<T>()))},
                   {"n", describe_size(n)},
                   {"block", std::to_string(cfg.block)}};
  result.bytes = reduce_bytes_moved<T>(n);
  result.ceiling_name = "read";
  result.ceiling_gbs = ceilings ? ceilings->read_gbs : 0.0;

  PinnedBuffer<T> host(n);
  fill_random(host.span(), cfg.seed);
  const std::span<const T> input(host.data(), n);
  progress << fmt::format("reduce {} n={}: CPU reference…\n", dtype_name(dtype_of<T>()), describe_size(n))
           << std::flush;
  ReduceReference<T> ref;
  const TimingStats ref_time = time_host([&] { ref = reduce_reference(input); }, 1, false);
  if (cfg.cpu) {
    result.cpu.push_back({"serial reference (compensated)", 1, ref_time, check_reduce(ref.value, ref, 1), 0.0});
    T omp_sum{};
    const TimingStats omp_time = time_host([&] { omp_sum = reduce_openmp(input); }, 5);
    const int threads = omp_get_max_threads();
    result.cpu.push_back({"OpenMP baseline", threads, omp_time,
                          check_reduce(omp_sum, ref, reduce_openmp_depth(n, static_cast<std::size_t>(threads))),
                          0.0});
  }

  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  DeviceBuffer<T> d_in(n);
  DeviceBuffer<T> d_out(1);
  PinnedBuffer<T> h_out(1);
  if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_in.data(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream.get()));

  for (const auto* v : variants) {
    progress << fmt::format("  {} {}\n", v->id, v->name) << std::flush;
    const std::size_t ws_bytes = v->workspace_bytes(n, cfg.block);
    DeviceBuffer<unsigned char> ws(ws_bytes);
    if (ws_bytes > 0) GPULAB_CUDA_CHECK(cudaMemsetAsync(ws.data(), 0, ws_bytes, stream.get()));
    auto launch = [&](cudaStream_t s) { v->run(d_in.data(), n, d_out.data(), ws.data(), ws_bytes, cfg.block, s); };

    VariantRow row;
    row.id = v->id;
    row.name = v->name;
    row.adds = v->adds;
    row.vendor = v->vendor;

    // Check before timing, on a poisoned output.
    poison_device(d_out.data(), sizeof(T), poison_byte_for(ref.value), stream.get());
    launch(stream.get());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_out.data(), d_out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    row.check = check_reduce(h_out.data()[0], ref, v->depth(n, cfg.block));

    TimingOptions opt;
    opt.warmup = cfg.warmup;
    opt.reps = cfg.reps;
    opt.working_set_bytes = n * sizeof(T);
    row.kernel = timer.time(launch, opt);

    // End to end: the input from pinned host memory, the kernel(s), the result back.
    row.end_to_end = timer.time([&](cudaStream_t s) {
      if (n > 0) GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_in.data(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice, s));
      launch(s);
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_out.data(), d_out.data(), sizeof(T), cudaMemcpyDeviceToHost, s));
    }, opt.end_to_end(cfg.end_to_end_reps));
    result.variants.push_back(std::move(row));
  }
  derive_columns(result);
  return result;
}

}  // namespace

void validate(const ReduceBenchConfig& config) {
  if (!valid_reduce_block(config.block))
    throw Error(fmt::format("reduce: block size {} is not a power of two in [32, 1024]", config.block));
  require_variants(reduce_variants<float>(), config.variants, "reduce");
  if (config.reps < 1 || config.warmup < 0 || config.end_to_end_reps < 1)
    throw Error("reduce: repetitions must be ≥ 1 and warm-up runs ≥ 0");
}

std::vector<CaseResult> bench_reduce(const ReduceBenchConfig& config, const DeviceFacts& device,
                                     const Ceilings* ceilings, std::ostream& progress) {
  validate(config);
  std::vector<CaseResult> cases;
  for (DType type : config.types)
    for (std::size_t n : config.sizes)
      cases.push_back(visit_dtype(type, [&](auto t) {
        return bench_case<decltype(t)>(config, n, device, ceilings, progress);
      }));
  return cases;
}

}  // namespace gpulab
