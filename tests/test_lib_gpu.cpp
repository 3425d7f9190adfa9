// The device helpers the problems share (src/lib): copy_rows between any two alignments.
#include "gpu_test_support.hpp"

#include "lib/copy_rows.hpp"
#include "lib/launch_limits.hpp"
#include "lib/treat_as.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <cstdint>
#include <vector>

using namespace gpulab;

namespace {

/// copy_rows from src (offset `src_offset`, rows `src_pitch` apart) to dst (offset, pitch) of
/// `rows` rows of `row_bytes`: every row's bytes arrive, and every byte of dst outside the rows
/// (its padding, before and after) keeps its poison.
void expect_rows_copied(std::size_t row_bytes, std::size_t rows, std::size_t src_offset, std::size_t src_pitch,
                        std::size_t dst_offset, std::size_t dst_pitch) {
  const std::size_t src_bytes = src_offset + (rows - 1) * src_pitch + row_bytes;
  const std::size_t dst_bytes = dst_offset + (rows - 1) * dst_pitch + row_bytes + 64;
  std::vector<std::uint8_t> host_src(src_bytes);
  for (std::size_t i = 0; i < src_bytes; ++i) host_src[i] = static_cast<std::uint8_t>(i * 131 + 7);
  DeviceBuffer<std::uint8_t> src(src_bytes), dst(dst_bytes);
  GPULAB_CUDA_CHECK(cudaMemcpy(src.data(), host_src.data(), src_bytes, cudaMemcpyHostToDevice));
  GPULAB_CUDA_CHECK(cudaMemset(dst.data(), 0xA5, dst_bytes));
  copy_rows(src.data() + src_offset, src_pitch, dst.data() + dst_offset, dst_pitch, row_bytes, rows, nullptr);
  std::vector<std::uint8_t> got(dst_bytes);
  GPULAB_CUDA_CHECK(cudaMemcpy(got.data(), dst.data(), dst_bytes, cudaMemcpyDeviceToHost));
  std::vector<std::uint8_t> want(dst_bytes, 0xA5);
  for (std::size_t y = 0; y < rows; ++y)
    for (std::size_t b = 0; b < row_bytes; ++b) want[dst_offset + y * dst_pitch + b] = host_src[src_offset + y * src_pitch + b];
  std::size_t first_wrong = dst_bytes;
  for (std::size_t i = 0; i < dst_bytes && first_wrong == dst_bytes; ++i)
    if (got[i] != want[i]) first_wrong = i;
  EXPECT_EQ(first_wrong, dst_bytes) << "row_bytes " << row_bytes << " rows " << rows << " src +" << src_offset << " pitch "
                                     << src_pitch << ", dst +" << dst_offset << " pitch " << dst_pitch;
}

}  // namespace

TEST(CopyRows, EveryAlignmentOfSourceAndDestination) {
  for (std::size_t row_bytes : {1, 3, 15, 16, 17, 20, 21, 37, 64, 1000, 37035})
    for (std::size_t src_offset : {0, 1, 2, 3, 16})
      for (std::size_t dst_offset : {0, 1, 2, 3})
        for (std::size_t extra : {0, 1, 13}) {  // packed rows, and rows a few bytes apart more
          const std::size_t rows = row_bytes > 1000 ? 3 : 5;
          expect_rows_copied(row_bytes, rows, src_offset, row_bytes + extra, dst_offset, (row_bytes + 15) / 16 * 16 + extra);
          expect_rows_copied(row_bytes, rows, dst_offset, (row_bytes + 15) / 16 * 16 + extra, src_offset, row_bytes + extra);
        }
}

TEST(CopyRows, ManyRowsPastTheGridsHeight) {
  expect_rows_copied(7, 70001, 1, 7, 2, 16);  // more rows than a grid's y (65535): the kernel loops
}

TEST(CopyRows, NothingToCopyIsNoWork) {
  EXPECT_NO_THROW(copy_rows(nullptr, 0, nullptr, 0, 0, 5, nullptr));
  EXPECT_NO_THROW(copy_rows(nullptr, 0, nullptr, 0, 5, 0, nullptr));
}

// Run with GPULAB_TREAT_AS=sm_75 (or --treat-as): the harness's facts and the library's queries
// answer the family's, and the device's name says it is treated so.
TEST(TreatAs, TheFactsAndTheLibrarysQueriesAgree) {
  const GpuFamily* f = treated_as();
  if (f == nullptr) GTEST_SKIP() << "GPULAB_TREAT_AS is not set: this GPU answers for itself";
  const DeviceFacts facts = query_device(0);
  EXPECT_EQ(facts.compute_capability(), f->compute_capability);
  EXPECT_NE(facts.name.find("treated as " + std::string(f->name)), std::string::npos) << facts.name;
  EXPECT_EQ(facts.l2_bytes, static_cast<std::size_t>(f->l2_bytes));
  EXPECT_EQ(current_device_attribute(cudaDevAttrComputeCapabilityMajor), f->compute_capability / 10);
  EXPECT_EQ(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin), f->smem_per_block_optin);
  EXPECT_EQ(current_device_attribute(cudaDevAttrClusterLaunch), 0);
}
