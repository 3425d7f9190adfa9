#include "multi/multi_bench.hpp"

#include "core/tables.hpp"
#include "lib/launchers.hpp"
#include "lib/multi_loopback.hpp"
#include "lib/nccl_check.hpp"
#include "multi/graphs.hpp"
#include "multi/world.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/multi_gpu.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

namespace gpulab {
namespace {

/// The communicators of this process for a run over `gpus` GPUs: in a world of one process, one
/// per GPU 0..gpus-1 (ncclCommInitAll); in a world of several (MPI), this process's one rank on its
/// host's GPU (ncclCommInitRank, the id broadcast by the world). Destroyed at the end, or aborted
/// when a wait ran out of time. Or (tests) `loopback` ranks on GPU 0 without communicators, their
/// collectives done by the library's loopback copies.
class Communicators {
 public:
  struct Loopback {
    int ranks;
  };
  explicit Communicators(Loopback l) : comms_(static_cast<std::size_t>(l.ranks), nullptr), size_(l.ranks), loopback_(true) {
    for (int r = 0; r < l.ranks; ++r) ranks_.push_back(r), devices_.push_back(0);
  }
  Communicators(const World& world, int gpus) {
    int count = 0;
    GPULAB_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (world.size() > 1) {
      size_ = world.size();
      comms_.resize(1);
      ranks_ = {world.rank()};
      devices_ = {world.local_device(count)};
      ncclUniqueId id{};
      if (world.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      id = world.broadcast_id(id);
      GPULAB_CUDA_CHECK(cudaSetDevice(devices_[0]));
      check_nccl(ncclCommInitRank(&comms_[0], size_, id, world.rank()), "ncclCommInitRank");
      return;
    }
    if (gpus < 1 || gpus > count)
      throw Error(fmt::format("{} GPUs asked for; this host has {} CUDA device(s)", gpus, count));
    size_ = gpus;
    comms_.resize(static_cast<std::size_t>(gpus));
    for (int d = 0; d < gpus; ++d) ranks_.push_back(d), devices_.push_back(d);
    check_nccl(ncclCommInitAll(comms_.data(), gpus, devices_.data()), "ncclCommInitAll");
  }
  ~Communicators() {
    for (ncclComm_t c : comms_)
      if (c) aborted_ ? ncclCommAbort(c) : ncclCommDestroy(c);
  }
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  int local_count() const { return static_cast<int>(comms_.size()); }  // the ranks this process drives
  int ranks() const { return size_; }                                   // every rank of the run
  int rank(int i) const { return ranks_[static_cast<std::size_t>(i)]; }
  int device(int i) const { return devices_[static_cast<std::size_t>(i)]; }
  const std::vector<int>& devices() const { return devices_; }  // of this process's ranks, in order
  ncclComm_t operator[](int i) const { return comms_[static_cast<std::size_t>(i)]; }
  bool loopback() const { return loopback_; }
  /// Waits for `streams` (one per rank of this process, in order), polling: a CUDA error, NCCL's
  /// asynchronous error on any communicator (a peer failed) or the time-out ends the wait with an
  /// error, the communicators then aborted — never left hanging.
  void wait(std::span<const cudaStream_t> streams, double timeout_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      bool done = true;
      for (int i = 0; i < local_count(); ++i) {
        GPULAB_CUDA_CHECK(cudaSetDevice(device(i)));
        const cudaError_t e = cudaStreamQuery(streams[static_cast<std::size_t>(i)]);
        if (e == cudaErrorNotReady) done = false;
        else GPULAB_CUDA_CHECK(e);
      }
      if (done) return;
      if (const ncclResult_t e = async_error(); e != ncclSuccess) {
        aborted_ = true;
        throw Error(std::string("NCCL reported an error on a rank: ") + ncclGetErrorString(e));
      }
      if (std::chrono::steady_clock::now() > deadline) {
        aborted_ = true;
        throw Error(fmt::format("the ranks did not finish within {:.0f} s (a rank failed or the ranks disagree on "
                                "the sizes): every communicator aborted",
                                timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  /// NCCL's own error on any communicator (a peer failed), or ncclSuccess.
  ncclResult_t async_error() const {
    for (ncclComm_t c : comms_) {
      if (!c) continue;
      ncclResult_t e = ncclSuccess;
      if (ncclCommGetAsyncError(c, &e) != ncclSuccess || e != ncclSuccess) return e == ncclSuccess ? ncclInternalError : e;
    }
    return ncclSuccess;
  }

  std::vector<ncclComm_t> comms_;
  std::vector<int> ranks_, devices_;
  int size_ = 1;
  bool loopback_ = false, aborted_ = false;
};

/// What one timed run issues: the local part alone, the whole function, or either replayed from
/// the CUDA graph captured of it.
enum class Work { local, whole, local_graph, whole_graph };

/// Rank r's arrays on its device.
struct RankState {
  Stream stream;
  std::vector<std::span<const std::byte>> host_inputs;
  std::vector<DeviceBuffer<std::byte>> in;
  DeviceBuffer<std::byte> out, temp;
  PinnedBuffer<std::byte> result;
  std::vector<Event> starts = std::vector<Event>(1), stops = std::vector<Event>(1);  // a pair a run queued back to back
  GraphExec local_graph, whole_graph;
  RankState(const MultiCase& c, int r, int ranks)
      : host_inputs(c.inputs(r, ranks)),
        out(c.output_bytes(r, ranks)),
        temp(c.temp_bytes(r, ranks)),
        result(c.output_bytes(r, ranks)) {
    for (const auto& h : host_inputs) in.emplace_back(h.size());
    if (temp.size() > 0) GPULAB_CUDA_CHECK(cudaMemsetAsync(temp.data(), 0, temp.size(), stream.get()));
  }
  RankRun view(int device, int r, int ranks, ncclComm_t comm) const {
    RankRun v{device, r, ranks, {}, out.data(), temp.data(), temp.size(), comm, stream.get()};
    for (const auto& b : in) v.in.push_back(b.data());
    return v;
  }
  void upload() const {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (!host_inputs[i].empty())
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(in[i].data(), host_inputs[i].data(), host_inputs[i].size(),
                                          cudaMemcpyHostToDevice, stream.get()));
  }
};

/// The ranks this process drives, and the runs over every rank of the world.
class Ranks {
 public:
  Ranks(MultiCase& c, Communicators& comms, const World& world, double timeout_s)
      : case_(c), comms_(comms), world_(world), timeout_s_(timeout_s) {
    for (int i = 0; i < comms_.local_count(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(comms_.device(i)));
      states_.push_back(std::make_unique<RankState>(c, comms_.rank(i), comms_.ranks()));
      states_.back()->upload();
    }
    wait();
  }

  int local_count() const { return comms_.local_count(); }
  RankState& state(int i) { return *states_[static_cast<std::size_t>(i)]; }

  /// Pins the host inputs of this process's ranks (as cudaMallocHost's memory) for the rows that
  /// copy them in: from pageable memory a copy goes through the driver's staging buffer at a
  /// fraction of the link's speed, and two GPUs share the CPU doing it, so "from host memory"
  /// would measure the CPU's copy (cases with pageable inputs ran at 8–19 GB/s on two H200s, not
  /// faster on two). Ranges already pinned (a case's PinnedBuffer) are left as they are; ranges
  /// that several ranks share (a vector every rank reads, the neighbouring rows of bands) are
  /// pinned once.
  void pin_host_inputs() {
    std::vector<std::pair<const std::byte*, const std::byte*>> ranges;
    for (const auto& st : states_)
      for (const auto& h : st->host_inputs)
        if (!h.empty()) ranges.emplace_back(h.data(), h.data() + h.size());
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<const std::byte*, const std::byte*>> merged;
    for (const auto& r : ranges) {
      if (!merged.empty() && r.first <= merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
      else merged.push_back(r);
    }
    for (const auto& [begin, end] : merged) {
      cudaPointerAttributes attributes{};
      const cudaError_t e = cudaPointerGetAttributes(&attributes, begin);
      (void)cudaGetLastError();
      if (e == cudaSuccess && attributes.type == cudaMemoryTypeHost) continue;  // pinned already
      pinned_.emplace_back(const_cast<std::byte*>(begin), static_cast<std::size_t>(end - begin), cudaHostRegisterPortable);
    }
  }

  /// One run on every rank, all starting together: (the inputs copied in when `upload`), the
  /// work, bracketed by each rank's events. Each GPU's launcher (lib/launchers.hpp) issues its
  /// rank's part, all at once; the whole function is called once for every rank and issues from
  /// the same launchers itself.
  void run(Work work, bool upload) {
    world_.barrier();
    issue_run(work, upload, 0);
    wait();
  }

  /// `reps` runs queued back to back on every rank, each between its own pair of events, the host
  /// waiting once at the end, as GpuTimer::time does on one GPU: a run's host cost (its launches,
  /// NCCL's calls) lies inside a measurement only where the GPUs would wait for it. Returns each
  /// run's time, its slowest rank over the world.
  std::vector<double> run_queued(Work work, bool upload, int reps) {
    const auto count = static_cast<std::size_t>(reps);
    detail::on_launchers(comms_.devices(), [&](std::size_t i) {  // (made on the rank's device)
      RankState& s = state(static_cast<int>(i));
      s.starts.resize(std::max(s.starts.size(), count));
      s.stops.resize(std::max(s.stops.size(), count));
    });
    world_.barrier();
    for (std::size_t r = 0; r < count; ++r)
      issue_run(work, upload, r);
    wait();
    std::vector<double> ms(count, 0.0);
    for (std::size_t r = 0; r < count; ++r) {
      for (int i = 0; i < local_count(); ++i) ms[r] = std::max(ms[r], static_cast<double>(state(i).stops[r].ms_since(state(i).starts[r])));
      ms[r] = world_.max(ms[r]);
    }
    return ms;
  }

  /// Captures the local part and the whole function, a graph per rank (every launch and NCCL call
  /// recorded once, then replayed without their CPU cost). Returns why they could not be captured
  /// (a finding, not a failure); `graphs()` says whether they were. A failed capture leaves no
  /// stream capturing (multi/graphs.hpp).
  std::string capture() {
    try {
      for (bool local_only : {true, false}) {
        StreamCaptures captures(streams_on_devices());
        issue(local_only);
        std::vector<GraphExec> graphs = captures.finish();
        for (std::size_t i = 0; i < graphs.size(); ++i)
          (local_only ? state(static_cast<int>(i)).local_graph : state(static_cast<int>(i)).whole_graph) = std::move(graphs[i]);
      }
      graphs_ = true;
    } catch (const std::exception& e) {
      graphs_ = false;
      return e.what();
    }
    if (!world_.all(graphs_)) return graphs_ = false, "another process could not capture its rank";
    return {};
  }
  bool graphs() const { return graphs_; }

  /// This process's ranks' outputs of the last run.
  std::vector<std::vector<std::byte>> outputs() {
    for (int i = 0; i < local_count(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(comms_.device(i)));
      RankState& s = state(i);
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(s.result.data(), s.out.data(), s.out.size(), cudaMemcpyDeviceToHost, s.stream.get()));
    }
    wait();
    std::vector<std::vector<std::byte>> out;
    for (int i = 0; i < local_count(); ++i) out.emplace_back(state(i).result.data(), state(i).result.data() + state(i).result.size());
    return out;
  }

 private:
  void wait() {
    std::vector<cudaStream_t> streams;
    for (const auto& st : states_) streams.push_back(st->stream.get());
    comms_.wait(streams, timeout_s_);
  }

  /// The work of one run on every rank, between each rank's events starts[r] and stops[r], nothing
  /// waited for.
  void issue_run(Work work, bool upload, std::size_t r) {
    const auto on_each = [&](auto&& step) {
      detail::on_launchers(comms_.devices(), [&](std::size_t i) { step(state(static_cast<int>(i)), i); });
    };
    if (work == Work::whole) {
      on_each([&](RankState& s, std::size_t) {
        s.starts[r].record(s.stream.get());
        if (upload) s.upload();
      });
      issue(false);
      on_each([&](RankState& s, std::size_t) { s.stops[r].record(s.stream.get()); });
    } else {
      const std::vector<RankRun> v = views();
      on_each([&](RankState& s, std::size_t i) {
        s.starts[r].record(s.stream.get());
        if (upload) s.upload();
        if (work == Work::local) case_.local(v[i]);
        else (work == Work::local_graph ? s.local_graph : s.whole_graph).launch(s.stream.get());
        s.stops[r].record(s.stream.get());
      });
    }
  }

  std::vector<StreamOnDevice> streams_on_devices() const {
    std::vector<StreamOnDevice> out;
    for (int i = 0; i < local_count(); ++i) out.push_back({comms_.device(i), states_[static_cast<std::size_t>(i)]->stream.get()});
    return out;
  }

  std::vector<RankRun> views() {
    std::vector<RankRun> out;
    for (int i = 0; i < local_count(); ++i) out.push_back(state(i).view(comms_.device(i), comms_.rank(i), comms_.ranks(), comms_[i]));
    return out;
  }

  /// The work of one run on every rank's stream: each rank's local part (from its launcher), or
  /// the whole function (every rank at once).
  void issue(bool local_only) {
    const std::vector<RankRun> v = views();
    if (local_only) {
      detail::on_launchers(comms_.devices(), [&](std::size_t i) { case_.local(v[i]); });
    } else {
      std::optional<multi::detail::LoopbackRanks> loopback;
      if (comms_.loopback()) loopback.emplace();
      case_.run(v);
    }
  }

  MultiCase& case_;
  Communicators& comms_;
  const World& world_;
  double timeout_s_;
  std::vector<std::unique_ptr<RankState>> states_;
  bool graphs_ = false;  // the local part and the whole function captured, a graph per rank
  std::vector<HostRegistration> pinned_;  // released before the states: the case's memory outlives both
};

TimingStats time_runs(Ranks& ranks, Work work, bool upload, int reps) {
  for (int i = 0; i < 2; ++i) ranks.run(work, upload);  // warm-up
  return summarize(ranks.run_queued(work, upload, reps));
}

/// Cases that move at most this much are also timed replayed from CUDA graphs: at small sizes the
/// launches' CPU cost is what a collective's fixed cost is made of.
constexpr double kGraphBytes = 16.0 * (1 << 20);

MultiRow measure(MultiCase& c, Communicators& comms, const World& world, const std::string& placement,
                 const MultiSettings& s) {
  Ranks ranks(c, comms, world, s.timeout_s);
  const bool upload = placement == "host";
  if (upload) ranks.pin_host_inputs();
  MultiRow row;
  if (upload)  // every rank's inputs, this process's or not
    for (int r = 0; r < comms.ranks(); ++r)
      for (const auto& in : c.inputs(r, comms.ranks())) row.host_bytes += static_cast<double>(in.size());
  row.gpus = comms.ranks();
  row.placement = placement;
  ranks.run(Work::whole, false);
  const auto first = ranks.outputs();
  // Every rank checks its own result; rank 0's bytes go to every rank, which compares its own.
  CheckResult mine = c.check(first.front(), comms.rank(0), comms.ranks());  // shown: its error and tolerance
  bool identical = true;
  std::vector<std::byte> rank0 = first.front();
  if (c.replicated()) world.broadcast(rank0);
  for (std::size_t i = 0; i < first.size(); ++i) {
    const int r = comms.rank(static_cast<int>(i));
    const CheckResult got = i == 0 ? mine : c.check(first[i], r, comms.ranks());
    if (!got.ok && (mine.ok || i == 0)) mine = got, mine.detail = fmt::format("rank {}: {}", r, got.detail);
    if (c.replicated()) identical = identical && first[i] == rank0;
  }
  row.check = mine;
  if (!world.all(mine.ok) && mine.ok) row.check = CheckResult{false, 0.0, 0.0, "another process's rank got a wrong result"};
  row.local = time_runs(ranks, Work::local, upload, s.reps);
  row.total = time_runs(ranks, Work::whole, upload, s.reps);
  ranks.run(Work::whole, false);
  identical = identical && ranks.outputs() == first;  // a repeated run: the same bits
  if (!upload && !comms.loopback() && c.bytes() <= kGraphBytes) {
    row.graph_failure = ranks.capture();
    if (ranks.graphs()) {
      row.graphed = true;
      row.graph_local = time_runs(ranks, Work::local_graph, false, s.reps);
      row.graph_total = time_runs(ranks, Work::whole_graph, false, s.reps);
      identical = identical && ranks.outputs() == first;  // the replayed graph: the same bits
    }
  }
  row.identical = world.all(identical);
  row.gbs = ratio(c.bytes() / 1e9, row.total.median_ms * 1e-3);
  return row;
}

/// Process 0's row on every process (its JSON through the world), so that each process returns
/// the same rows and judges its exit code by them.
MultiRow row_of_process_0(const World& world, const MultiRow& row) {
  std::vector<std::byte> bytes;
  if (world.rank() == 0) {
    const std::string text = multi_row_json(row).dump();
    const auto* first = reinterpret_cast<const std::byte*>(text.data());
    bytes.assign(first, first + text.size());
  }
  world.broadcast(bytes);
  if (world.rank() == 0) return row;
  return multi_row_from(nlohmann::ordered_json::parse(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

}  // namespace

std::vector<int> gpu_counts_up_to(int gpus) {
  std::vector<int> out;
  for (int n = 2; n < gpus; n *= 2) out.push_back(n);
  out.push_back(std::max(gpus, 1));
  return out;
}

std::pair<std::size_t, std::size_t> shard_range(std::size_t n, int r, int ranks) {
  const multi::Rows rows = multi::rows_of(n, r, ranks);  // the library's own split
  return {rows.begin, rows.end};
}

MultiCaseResult run_multi_case(const MultiCaseMaker& make, const MultiSettings& s) {
  const std::unique_ptr<World> alone = single_process();
  const World& world = s.world ? *s.world : *alone;
  // The several-GPU counts: loopback ranks (tests), the world's processes (MPI), or the settings'.
  std::vector<int> counts = s.loopback_ranks > 0 ? std::vector<int>{s.loopback_ranks}
                            : world.size() > 1   ? std::vector<int>{world.size()}
                                                 : s.gpus;
  std::erase_if(counts, [](int n) { return n < 2; });  // one GPU: its rows come first anyway
  MultiCaseResult result;
  result.scale = s.weak && !counts.empty() ? static_cast<std::size_t>(counts.back()) : 1;
  std::unique_ptr<MultiCase> c = make(1);
  result.params = c->params();
  if (!world.same_everywhere(std::hash<std::string>{}(params_text(result.params) + " x" + std::to_string(result.scale))))
    throw Error("the ranks disagree on the case (" + params_text(result.params) + " here): every rank must be given the same options");
  c->compute_reference();
  // Per placement: one GPU first (this process alone, or process 0 while the others wait), then each count.
  std::vector<std::vector<MultiRow>> rows(s.placements.size());
  for (std::size_t p = 0; p < s.placements.size(); ++p) {
    MultiRow one;
    if (world.rank() == 0) {
      Communicators single(*alone, 1);
      one = measure(*c, single, *alone, s.placements[p], s);
      one.speedup = one.efficiency = 1.0;
    }
    rows[p].push_back(world.size() > 1 ? row_of_process_0(world, one) : one);
  }
  for (const int n : counts) {
    const std::size_t scale = s.weak ? static_cast<std::size_t>(n) : 1;
    if (scale > 1) {  // weak scaling: N GPUs get N times the work
      c.reset();
      c = make(scale);
      c->compute_reference();
    }
    std::optional<Communicators> comms;
    if (s.loopback_ranks > 0) comms.emplace(Communicators::Loopback{n});
    else comms.emplace(world, n);
    for (std::size_t p = 0; p < s.placements.size(); ++p) {
      MultiRow many = measure(*c, *comms, s.loopback_ranks > 0 ? *alone : world, s.placements[p], s);
      // Work per second over one GPU's: the same work (strong) or N times it (weak).
      many.speedup = static_cast<double>(scale) * ratio(rows[p].front().total.median_ms, many.total.median_ms);
      many.efficiency = many.speedup / many.gpus;
      rows[p].push_back(many);
    }
  }
  for (auto& placement_rows : rows) result.rows.insert(result.rows.end(), placement_rows.begin(), placement_rows.end());
  return result;
}

std::vector<BusBandwidth> measure_bus_bandwidth(int gpus, const std::vector<std::size_t>& sizes, int reps,
                                                const World* world, double timeout_s) {
  std::vector<BusBandwidth> out;
  const std::unique_ptr<World> alone = single_process();
  if (!world) world = alone.get();
  if (gpus < 2 && world->size() < 2) return out;
  Communicators comms(*world, gpus);
  const int ranks = comms.ranks();
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<cudaStream_t> handles;
  std::vector<DeviceBuffer<std::byte>> buffers;
  std::vector<std::unique_ptr<Event>> starts, stops;
  for (int i = 0; i < comms.local_count(); ++i) {
    GPULAB_CUDA_CHECK(cudaSetDevice(comms.device(i)));
    streams.push_back(std::make_unique<Stream>());
    handles.push_back(streams.back()->get());
    buffers.emplace_back(largest);
    GPULAB_CUDA_CHECK(cudaMemset(buffers.back().data(), 0, largest));
    starts.push_back(std::make_unique<Event>());
    stops.push_back(std::make_unique<Event>());
  }
  for (std::size_t bytes : sizes) {
    const std::size_t count = std::max<std::size_t>(1, bytes / sizeof(float));
    std::vector<double> samples;
    for (int rep = -2; rep < reps; ++rep) {
      world->barrier();
      // Each GPU's launcher issues its rank's all-reduce, all at once (as the library's calls do).
      detail::on_launchers(comms.devices(), [&](std::size_t i) {
        starts[i]->record(streams[i]->get());
        void* data = buffers[i].data();
        check_nccl(ncclAllReduce(data, data, count, ncclFloat32, ncclSum, comms[static_cast<int>(i)], streams[i]->get()),
                   "ncclAllReduce");
        stops[i]->record(streams[i]->get());
      });
      comms.wait(handles, timeout_s);  // a peer that fails or never comes: an error, not a hang
      double ms = 0.0;
      for (std::size_t i = 0; i < streams.size(); ++i) ms = std::max(ms, static_cast<double>(stops[i]->ms_since(*starts[i])));
      ms = world->max(ms);
      if (rep >= 0) samples.push_back(ms);
    }
    const TimingStats t = summarize(samples);
    BusBandwidth b;
    b.bytes = count * sizeof(float);
    b.time_us = t.median_ms * 1e3;
    b.algbw_gbs = ratio(static_cast<double>(b.bytes) / 1e9, t.median_ms * 1e-3);
    b.busbw_gbs = b.algbw_gbs * 2.0 * (ranks - 1) / ranks;
    out.push_back(b);
  }
  return out;
}

}  // namespace gpulab
