// CUDA graphs of what is issued on several streams at once (one rank per stream, each on its
// device), captured by one thread: the multi-GPU bench replays a whole function from them, without
// its launches' CPU cost. Two rules, both learnt on two GPUs:
// - Every stream's capture ends before any graph is instantiated. In
//   cudaStreamCaptureModeThreadLocal mode the runtime refuses cudaGraphInstantiate — like
//   cudaMalloc or a synchronisation — while this thread still captures any stream
//   (cudaErrorStreamCaptureUnsupported): instantiating rank 0's graph before ending rank 1's
//   capture failed every case over two H200s, where one GPU (one stream) never showed it.
// - No capture outlives its scope. One left open makes each later refused call of this thread fail
//   (the tests after the first failure too), so the destructor ends whatever is still open and
//   discards its graph.
//
//   StreamCaptures captures({{0, s0}, {1, s1}});
//   issue_work();                                     // on s0 and s1
//   std::vector<GraphExec> graphs = captures.finish();
//   graphs[0].launch(s0); graphs[1].launch(s1);
// The work may be issued by other threads (each GPU's launcher, lib/launchers.hpp): what enters a
// captured stream is captured, whoever issues it.
#pragma once

#include <cuda_runtime.h>

#include <utility>
#include <vector>

namespace gpulab {

/// An instantiated CUDA graph.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraph_t graph);
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec();
  explicit operator bool() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

struct StreamOnDevice {
  int device = 0;
  cudaStream_t stream = nullptr;  // not the legacy default stream: it cannot be captured
};

/// Captures each stream (thread-local mode) from construction to finish(). The caller's current
/// device is left as it was by every member.
class StreamCaptures {
 public:
  /// Begins every capture; if one cannot begin, those begun are ended and the error thrown.
  explicit StreamCaptures(std::vector<StreamOnDevice> streams);
  /// Ends the captures still open (the work threw, or finish() was never called).
  ~StreamCaptures();
  StreamCaptures(const StreamCaptures&) = delete;
  StreamCaptures& operator=(const StreamCaptures&) = delete;

  /// Ends every capture, then instantiates one graph per stream, in the streams' order. Throws
  /// gpulab::Error with the first failure (every capture is ended all the same).
  std::vector<GraphExec> finish();

 private:
  /// Ends each open capture, its graph into `graphs` (null where none); the first failure.
  cudaError_t end_open(std::vector<cudaGraph_t>& graphs);
  /// Ends the open captures and discards their graphs.
  void abandon();

  std::vector<StreamOnDevice> streams_;
  std::vector<bool> open_;
};

}  // namespace gpulab
