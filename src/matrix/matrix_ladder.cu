// The matrix ladders' tables (see matrix_ladder.hpp): launchers for the rungs of
// matrix_kernels.cuh, the library's paths (matrix.cu) and the vendor baselines.
#include "core/cublas_handle.hpp"
#include "lib/arith.hpp"
#include "lib/launch.cuh"
#include "lib/launch_limits.hpp"
#include "matrix/matrix_kernels.cuh"
#include "matrix/matrix_ladder.hpp"
#include "matrix/matrix_paths.hpp"

#include <gpulab/error.hpp>
#include <gpulab/matrix.hpp>

#include <algorithm>
#include <climits>
#include <string>

namespace gpulab {
namespace {

using namespace matrix_ladder;

/// A 2-D grid of `tile_cols` × `tile_rows` tiles over rows × cols: x across the columns, y across
/// the rows.
dim3 matrix_grid(std::size_t rows, std::size_t cols, std::size_t tile_rows, std::size_t tile_cols) {
  return tile_grid(cols, tile_cols, rows, tile_rows, "matrix");
}

bool empty(const MatrixArgs& m) { return m.out.rows == 0 || m.out.cols == 0; }

// ---- transpose -------------------------------------------------------------------------------------------

void naive_rows(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("transpose_naive_rows", transpose_naive_rows, {matrix_grid(m.a.rows, m.a.cols, 8, 32), dim3(32, 8)}, s, m.a, m.out)
      .work([] { return std::string("a thread per element"); });
}
void naive_cols(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("transpose_naive_cols", transpose_naive_cols, {matrix_grid(m.a.cols, m.a.rows, 8, 32), dim3(32, 8)}, s, m.a, m.out)
      .work([] { return std::string("a thread per element"); });
}
template <unsigned kPad>
void tile(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch(kPad == 0 ? "transpose_tile" : "transpose_tile_padded", transpose_tile<kPad>,
         {matrix_grid(m.a.rows, m.a.cols, 32, 32), dim3(32, 32)}, s, m.a, m.out, ceil_div(m.a.rows, 32))
      .work([] { return std::string("a 32x32 tile, a thread per element"); });
}
void tile_4_per_thread(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("transpose_tile_4_per_thread", transpose_tile_4_per_thread, {matrix_grid(m.a.rows, m.a.cols, 32, 32), dim3(32, 8)},
         s, m.a, m.out, ceil_div(m.a.rows, 32))
      .work([] { return std::string("a 32x32 tile, 4 elements per thread"); });
}
void tiled_vectors(const MatrixArgs& m, cudaStream_t s) { matrix_detail::transpose_tiled(m.a, m.out, s); }
void realigned(const MatrixArgs& m, cudaStream_t s) { matrix_detail::transpose_realigned_tiles(m.a, m.out, s, false); }
void realigned_strips(const MatrixArgs& m, cudaStream_t s) { matrix_detail::transpose_realigned_tiles(m.a, m.out, s, true); }
void in_place(const MatrixArgs& m, cudaStream_t s) {
  transpose(m.out, m.out, s);
}
void library_transpose(const MatrixArgs& m, cudaStream_t s) { transpose(m.a, m.out, s); }

/// cuBLAS is column-major: row-major a (rows × cols, pitch p) is column-major aᶜ (cols × rows,
/// ld = p/4), and row-major b = aᵀ is column-major bᶜ = (aᶜ)ᵀ, rows × cols.
int blas_dim(std::size_t x, const char* what) {
  if (x > INT_MAX) throw Error(std::string("cuBLAS takes int sizes: ") + what + " = " + std::to_string(x));
  return static_cast<int>(x);
}
int blas_ld(MatrixView<const float> v) { return std::max(1, blas_dim(v.pitch_bytes / sizeof(float), "leading dimension")); }

void geam_transpose(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  const float one = 1.f, zero = 0.f;
  // beta = 0: b is not read; cuBLAS allows c as b with no transpose (its in-place form).
  check_cublas(cublasSgeam(cublas_on(s), CUBLAS_OP_T, CUBLAS_OP_N, blas_dim(m.a.rows, "rows"), blas_dim(m.a.cols, "cols"),
                           &one, m.a.data, blas_ld(m.a), &zero, m.out.data, blas_ld(m.out), m.out.data, blas_ld(m.out)),
               "cublasSgeam (transpose)");
}

// ---- add -------------------------------------------------------------------------------------------------

void add_per_element(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("add_thread_per_element", add_thread_per_element, {matrix_grid(m.out.rows, m.out.cols, 8, 32), dim3(32, 8)}, s,
         m.alpha, m.a, m.beta, m.b, m.out)
      .work([] { return std::string("a thread per element"); });
}
void add_rows(const MatrixArgs& m, cudaStream_t s) { matrix_detail::add_by_rows(m.alpha, m.a, m.beta, m.b, m.out, s); }
void library_add(const MatrixArgs& m, cudaStream_t s) { add(m.alpha, m.a, m.beta, m.b, m.out, s); }
void geam_add(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  check_cublas(cublasSgeam(cublas_on(s), CUBLAS_OP_N, CUBLAS_OP_N, blas_dim(m.out.cols, "cols"),
                           blas_dim(m.out.rows, "rows"), &m.alpha, m.a.data, blas_ld(m.a), &m.beta, m.b.data,
                           blas_ld(m.b), m.out.data, blas_ld(m.out)),
               "cublasSgeam (add)");
}

// ---- triangle zeroing ------------------------------------------------------------------------------------

void read_write_all(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("zero_read_write_all", zero_read_write_all, {matrix_grid(m.out.rows, m.out.cols, 8, 32), dim3(32, 8)}, s, m.out,
         m.part)
      .work([] { return std::string("a thread per element"); });
}
void test_per_element(const MatrixArgs& m, cudaStream_t s) {
  if (empty(m)) return;
  launch("zero_test_per_element", zero_test_per_element, {matrix_grid(m.out.rows, m.out.cols, 8, 32), dim3(32, 8)}, s,
         m.out, m.part)
      .work([] { return std::string("a thread per element"); });
}
void library_zero(const MatrixArgs& m, cudaStream_t s) { zero_triangle(m.out, m.part, s); }

constexpr MatrixRung row(std::string_view name, std::string_view adds, std::string_view claims,
                         void (*run)(const MatrixArgs&, cudaStream_t), Role role = Role::rung, bool in_place = false) {
  return {{name, adds, role, false, false, claims}, {run, in_place}};
}

// Read top to bottom: rungs in matrix_kernels.cuh, the library's paths in matrix.cu. Each line: name,
// what it adds, the counters that says it changes (`gpulab profile`), launcher, role, in place.
constexpr MatrixRung kTranspose[] = {
    row("naive_rows", "a thread per element: reads coalesced, writes a row apart", "load_sectors store_sectors", naive_rows),
    row("naive_cols", "the reverse: writes coalesced, reads a row apart", "load_sectors store_sectors", naive_cols),
    row("tile", "a 32x32 tile through shared memory: both sides coalesced; the column read conflicts 32-way", "load_sectors store_sectors bank_conflicts", tile<0>),
    row("tile_padded", "a 33rd column in the tile: no bank conflicts", "bank_conflicts", tile<1>),
    row("tile_4_per_thread", "32x8 threads, 4 elements each: 4 loads in flight, a quarter of the threads", "instructions dram", tile_4_per_thread),
    row("tile_vector_4x4", "64x64 tiles, 4x4 per thread transposed in registers, 16-byte accesses both sides, swizzled tile", "load_sectors store_sectors instructions dram",
        tiled_vectors),
    row("tile_realigned", "unaligned rows (packed odd widths): b's rows stored as 16-byte vectors on their own boundaries, a 4-row halo of a", "store_sectors instructions dram",
        realigned),
    row("tile_realigned_strips", "rung 7 launched strip by strip: consecutive blocks go down one strip of a, so a wave writes whole rows of b, not 256 bytes of every row", "dram",
        realigned_strips),
    row("library", "gpulab::transpose: rung 6, or rung 8 where b's rows are unaligned and b takes a quarter of the L2 or more; vectors (1xN, Nx1) as copies", "dram", library_transpose, Role::library),
    row("in_place_square", "gpulab::transpose in place: tile pairs swapped through shared memory (square only)", "dram_bytes dram", in_place,
        Role::rung, true),
    row("cublasSgeam", "the vendor library (cuBLAS geam, op(A) = A^T)", "dram", geam_transpose, Role::vendor),
};

constexpr MatrixRung kAdd[] = {
    row("thread_per_element", "a thread per element on a 2-D grid of 32x8 blocks", "dram", add_per_element),
    row("rows_vector", "a resident grid, a warp per row, 16-byte accesses when every row is 16-byte aligned", "load_sectors store_sectors", add_rows),
    row("library", "gpulab::add: a full grid, a vector per thread (6% faster than resident); packed matrices as one vector", "dram",
        library_add, Role::library),
    row("cublasSgeam", "the vendor library (cuBLAS geam)", "dram", geam_add, Role::vendor),
};

constexpr MatrixRung kTriangle[] = {
    row("read_write_all", "a thread per element reads and writes it back, zero where j > i (as torch.triu_)", "dram_bytes",
        read_write_all, Role::rung, true),
    row("write_triangle", "a thread per element, only the triangle written, nothing read", "dram_bytes", test_per_element, Role::rung,
        true),
    row("library", "gpulab::zero_triangle: blocks only over the triangle, 16-byte stores off the diagonal", "store_sectors dram_bytes", library_zero,
        Role::library, true),
};

}  // namespace

std::span<const MatrixRung> transpose_rungs() { return kTranspose; }
std::span<const MatrixRung> add_rungs() { return kAdd; }
std::span<const MatrixRung> triangle_rungs() { return kTriangle; }

}  // namespace gpulab
