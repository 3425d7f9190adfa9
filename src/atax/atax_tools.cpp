#include "atax/atax_tools.hpp"

#include "atax/atax_cpu.hpp"
#include "atax/atax_problem.hpp"
#include "core/exit_codes.hpp"
#include "core/launches.hpp"
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

int atax_run(const std::string& input_path, std::string output_path, std::size_t rung, int reps, const DeviceFacts& device,
             std::ostream& out) {
  const AtaxCase c(read_atax_file(input_path, host_memory_allowance()));
  const AtaxShape s = c.input().shape;
  out << fmt::format("Loaded {}:\n    Matrix: {} numbers ({}x{})\n    Vector: {} numbers (1x{})\n", input_path,
                     s.elements(), s.cols, s.rows, s.cols, s.cols);
  require_case_fits(c, std::span(&rung, 1), device.l2_bytes);
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  const OwnedWorkspace ws(c, rung, stream.get());
  const TimingStats t =
      print_launches(c, rung, atax_rungs()[rung], arrays, ws.get(), reps, device.l2_bytes, stream.get(), out);
  out << fmt::format("* Kernels time (both products): {:.4f} ms median of {} ({:.4f}..{:.4f}), {:.1f} GB/s of A\n",
                     t.median_ms, t.reps, t.min_ms, t.max_ms, static_cast<double>(s.elements()) * 4 / (t.median_ms * 1e6));
  arrays.download(stream.get(), false);
  stream.synchronize();
  if (output_path.empty()) {
    const std::filesystem::path p(input_path);
    output_path = (p.parent_path() / (p.stem().string() + "-out.bin")).string();
  }
  write_atax_result(output_path, as<float>(arrays.host_outputs()[0]));
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
