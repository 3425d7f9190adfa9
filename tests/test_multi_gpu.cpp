// Several GPUs through NCCL, on whatever this machine has: one rank per GPU (one GPU: a
// communicator of one rank, which still goes through every NCCL call), each case checked against
// the CPU on every rank, every rank's bits equal, a repeated run's bits equal. And 2, 3 and 5 ranks
// on one GPU through the library's loopback (its collectives done by copies): the code a rank runs
// only when it is not alone — scan offsets, broadcasts from every root, shards of nothing — checked
// on any machine with a GPU.
#include "gpu_test_support.hpp"
#include "scoped_env.hpp"

#include "atax/atax_problem.hpp"
#include "conv/conv_problem.hpp"
#include "core/random.hpp"
#include "histogram/histogram_problem.hpp"
#include "lib/launchers.hpp"
#include "multi/graphs.hpp"
#include "multi/multi_bench.hpp"
#include "reduce/reduce_problem.hpp"
#include "scan/scan_problem.hpp"
#include "sgemm/sgemm_problem.hpp"

#include <gpulab/multi/reduce.hpp>
#include <gpulab/reduce.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace gpulab;

namespace {

int device_count() {
  int n = 0;
  GPULAB_CUDA_CHECK(cudaGetDeviceCount(&n));
  return n;
}

/// `small`: the case is small enough to be replayed from CUDA graphs (16 MiB or less).
MultiCaseResult expect_rows_pass(const MultiCaseMaker& make, const MultiSettings& s, std::size_t rows, bool small = true) {
  const MultiCaseResult r = run_multi_case(make, s);
  EXPECT_EQ(r.rows.size(), rows);
  for (const auto& row : r.rows) {
    EXPECT_TRUE(row.check.ok) << row.gpus << " GPU(s), " << row.placement << ": " << row.check.detail;
    EXPECT_TRUE(row.identical) << row.gpus << " GPU(s), " << row.placement;
    // The tests' cases are small: resident through NCCL, each must replay from CUDA graphs, a graph
    // per GPU captured while each GPU's launcher issued its part (on two GPUs this failed until
    // the captures all ended before the first instantiation).
    const bool through_loopback = s.loopback_ranks > 0 && row.gpus > 1;
    if (small && row.placement == "resident" && !through_loopback) {
      EXPECT_TRUE(row.graphed) << row.gpus << " GPU(s): not replayed from a graph: " << row.graph_failure;
    }
  }
  return r;
}

/// The several-GPU counts of this host: 2, 4, … up to every GPU (none on one GPU).
std::vector<int> gpu_counts_here() { return device_count() > 1 ? gpu_counts_up_to(device_count()) : std::vector<int>{}; }

void expect_all_rows_pass(const MultiCaseMaker& make, bool small = true) {
  MultiSettings s;
  s.gpus = gpu_counts_here();
  s.reps = 2;
  expect_rows_pass(make, s, 2 * (1 + s.gpus.size()), small);
}

/// The case over 2, 3 and 5 loopback ranks on GPU 0 (one GPU and the ranks, resident data).
void expect_loopback_ranks_pass(const MultiCaseMaker& make, bool weak = false, bool small = true) {
  for (int ranks : {2, 3, 5}) {
    SCOPED_TRACE(std::to_string(ranks) + " loopback ranks" + (weak ? ", weak scaling" : ""));
    MultiSettings s;
    s.loopback_ranks = ranks;
    s.placements = {"resident"};
    s.reps = 1;
    s.weak = weak;
    EXPECT_EQ(expect_rows_pass(make, s, 2u, small).scale, weak ? static_cast<std::size_t>(ranks) : 1u);
  }
}


TEST(MultiGpu, ReduceOfEveryTypeAndAwkwardSizes) {
  for (DType t : {DType::int32, DType::float32, DType::float64})
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{100'003}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      expect_all_rows_pass([&](std::size_t) { return make_reduce_multi(t, n, 7); });
    }
}

TEST(MultiGpu, HistogramOverThePaths) {
  for (std::uint32_t m : {1u, 8u, 256u, 5000u, (1u << 17) + 1})
    expect_all_rows_pass(
        [&](std::size_t) { return make_histogram_multi(HistogramDistribution::uniform, 70'001, m, 7); });
  expect_all_rows_pass(
      [&](std::size_t) { return make_histogram_multi(HistogramDistribution::degenerate, 70'001, 256, 7); });
}

TEST(MultiGpu, AtaxWithFewerRowsThanRanksToo) {
  for (AtaxShape s : {AtaxShape{33, 1}, AtaxShape{1000, 1001}, AtaxShape{16385, 5}})
    expect_all_rows_pass([&](std::size_t) { return make_atax_multi(s, 7); });
}

TEST(MultiGpu, ScanOfEveryTypeBothKinds) {
  for (DType t : {DType::int8, DType::int16, DType::int32, DType::float32, DType::float64})
    for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{70'001}}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::string(scan_kind_name(kind)) + " n=" + std::to_string(n));
        expect_all_rows_pass([&](std::size_t) { return make_scan_multi(t, kind, n, 7); });
      }
}

TEST(MultiGpu, SgemmRowsSplitAndGathered) {
  // 1 row and 3 over 2 and 4 ranks: a broadcast from each rank with rows; 64 rows: one all-gather.
  for (SgemmShape s : {SgemmShape{1, 1, 1}, SgemmShape{17, 33, 65}, SgemmShape{129, 65, 257}, SgemmShape{3, 4096, 64},
                       SgemmShape{64, 33, 17}})
    expect_all_rows_pass([&](std::size_t) { return make_sgemm_multi(s, 1.0f, 7); });
}

// C is 268 MB, past what the bench captures in graphs. From one process whose GPUs reach each
// other's memory, each rank writes its rows into every rank's C as they are made; with that off,
// NCCL sends them in stages (2 a rank over four GPUs, 4 over two), each while the next is computed.
const SgemmShape kStagedShape{4 * 4097 - 3, 4096, 5};

TEST(MultiGpu, SgemmRowsWrittenToEveryGpuAsTheyAreMade) {
  expect_all_rows_pass([&](std::size_t) { return make_sgemm_multi(kStagedShape, 1.0f, 7); }, false);
}

TEST(MultiGpu, SgemmInStagesSentByNcclWherePeerWritesAreTurnedOff) {
  const test::ScopedEnv no_peer_writes("GPULAB_MULTI_PEER_WRITES", "0");
  expect_all_rows_pass([&](std::size_t) { return make_sgemm_multi(kStagedShape, 1.0f, 7); }, false);
}

TEST(MultiGpu, ConvBandsWithTheirNeighboursRows) {
  for (multi::Gather g : {multi::Gather::all, multi::Gather::none})
    for (auto [w, h] : {std::pair<std::size_t, std::size_t>{1, 1}, {5, 3}, {67, 35}, {1000, 7}, {9, 60}})
      for (Border b : {Border::replicate, Border::zero, Border::mirror})
        expect_all_rows_pass([&](std::size_t) { return make_conv_multi(w, h, *named_filter("sharpen"), b, 7, g); });
}

TEST(MultiGpuLoopback, ReduceWithShardsOfNothing) {
  for (DType t : {DType::int32, DType::float32, DType::float64})
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{100'003}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      expect_loopback_ranks_pass([&](std::size_t) { return make_reduce_multi(t, n, 11); });
    }
}

TEST(MultiGpuLoopback, HistogramCountsAdded) {
  for (std::uint32_t m : {1u, 256u, (1u << 17) + 1})
    expect_loopback_ranks_pass([&](std::size_t) { return make_histogram_multi(HistogramDistribution::uniform, 70'001, m, 11); });
}

TEST(MultiGpuLoopback, AtaxColumnsAddedInRankOrder) {
  for (AtaxShape s : {AtaxShape{33, 1}, AtaxShape{1000, 1001}, AtaxShape{16385, 5}})
    expect_loopback_ranks_pass([&](std::size_t) { return make_atax_multi(s, 11); });
}

TEST(MultiGpuLoopback, ScanOffsetsOfTheRanksBefore) {
  for (DType t : {DType::int8, DType::int16, DType::int32, DType::float32, DType::float64})
    for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{70'001}}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::string(scan_kind_name(kind)) + " n=" + std::to_string(n));
        expect_loopback_ranks_pass([&](std::size_t) { return make_scan_multi(t, kind, n, 11); });
      }
}

TEST(MultiGpuLoopback, SgemmInStagesOverEveryRankCount) {  // 4, 2 and 1 stages over 2, 3 and 5 ranks
  expect_loopback_ranks_pass([&](std::size_t) { return make_sgemm_multi({4 * 4097 - 3, 4096, 5}, 1.0f, 11); }, false, false);
}

TEST(MultiGpuLoopback, SgemmRowsBroadcastFromEveryRoot) {
  for (SgemmShape s : {SgemmShape{1, 1, 1}, SgemmShape{3, 5, 7}, SgemmShape{129, 65, 257}, SgemmShape{60, 33, 17}})
    expect_loopback_ranks_pass([&](std::size_t) { return make_sgemm_multi(s, 1.0f, 11); });
}

TEST(MultiGpuLoopback, ConvBandsMeetAtEveryRankBoundary) {
  for (multi::Gather g : {multi::Gather::all, multi::Gather::none})
    for (auto [w, h] : {std::pair<std::size_t, std::size_t>{1, 1}, {5, 3}, {67, 35}, {1000, 7}, {9, 60}})
      for (Border b : {Border::replicate, Border::zero, Border::mirror})
        expect_loopback_ranks_pass([&](std::size_t) { return make_conv_multi(w, h, *named_filter("sharpen"), b, 11, g); });
}

// Weak scaling: the several-rank rows run the case made at scale N (N times the elements or rows).
TEST(MultiGpuLoopback, WeakScalingRunsNTimesTheWork) {
  expect_loopback_ranks_pass([](std::size_t k) { return make_reduce_multi(DType::float32, 1001 * k, 11); }, true);
  expect_loopback_ranks_pass([](std::size_t k) { return make_atax_multi({257, static_cast<std::uint32_t>(3 * k)}, 11); }, true);
  expect_loopback_ranks_pass([](std::size_t k) { return make_conv_multi(67, 5 * k, *named_filter("sharpen"), Border::mirror, 11); },
                             true);
}

// The per-rank form (one process per GPU) on a communicator of one rank gives the one-GPU bits.
TEST(MultiGpu, PerRankFormOnOneRankEqualsTheOneGpuFunction) {
  ncclComm_t comm = nullptr;
  const int device = 0;
  ASSERT_EQ(ncclCommInitAll(&comm, 1, &device), ncclSuccess);
  const std::size_t n = 100'003;
  PinnedBuffer<float> host(n);
  fill_random(host.span(), 3);
  const auto in = test::upload<float>(host.span());
  DeviceBuffer<float> one(1), many(1);
  DeviceBuffer<std::byte> temp1(reduce_sum_temp_bytes<float>(n)), temp(multi::reduce_sum_temp_bytes<float>(n, 1));
  GPULAB_CUDA_CHECK(cudaMemset(temp1.data(), 0, temp1.size()));
  GPULAB_CUDA_CHECK(cudaMemset(temp.data(), 0, temp.size()));
  reduce_sum(in.data(), n, one.data(), temp1.data(), temp1.size());
  multi::reduce_sum(in.data(), n, many.data(), temp.data(), temp.size(), comm);
  float a = 0, b = 0;
  GPULAB_CUDA_CHECK(cudaMemcpy(&a, one.data(), 4, cudaMemcpyDeviceToHost));
  GPULAB_CUDA_CHECK(cudaMemcpy(&b, many.data(), 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(a, b);
  EXPECT_EQ(multi::ranks_of(comm), 1);
  EXPECT_THROW(multi::reduce_sum(in.data(), n, many.data(), temp.data(), temp.size() - 1, comm), Error);
  EXPECT_THROW(multi::ranks_of(nullptr), Error);
  ncclCommDestroy(comm);
}

/// A reduce case whose whole function throws when its stream is being captured, after issuing its
/// work: the capture must be ended and discarded, nothing left behind for the next case.
class ThrowsWhileCaptured final : public MultiCase {
 public:
  ThrowsWhileCaptured() : inner_(make_reduce_multi(DType::float32, 10'007, 5)) {}
  std::vector<std::pair<std::string, std::string>> params() const override { return inner_->params(); }
  double bytes() const override { return inner_->bytes(); }
  std::vector<std::span<const std::byte>> inputs(int r, int ranks) const override { return inner_->inputs(r, ranks); }
  std::size_t output_bytes(int r, int ranks) const override { return inner_->output_bytes(r, ranks); }
  std::size_t temp_bytes(int r, int ranks) const override { return inner_->temp_bytes(r, ranks); }
  void local(const RankRun& rank) const override { inner_->local(rank); }
  void run(std::span<const RankRun> ranks) const override {
    inner_->run(ranks);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    GPULAB_CUDA_CHECK(cudaStreamIsCapturing(ranks.back().stream, &status));
    if (status != cudaStreamCaptureStatusNone) throw Error("thrown while captured (a test)");
  }
  void compute_reference() override { inner_->compute_reference(); }
  CheckResult check(std::span<const std::byte> out, int r, int ranks) const override { return inner_->check(out, r, ranks); }

 private:
  std::unique_ptr<MultiCase> inner_;
};

TEST(MultiGpu, AFailedCaptureLeavesNothingBehindForTheNextCase) {
  MultiSettings s;
  s.gpus = gpu_counts_here();
  s.placements = {"resident"};
  s.reps = 2;
  const MultiCaseResult failed = run_multi_case([](std::size_t) { return std::make_unique<ThrowsWhileCaptured>(); }, s);
  for (const auto& row : failed.rows) {
    EXPECT_TRUE(row.check.ok) << row.check.detail;  // the plain runs were right
    EXPECT_FALSE(row.graphed);
    EXPECT_NE(row.graph_failure.find("thrown while captured"), std::string::npos) << row.graph_failure;
  }
  // The next case allocates, runs, captures and replays on the same thread as before.
  expect_rows_pass([](std::size_t) { return make_reduce_multi(DType::float32, 100'003, 7); }, s, 1 + s.gpus.size());
}

/// One stream on each GPU of the host, or two on the one GPU there is: what one thread drives.
std::vector<std::pair<int, std::unique_ptr<Stream>>> streams_of_this_host() {
  std::vector<std::pair<int, std::unique_ptr<Stream>>> out;
  for (int i = 0; i < std::max(2, device_count()); ++i) {
    const int device = std::min(i, device_count() - 1);
    GPULAB_CUDA_CHECK(cudaSetDevice(device));
    out.emplace_back(device, std::make_unique<Stream>());
  }
  GPULAB_CUDA_CHECK(cudaSetDevice(0));
  return out;
}

/// A stream on each GPU of the host (streams_of_this_host) and 64 zero bytes on its device for each.
struct StreamsAndBytes {
  std::vector<std::pair<int, std::unique_ptr<Stream>>> streams = streams_of_this_host();
  std::vector<DeviceBuffer<std::uint8_t>> bytes;
  std::vector<StreamOnDevice> on;
  StreamsAndBytes() {
    for (auto& [device, stream] : streams) {
      GPULAB_CUDA_CHECK(cudaSetDevice(device));
      bytes.emplace_back(64);
      GPULAB_CUDA_CHECK(cudaMemset(bytes.back().data(), 0, 64));
      on.push_back({device, stream->get()});
    }
    GPULAB_CUDA_CHECK(cudaSetDevice(0));
  }
  /// Stream i sets its bytes to i + 1 (recorded, not run, while its stream is captured).
  void fill_each_with_its_number() const {
    for (std::size_t i = 0; i < on.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(on[i].device));
      GPULAB_CUDA_CHECK(cudaMemsetAsync(bytes[i].data(), static_cast<int>(i + 1), 64, on[i].stream));
    }
    GPULAB_CUDA_CHECK(cudaSetDevice(0));
  }
};

// Why the runner ends every capture before instantiating a graph: the runtime refuses an
// instantiation while this thread still captures another stream (thread-local mode). (Named so
// that the sanitizer pass, which runs the *Refuses* tests, leaves out its deliberate API error.)
TEST(StreamCaptures, NoInstantiationWhileTheThreadStillCaptures) {
  auto streams = streams_of_this_host();
  DeviceBuffer<int> x(1);
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(streams[0].second->get(), cudaStreamCaptureModeThreadLocal));
  GPULAB_CUDA_CHECK(cudaSetDevice(streams[1].first));
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(streams[1].second->get(), cudaStreamCaptureModeThreadLocal));
  GPULAB_CUDA_CHECK(cudaSetDevice(streams[0].first));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(x.data(), 1, sizeof(int), streams[0].second->get()));
  cudaGraph_t graph = nullptr;
  GPULAB_CUDA_CHECK(cudaStreamEndCapture(streams[0].second->get(), &graph));
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaErrorStreamCaptureUnsupported);  // stream 1 still captures
  GPULAB_CUDA_CHECK(cudaSetDevice(streams[1].first));
  cudaGraph_t other = nullptr;
  (void)cudaStreamEndCapture(streams[1].second->get(), &other);
  (void)cudaGetLastError();
  GPULAB_CUDA_CHECK(cudaSetDevice(0));
  if (other) cudaGraphDestroy(other);
  cudaGraphDestroy(graph);
}

TEST(StreamCaptures, EveryStreamOfTheThreadReplaysItsOwnGraph) {
  StreamsAndBytes sb;
  const auto& bytes = sb.bytes;
  const auto& on = sb.on;
  StreamCaptures captures(on);
  sb.fill_each_with_its_number();
  std::vector<GraphExec> graphs = captures.finish();
  ASSERT_EQ(graphs.size(), on.size());
  int current = -1;
  GPULAB_CUDA_CHECK(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);  // the caller's device, as it was
  for (std::size_t i = 0; i < on.size(); ++i) {
    GPULAB_CUDA_CHECK(cudaSetDevice(on[i].device));
    std::vector<std::uint8_t> got(64, 0xFF);
    GPULAB_CUDA_CHECK(cudaMemcpy(got.data(), bytes[i].data(), 64, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got[0], 0) << "stream " << i << ": the captured work ran before its replay";
    graphs[i].launch(on[i].stream);
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(got.data(), bytes[i].data(), 64, cudaMemcpyDeviceToHost, on[i].stream));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(on[i].stream));
    EXPECT_EQ(got, std::vector<std::uint8_t>(64, static_cast<std::uint8_t>(i + 1))) << "stream " << i;
  }
  GPULAB_CUDA_CHECK(cudaSetDevice(0));
}

// What each GPU's launcher issues into a stream this thread captures is captured, not run: how
// the bench captures the all-ranks functions, whose launchers issue every rank's part.
TEST(StreamCaptures, WorkIssuedByTheLaunchersIsCaptured) {
  StreamsAndBytes sb;
  std::vector<int> devices;
  for (const StreamOnDevice& s : sb.on) devices.push_back(s.device);
  StreamCaptures captures(sb.on);
  detail::on_launchers(devices, [&](std::size_t i) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(sb.bytes[i].data(), static_cast<int>(i + 1), 64, sb.on[i].stream));
  });
  std::vector<GraphExec> graphs = captures.finish();
  ASSERT_EQ(graphs.size(), sb.on.size());
  for (std::size_t i = 0; i < sb.on.size(); ++i) {
    GPULAB_CUDA_CHECK(cudaSetDevice(sb.on[i].device));
    std::uint8_t first = 0xFF;
    GPULAB_CUDA_CHECK(cudaMemcpy(&first, sb.bytes[i].data(), 1, cudaMemcpyDeviceToHost));
    EXPECT_EQ(first, 0) << "stream " << i << ": the captured work ran before its replay";
    graphs[i].launch(sb.on[i].stream);
    std::vector<std::uint8_t> got(64, 0xFF);
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(got.data(), sb.bytes[i].data(), 64, cudaMemcpyDeviceToHost, sb.on[i].stream));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(sb.on[i].stream));
    EXPECT_EQ(got, std::vector<std::uint8_t>(64, static_cast<std::uint8_t>(i + 1))) << "stream " << i;
  }
  GPULAB_CUDA_CHECK(cudaSetDevice(0));
}

// Each GPU's work on a thread of its own, with its device current, all at once; the caller's
// device untouched; the lowest failing item's error thrown once every item has returned; a
// launcher's own call (nested) and repeated devices run in turn on the calling thread.
TEST(MultiGpuLaunchers, EachDeviceOnItsOwnThreadAndFailuresReachTheCaller) {
  std::vector<int> devices;
  for (int d = 0; d < device_count(); ++d) devices.push_back(d);
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> threads(devices.size());
  std::vector<int> current(devices.size(), -1);
  std::atomic<int> waiting{0};
  GPULAB_CUDA_CHECK(cudaSetDevice(0));
  detail::on_launchers(devices, [&](std::size_t i) {
    threads[i] = std::this_thread::get_id();
    GPULAB_CUDA_CHECK(cudaGetDevice(&current[i]));
    // All at once: every item waits here for all the others (in turn on one thread, this would
    // never end; one GPU alone runs on the caller).
    ++waiting;
    while (devices.size() > 1 && waiting.load() < static_cast<int>(devices.size())) std::this_thread::yield();
  });
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(current[i], devices[i]);
    if (devices.size() > 1) {
      EXPECT_NE(threads[i], caller) << i;
    }
  }
  int now = -1;
  GPULAB_CUDA_CHECK(cudaGetDevice(&now));
  EXPECT_EQ(now, 0);

  std::atomic<int> ran{0};
  try {
    detail::on_launchers(devices, [&](std::size_t i) {
      ++ran;
      if (i > 0 || devices.size() == 1) throw Error("item " + std::to_string(i));
    });
    FAIL() << "no failure reached the caller";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), devices.size() == 1 ? "item 0" : "item 1");
  }
  EXPECT_EQ(ran.load(), static_cast<int>(devices.size()));  // every item ran, failures or not

  std::vector<int> inner_ran(devices.size(), 0);
  detail::on_launchers(devices, [&](std::size_t i) {
    if (i == 0) detail::on_launchers(devices, [&](std::size_t j) { ++inner_ran[j]; });
  });
  EXPECT_EQ(inner_ran, std::vector<int>(devices.size(), 1));
  const std::vector<int> twice{0, 0};
  std::vector<std::thread::id> same(2);
  detail::on_launchers(twice, [&](std::size_t i) { same[i] = std::this_thread::get_id(); });
  EXPECT_EQ(same, std::vector<std::thread::id>(2, caller));
}

TEST(StreamCaptures, AnAbandonedCaptureEndsWithItsScope) {
  auto streams = streams_of_this_host();
  std::vector<StreamOnDevice> on;
  for (auto& [device, stream] : streams) on.push_back({device, stream->get()});
  try {
    StreamCaptures captures(on);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(on[0].stream));  // refused while capturing: throws
    FAIL() << "a synchronisation inside a capture was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaStreamSynchronize"), std::string::npos) << e.what();
  }
  for (const StreamOnDevice& s : on) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    GPULAB_CUDA_CHECK(cudaStreamIsCapturing(s.stream, &status));
    EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  }
  DeviceBuffer<int> x(1);  // allocations work again: no capture of this thread is open
  GPULAB_CUDA_CHECK(cudaMemset(x.data(), 0, sizeof(int)));
  GPULAB_CHECK_LAUNCH();  // and the refused call's error is not left for the next launch's check
  // A finish() after a refused call inside the capture reports it, all captures ended.
  StreamCaptures again(on);
  EXPECT_EQ(cudaStreamSynchronize(on[0].stream), cudaErrorStreamCaptureUnsupported);  // invalidates the capture
  EXPECT_THROW(again.finish(), Error);
  DeviceBuffer<int> y(1);
}

TEST(MultiGpu, MoreGpusThanThereAreIsAClearError) {
  MultiSettings s;
  s.gpus = {device_count() + 1};
  s.placements = {"resident"};
  try {
    run_multi_case([](std::size_t) { return make_reduce_multi(DType::float32, 1000, 1); }, s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device(s)"), std::string::npos) << e.what();
  }
}

}  // namespace
