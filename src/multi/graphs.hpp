// CUDA graphs of what one thread issues on several streams at once (one rank per stream, each on
// its device): the multi-GPU bench replays a whole function from them, without its launches' CPU
// cost. Two rules, both learnt on two GPUs (issue 30):
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
// Or one graph over every device (CaptureForm::joined): the other streams join the first's capture
// through an event (fork) and the first waits for each of them at the end (join), so a single
// launch on the first stream runs every device's part and ends when the last one does — the CPU
// pays for one launch, not one per GPU, and no GPU waits for the launches of the GPUs before it.
//   StreamCaptures captures({{0, s0}, {1, s1}}, CaptureForm::joined);
//   issue_work();
//   captures.finish()[0].launch(s0);
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

enum class CaptureForm {
  per_stream,  // a graph per stream
  joined,      // one graph of every stream, launched on the first
};

/// Captures each stream (thread-local mode) from construction to finish(). The caller's current
/// device is left as it was by every member.
class StreamCaptures {
 public:
  /// Begins every capture (joined: the first stream's, which the others join); if one cannot
  /// begin, those begun are ended and the error thrown.
  explicit StreamCaptures(std::vector<StreamOnDevice> streams, CaptureForm form = CaptureForm::per_stream);
  /// Ends the captures still open (the work threw, or finish() was never called).
  ~StreamCaptures();
  StreamCaptures(const StreamCaptures&) = delete;
  StreamCaptures& operator=(const StreamCaptures&) = delete;

  /// Ends every capture, then instantiates one graph per stream, in the streams' order (joined:
  /// the other streams joined back into the first, its one graph). Throws gpulab::Error with the
  /// first failure (every capture is ended all the same).
  std::vector<GraphExec> finish();

 private:
  /// Ends each open capture, its graph into `graphs` (null where none); the first failure.
  cudaError_t end_open(std::vector<cudaGraph_t>& graphs);
  /// Ends the open captures and discards their graphs.
  void abandon();

  std::vector<StreamOnDevice> streams_;
  CaptureForm form_;
  std::vector<bool> open_;
};

}  // namespace gpulab
