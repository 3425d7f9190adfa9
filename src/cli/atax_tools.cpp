#include "cli/atax_tools.hpp"

#include "atax/atax_cpu.hpp"
#include "atax/atax_launch_log.hpp"
#include "cli/cli.hpp"
#include "core/memory.hpp"
#include "core/sizes.hpp"
#include "core/timing.hpp"

#include <gpulab/device_buffer.hpp>

#include <fmt/format.h>

#include <chrono>
#include <ostream>

namespace gpulab {

int atax_gen(AtaxShape shape, const std::string& path, std::uint64_t seed, std::ostream& out) {
  generate_atax_file(path, shape, seed);
  out << fmt::format("Wrote {}: {}x{} matrix ({} numbers) and a vector of {}, {}\n", path, shape.cols, shape.rows,
                     shape.elements(), shape.cols, human_bytes(static_cast<double>(atax_file_bytes(shape))));
  return kExitOk;
}

namespace {

/// Seed 004's lines for each kernel: its launch configuration and its own time (the median over
/// `reps` runs, each after an L2 flush, with an event between consecutive kernels).
void print_launches(const AtaxVariant& variant, AtaxShape s, int reps, const float* a, const float* x, float* y, void* ws,
                    std::size_t ws_bytes, GpuTimer& timer, cudaStream_t stream, std::ostream& out) {
  std::vector<atax_detail::LaunchNote> notes;
  std::vector<std::vector<double>> kernel_ms;
  for (int r = 0; r < reps; ++r) {
    timer.flush_l2();
    const atax_detail::LaunchLog log(stream);
    variant.run(a, x, s.rows, s.cols, y, ws, ws_bytes, stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> ms = log.kernel_ms();
    if (r == 0) {
      notes = log.notes();
      kernel_ms.resize(ms.size());
    }
    for (std::size_t k = 0; k < ms.size() && k < kernel_ms.size(); ++k) kernel_ms[k].push_back(ms[k]);
  }
  if (notes.empty()) {
    out << "* (the vendor library does not report its launches)\n";
    return;
  }
  for (const auto& n : notes) {
    const std::string grid = n.grid.y > 1 ? fmt::format("{}x{}", n.grid.x, n.grid.y) : fmt::format("{}", n.grid.x);
    out << fmt::format("* {}: {} blocks of {} threads (out of {} at once), {}.\n", n.kernel, grid, n.block,
                       n.resident_blocks, n.work);
  }
  for (std::size_t k = 0; k < kernel_ms.size(); ++k)
    out << fmt::format("* Kernel #{} time:      {:.4f} ms\n", k + 1, summarize(kernel_ms[k]).median_ms);
}

}  // namespace

int atax_run(const std::string& input_path, std::string output_path, const AtaxVariant& variant, int reps,
             const DeviceFacts& device, std::ostream& out) {
  const AtaxInput in = read_atax_file(input_path, host_memory_allowance());
  const AtaxShape s = in.shape;
  out << fmt::format("Loaded {}:\n    Matrix: {} numbers ({}x{})\n    Vector: {} numbers (1x{})\n", input_path,
                     s.elements(), s.cols, s.rows, s.cols, s.cols);
  const std::size_t ws_bytes = variant.workspace_bytes(s.rows, s.cols);
  require_device_bytes(s.elements() * 4 + 2 * std::size_t{s.cols} * 4 + ws_bytes, "atax run");
  Stream stream;
  DeviceBuffer<float> d_a(s.elements()), d_x(s.cols), d_y(s.cols);
  DeviceBuffer<unsigned char> ws(ws_bytes);
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_a.data(), in.a.data(), s.elements() * 4, cudaMemcpyHostToDevice, stream.get()));
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_x.data(), in.x.data(), std::size_t{s.cols} * 4, cudaMemcpyHostToDevice, stream.get()));
  GpuTimer timer(stream.get(), device.l2_bytes);
  TimingOptions opt;
  opt.reps = reps;
  opt.working_set_bytes = s.elements() * 4;
  const TimingStats t = timer.time([&](cudaStream_t st) {
    variant.run(d_a.data(), d_x.data(), s.rows, s.cols, d_y.data(), ws.data(), ws_bytes, st);
  }, opt);
  out << fmt::format("* variant {} {}: {}\n", variant.id, variant.name, variant.adds);
  print_launches(variant, s, reps, d_a.data(), d_x.data(), d_y.data(), ws.data(), ws_bytes, timer, stream.get(), out);
  out << fmt::format("* Kernels time (both products): {:.4f} ms median of {} ({:.4f}..{:.4f}), {:.1f} GB/s of A\n",
                     t.median_ms, t.reps, t.min_ms, t.max_ms, static_cast<double>(s.elements()) * 4 / (t.median_ms * 1e6));
  std::vector<float> y(s.cols);
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(y.data(), d_y.data(), std::size_t{s.cols} * 4, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  if (output_path.empty()) {
    const std::filesystem::path p(input_path);
    output_path = (p.parent_path() / (p.stem().string() + "-out.bin")).string();
  }
  write_atax_result(output_path, y);
  out << "Done. Writing to " << output_path << ".\n";
  return kExitOk;
}

int atax_check(const std::string& input_path, const std::string& result_path, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  const AtaxInput in = read_atax_file(input_path, host_memory_allowance());
  const AtaxShape s = in.shape;
  out << fmt::format("Input matrix:      OK [{}x{} ({})]\n", s.cols, s.rows, s.elements());
  out << fmt::format("Input vector:      OK [{}x1 ({})]\n", s.cols, s.cols);
  const std::vector<float> y = read_atax_result(result_path, s.cols);
  out << fmt::format("Output from GPU:   OK [{}x1 ({})]\n", s.cols, s.cols);
  out << fmt::format("(Input: {}  Output: {})\n\n", human_bytes(static_cast<double>(atax_file_bytes(s))), human_bytes(16.0 + 4.0 * s.cols));

  out << "Calculating matrix by vector (t = A*x) and the final vector (y = A^T*t) in double...OK\n";
  const AtaxReference ref = atax_reference(in);
  // The result file does not say how it was summed: the bound that holds for every order.
  const AtaxCheck c = check_atax(y, ref, std::size_t{s.cols} + 1, std::size_t{s.rows} + 1);
  if (c.result.ok)
    out << fmt::format("Checking...OK (worst error {:.3g} at y[{}], tolerance {:.3g})\n", c.result.error,
                       c.worst_column, c.result.tolerance);
  else
    out << "Checking...FAILED: " << c.result.detail << "\n";
  out << fmt::format("  tolerance per value: gamma(rows+1)*sum|a_ij*t_i| + gamma(cols+1)*sum|a_ij|*s_i, "
                     "gamma(k) = k*2^-24/(1-k*2^-24): any summation order\n\n");
  const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out << fmt::format("Time for step 1:       {:10.3f} ms\n", ref.step1_ms);
  out << fmt::format("Time for step 2:       {:10.3f} ms\n", ref.step2_ms);
  out << fmt::format("Time for both steps:   {:10.3f} ms\n", ref.step1_ms + ref.step2_ms);
  out << fmt::format("Total time elapsed:    {:10.3f} ms\n", total);
  return c.result.ok ? kExitOk : kExitFailure;
}

}  // namespace gpulab
