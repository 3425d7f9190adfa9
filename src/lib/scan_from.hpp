// The library's scan started from a value on the device, for scans split over devices
// (gpulab::multi's): out = offset + the scan of `in`, where *offset is read when the kernel runs,
// so earlier work on the stream (a collective) may produce it. The offset is tile 0's prefix:
// every element's chain of additions is one longer than the plain scan's (scan_accumulation_depth
// + 1). Not installed: part of the library's inside, beside the public scan.hpp.
#pragma once

#include <gpulab/scan.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab::detail {

/// inclusive: out[i] = *offset + in[0] + … + in[i]; exclusive: out[0] = *offset, out[i] = *offset +
/// in[0] + … + in[i−1]. The contract of inclusive_scan / exclusive_scan otherwise.
template <class In>
void scan_from(const scan_result_t<In>* offset, const In* in, scan_result_t<In>* out, std::size_t n, bool inclusive,
               void* temp, std::size_t temp_bytes, cudaStream_t stream);

}  // namespace gpulab::detail
