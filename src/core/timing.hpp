// Timing, written once: CUDA events around each repetition, warm-up first, the median with the
// minimum and maximum kept, and the L2 flushed between repetitions when the data would fit in it.
#pragma once

#include <cuda_runtime.h>
#include <gpulab/device_buffer.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace gpulab {

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int reps = 0;
  double noise = 0.0;  // interquartile range ÷ median: how much repetitions disagree
  /// Every repetition in the order it ran: what `gpulab compare` judges a change from (the
  /// repetitions of two runs, not their two medians).
  std::vector<double> samples_ms;
};

/// Median (mean of the two middle samples for an even count), min, max and the noise
/// (interquartile range ÷ median, quartiles by linear interpolation), the samples kept in their
/// order. Empty → all zero.
TimingStats summarize(std::vector<double> samples_ms);

struct TimingOptions {
  int warmup = 3;
  int reps = 30;
  /// Fewer repetitions (never under 5) when reps × the warm-up time would exceed this.
  double max_total_ms = 3000.0;
  /// Bytes the timed work touches: below 4 × L2 the L2 is flushed before every repetition,
  /// so that a small problem is not timed out of the cache.
  std::size_t working_set_bytes = 0;
  /// Bytes one run writes: the flush leaves that many dirty lines in the L2 (up to its size).
  std::size_t written_bytes = 0;

  /// The same timing for the end-to-end runs (input copied in, result copied out around the
  /// work): one warm-up, `end_to_end_reps` runs.
  TimingOptions end_to_end(int end_to_end_reps) const {
    TimingOptions o = *this;
    o.warmup = 1;
    o.reps = end_to_end_reps;
    return o;
  }
};

/// Times device work issued on a stream.
class GpuTimer {
 public:
  GpuTimer(cudaStream_t stream, std::size_t l2_bytes);
  /// `launch` issues the work on the stream it is given; it must be repeatable.
  TimingStats time(const std::function<void(cudaStream_t)>& launch, const TimingOptions& opt);
  /// Evicts whatever was cached (reads a buffer twice the L2's size), then leaves `dirty_bytes` of
  /// dirty lines (up to the L2's size): as many as the timed run will leave behind.
  void flush_l2(std::size_t dirty_bytes);

 private:
  cudaStream_t stream_;
  std::size_t l2_bytes_;
  DeviceBuffer<unsigned char> flush_buffer_;
  DeviceBuffer<float> flush_sink_;  // what the flush's reads add up to, so that they are not dropped
  unsigned flush_blocks_ = 0;
};

/// Times host work with a steady clock: the median of `reps` runs after one warm-up. `before_each`
/// (untimed) runs before every run, the warm-up included: what each run must start from.
TimingStats time_host(const std::function<void()>& fn, int reps, bool warmup = true,
                      const std::function<void()>& before_each = {});

}  // namespace gpulab
