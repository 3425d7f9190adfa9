#include "core/profile.hpp"

#include <nvtx3/nvToolsExt.h>

namespace gpulab {
namespace {

/// A push/pop range of gpulab's NVTX domain, popped at the end of its scope.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) {
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA(kProfileDomain);
    domain_ = domain;
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name.c_str();
    nvtxDomainRangePushEx(domain_, &attributes);
  }
  ~NvtxRange() { nvtxDomainRangePop(domain_); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  nvtxDomainHandle_t domain_;
};

}  // namespace

void launch_for_profiler(const BenchCase& c, std::size_t case_index, std::span<const std::size_t> rungs,
                         const DeviceFacts& device) {
  Stream stream;
  for (std::size_t r : rungs) {
    if (c.unsupported(r)) continue;
    require_case_fits(c, std::span(&r, 1), device.l2_bytes);
    const DeviceArrays arrays(c, stream.get());
    const OwnedWorkspace workspace(c, r, stream.get());
    prepare_outputs(c, r, arrays, stream.get());
    c.launch(r, arrays.arrays(), workspace.get(), stream.get());
    prepare_outputs(c, r, arrays, stream.get());
    stream.synchronize();
    const NvtxRange range(profile_range_name(case_index, r));
    c.launch(r, arrays.arrays(), workspace.get(), stream.get());
    stream.synchronize();
  }
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::vector<std::string>& target) {
  std::vector<std::string> argv{ncu, "--csv", "--page", "raw", "--nvtx", "--nvtx-include", ncu_range_filter(),
                                "--metrics", ncu_metric_list(), "--clock-control", "none", "--target-processes", "all"};
  argv.insert(argv.end(), target.begin(), target.end());
  return argv;
}

std::size_t attach_counters(std::vector<CaseResult>& cases, std::size_t first_case, const ProfiledKernels& kernels,
                            std::span<const RungInfo> ladder) {
  std::size_t attached = 0;
  for (std::size_t i = first_case; i < cases.size(); ++i)
    for (auto& row : cases[i].variants)
      for (std::size_t r = 0; r < ladder.size(); ++r) {
        if (rung_id(ladder, r) != row.id) continue;
        const auto it = kernels.find({i - first_case, r});
        if (it == kernels.end()) continue;
        row.kernels = it->second;
        ++attached;
      }
  return attached;
}

}  // namespace gpulab
