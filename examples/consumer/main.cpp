// Sums and counts a vector on the GPU through an installed gpulab, and checks both on the CPU.
// Exit codes: 0 right, 1 wrong or a CUDA error, 3 no CUDA device (as the gpulab CLI).
#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/histogram.hpp>
#include <gpulab/reduce.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  try {
    const std::size_t n = (1u << 20) + 3;  // not a multiple of any block size
    const std::uint32_t bins = 10;
    std::vector<std::int32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::int32_t>(i % 1000) - 500;

    gpulab::DeviceBuffer<std::int32_t> d_values(n);
    GPULAB_CUDA_CHECK(cudaMemcpy(d_values.data(), values.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));

    // The sum: temporary storage zero-filled once, then reusable by every later call.
    const std::size_t temp_bytes = gpulab::reduce_sum_temp_bytes<std::int32_t>(n);
    gpulab::DeviceBuffer<std::byte> temp(temp_bytes);
    GPULAB_CUDA_CHECK(cudaMemset(temp.data(), 0, temp_bytes));
    gpulab::DeviceBuffer<std::int32_t> d_sum(1);
    gpulab::reduce_sum(d_values.data(), n, d_sum.data(), temp.data(), temp_bytes);

    gpulab::DeviceBuffer<std::uint32_t> d_counts(bins);
    gpulab::histogram(d_values.data(), n, bins, d_counts.data());

    std::int32_t sum = 0;
    std::vector<std::uint32_t> counts(bins);
    GPULAB_CUDA_CHECK(cudaMemcpy(&sum, d_sum.data(), sizeof sum, cudaMemcpyDeviceToHost));
    GPULAB_CUDA_CHECK(cudaMemcpy(counts.data(), d_counts.data(), bins * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));

    std::int64_t want_sum = 0;
    std::vector<std::uint32_t> want_counts(bins);
    for (std::int32_t v : values) {
      want_sum += v;
      ++want_counts[static_cast<std::uint32_t>(((v % 10) + 10) % 10)];
    }
    const bool ok = sum == static_cast<std::int32_t>(want_sum) && counts == want_counts;
    std::printf("sum of %zu values: %d (CPU %lld); histogram in %u bins: %s\n", n, sum,
                static_cast<long long>(want_sum), bins, counts == want_counts ? "matches the CPU" : "WRONG");
    return ok ? 0 : 1;
  } catch (const gpulab::NoDeviceError& e) {
    std::fprintf(stderr, "no CUDA device: %s\n", e.what());
    return 3;
  } catch (const gpulab::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
