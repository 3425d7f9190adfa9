#include "multi/graphs.hpp"

#include "lib/per_device.hpp"

#include <gpulab/error.hpp>

#include <string>

namespace gpulab {
namespace {

void destroy_all(std::vector<cudaGraph_t>& graphs) {
  for (cudaGraph_t& g : graphs)
    if (g != nullptr) (void)cudaGraphDestroy(std::exchange(g, nullptr));
}

}  // namespace

GraphExec::GraphExec(cudaGraph_t graph) { GPULAB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0)); }

GraphExec::~GraphExec() {
  if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
}

void GraphExec::launch(cudaStream_t stream) const { GPULAB_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

StreamCaptures::StreamCaptures(std::vector<StreamOnDevice> streams)
    : streams_(std::move(streams)), open_(streams_.size(), false) {
  const KeepCurrentDevice keep;
  try {
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(streams_[i].device));
      GPULAB_CUDA_CHECK(cudaStreamBeginCapture(streams_[i].stream, cudaStreamCaptureModeThreadLocal));
      open_[i] = true;
    }
  } catch (...) {
    abandon();
    throw;
  }
}

StreamCaptures::~StreamCaptures() {
  const KeepCurrentDevice keep;
  abandon();
}

void StreamCaptures::abandon() {
  std::vector<cudaGraph_t> graphs(streams_.size(), nullptr);
  (void)end_open(graphs);
  destroy_all(graphs);
}

cudaError_t StreamCaptures::end_open(std::vector<cudaGraph_t>& graphs) {
  cudaError_t first = cudaSuccess;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (!open_[i]) continue;
    // An invalidated capture (something in it was refused) still ends here, with an error.
    cudaError_t e = cudaSetDevice(streams_[i].device);
    if (e == cudaSuccess) e = cudaStreamEndCapture(streams_[i].stream, &graphs[i]);
    open_[i] = false;
    if (e != cudaSuccess && first == cudaSuccess) first = e;
  }
  (void)cudaGetLastError();  // the failures are returned, not left for the next launch's check
  return first;
}

std::vector<GraphExec> StreamCaptures::finish() {
  const KeepCurrentDevice keep;
  std::vector<cudaGraph_t> graphs(streams_.size(), nullptr);
  const cudaError_t ended = end_open(graphs);  // all of them, before the first instantiation
  if (ended != cudaSuccess) {
    destroy_all(graphs);
    throw Error(std::string("stream capture: ") + cudaGetErrorName(ended) + " (" + cudaGetErrorString(ended) + ")");
  }
  std::vector<GraphExec> execs;
  try {
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(streams_[i].device));
      execs.emplace_back(graphs[i]);
    }
  } catch (...) {
    destroy_all(graphs);
    throw;
  }
  destroy_all(graphs);  // an executable graph keeps what it needs of its graph
  return execs;
}

}  // namespace gpulab
