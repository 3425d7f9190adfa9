#include "atax/atax_launch_log.hpp"

#include "core/launch_limits.hpp"

#include <gpulab/error.hpp>

namespace gpulab::atax_detail {
namespace {
thread_local LaunchLog* listening = nullptr;
}  // namespace

LaunchLog::LaunchLog(cudaStream_t stream) {
  if (listening != nullptr) throw Error("atax: launch logs do not nest");
  start_.record(stream);
  listening = this;
}

LaunchLog::~LaunchLog() { listening = nullptr; }

void LaunchLog::add(LaunchNote note, cudaStream_t stream) {
  notes_.push_back(std::move(note));
  after_.emplace_back().record(stream);
}

std::vector<double> LaunchLog::kernel_ms() const {
  std::vector<double> ms;
  const Event* before = &start_;
  for (const Event& e : after_) {
    ms.push_back(e.ms_since(*before));
    before = &e;
  }
  return ms;
}

void note_launch(const void* kernel, const char* name, dim3 grid, unsigned block, std::size_t dynamic_smem,
                 cudaStream_t stream, const std::function<std::string()>& work) {
  if (listening == nullptr) return;
  listening->add({name, grid, block, work(), resident_blocks(kernel, block, dynamic_smem)}, stream);
}

}  // namespace gpulab::atax_detail
