// The public gpulab::reduce_sum: its contract (include/gpulab/reduce.hpp), tested as a user
// would call it.
#include "gpu_test_support.hpp"

#include "core/random.hpp"

#include <gpulab/reduce.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace gpulab;

namespace {

DeviceBuffer<unsigned char> zeroed_temp(std::size_t bytes) {
  DeviceBuffer<unsigned char> t(bytes);
  GPULAB_CUDA_CHECK(cudaMemset(t.data(), 0, bytes));
  return t;
}

template <class T>
T read_back(const T* d) {
  T v;
  GPULAB_CUDA_CHECK(cudaMemcpy(&v, d, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

TEST(ReduceSum, DeterministicSameBitsEveryCall) {
  GPULAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 24) + 3;
  std::vector<float> host(n);
  fill_random<float>(host, 11);
  auto d_in = test::upload<float>(host);
  DeviceBuffer<float> out(1);
  const std::size_t bytes = reduce_sum_temp_bytes<float>(n);
  auto temp_a = zeroed_temp(bytes), temp_b = zeroed_temp(bytes);
  reduce_sum(d_in.data(), n, out.data(), temp_a.data(), bytes);
  const float first = read_back(out.data());
  for (int i = 0; i < 50; ++i) {
    reduce_sum(d_in.data(), n, out.data(), (i % 2 ? temp_a : temp_b).data(), bytes);
    const float again = read_back(out.data());
    ASSERT_EQ(std::memcmp(&again, &first, sizeof(float)), 0) << "run " << i << ": " << again << " vs " << first;
  }
}

TEST(ReduceSum, ReusesTemporaryStorageAcrossSizesOnAStream) {
  GPULAB_REQUIRE_GPU();
  Stream stream;
  const std::size_t max_n = 3'000'017;
  std::vector<double> host(max_n);
  fill_random<double>(host, 12);
  auto d_in = test::upload<double>(host);
  const std::size_t bytes = reduce_sum_temp_bytes<double>(max_n);
  auto temp = zeroed_temp(bytes);
  DeviceBuffer<double> out(1);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{65537}, max_n}) {
    poison_device(out.data(), sizeof(double), 0xFF, stream.get());
    reduce_sum(d_in.data(), n, out.data(), temp.data(), bytes, stream.get());
    stream.synchronize();
    const auto ref = reduce_reference(std::span<const double>(host.data(), n));
    const CheckResult r = check_reduce(read_back(out.data()), ref, reduce_sum_accumulation_depth<double>(n));
    EXPECT_TRUE(r.ok) << "n=" << n << ": " << r.detail;
    // The contract: each call leaves the temporary storage zero-filled.
    std::vector<unsigned char> t(bytes);
    GPULAB_CUDA_CHECK(cudaMemcpy(t.data(), temp.data(), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(t.data(), std::vector<unsigned char>(4, 0).data(), 4), 0) << "n=" << n;
  }
}

TEST(ReduceSum, Int32WrapsLikeTheReference) {
  GPULAB_REQUIRE_GPU();
  std::vector<std::int32_t> host(100000, 2'000'000'000);
  auto d_in = test::upload<std::int32_t>(host);
  const std::size_t bytes = reduce_sum_temp_bytes<std::int32_t>(host.size());
  auto temp = zeroed_temp(bytes);
  DeviceBuffer<std::int32_t> out(1);
  reduce_sum(d_in.data(), host.size(), out.data(), temp.data(), bytes);
  EXPECT_EQ(read_back(out.data()), reduce_reference<std::int32_t>(host).value);
}

TEST(ReduceSum, RefusesBadArguments) {
  GPULAB_REQUIRE_GPU();
  const std::size_t n = 1 << 20;
  DeviceBuffer<float> in(n), out(1);
  const std::size_t bytes = reduce_sum_temp_bytes<float>(n);
  auto temp = zeroed_temp(bytes);
  EXPECT_THROW(reduce_sum(in.data(), n, out.data(), temp.data(), bytes - 1), Error);
  EXPECT_THROW(reduce_sum<float>(nullptr, n, out.data(), temp.data(), bytes), Error);
  EXPECT_THROW(reduce_sum(in.data(), n, static_cast<float*>(nullptr), temp.data(), bytes), Error);
  EXPECT_THROW(reduce_sum(in.data(), n, out.data(), nullptr, bytes), Error);
  EXPECT_NO_THROW(reduce_sum<float>(nullptr, 0, out.data(), temp.data(), bytes));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(read_back(out.data()), 0.0f);
}

TEST(ReduceSum, TemporaryStorageIsSmall) {
  GPULAB_REQUIRE_GPU();
  // The partials of one resident grid: a few KiB whatever n is.
  EXPECT_LT(reduce_sum_temp_bytes<double>(std::size_t{1} << 34), std::size_t{64} << 10);
  EXPECT_LE(reduce_sum_temp_bytes<float>(1), reduce_sum_temp_bytes<float>(std::size_t{1} << 30));
}
