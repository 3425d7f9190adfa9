#include "core/timing.hpp"
#include "core/ceilings.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gpulab {

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats s;
  if (samples_ms.empty()) return s;
  s.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t k = samples_ms.size();
  s.median_ms = (k % 2 == 1) ? samples_ms[k / 2] : 0.5 * (samples_ms[k / 2 - 1] + samples_ms[k / 2]);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.reps = static_cast<int>(k);
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(k - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, k - 1);
    return samples_ms[lo] + (pos - static_cast<double>(lo)) * (samples_ms[hi] - samples_ms[lo]);
  };
  s.noise = s.median_ms > 0 ? (quantile(0.75) - quantile(0.25)) / s.median_ms : 0.0;
  return s;
}

GpuTimer::GpuTimer(cudaStream_t stream, std::size_t l2_bytes)
    : stream_(stream), l2_bytes_(l2_bytes) {}

// The L2 a run starts from: none of its data, and as many dirty lines as the run itself will leave
// behind (its written bytes, up to the L2's size), so that it pays for as much write-back as it
// causes, as a kernel among others in a stream does. The flush reads a buffer twice the L2's size,
// then writes the first `dirty_bytes` of it again. Writing the whole buffer would leave the L2
// full of dirty lines whatever the run (a reader paying for write-back it never caused); reading
// only would let a run leave an L2 of its output unwritten. docs/measuring.md has the numbers.
void GpuTimer::flush_l2(std::size_t dirty_bytes) {
  if (flush_buffer_.size() == 0) {
    flush_buffer_ = DeviceBuffer<unsigned char>(2 * l2_bytes_ / 16 * 16);
    GPULAB_CUDA_CHECK(cudaMemsetAsync(flush_buffer_.data(), 0, flush_buffer_.size(), stream_));  // once: defined bytes
    int device = 0, sms = 0;
    GPULAB_CUDA_CHECK(cudaGetDevice(&device));
    GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    flush_blocks_ = static_cast<unsigned>(sms) * 8;  // 8 blocks of 256 threads: a full SM
    flush_sink_ = DeviceBuffer<float>(flush_blocks_);
    // (its blocks add into it: defined, so that compute-sanitizer's initcheck of a timed run is quiet)
    GPULAB_CUDA_CHECK(cudaMemsetAsync(flush_sink_.data(), 0, flush_blocks_ * sizeof(float), stream_));
  }
  read_through(flush_buffer_.data(), flush_buffer_.size(), flush_sink_.data(), flush_blocks_, stream_);
  const std::size_t dirty = std::min(dirty_bytes, l2_bytes_);
  if (dirty > 0) GPULAB_CUDA_CHECK(cudaMemsetAsync(flush_buffer_.data(), 0, dirty, stream_));
}

TimingStats GpuTimer::time(const std::function<void(cudaStream_t)>& launch,
                           const TimingOptions& opt) {
  const bool flush = opt.working_set_bytes < 4 * l2_bytes_;
  Event start, stop;
  // Warm-up; the last warm-up run also estimates how many repetitions fit the time budget.
  double estimate_ms = 0.0;
  for (int i = 0; i < std::max(1, opt.warmup); ++i) {
    if (flush) flush_l2(opt.written_bytes);
    start.record(stream_);
    launch(stream_);
    stop.record(stream_);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    estimate_ms = stop.ms_since(start);
  }
  int reps = std::max(1, opt.reps);
  if (estimate_ms * reps > opt.max_total_ms) {
    const int affordable = static_cast<int>(opt.max_total_ms / std::max(estimate_ms, 1e-6));
    reps = std::clamp(affordable, std::min(reps, 5), reps);
  }

  // All repetitions are queued back to back, each between its own pair of events; the host waits
  // once at the end, so no host round trip lands inside a measurement.
  std::vector<Event> starts(static_cast<std::size_t>(reps)), stops(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    if (flush) flush_l2(opt.written_bytes);
    starts[static_cast<std::size_t>(i)].record(stream_);
    launch(stream_);
    stops[static_cast<std::size_t>(i)].record(stream_);
  }
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps));
  for (std::size_t i = 0; i < starts.size(); ++i) samples.push_back(stops[i].ms_since(starts[i]));
  return summarize(std::move(samples));
}

TimingStats time_host(const std::function<void()>& fn, int reps, bool warmup, const std::function<void()>& before_each) {
  const auto prepare = [&] {
    if (before_each) before_each();
  };
  if (warmup) prepare(), fn();
  std::vector<double> samples;
  for (int i = 0; i < std::max(1, reps); ++i) {
    prepare();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(std::move(samples));
}

}  // namespace gpulab
