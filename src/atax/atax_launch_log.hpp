// What `gpulab atax run` prints of each kernel launch, as seed 004's program does ("384 blocks (out
// of 576), 2 lines per block", "Kernel #1 time"): the atax paths report every launch here, and
// the report costs nothing unless a LaunchLog is listening on the calling thread.
#pragma once

#include <gpulab/device_buffer.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab::atax_detail {

struct LaunchNote {
  std::string kernel;
  dim3 grid;
  unsigned block = 0;
  std::string work;             // e.g. "8 lines per block"
  unsigned resident_blocks = 0;  // blocks of this kernel the GPU holds at once
};

/// Listens to the atax launches issued on this thread while it lives (not nested). Each launch
/// adds a note and records an event after itself, so that kernel k's time is the span from the
/// event before it to the event after it.
class LaunchLog {
 public:
  explicit LaunchLog(cudaStream_t stream);
  LaunchLog(const LaunchLog&) = delete;
  LaunchLog& operator=(const LaunchLog&) = delete;
  ~LaunchLog();

  const std::vector<LaunchNote>& notes() const { return notes_; }
  /// Milliseconds of each launch (after the stream has been synchronised).
  std::vector<double> kernel_ms() const;

  void add(LaunchNote note, cudaStream_t stream);

 private:
  Event start_;
  std::vector<LaunchNote> notes_;
  std::vector<Event> after_;
};

/// "1 line", "8 lines": how a launch note counts its work.
inline std::string count_of(std::uint64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// Reports a launch just issued on `stream` to the listening log, if any: the kernel, its grid
/// and block, and `work` (called only when someone listens).
void note_launch(const void* kernel, const char* name, dim3 grid, unsigned block, std::size_t dynamic_smem,
                 cudaStream_t stream, const std::function<std::string()>& work);

}  // namespace gpulab::atax_detail
