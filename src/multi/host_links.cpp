// What the host gives several GPUs at once. Each GPU's copy engine reads pinned host memory over
// its own PCIe link, but the links meet in the CPU's root complex and its memory, so N GPUs copying
// together may get less than N times one: this is the ceiling of a multi-GPU row whose data starts
// in host memory. Timed by the host's clock (events of different devices cannot be compared), from
// issuing every copy to the last one's end; a copy moves tens of MiB, so issuing costs nothing.
#include "multi/multi_bench.hpp"

#include "core/tables.hpp"
#include "lib/per_device.hpp"
#include "multi/world.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <chrono>
#include <memory>

namespace gpulab {
namespace {

/// Bytes each GPU copies per repetition: ~1–3 ms over one PCIe 5 ×16 link.
constexpr std::size_t kHostLinkBytes = std::size_t{64} << 20;

/// One GPU's side: its stream, its device buffer and its own pinned host buffer.
struct LinkEnd {
  int device;
  Stream stream;
  DeviceBuffer<std::byte> on_device{kHostLinkBytes};
  PinnedBuffer<std::byte> on_host{kHostLinkBytes};
  explicit LinkEnd(int d) : device(d) {}
};

/// Median GB/s of every end copying `kHostLinkBytes` at once, to the GPUs or from them; under MPI
/// the slowest process's time (each holds one end), from a barrier.
double copy_together(std::vector<std::unique_ptr<LinkEnd>>& ends, int gpus, cudaMemcpyKind kind, int reps,
                     const World& world) {
  std::vector<double> samples;
  for (int rep = -1; rep < reps; ++rep) {
    world.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (auto& e : ends) {
      GPULAB_CUDA_CHECK(cudaSetDevice(e->device));
      void* to = kind == cudaMemcpyHostToDevice ? static_cast<void*>(e->on_device.data()) : e->on_host.data();
      const void* from = kind == cudaMemcpyHostToDevice ? static_cast<const void*>(e->on_host.data()) : e->on_device.data();
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(to, from, kHostLinkBytes, kind, e->stream.get()));
    }
    for (auto& e : ends) e->stream.synchronize();
    const double ms = world.max(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (rep >= 0) samples.push_back(ms);
  }
  return ratio(static_cast<double>(kHostLinkBytes) * gpus / 1e9, summarize(samples).median_ms * 1e-3);
}

}  // namespace

std::vector<int> host_link_counts(const std::vector<int>& gpus, int processes) {
  if (processes > 1) return {processes};
  std::vector<int> counts{1};
  for (int n : gpus)
    if (n > counts.back()) counts.push_back(n);
  return counts;
}

std::vector<HostLink> measure_host_links(const std::vector<int>& counts, int reps, const World* world) {
  const std::unique_ptr<World> alone = single_process();
  if (!world) world = alone.get();
  int devices = 0;
  GPULAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  std::vector<HostLink> out;
  const KeepCurrentDevice keep;
  for (int n : counts) {
    std::vector<std::unique_ptr<LinkEnd>> ends;
    if (world->size() > 1) {  // this process's GPU; the counts are the world's size
      const int d = world->local_device(devices);
      GPULAB_CUDA_CHECK(cudaSetDevice(d));
      ends.push_back(std::make_unique<LinkEnd>(d));
    } else {
      if (n > devices) throw Error(fmt::format("{} GPUs asked for; this host has {} CUDA device(s)", n, devices));
      for (int d = 0; d < n; ++d) {
        GPULAB_CUDA_CHECK(cudaSetDevice(d));
        ends.push_back(std::make_unique<LinkEnd>(d));
      }
    }
    HostLink link;
    link.gpus = n;
    link.bytes_per_gpu = kHostLinkBytes;
    link.to_gpus_gbs = copy_together(ends, n, cudaMemcpyHostToDevice, reps, *world);
    link.from_gpus_gbs = copy_together(ends, n, cudaMemcpyDeviceToHost, reps, *world);
    out.push_back(link);
  }
  return out;
}

}  // namespace gpulab
