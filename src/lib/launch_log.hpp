// What a LaunchLog records of each launch (lib/launch.cuh reports to it): the kernel, its grid
// and block, what a block does, how many blocks the GPU holds at once, and an event after it, so
// that kernel k's time is the span from the event before it to the event after it.
#pragma once

#include <gpulab/device_buffer.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpulab {

/// How a kernel is launched.
struct LaunchShape {
  dim3 grid;
  dim3 block;
  std::size_t smem = 0;      // dynamic shared memory per block
  unsigned cluster = 0;      // > 0: blocks per thread-block cluster (along x)
  bool cooperative = false;  // the kernel synchronises its whole grid
  // Programmatic dependent launch (compute capability 9.0+; ignored before): the kernel may be
  // scheduled while the kernel before it on the stream finishes, and waits in `wait_for_prior_grid`
  // (lib/launch.cuh) before it reads that kernel's results.
  bool follows = false;
};

struct LaunchNote {
  std::string kernel;
  LaunchShape shape;
  std::string work;              // e.g. "8 lines per block" (empty when not described)
  unsigned resident_blocks = 0;  // blocks of this kernel the GPU holds at once
};

/// Listens to the launches issued on this thread while it lives (logs do not nest).
class LaunchLog {
 public:
  explicit LaunchLog(cudaStream_t stream);
  LaunchLog(const LaunchLog&) = delete;
  LaunchLog& operator=(const LaunchLog&) = delete;
  ~LaunchLog();

  const std::vector<LaunchNote>& notes() const { return notes_; }
  /// Milliseconds of each launch (after the stream has been synchronised).
  std::vector<double> kernel_ms() const;

  LaunchNote& add(LaunchNote note, cudaStream_t stream);

 private:
  Event start_;
  std::vector<LaunchNote> notes_;
  std::vector<Event> after_;
};

/// Whether a LaunchLog listens on this thread (work issued from another thread would escape it).
bool launches_logged();

/// Reports a launch just issued on `stream` to the listening log; nullptr when none listens.
LaunchNote* note_launch(const void* kernel, const char* name, const LaunchShape& shape, cudaStream_t stream);
/// Reports a call of another library just issued on `stream` (its own launches unseen): a note with
/// no shape, `what` as its work.
void note_library_call(const char* name, const char* what, cudaStream_t stream);

/// "1 line", "8 lines": how a launch note counts its work.
inline std::string count_of(std::uint64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace gpulab
