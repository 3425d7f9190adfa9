// The atax ladder's table (atax_ladder.hpp): launchers for the rungs of atax_kernels.cuh, the
// library's passes and cuBLAS.
#include "atax/atax_kernels.cuh"
#include "atax/atax_ladder.hpp"
#include "atax/atax_paths.hpp"
#include "core/cublas_handle.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"

#include <gpulab/atax.hpp>
#include <gpulab/error.hpp>


#include <algorithm>
#include <string>

namespace gpulab {
namespace {

using namespace atax_ladder;

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::size_t items, unsigned per_block) {
  return static_cast<unsigned>(std::max<std::size_t>(1, (items + per_block - 1) / per_block));
}

std::size_t t_bytes(std::uint32_t rows, std::uint32_t) { return (std::size_t{rows} * sizeof(float) + 255) / 256 * 256; }

struct SeedTiled {
  /// The seed's choice: as few lines a block (at most kSeedLines) as lets the whole grid be
  /// resident at once.
  template <bool kTransposed>
  static void launch_one(const float* a, const float* v, std::uint32_t rows, std::uint32_t cols, float* out, cudaStream_t s,
                     const char* name) {
    const auto kernel = seed_tiled<kTransposed>;
    const std::uint32_t lines = kTransposed ? cols : rows;
    const std::uint32_t resident = std::max(1u, resident_blocks(reinterpret_cast<const void*>(kernel), kSeedThreads));
    const std::uint32_t per_block = std::min(kSeedLines, (lines + resident - 1) / resident);
    const unsigned blocks = blocks_for(lines, per_block);
    launch(name, kernel, {blocks, kSeedThreads}, s, a, v, rows, cols, per_block, out)
        .work([&] { return count_of(per_block, kTransposed ? "column" : "line") + " per block"; });
  }
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t,
                  cudaStream_t s) {
    auto* t = static_cast<float*>(ws);
    launch_one<false>(a, x, rows, cols, t, s, "mult_MatByVec");
    launch_one<true>(a, t, rows, cols, y, s, "mult_TransByVec");
  }
};

struct Naive {
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t,
                  cudaStream_t s) {
    auto* t = static_cast<float*>(ws);
    launch("naive_rows", naive_rows, {blocks_for(rows, kThreads), kThreads}, s, a, x, rows, cols, t)
        .work([] { return count_of(kThreads, "line") + " per block"; });
    launch("naive_cols", naive_cols, {blocks_for(cols, kThreads), kThreads}, s, a, static_cast<const float*>(t), rows, cols, y)
        .work([] { return count_of(kThreads, "column") + " per block"; });
  }
};

struct TwoPass {
  static std::size_t workspace_bytes(std::uint32_t rows, std::uint32_t cols) { return atax_detail::two_pass_temp_bytes(rows, cols); }
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t,
                  cudaStream_t s) {
    atax_detail::two_pass(a, x, rows, cols, y, ws, s);
  }
};

struct FirstFused {
  static std::size_t workspace_bytes(std::uint32_t rows, std::uint32_t cols) { return atax_detail::first_fused_temp_bytes(rows, cols); }
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t,
                  cudaStream_t s) {
    atax_detail::first_fused(a, x, rows, cols, y, ws, s);
  }
};

template <void (*kPass)(const float*, const float*, std::uint32_t, std::uint32_t, float*, void*, std::size_t, cudaStream_t)>
struct FusedPass {
  static std::size_t workspace_bytes(std::uint32_t rows, std::uint32_t cols) { return atax_temp_bytes(rows, cols); }
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws,
                  std::size_t ws_bytes, cudaStream_t s) {
    kPass(a, x, rows, cols, y, ws, ws_bytes, s);
  }
};
using Cooperative = FusedPass<&atax_detail::cooperative_pass>;
using HalfBlocks = FusedPass<&atax_detail::half_blocks>;
using Library = FusedPass<&atax>;


// Row-major A (rows × cols) is column-major Aᶜ (cols × rows, lda = cols): A·x = (Aᶜ)ᵀ·x and
// Aᵀ·t = Aᶜ·t.
struct Cublas {
  static void run(const float* a, const float* x, std::uint32_t rows, std::uint32_t cols, float* y, void* ws, std::size_t,
                  cudaStream_t s) {
    auto* t = static_cast<float*>(ws);
    const float one = 1.f, zero = 0.f;
    const int m = static_cast<int>(cols), n = static_cast<int>(rows);
    cublasHandle_t handle = cublas_on(s);
    check_cublas(cublasSgemv(handle, CUBLAS_OP_T, m, n, &one, a, m, x, 1, &zero, t, 1), "cublasSgemv (A x)");
    check_cublas(cublasSgemv(handle, CUBLAS_OP_N, m, n, &one, a, m, t, 1, &zero, y, 1), "cublasSgemv (A^T t)");
  }
};

template <class Impl, std::size_t (*kWorkspace)(std::uint32_t, std::uint32_t) = t_bytes>
constexpr AtaxRung rung(std::string_view name, std::string_view adds, std::string_view claims, Role role = Role::rung) {
  return {{name, adds, role, false, false, claims}, {kWorkspace, &Impl::run}};
}

// Read top to bottom: rungs 1-2 in atax_kernels.cuh, the library's passes in atax.cu. Each line:
// name, what it adds, the counters that says it changes (`gpulab profile`), role.
constexpr AtaxRung kRungs[] = {
    rung<SeedTiled>("seed_tiled",
        "the seed's mult_MatByVec/mult_TransByVec: x tile in shared memory, tree sum per line, a line per block where the GPU holds the grid", "dram occupancy"),
    rung<Naive>("naive",
        "a thread per row for A*x, a thread per column for A^T*t (no shared memory, no trees)", "load_sectors"),
    rung<TwoPass, TwoPass::workspace_bytes>("coalesced_two_pass",
        "a warp per row; columns split over row chunks, added in order: every load coalesced", "load_sectors dram"),
    rung<FirstFused, FirstFused::workspace_bytes>("fused_single_pass",
        "A read once: t_i and y += t_i a_i from the same registers (cols <= 16384, else two passes); partials added by a 2nd launch", "dram_bytes"),
    rung<Cooperative, Cooperative::workspace_bytes>("fused_cooperative",
        "one cooperative launch, block size by width, rows up to 4 ahead, butterfly dot, 16-byte loads", "dram load_sectors"),
    rung<HalfBlocks, HalfBlocks::workspace_bytes>("half_blocks",
        "rung 5 in 512-thread blocks from 4097 to 10240 columns (16-byte loads): twice the columns a thread, a row's sums, barrier and bounds paid by half the warps; rows two at a time, one barrier for both", "instructions issue"),
    rung<Library, Library::workspace_bytes>("library",
        "gpulab::atax: rung 6 where an SM must take 15 bytes of DRAM a cycle or more (an H200), rung 5 below (an H100: 12.8)", "dram",
        Role::library),
    rung<Cublas>("cublasSgemv x2", "the vendor library (cuBLAS): two matrix-vector products", "dram", Role::vendor),
};

}  // namespace

std::span<const AtaxRung> atax_rungs() { return kRungs; }

}  // namespace gpulab
