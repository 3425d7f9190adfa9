#include "core/bench.hpp"

#include "core/memory.hpp"
#include "core/sizes.hpp"

#include <gpulab/error.hpp>

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <tuple>
#include <ostream>

namespace gpulab {

int BenchCase::baseline_threads() const { return omp_get_max_threads(); }

// ---- device arrays ----------------------------------------------------------------------------------

DeviceArrays::DeviceArrays(const BenchCase& c, cudaStream_t stream, bool upload_inputs)
    : in_specs_(c.inputs()), out_specs_(c.outputs()) {
  for (const auto& spec : in_specs_) {
    in_.emplace_back(spec.offset_bytes + spec.bytes);
    arrays_.in.push_back(in_.back().data() == nullptr ? nullptr : in_.back().data() + spec.offset_bytes);
  }
  for (const auto& spec : out_specs_) {
    out_.emplace_back(spec.bytes + kGuardBytes);
    host_out_.emplace_back(spec.bytes + kGuardBytes);
    arrays_.out.push_back(spec.bytes == 0 ? nullptr : out_.back().data());
  }
  if (upload_inputs) upload(stream);
}

std::size_t DeviceArrays::bytes_needed(const BenchCase& c) {
  std::size_t bytes = 0;
  for (const auto& spec : c.inputs()) bytes += spec.offset_bytes + spec.bytes;
  for (const auto& spec : c.outputs()) bytes += spec.bytes + kGuardBytes;
  return bytes;
}

void DeviceArrays::upload(cudaStream_t stream) const {
  for (std::size_t i = 0; i < in_specs_.size(); ++i)
    if (in_specs_[i].bytes > 0)
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(const_cast<void*>(arrays_.in[i]), in_specs_[i].host, in_specs_[i].bytes,
                                        cudaMemcpyHostToDevice, stream));
}

void DeviceArrays::poison(cudaStream_t stream) const {
  for (std::size_t i = 0; i < out_specs_.size(); ++i)
    poison_device(out_[i].data(), out_[i].size(), out_specs_[i].poison, stream);
}

void DeviceArrays::copy_input_to_output(std::size_t in, std::size_t out, cudaStream_t stream) const {
  if (in_specs_.at(in).bytes != out_specs_.at(out).bytes)
    throw Error(fmt::format("an in-place rung needs input {} ({} bytes) and output {} ({} bytes) of one size", in,
                            in_specs_[in].bytes, out, out_specs_[out].bytes));
  if (out_specs_[out].bytes > 0)
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(arrays_.out[out], arrays_.in[in], out_specs_[out].bytes, cudaMemcpyDeviceToDevice,
                                      stream));
}

void DeviceArrays::download(cudaStream_t stream, bool with_guard) const {
  for (std::size_t i = 0; i < out_specs_.size(); ++i) {
    const std::size_t bytes = out_specs_[i].bytes + (with_guard ? kGuardBytes : 0);
    if (bytes > 0)
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(host_out_[i].data(), out_[i].data(), bytes, cudaMemcpyDeviceToHost, stream));
  }
}

std::vector<std::span<const std::byte>> DeviceArrays::host_outputs() const {
  std::vector<std::span<const std::byte>> out;
  for (std::size_t i = 0; i < out_specs_.size(); ++i) out.emplace_back(host_out_[i].data(), out_specs_[i].bytes);
  return out;
}

std::optional<std::string> DeviceArrays::damaged_guard() const {
  for (std::size_t i = 0; i < out_specs_.size(); ++i) {
    const std::byte* guard = host_out_[i].data() + out_specs_[i].bytes;
    for (std::size_t b = 0; b < kGuardBytes; ++b)
      if (guard[b] != static_cast<std::byte>(out_specs_[i].poison))
        return fmt::format("output {} was written past its end (byte {} after its last, of {} bytes)", i, b,
                           out_specs_[i].bytes);
  }
  return std::nullopt;
}

OwnedWorkspace::OwnedWorkspace(const BenchCase& c, std::size_t rung, cudaStream_t stream)
    : buffer_(c.workspace_bytes(rung)) {
  if (buffer_.size() > 0) GPULAB_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.size(), stream));
}

// ---- the checked run ----------------------------------------------------------------------------------

void prepare_outputs(const BenchCase& c, std::size_t rung, const DeviceArrays& arrays, cudaStream_t stream) {
  arrays.poison(stream);
  if (c.in_place(rung)) arrays.copy_input_to_output(0, 0, stream);
}

CheckResult run_checked(const BenchCase& c, std::size_t rung, const DeviceArrays& arrays, Workspace workspace,
                        cudaStream_t stream) {
  prepare_outputs(c, rung, arrays, stream);
  c.launch(rung, arrays.arrays(), workspace, stream);
  arrays.download(stream, true);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (auto damage = arrays.damaged_guard()) {
    CheckResult r;
    r.error = std::numeric_limits<double>::infinity();
    r.detail = *damage;
    return r;
  }
  const auto outputs = arrays.host_outputs();
  return c.check(rung, outputs);
}

CheckResult run_checked(const BenchCase& c, std::size_t rung) {
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  const OwnedWorkspace workspace(c, rung, stream.get());
  return run_checked(c, rung, arrays, workspace.get(), stream.get());
}

// ---- timing ---------------------------------------------------------------------------------------------

RowTiming time_row(GpuTimer& timer, const std::function<void(cudaStream_t)>& launch, const TimingOptions& opt) {
  RowTiming t;
  t.stats = timer.time(launch, opt);
  TimingOptions short_opt = opt;
  short_opt.warmup = 1;
  short_opt.reps = std::min(opt.reps, 5);
  auto disagrees = [&](const TimingStats& s) {
    const TimingStats again = timer.time(launch, short_opt);
    return s.median_ms > again.median_ms * (1.0 + std::max(kNoisyRow, s.noise));
  };
  if (t.stats.noise > kNoisyRow || disagrees(t.stats)) {
    t.remeasured = true;
    t.stats = timer.time(launch, opt);
    t.noisy = t.stats.noise > kNoisyRow || disagrees(t.stats);
  }
  return t;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Seed 002's whole program around one rung, `loops` times: allocate, copy in, run, copy out, free,
/// each phase synchronised and timed on its own.
ProgramRun whole_program(const BenchCase& c, std::size_t rung, int loops, cudaStream_t stream) {
  ProgramRun p;
  p.loops = loops;
  Event start, stop;
  for (int i = 0; i < loops; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::optional<DeviceArrays> arrays;
    std::optional<OwnedWorkspace> workspace;
    arrays.emplace(c, stream, false);  // allocation alone: the upload is the next phase
    workspace.emplace(c, rung, stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.allocate_ms += ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    arrays->upload(stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.to_device_ms += ms_since(t0);

    start.record(stream);
    c.launch(rung, arrays->arrays(), workspace->get(), stream);
    stop.record(stream);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.kernels_ms += stop.ms_since(start);

    t0 = std::chrono::steady_clock::now();
    arrays->download(stream, false);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    p.to_host_ms += ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    workspace.reset();
    arrays.reset();
    p.free_ms += ms_since(t0);
  }
  return p;
}

/// The measured ceiling that judges a case: its value and the noise of its measurement.
std::pair<double, double> ceiling_of(const Ceilings& k, CeilingKind kind, bool l2_resident) {
  if (l2_resident && kind != CeilingKind::fma) return {k.l2_read_gbs, k.l2_read.noise};
  switch (kind) {
    case CeilingKind::read: return {k.read_gbs, k.read.noise};
    case CeilingKind::copy: return {k.copy_gbs, k.copy.noise};
    case CeilingKind::write: return {k.write_gbs, k.write.noise};
    case CeilingKind::add: return {k.add_gbs, k.add.noise};
    case CeilingKind::fma: return {k.fma_gflops, k.fma.noise};
  }
  return {0.0, 0.0};
}

std::string ceiling_label(CeilingKind kind, bool l2_resident) {
  if (l2_resident && kind != CeilingKind::fma) return "L2 read";
  switch (kind) {
    case CeilingKind::read: return "read";
    case CeilingKind::copy: return "copy";
    case CeilingKind::write: return "write";
    case CeilingKind::add: return "stream add";
    case CeilingKind::fma: return "FMA";
  }
  return "?";
}

std::string describe_case(const BenchCase& c) { return params_text(c.params()); }

/// A device-to-device copy moving `bytes` (half read, half written), timed as the rows are; empty
/// when the two buffers do not fit beside the case's arrays.
std::optional<TimingStats> time_size_copy(GpuTimer& timer, double bytes, const TimingOptions& opt) {
  const auto half = static_cast<std::size_t>(bytes / 2);
  if (half == 0) return std::nullopt;
  try {
    const DeviceBuffer<unsigned char> from(half), to(half);
    GPULAB_CUDA_CHECK(cudaMemset(from.data(), 0, half));
    TimingOptions copy_opt = opt;
    copy_opt.written_bytes = half;
    return time_row(timer, [&](cudaStream_t st) {
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), half, cudaMemcpyDeviceToDevice, st));
    }, copy_opt).stats;
  } catch (const OutOfMemoryError&) {
    return std::nullopt;
  }
}

}  // namespace

TimingOptions case_timing(const BenchCase& c, int warmup, int reps) {
  TimingOptions opt{.warmup = warmup, .reps = reps, .working_set_bytes = c.work().working_set_bytes};
  for (const auto& spec : c.outputs()) opt.written_bytes += spec.bytes;
  return opt;
}

std::optional<std::string> why_not_run(const BenchCase& c, std::span<const RungInfo> ladder, std::size_t r,
                                       const DeviceFacts& device) {
  if (auto unmet = unmet_needs(ladder[r], device.compute_capability())) return unmet;
  return c.unsupported(r);
}

void require_case_fits(const BenchCase& c, std::span<const std::size_t> rungs, std::size_t l2_bytes) {
  std::size_t workspace = 0;
  for (std::size_t r : rungs) workspace = std::max(workspace, c.workspace_bytes(r));
  require_device_bytes(DeviceArrays::bytes_needed(c) + workspace + 2 * l2_bytes, describe_case(c));
}

// ---- one case, every selected rung ----------------------------------------------------------------

CaseResult run_case(BenchCase& c, const BenchSettings& s, const DeviceFacts& device, const Ceilings* ceilings,
                    Progress& progress) {
  const Work work = c.work();
  CaseResult result;
  result.params = c.params();
  result.bytes = work.bytes;
  result.flops = work.flops;
  result.l2_resident = work.working_set_bytes <= device.l2_bytes;
  result.ceiling_name = ceiling_label(work.ceiling, result.l2_resident);
  if (ceilings) std::tie(result.ceiling_gbs, result.ceiling_noise) = ceiling_of(*ceilings, work.ceiling, result.l2_resident);

  std::vector<std::size_t> rungs;
  for (std::size_t r : s.rungs) {
    if (auto why = why_not_run(c, s.ladder, r, device))
      result.notes.push_back(fmt::format("{} {}: {}; not run", rung_id(s.ladder, r), s.ladder[r].name, *why));
    else
      rungs.push_back(r);
  }

  require_case_fits(c, rungs, device.l2_bytes);

  progress.case_start(describe_case(c));
  progress.reference();
  const TimingStats reference_time = time_host([&] { c.compute_reference(); }, 1, false);
  if (s.cpu) {
    result.cpu.push_back({c.reference_name(), 1, reference_time, CheckResult{true, 0.0, 0.0, ""}, 0.0});
    const TimingStats baseline_time = time_host([&] { c.run_baseline(); }, 3);
    result.cpu.push_back({c.baseline_name(), c.baseline_threads(), baseline_time, c.check_baseline(), 0.0});
  }

  Stream stream;
  GpuTimer timer(stream.get(), device.l2_bytes);
  const DeviceArrays arrays(c, stream.get());
  const TimingOptions opt = case_timing(c, s.warmup, s.reps);
  for (std::size_t r : rungs) {
    const RungInfo& info = s.ladder[r];
    progress.rung(rung_id(s.ladder, r), std::string(info.name));
    const OwnedWorkspace ws(c, r, stream.get());
    auto launch = [&](cudaStream_t st) { c.launch(r, arrays.arrays(), ws.get(), st); };

    VariantRow row;
    row.id = rung_id(s.ladder, r);
    row.name = info.name;
    row.adds = info.adds;
    row.vendor = info.role == Role::vendor;
    row.library = info.role == Role::library;
    row.other_units = info.other_units;
    if (info.tensor.unit != TensorUnit::none && ceilings) {
      const bool int8 = info.tensor.unit == TensorUnit::int8;
      const TensorCeiling& t = int8 ? ceilings->int8 : ceilings->tf32;
      if (t.gflops > 0) {
        row.tensor_ceiling = int8 ? "INT8 tensor" : "TF32 tensor";
        row.tensor_ceiling_gflops = t.gflops, row.tensor_ceiling_noise = t.time.noise;
        row.tensor_products = info.tensor.products;
      }
    }
    row.claims = claim_words(info.claims);
    row.check = run_checked(c, r, arrays, ws.get(), stream.get());

    const RowTiming kernel = time_row(timer, launch, opt);
    row.kernel = kernel.stats;
    row.remeasured = kernel.remeasured;
    row.noisy = kernel.noisy;
    row.end_to_end = timer.time([&](cudaStream_t st) {
      arrays.upload(st);
      launch(st);
      arrays.download(st, false);
    }, opt.end_to_end(s.end_to_end_reps));
    if (s.loops > 0) row.program_run = whole_program(c, r, s.loops, stream.get());
    result.variants.push_back(std::move(row));
  }
  if (ceilings && work.ceiling != CeilingKind::fma) {
    result.size_copy = time_size_copy(timer, work.bytes, opt);
    if (!result.size_copy) result.notes.emplace_back("the same-size copy was not timed: its buffers do not fit beside the case's");
  }
  derive_columns(result);
  progress.case_done();
  return result;
}

}  // namespace gpulab
