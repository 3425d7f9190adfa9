// The GPU's clocks at a moment, read through NVML (the driver's management library, loaded at run
// time: a machine without the driver still runs everything else). A report records them at the
// start and the end of a run, so that a run on a throttled or idling card shows it.
#pragma once

#include <optional>
#include <string>

namespace gpulab {

struct ClockReading {
  unsigned sm_mhz = 0;
  unsigned memory_mhz = 0;
  unsigned max_sm_mhz = 0;
  unsigned long long throttle_reasons = 0;  // nvmlClocksEventReasons bit mask (0: none)
  std::string utc;
};

/// The clocks of CUDA device `cuda_index` now; nullopt (and why, in `why`) where NVML is absent
/// or does not answer.
std::optional<ClockReading> read_clocks(int cuda_index, std::string* why = nullptr);

}  // namespace gpulab
