// Every rung of the transpose, add and triangle ladders (and the vendor) on awkward shapes and
// pitches, through the harness's checked run: the output poisoned, every element's bits and every
// padding byte compared, a guard band after the buffer. Then the library's contract as a user
// calls it: in place, misaligned data, bad arguments.
#include "gpu_test_support.hpp"

#include "matrix/matrix_device.cuh"
#include "matrix/matrix_problem.hpp"

#include <gpulab/error.hpp>
#include <gpulab/matrix.hpp>

#include <fmt/format.h>

#include <cstring>
#include <tuple>
#include <vector>

using namespace gpulab;

namespace {

/// How a case's rows are laid out: packed, cudaMallocPitch's, or one float of padding (rows
/// 4-byte but not 16-byte aligned, the scalar paths).
enum class Pitch { packed, cuda, odd };

struct Case {
  MatrixOp op;
  std::size_t rung;
  MatrixShape shape;
  Pitch pitch;
  Triangle part = Triangle::upper;
  bool scaled = false;  // add: alpha = 2.5, beta = -0.75
};

std::string_view op_name(MatrixOp op) {
  return op == MatrixOp::transpose ? "transpose" : op == MatrixOp::add ? "add" : "triangle";
}
std::string_view pitch_name(Pitch p) { return p == Pitch::packed ? "packed" : p == Pitch::cuda ? "pitched" : "odd"; }

void PrintTo(const Case& c, std::ostream* os) {
  *os << op_name(c.op) << " " << matrix_rungs(c.op)[c.rung].name << " " << matrix_shape_name(c.shape) << " "
      << pitch_name(c.pitch);
}

MatrixCaseSpec spec_for(const Case& c) {
  MatrixCaseSpec spec = matrix_case_spec(c.op, c.shape, c.pitch == Pitch::cuda ? MatrixLayout::pitched : MatrixLayout::packed);
  if (c.pitch == Pitch::odd) {
    spec.layout = "odd";
    spec.in_pitch = c.shape.cols * sizeof(float) + sizeof(float);
    spec.out_pitch = c.op == MatrixOp::transpose ? c.shape.rows * sizeof(float) + sizeof(float) : spec.in_pitch;
  }
  spec.part = c.part;
  if (c.scaled) {
    spec.alpha = 2.5f;
    spec.beta = -0.75f;
  }
  spec.seed = 3000 + c.shape.rows * 7 + c.shape.cols;
  return spec;
}

BenchCase& case_for(const Case& c) {
  const auto key = std::make_tuple(static_cast<int>(c.op), c.shape.rows, c.shape.cols, static_cast<int>(c.pitch),
                                   static_cast<int>(c.part), c.scaled);
  return test::cached_case(key, [&]() -> std::unique_ptr<BenchCase> {
    return std::make_unique<MatrixCase>(spec_for(c), matrix_rungs(c.op));
  });
}

class MatrixLadder : public ::testing::TestWithParam<Case> {};

TEST_P(MatrixLadder, MatchesReference) { test::expect_rung_passes(case_for(GetParam()), ladder_info(matrix_rungs(GetParam().op)), GetParam().rung); }

std::vector<Case> all_cases() {
  // Around the tiles (32, 64), the triangle's segments (128) and chunks (512, 8192 for one row),
  // thin shapes both ways, primes.
  const std::vector<MatrixShape> shapes{{1, 1},     {1, 7},     {7, 1},      {2, 2},       {31, 33},    {33, 31},
                                        {64, 64},   {65, 63},   {127, 129},  {129, 127},   {1, 1000},   {1000, 1},
                                        {5, 8193},  {15, 700},  {17, 700},   {257, 3},     {3, 257},    {33, 33},
                                        {96, 96},   {1023, 1025}, {1, 100003}, {100003, 1}, {20011, 7},  {200, 4099}};
  std::vector<Case> cases;
  for (MatrixOp op : {MatrixOp::transpose, MatrixOp::add, MatrixOp::triangle})
    for (std::size_t r = 0; r < matrix_rungs(op).size(); ++r)
      for (const MatrixShape& s : shapes)
        for (Pitch p : {Pitch::packed, Pitch::cuda, Pitch::odd}) {
          if (p == Pitch::cuda && (s.rows > 20000 || (op == MatrixOp::transpose && s.cols > 20000)))
            continue;  // a 512-byte pitch for one float a row: 50 MB of padding, nothing new
          if (op == MatrixOp::triangle) {
            cases.push_back({op, r, s, p, Triangle::upper});
            cases.push_back({op, r, s, p, Triangle::lower});
          } else {
            cases.push_back({op, r, s, p});
            if (op == MatrixOp::add) cases.push_back({op, r, s, p, Triangle::upper, true});
          }
        }
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh): every rung and layout on
// shapes that cut every tile.
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = (c.shape == MatrixShape{65, 63} || c.shape == MatrixShape{3, 257} || c.shape == MatrixShape{17, 700}) &&
                     !c.scaled;
  std::string name = fmt::format("{}{}_{}_{}_{}{}{}", small ? "small_" : "", op_name(c.op), matrix_rungs(c.op)[c.rung].name,
                                 matrix_shape_name(c.shape), pitch_name(c.pitch),
                                 c.op == MatrixOp::triangle ? std::string("_") + std::string(triangle_name(c.part)) : "",
                                 c.scaled ? "_scaled" : "");
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, MatrixLadder, ::testing::ValuesIn(all_cases()), case_name);

// ---- the library as a user calls it ------------------------------------------------------------------

/// A host matrix on the device at `offset_floats` past a 256-byte boundary, same pitch.
struct DeviceMatrix {
  DeviceBuffer<std::byte> buffer;
  MatrixView<float> view;
  DeviceMatrix(const HostMatrix& h, std::size_t offset_floats)
      : buffer(h.size_bytes() + offset_floats * sizeof(float)),
        view{reinterpret_cast<float*>(buffer.data()) + offset_floats, h.shape().rows, h.shape().cols, h.pitch_bytes()} {
    GPULAB_CUDA_CHECK(cudaMemcpy(view.data, h.bytes(), h.size_bytes(), cudaMemcpyHostToDevice));
  }
  CheckResult check(const HostMatrix& want) const {
    std::vector<std::byte> got(want.size_bytes());
    GPULAB_CUDA_CHECK(cudaMemcpy(got.data(), view.data, got.size(), cudaMemcpyDeviceToHost));
    return check_matrix_bits(got, want);
  }
};

HostMatrix random_matrix(MatrixShape s, std::size_t pitch, std::uint64_t seed) {
  HostMatrix m(s, pitch);
  fill_matrix_random(m, seed);
  return m;
}

// Data one float past a 16-byte boundary with packed rows a multiple of 16 bytes wide: the pitch
// allows vectors, the address does not; the scalar paths must be taken and be right.
TEST(MatrixLibrary, MisalignedDataTakesTheScalarPaths) {
  const MatrixShape s{300, 256};
  const HostMatrix a = random_matrix(s, s.cols * 4, 1), b = random_matrix(s, s.cols * 4, 2);
  HostMatrix at({s.cols, s.rows}, s.rows * 4), sum(s, s.cols * 4), zeroed = random_matrix(s, s.cols * 4, 1);
  transpose_cpu(a, at, false);
  add_cpu(1.f, a, 1.f, b, sum, false);
  zero_triangle_cpu(zeroed, Triangle::lower, false);
  for (std::size_t offset : {1u, 2u, 3u}) {
    DeviceMatrix da(a, offset), db(b, offset), dt(at, offset), dc(sum, (offset + 1) % 4);
    GPULAB_CUDA_CHECK(cudaMemset(dt.view.data, 0xFF, at.size_bytes()));
    transpose(da.view, dt.view);
    add(1.f, da.view, 1.f, db.view, dc.view);  // c misaligned differently from a and b
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(dt.check(at).ok) << "transpose, offset " << offset << ": " << dt.check(at).detail;
    EXPECT_TRUE(dc.check(sum).ok) << "add, offset " << offset << ": " << dc.check(sum).detail;
    zero_triangle(da.view, Triangle::lower);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(da.check(zeroed).ok) << "zero_triangle, offset " << offset << ": " << da.check(zeroed).detail;
  }
}

/// gpulab::transpose of a random packed rows × cols matrix, a `a_offset` floats and its transpose
/// `b_offset` floats past a 256-byte boundary, against the CPU's (b poisoned first).
void expect_packed_transpose(std::size_t rows, std::size_t cols, std::size_t a_offset, std::size_t b_offset,
                             std::uint64_t seed) {
  const HostMatrix a = random_matrix({rows, cols}, cols * 4, seed);
  HostMatrix at({cols, rows}, rows * 4);
  transpose_cpu(a, at, false);
  DeviceMatrix da(a, a_offset), dt(at, b_offset);
  GPULAB_CUDA_CHECK(cudaMemset(dt.view.data, 0xFF, at.size_bytes()));
  transpose(da.view, dt.view);
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(dt.check(at).ok) << rows << "x" << cols << ", offsets " << a_offset << ", " << b_offset << ": "
                               << dt.check(at).detail;
}

// Packed odd widths whose output takes a quarter of the L2 or more take rung 8 (rows realigned to
// 16 bytes, blocks strip by strip); the ladder tests check that rung on small shapes, this one the
// library's path on a large one, with the data also one float off a boundary.
TEST(MatrixLibrary, LargeOddWidthsTakeTheRealignedPath) {
  int device = 0, l2 = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const std::size_t rows = 4099, cols = static_cast<std::size_t>(l2) / (rows * 4) + 13;  // b just past the L2
  for (std::size_t offset : {0u, 1u}) expect_packed_transpose(rows, cols, offset, offset + 2, 11);
}

// Past 65535 strips of 64 columns (a grid row each, strip by strip) the realigned path keeps the
// tile-row order: a 5 x 4 194 305 packed matrix, b (84 MB) past the L2 of an H100 or H200.
TEST(MatrixLibrary, WideOddMatricesPastTheStripGridTranspose) { expect_packed_transpose(5, 65535 * 64 + 65, 1, 0, 12); }

TEST(MatrixLibrary, AddInPlaceIntoEitherInput) {
  const MatrixShape s{129, 1001};
  const HostMatrix a = random_matrix(s, 4096, 5), b = random_matrix(s, 4096, 6);
  HostMatrix want(s, 4096);
  add_cpu(0.5f, a, 3.f, b, want, false);
  DeviceMatrix da(a, 0), db(b, 0);
  add(0.5f, da.view, 3.f, db.view, da.view);  // c = a
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(da.check(want).ok) << da.check(want).detail;
  DeviceMatrix da2(a, 0), db2(b, 0);
  add(0.5f, da2.view, 3.f, db2.view, db2.view);  // c = b
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(db2.check(want).ok) << db2.check(want).detail;
}

TEST(MatrixLibrary, TransposeInPlaceTwiceIsTheIdentity) {
  for (std::size_t n : {1u, 31u, 32u, 33u, 1000u}) {
    const HostMatrix a = random_matrix({n, n}, n * 4 + 12, n);
    DeviceMatrix d(a, 0);
    transpose(d.view, d.view);
    HostMatrix at({n, n}, n * 4 + 12);
    transpose_cpu(a, at, false);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(d.check(at).ok) << n << ": " << d.check(at).detail;
    transpose(d.view, d.view);
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(d.check(a).ok) << n << ": " << d.check(a).detail;
  }
}

TEST(MatrixLibrary, BadArgumentsThrow) {
  DeviceBuffer<float> buf(64 * 64);
  float* p = buf.data();
  const auto in = [](float* d, std::size_t r, std::size_t c, std::size_t pitch) { return MatrixView<const float>{d, r, c, pitch}; };
  // pitch too small, pitch not a multiple of 4, null data, misaligned data
  EXPECT_THROW(transpose(in(p, 8, 8, 16), MatrixView<float>{p + 1024, 8, 8, 32}), Error);
  EXPECT_THROW(transpose(in(p, 8, 8, 34), MatrixView<float>{p + 1024, 8, 8, 32}), Error);
  EXPECT_THROW(transpose(in(nullptr, 8, 8, 32), MatrixView<float>{p + 1024, 8, 8, 32}), Error);
  EXPECT_THROW(zero_triangle(MatrixView<float>{reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 2), 8, 8, 32},
                             Triangle::upper),
               Error);
  // wrong output shape; overlapping output; an in-place transpose that is not the same matrix
  EXPECT_THROW(transpose(in(p, 8, 16, 64), MatrixView<float>{p + 1024, 8, 16, 64}), Error);
  EXPECT_THROW(transpose(in(p, 8, 8, 32), MatrixView<float>{p + 4, 8, 8, 32}), Error);
  EXPECT_THROW(add(1.f, in(p, 8, 8, 32), 1.f, in(p + 1024, 8, 8, 32), MatrixView<float>{p + 2048, 8, 9, 36}), Error);
  EXPECT_THROW(add(1.f, in(p, 8, 8, 32), 1.f, in(p + 1024, 8, 8, 32), MatrixView<float>{p + 1, 8, 8, 32}), Error);
  EXPECT_THROW(zero_triangle(MatrixView<float>{p, 8, 8, 32}, static_cast<Triangle>(7)), Error);
  // empty matrices do nothing, null data included
  EXPECT_NO_THROW(transpose(in(nullptr, 0, 5, 20), MatrixView<float>{nullptr, 5, 0, 0}));
  EXPECT_NO_THROW(add(1.f, in(nullptr, 3, 0, 0), 1.f, in(nullptr, 3, 0, 0), MatrixView<float>{nullptr, 3, 0, 0}));
  EXPECT_NO_THROW(zero_triangle(MatrixView<float>{nullptr, 0, 0, 0}, Triangle::lower));
}

// A transpose issued on a stream right after an asynchronous write of its input on that stream
// sees the written data: the library runs on the stream it is given.
TEST(MatrixLibrary, RunsOnTheCallersStream) {
  const MatrixShape s{2000, 1999};
  const HostMatrix a = random_matrix(s, s.cols * 4, 8);
  HostMatrix zeros_t({s.cols, s.rows}, s.rows * 4);
  for (std::size_t i = 0; i < s.cols; ++i) std::fill(zeros_t.row(i), zeros_t.row(i) + s.rows, 0.f);
  Stream stream;
  DeviceMatrix d(a, 0), t(zeros_t, 0);
  GPULAB_CUDA_CHECK(cudaMemsetAsync(t.view.data, 0xFF, zeros_t.size_bytes(), stream.get()));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(d.view.data, 0, a.size_bytes(), stream.get()));
  transpose(d.view, t.view, stream.get());
  stream.synchronize();
  EXPECT_TRUE(t.check(zeros_t).ok) << t.check(zeros_t).detail;
}

}  // namespace
