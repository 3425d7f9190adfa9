// A GPU treated as one of an older family: `GPULAB_TREAT_AS=sm_75` (or sm_80, sm_86, sm_89; the CLI's
// `--treat-as`) makes that family's compute capability, shared-memory limits, L2 size and
// threads and blocks per SM stand in for this GPU's in every query the library and the harness
// make. With a build whose only device code is PTX for that family (`cmake --preset ptx75`, …),
// the older family's kernels (`__CUDA_ARCH__` = 750 …) then run on a newer GPU as the library
// would choose them there: how gpulab shows that it works on GPUs the lent machines are not. Not a
// simulator: the SMs, clocks, memory, occupancy and speed stay this GPU's, and every report's
// device line says "treated as" so that no number is taken for the older GPU's.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>

namespace gpulab {

/// An older family's reference GPU: what a query of it answers.
struct GpuFamily {
  std::string_view name;       // "sm_75"
  std::string_view reference;  // "T4"
  int compute_capability;      // 75
  int smem_per_sm, smem_per_block_optin, l2_bytes, max_threads_per_sm, max_blocks_per_sm;
};

/// The family a word names ("sm_75", "sm_80", "sm_86", "sm_89"), or nullptr.
const GpuFamily* gpu_family(std::string_view word);

/// "sm_75, sm_80, sm_86, sm_89": the families a GPU may be treated as.
std::string gpu_family_names();

/// The family GPULAB_TREAT_AS names (read at the first call), or nullptr when it is unset or empty.
/// Throws gpulab::Error when it names no family.
const GpuFamily* treated_as();

/// `real`, the current device's answer for `attribute`, or the treated-as family's.
int treated_attribute(cudaDeviceAttr attribute, int real);

/// What family `f` answers for `attribute` where the GPU's own answer is `real` (f null: `real`).
int family_attribute(const GpuFamily* f, cudaDeviceAttr attribute, int real);

}  // namespace gpulab
