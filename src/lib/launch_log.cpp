#include "lib/launch_log.hpp"

#include "lib/launch_limits.hpp"

#include <gpulab/error.hpp>

namespace gpulab {
namespace {
thread_local LaunchLog* listening = nullptr;
}  // namespace

LaunchLog::LaunchLog(cudaStream_t stream) {
  if (listening != nullptr) throw Error("launch logs do not nest");
  start_.record(stream);
  listening = this;
}

LaunchLog::~LaunchLog() { listening = nullptr; }

LaunchNote& LaunchLog::add(LaunchNote note, cudaStream_t stream) {
  notes_.push_back(std::move(note));
  after_.emplace_back().record(stream);
  return notes_.back();
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

bool launches_logged() { return listening != nullptr; }

LaunchNote* note_launch(const void* kernel, const char* name, const LaunchShape& shape, cudaStream_t stream) {
  if (listening == nullptr) return nullptr;
  const unsigned threads = shape.block.x * shape.block.y * shape.block.z;
  return &listening->add({name, shape, {}, resident_blocks(kernel, threads, shape.smem)}, stream);
}

void note_library_call(const char* name, const char* what, cudaStream_t stream) {
  if (listening != nullptr) listening->add({name, LaunchShape{dim3(0), dim3(0)}, what, 0}, stream);
}

}  // namespace gpulab
