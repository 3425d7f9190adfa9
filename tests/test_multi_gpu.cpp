// Several GPUs through NCCL, on whatever this machine has: one rank per GPU (one GPU: a
// communicator of one rank, which still goes through every NCCL call), each case checked against
// the CPU on every rank, every rank's bits equal, a repeated run's bits equal. And 2, 3 and 5 ranks
// on one GPU through the library's loopback (its collectives done by copies): the code a rank runs
// only when it is not alone — scan offsets, broadcasts from every root, shards of nothing — checked
// on any machine with a GPU.
#include "gpu_test_support.hpp"

#include "core/random.hpp"
#include "multi/multi_cases.hpp"

#include <gpulab/multi_gpu.hpp>
#include <gpulab/reduce.hpp>

#include <gtest/gtest.h>

using namespace gpulab;

namespace {

int device_count() {
  int n = 0;
  GPULAB_CUDA_CHECK(cudaGetDeviceCount(&n));
  return n;
}

MultiCaseResult expect_rows_pass(const MultiCaseMaker& make, const MultiSettings& s, std::size_t rows) {
  const MultiCaseResult r = run_multi_case(make, s);
  EXPECT_EQ(r.rows.size(), rows);
  for (const auto& row : r.rows) {
    EXPECT_TRUE(row.check.ok) << row.gpus << " GPU(s), " << row.placement << ": " << row.check.detail;
    EXPECT_TRUE(row.identical) << row.gpus << " GPU(s), " << row.placement;
  }
  return r;
}

void expect_all_rows_pass(const MultiCaseMaker& make, int gpus) {
  MultiSettings s;
  s.gpus = gpus;
  s.reps = 2;
  expect_rows_pass(make, s, gpus > 1 ? 4u : 2u);
}

/// The case over 2, 3 and 5 loopback ranks on GPU 0 (one GPU and the ranks, resident data).
void expect_loopback_ranks_pass(const MultiCaseMaker& make, bool weak = false) {
  for (int ranks : {2, 3, 5}) {
    SCOPED_TRACE(std::to_string(ranks) + " loopback ranks" + (weak ? ", weak scaling" : ""));
    MultiSettings s;
    s.loopback_ranks = ranks;
    s.placements = {"resident"};
    s.reps = 1;
    s.weak = weak;
    EXPECT_EQ(expect_rows_pass(make, s, 2u).scale, weak ? static_cast<std::size_t>(ranks) : 1u);
  }
}

int gpus_here() { return std::min(device_count(), 2); }

TEST(MultiGpu, ReduceOfEveryTypeAndAwkwardSizes) {
  for (DType t : {DType::int32, DType::float32, DType::float64})
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{100'003}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      expect_all_rows_pass([&](std::size_t) { return make_reduce_multi(t, n, 7); }, gpus_here());
    }
}

TEST(MultiGpu, HistogramOverThePaths) {
  for (std::uint32_t m : {1u, 8u, 256u, 5000u, (1u << 17) + 1})
    expect_all_rows_pass(
        [&](std::size_t) { return make_histogram_multi(HistogramDistribution::uniform, 70'001, m, 7); }, gpus_here());
  expect_all_rows_pass(
      [&](std::size_t) { return make_histogram_multi(HistogramDistribution::degenerate, 70'001, 256, 7); }, gpus_here());
}

TEST(MultiGpu, AtaxWithFewerRowsThanRanksToo) {
  for (AtaxShape s : {AtaxShape{33, 1}, AtaxShape{1000, 1001}, AtaxShape{16385, 5}})
    expect_all_rows_pass([&](std::size_t) { return make_atax_multi(s, 7); }, gpus_here());
}

TEST(MultiGpu, ScanOfEveryTypeBothKinds) {
  for (DType t : {DType::int8, DType::int16, DType::int32, DType::float32, DType::float64})
    for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{70'001}}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::string(scan_kind_name(kind)) + " n=" + std::to_string(n));
        expect_all_rows_pass([&](std::size_t) { return make_scan_multi(t, kind, n, 7); }, gpus_here());
      }
}

TEST(MultiGpu, SgemmRowsSplitAndGathered) {
  for (SgemmShape s : {SgemmShape{1, 1, 1}, SgemmShape{17, 33, 65}, SgemmShape{129, 65, 257}, SgemmShape{3, 4096, 64}})
    expect_all_rows_pass([&](std::size_t) { return make_sgemm_multi(s, 1.0f, 7); }, gpus_here());
}

TEST(MultiGpu, ConvBandsWithTheirNeighboursRows) {
  for (auto [w, h] : {std::pair<std::size_t, std::size_t>{1, 1}, {5, 3}, {67, 35}, {1000, 7}})
    for (Border b : {Border::replicate, Border::zero, Border::mirror})
      expect_all_rows_pass([&](std::size_t) { return make_conv_multi(w, h, *named_filter("sharpen"), b, 7); }, gpus_here());
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

TEST(MultiGpuLoopback, SgemmRowsBroadcastFromEveryRoot) {
  for (SgemmShape s : {SgemmShape{1, 1, 1}, SgemmShape{3, 5, 7}, SgemmShape{129, 65, 257}})
    expect_loopback_ranks_pass([&](std::size_t) { return make_sgemm_multi(s, 1.0f, 11); });
}

TEST(MultiGpuLoopback, ConvBandsMeetAtEveryRankBoundary) {
  for (auto [w, h] : {std::pair<std::size_t, std::size_t>{1, 1}, {5, 3}, {67, 35}, {1000, 7}})
    for (Border b : {Border::replicate, Border::zero, Border::mirror})
      expect_loopback_ranks_pass([&](std::size_t) { return make_conv_multi(w, h, *named_filter("sharpen"), b, 11); });
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

TEST(MultiGpu, MoreGpusThanThereAreIsAClearError) {
  MultiSettings s;
  s.gpus = device_count() + 1;
  s.placements = {"resident"};
  try {
    run_multi_case([](std::size_t) { return make_reduce_multi(DType::float32, 1000, 1); }, s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device(s)"), std::string::npos) << e.what();
  }
}

}  // namespace
