#include "matrix/matrix_problem.hpp"

#include "core/cli_options.hpp"
#include "core/sizes.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace gpulab {

namespace {

/// The pitch cudaMallocPitch gives rows of `width_bytes` on the current device.
std::size_t cuda_malloc_pitch(std::size_t width_bytes) {
  void* p = nullptr;
  std::size_t pitch = 0;
  GPULAB_CUDA_CHECK(cudaMallocPitch(&p, &pitch, std::max<std::size_t>(width_bytes, 1), 1));
  GPULAB_CUDA_CHECK(cudaFree(p));
  return pitch;
}

std::size_t pitch_of(MatrixLayout layout, std::size_t cols) {
  return layout == MatrixLayout::packed ? cols * sizeof(float) : cuda_malloc_pitch(cols * sizeof(float));
}

}  // namespace

MatrixCaseSpec matrix_case_spec(MatrixOp op, MatrixShape shape, MatrixLayout layout) {
  MatrixCaseSpec spec;
  spec.op = op;
  spec.shape = shape;
  spec.layout = layout == MatrixLayout::packed ? "packed" : "pitched";
  spec.in_pitch = pitch_of(layout, shape.cols);
  spec.out_pitch = op == MatrixOp::transpose ? pitch_of(layout, shape.rows) : spec.in_pitch;
  return spec;
}

std::span<const MatrixRung> matrix_rungs(MatrixOp op) {
  switch (op) {
    case MatrixOp::transpose: return transpose_rungs();
    case MatrixOp::add: return add_rungs();
    case MatrixOp::triangle: return triangle_rungs();
  }
  return {};
}

MatrixCase::MatrixCase(MatrixCaseSpec spec, std::span<const MatrixRung> table)
    : spec_(spec), table_(table), a_(spec.shape, spec.in_pitch, true) {
  if (spec.op == MatrixOp::triangle && spec.out_pitch != spec.in_pitch)
    throw Error("triangle zeroing works in place: one pitch for input and output");
  fill_matrix_random(a_, spec.seed);
  if (spec.op == MatrixOp::add) {
    b_ = HostMatrix(spec.shape, spec.in_pitch, true);
    fill_matrix_random(b_, spec.seed + 1);
  }
}

MatrixShape MatrixCase::out_shape() const {
  return spec_.op == MatrixOp::transpose ? MatrixShape{spec_.shape.cols, spec_.shape.rows} : spec_.shape;
}

std::vector<std::pair<std::string, std::string>> MatrixCase::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"shape", matrix_shape_name(spec_.shape)},
                                                     {"layout", spec_.layout}};
  if (spec_.layout != "packed" || spec_.in_pitch != spec_.shape.cols * sizeof(float))
    p.emplace_back("pitch", spec_.op == MatrixOp::transpose ? fmt::format("{}/{}", spec_.in_pitch, spec_.out_pitch)
                                                            : std::to_string(spec_.in_pitch));
  if (spec_.op == MatrixOp::add && (spec_.alpha != 1.f || spec_.beta != 1.f)) {
    p.emplace_back("alpha", fmt::format("{}", spec_.alpha));
    p.emplace_back("beta", fmt::format("{}", spec_.beta));
  }
  if (spec_.op == MatrixOp::triangle) p.emplace_back("part", std::string(triangle_name(spec_.part)));
  return p;
}

Work MatrixCase::work() const {
  const double matrix = static_cast<double>(spec_.shape.elements()) * sizeof(float);
  const std::size_t buffers = a_.size_bytes() + b_.size_bytes() + out_shape().rows * spec_.out_pitch;
  switch (spec_.op) {
    case MatrixOp::transpose: return {2 * matrix, 0.0, CeilingKind::copy, buffers};
    // Two streams read, one written: STREAM's add is the ceiling (a copy's 1:1 mix is slower).
    case MatrixOp::add: return {3 * matrix, 0.0, CeilingKind::add, buffers};
    case MatrixOp::triangle: {
      // The floor: the zeroed triangle written, nothing read.
      double zeroed = 0;
      for (std::size_t i = 0; i < spec_.shape.rows; ++i) {
        const std::size_t first = spec_.part == Triangle::upper ? std::min(i + 1, spec_.shape.cols) : 0;
        const std::size_t last = spec_.part == Triangle::upper ? spec_.shape.cols : std::min(i, spec_.shape.cols);
        zeroed += static_cast<double>(last - first);
      }
      return {zeroed * sizeof(float), 0.0, CeilingKind::write, a_.size_bytes()};
    }
  }
  return {};
}

std::vector<InputArray> MatrixCase::inputs() const {
  std::vector<InputArray> in{{a_.bytes(), a_.size_bytes(), 0}};
  if (spec_.op == MatrixOp::add) in.push_back({b_.bytes(), b_.size_bytes(), 0});
  return in;
}

std::vector<OutputArray> MatrixCase::outputs() const {
  return {{out_shape().rows * spec_.out_pitch, kPaddingByte}};
}

void MatrixCase::compute(HostMatrix& out, bool parallel) const {
  if (out.size_bytes() == 0 || out.shape() != out_shape()) out = HostMatrix(out_shape(), spec_.out_pitch);
  switch (spec_.op) {
    case MatrixOp::transpose: transpose_cpu(a_, out, parallel); break;
    case MatrixOp::add: add_cpu(spec_.alpha, a_, spec_.beta, b_, out, parallel); break;
    case MatrixOp::triangle:
      out.copy_from(a_);
      zero_triangle_cpu(out, spec_.part, parallel);
      break;
  }
}

void MatrixCase::compute_reference() { compute(ref_, false); }
void MatrixCase::run_baseline() { compute(baseline_, true); }
CheckResult MatrixCase::check_baseline() const {
  return check_matrix_bits({baseline_.bytes(), baseline_.size_bytes()}, ref_);
}

std::optional<std::string> MatrixCase::unsupported(std::size_t rung) const {
  if (spec_.op == MatrixOp::transpose && table_[rung].in_place &&
      (spec_.shape.rows != spec_.shape.cols || spec_.in_pitch != spec_.out_pitch))
    return "in-place transposition needs a square matrix";
  return std::nullopt;
}

void MatrixCase::launch(std::size_t rung, const Arrays& arrays, Workspace, cudaStream_t stream) const {
  MatrixArgs args;
  args.a = {arrays.input<float>(0), spec_.shape.rows, spec_.shape.cols, spec_.in_pitch};
  if (spec_.op == MatrixOp::add) args.b = {arrays.input<float>(1), spec_.shape.rows, spec_.shape.cols, spec_.in_pitch};
  args.out = {arrays.output<float>(0), out_shape().rows, out_shape().cols, spec_.out_pitch};
  args.alpha = spec_.alpha;
  args.beta = spec_.beta;
  args.part = spec_.part;
  table_[rung].run(args, stream);
}

CheckResult MatrixCase::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  // The vendor's rounding of alpha·a + beta·b is its own: two roundings allowed (the bits of
  // every other rung, and of geam's transpose, must match).
  if (spec_.op == MatrixOp::add && table_[rung].role == Role::vendor)
    return check_add_within_rounding(outputs[0], spec_.alpha, a_, spec_.beta, b_);
  return check_matrix_bits(outputs[0], ref_);
}

namespace {

struct OpText {
  std::string_view name, summary, semantics;
};

OpText op_text(MatrixOp op) {
  switch (op) {
    case MatrixOp::transpose:
      return {"transpose", "B = A^T, A rows x cols float32 row-major, packed or pitched",
              "B's bits equal A's transposed; padding between rows never written"};
    case MatrixOp::add:
      return {"add", "C = alpha A + beta B, float32 row-major matrices, packed or pitched",
              "each element is fma(alpha, a, beta*b) rounded once, bit for bit (the vendor: within 2 roundings); padding "
              "never written"};
    case MatrixOp::triangle:
      return {"triangle", "zero the elements above (or below) the main diagonal, in place",
              "the triangle's elements are +0.0, every other element keeps its bits; padding never written"};
  }
  return {};
}

std::vector<MatrixShape> parse_shapes(std::string_view problem, const std::string& text) {
  return parse_list(problem, "shapes", text, parse_matrix_shape, "a shape like 16383x16385 (rows x cols, each 1 to 2^31-1)");
}

std::vector<MatrixLayout> parse_layouts(const std::string& text) {
  if (text == "all") return {MatrixLayout::packed, MatrixLayout::pitched};
  std::vector<MatrixLayout> layouts;
  for (const auto& w : split_commas(text)) layouts.push_back(w == "pitched" ? MatrixLayout::pitched : MatrixLayout::packed);
  return layouts;
}

std::vector<Triangle> parse_parts(const std::string& text) {
  if (text == "all") return {Triangle::upper, Triangle::lower};
  std::vector<Triangle> parts;
  for (const auto& w : split_commas(text)) parts.push_back(w == "lower" ? Triangle::lower : Triangle::upper);
  return parts;
}

class MatrixProblem final : public Problem {
 public:
  explicit MatrixProblem(MatrixOp op) : op_(op), text_(op_text(op)) {}

  std::string_view name() const override { return text_.name; }
  std::string_view summary() const override { return text_.summary; }
  std::string_view semantics() const override { return text_.semantics; }
  std::vector<RungInfo> ladder() const override { return ladder_info(matrix_rungs(op_)); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-s,--shapes", shapes_, "ROWSxCOLS list, sides as sizes (16383x16385, 1x2^26)")->capture_default_str();
    cmd.add_option("--layout", layouts_, "packed (rows cols*4 bytes apart), pitched (cudaMallocPitch's rows) or all")
        ->check(word_list_validator("layouts", "packed, pitched",
                                    [](const std::string& w) { return w == "packed" || w == "pitched"; }, "LAYOUTS"))
        ->capture_default_str();
    if (op_ == MatrixOp::add) {
      cmd.add_option("--alpha", alpha_, "C = alpha A + beta B")->capture_default_str();
      cmd.add_option("--beta", beta_, "C = alpha A + beta B")->capture_default_str();
    }
    if (op_ == MatrixOp::triangle)
      cmd.add_option("--part", parts_, "upper (j > i zeroed), lower (j < i) or all")
          ->check(word_list_validator("parts", "upper, lower",
                                      [](const std::string& w) { return w == "upper" || w == "lower"; }, "PARTS"))
          ->capture_default_str();
  }

  void validate() const override { parse_shapes(name(), shapes_); }

  int default_reps() const override { return 30; }

  std::size_t case_count() const override {
    const std::size_t parts = op_ == MatrixOp::triangle ? parse_parts(parts_).size() : 1;
    return parse_layouts(layouts_).size() * parse_shapes(name(), shapes_).size() * parts;
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    const auto parts = op_ == MatrixOp::triangle ? parse_parts(parts_) : std::vector<Triangle>{Triangle::upper};
    for (MatrixLayout layout : parse_layouts(layouts_))
      for (const MatrixShape& shape : parse_shapes(name(), shapes_))
        for (Triangle part : parts) {
          MatrixCaseSpec spec = matrix_case_spec(op_, shape, layout);
          spec.alpha = alpha_;
          spec.beta = beta_;
          spec.part = part;
          spec.seed = seed;
          MatrixCase c(spec, matrix_rungs(op_));
          run(c);
        }
  }

  std::vector<std::string> sanitize_args() const override {
    std::vector<std::string> args{"-s", "1x1,17x33,1x1000,1000x1,129x67", "--layout", "packed,pitched"};
    if (op_ == MatrixOp::triangle) args.insert(args.end(), {"--part", "upper,lower"});
    return args;
  }

  std::vector<Showcase> showcase() const override {
    const std::string n(name());
    // Vectors (1 x 2^26, 2^26 x 1) run packed only: cudaMallocPitch gives a one-float row 512
    // bytes, so a pitched 2^26 x 1 matrix takes 32 GiB for 256 MB of values.
    std::vector<Showcase> runs{
        {n + "_square", n + ": square matrices, packed and pitched",
         {"bench", n, "--shapes", "4096x4096,16384x16384,32768x32768", "--layout", "all", "--no-cpu", "--reps", "20"}},
        {n + "_awkward", n + ": awkward shapes, packed and pitched",
         {"bench", n, "--shapes", "16383x16385,100000x7", "--layout", "all", "--no-cpu"}},
        {n + "_vectors", n + ": a row and a column of 2^26, packed",
         {"bench", n, "--shapes", "1x2^26,2^26x1", "--layout", "packed", "--no-cpu"}},
    };
    if (op_ == MatrixOp::triangle)
      runs.push_back({n + "_lower", n + ": the lower triangle, square and awkward shapes, packed",
                      {"bench", n, "--part", "lower", "--shapes", "16384x16384,16383x16385,1x2^26,2^26x1,100000x7",
                       "--layout", "packed", "--no-cpu"}});
    runs.push_back({"profile_" + n, n + ": every rung under Nsight Compute, 4096 x 4096 packed",
                    {"profile", n, "-s", "4096x4096", "--layout", "packed"}, true, ShowcasePart::profiles});
    if (op_ == MatrixOp::transpose) {
      runs.push_back({"profile_transpose_tiles", "transpose: the tiles' bank conflicts and bytes at 16384², and rungs 6-8 on packed odd widths",
                      {"profile", n, "-s", "16384x16384,16383x16385", "--layout", "packed", "--variants",
                       "tile,tile_padded,tile_vector_4x4,tile_realigned,tile_realigned_strips"},
                      true, ShowcasePart::profiles});
      runs.push_back({"peers_matrix", "transpose, add, triangle: what users call instead (PyTorch), the same shapes", {"src/matrix/peers.py"},
                      true, ShowcasePart::peers});
    }
    return runs;
  }

 private:
  MatrixOp op_;
  OpText text_;
  std::string shapes_ = "4096x4096,16384x16384,16383x16385,100000x7";
  std::string layouts_ = "packed,pitched";
  std::string parts_ = "upper";
  float alpha_ = 1.f, beta_ = 1.f;
};

}  // namespace

std::unique_ptr<Problem> make_matrix_problem(MatrixOp op) { return std::make_unique<MatrixProblem>(op); }

}  // namespace gpulab
