#include "core/launches.hpp"

#include "lib/launch_log.hpp"

#include <fmt/format.h>

#include <ostream>

namespace gpulab {

TimingStats print_launches(const BenchCase& c, std::size_t rung, const RungInfo& info, const DeviceArrays& arrays,
                           Workspace ws, int reps, std::size_t l2_bytes, cudaStream_t stream, std::ostream& out) {
  GpuTimer timer(stream, l2_bytes);
  const TimingOptions opt = case_timing(c, TimingOptions{}.warmup, reps);
  const TimingStats whole = timer.time([&](cudaStream_t s) { c.launch(rung, arrays.arrays(), ws, s); }, opt);

  std::vector<LaunchNote> notes;
  std::vector<std::vector<double>> kernel_ms;
  for (int r = 0; r < reps; ++r) {
    timer.flush_l2(opt.written_bytes);
    const LaunchLog log(stream);
    c.launch(rung, arrays.arrays(), ws, stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<double> ms = log.kernel_ms();
    if (r == 0) {
      notes = log.notes();
      kernel_ms.resize(ms.size());
    }
    for (std::size_t k = 0; k < ms.size() && k < kernel_ms.size(); ++k) kernel_ms[k].push_back(ms[k]);
  }
  out << fmt::format("* variant {}: {}\n", info.name, info.adds);
  if (notes.empty()) out << "* (the vendor library does not report its launches)\n";
  auto dims = [](dim3 d) {
    if (d.z > 1) return fmt::format("{}x{}x{}", d.x, d.y, d.z);
    return d.y > 1 ? fmt::format("{}x{}", d.x, d.y) : fmt::format("{}", d.x);
  };
  for (const auto& n : notes)
    if (n.shape.grid.x == 0)  // another library's call (note_library_call)
      out << fmt::format("* {}: {}.\n", n.kernel, n.work);
    else
      out << fmt::format("* {}: {} blocks of {} threads (out of {} at once){}{}{}.\n", n.kernel, dims(n.shape.grid),
                       dims(n.shape.block), n.resident_blocks,
                       n.shape.smem ? fmt::format(", {} bytes of shared memory", n.shape.smem) : "",
                       n.shape.cluster ? fmt::format(", clusters of {}", n.shape.cluster) : "",
                       n.work.empty() ? "" : ", " + n.work);
  for (std::size_t k = 0; k < kernel_ms.size(); ++k)
    out << fmt::format("* Kernel #{} time:      {:.4f} ms\n", k + 1, summarize(kernel_ms[k]).median_ms);
  return whole;
}

}  // namespace gpulab
