// Sums a vector over every GPU of this host through an installed gpulab::nccl (one process, a
// communicator per GPU), and checks every rank's sum on the CPU.
// Exit codes: 0 right, 1 wrong or a CUDA or NCCL error, 3 no CUDA device (as the gpulab CLI).
#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>
#include <gpulab/multi/reduce.hpp>
#include <gpulab/reduce.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

int main() {
  try {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) throw gpulab::NoDeviceError("no CUDA device found");
    const std::size_t n = (1u << 20) + 3;
    std::vector<std::int32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::int32_t>(i % 1000) - 500;

    std::vector<int> devices(static_cast<std::size_t>(gpus));
    std::iota(devices.begin(), devices.end(), 0);
    std::vector<ncclComm_t> comms(devices.size());
    if (ncclCommInitAll(comms.data(), gpus, devices.data()) != ncclSuccess) throw gpulab::Error("ncclCommInitAll failed");

    // Each GPU its rows of the vector (multi::rows_of, the library's split), its temporary storage
    // zero-filled once, its stream; then every rank at once.
    struct Rank {
      std::unique_ptr<gpulab::Stream> stream;
      std::unique_ptr<gpulab::DeviceBuffer<std::int32_t>> shard, sum;
      std::unique_ptr<gpulab::DeviceBuffer<std::byte>> temp;
      std::size_t n = 0;
    };
    std::vector<Rank> ranks(devices.size());
    std::vector<gpulab::multi::ReduceRank<std::int32_t>> args;
    for (int r = 0; r < gpus; ++r) {
      GPULAB_CUDA_CHECK(cudaSetDevice(r));
      Rank& k = ranks[static_cast<std::size_t>(r)];
      const gpulab::multi::Rows rows = gpulab::multi::rows_of(n, r, gpus);
      k.n = rows.end - rows.begin;
      k.stream = std::make_unique<gpulab::Stream>();
      k.shard = std::make_unique<gpulab::DeviceBuffer<std::int32_t>>(k.n);
      k.sum = std::make_unique<gpulab::DeviceBuffer<std::int32_t>>(1);
      k.temp = std::make_unique<gpulab::DeviceBuffer<std::byte>>(gpulab::multi::reduce_sum_temp_bytes<std::int32_t>(k.n, gpus));
      GPULAB_CUDA_CHECK(cudaMemset(k.temp->data(), 0, k.temp->size()));
      GPULAB_CUDA_CHECK(cudaMemcpy(k.shard->data(), values.data() + rows.begin, k.n * sizeof(std::int32_t),
                                   cudaMemcpyHostToDevice));
      args.push_back({r, k.shard->data(), k.n, k.sum->data(), k.temp->data(), k.temp->size(), comms[static_cast<std::size_t>(r)],
                      k.stream->get()});
    }
    gpulab::multi::reduce_sum<std::int32_t>(args);

    bool ok = true;
    const std::int64_t want = std::accumulate(values.begin(), values.end(), std::int64_t{0});
    for (int r = 0; r < gpus; ++r) {
      GPULAB_CUDA_CHECK(cudaSetDevice(r));
      std::int32_t got = 0;
      GPULAB_CUDA_CHECK(cudaMemcpy(&got, ranks[static_cast<std::size_t>(r)].sum->data(), sizeof got, cudaMemcpyDeviceToHost));
      ok = ok && got == static_cast<std::int32_t>(want);
      std::printf("rank %d of %d: sum %d (CPU %lld)\n", r, gpus, got, static_cast<long long>(want));
    }
    ranks.clear();
    for (ncclComm_t c : comms) ncclCommDestroy(c);
    return ok ? 0 : 1;
  } catch (const gpulab::NoDeviceError& e) {
    std::fprintf(stderr, "no CUDA device: %s\n", e.what());
    return 3;
  } catch (const gpulab::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
