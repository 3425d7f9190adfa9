#include "sgemm/sgemm_problem.hpp"

#include "core/cli_options.hpp"
#include "core/random.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"
#include "lib/launch_limits.hpp"
#include "sgemm/sgemm_paths.hpp"

#include <gpulab/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>

namespace gpulab {

SgemmCase::SgemmCase(SgemmInput input, std::uint64_t seed, std::span<const SgemmRung> table, SgemmForm form, std::vector<SgemmInput> more)
    : in_(std::move(input)), seed_(seed), table_(table), form_(form), more_(std::move(more)) {
  for (std::size_t i = 0; i < batch(); ++i) {
    const SgemmInput& in = member(i);
    if (in.shape != in_.shape || in.lda != in_.lda || in.ldb != in_.ldb || in.ldc != in_.ldc)
      throw Error("sgemm: a batch's members have one shape and one padding");
    const SgemmStored stored = stored_operands(in, form_);
    lda_ = stored.lda, ldb_ = stored.ldb;
    a_all_.insert(a_all_.end(), stored.a.begin(), stored.a.end());
    b_all_.insert(b_all_.end(), stored.b.begin(), stored.b.end());
    c_all_.insert(c_all_.end(), in.c.begin(), in.c.end());
  }
}

std::vector<std::pair<std::string, std::string>> SgemmCase::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"shape", sgemm_shape_name(in_.shape)}};
  if (batch() > 1) p.emplace_back("batch", std::to_string(batch()));
  if (form_ != SgemmForm{}) p.emplace_back("form", sgemm_form_name(form_));
  if (in_.lda != in_.shape.k || in_.ldb != in_.shape.n)
    p.emplace_back("ld", fmt::format("{}/{}/{}", in_.lda, in_.ldb, in_.ldc));
  if (in_.exponents > 0) p.emplace_back("exponents", fmt::format("±{}", in_.exponents));
  if (in_.alpha != 1.f || in_.beta != 0.f) {
    p.emplace_back("alpha", fmt::format("{}", in_.alpha));
    p.emplace_back("beta", fmt::format("{}", in_.beta));
  }
  return p;
}

Work SgemmCase::work() const {
  const auto m = static_cast<double>(in_.shape.m), n = static_cast<double>(in_.shape.n), k = static_cast<double>(in_.shape.k);
  const double c_passes = in_.beta != 0.f ? 2.0 : 1.0;  // C read too when beta ≠ 0
  const auto members = static_cast<double>(batch());
  return {members * 4.0 * (m * k + k * n + c_passes * m * n), members * 2.0 * m * n * k, CeilingKind::fma,
          (a_all_.size() + b_all_.size() + c_all_.size()) * sizeof(float)};
}

// beta ≠ 0: C₀ first, so that the harness starts the output as a copy of it.
std::vector<InputArray> SgemmCase::inputs() const {
  std::vector<InputArray> in;
  if (in_.beta != 0.f) in.push_back({c_all_.data(), c_all_.size() * sizeof(float)});
  in.push_back({a_all_.data(), a_all_.size() * sizeof(float)});
  in.push_back({b_all_.data(), b_all_.size() * sizeof(float)});
  return in;
}

std::vector<OutputArray> SgemmCase::outputs() const { return {{c_all_.size() * sizeof(float), 0xFF}}; }  // NaN

std::string SgemmCase::reference_name() const {
  return sgemm_full_reference(in_.shape) ? "double reference (every element)"
             : "double reference (rows, columns, randomized products)";
}

void SgemmCase::compute_reference() {
  refs_.clear();
  for (std::size_t i = 0; i < batch(); ++i) refs_.push_back(sgemm_reference(member(i), seed_));
}
void SgemmCase::run_baseline() {
  baselines_.clear();
  for (std::size_t i = 0; i < batch(); ++i) baselines_.push_back(sgemm_openmp(member(i)));
}

namespace {

/// Every member's check: the first that fails, else the worst error (and the median of the worst's).
template <class CheckMember>
CheckResult check_members(std::size_t members, CheckMember&& check_member) {
  CheckResult all = check_member(0);
  for (std::size_t i = 1; i < members && all.ok; ++i) {
    CheckResult r = check_member(i);
    if (!r.ok) r.detail = "member " + std::to_string(i) + ": " + r.detail;
    if (!r.ok || r.error > all.error) all = r;
  }
  return all;
}

}  // namespace

CheckResult SgemmCase::check_baseline() const {
  return check_members(batch(), [&](std::size_t i) { return check_sgemm(baselines_[i], member(i), refs_[i], SgemmMath::fp32, 2); });
}

std::optional<std::string> SgemmCase::unsupported(std::size_t rung) const {
  if (form_ != SgemmForm{} && !table_[rung].every_form) return "reads A and B as stored only (form NN)";
  if (batch() > 1 && !table_[rung].batches) return "one product at a time (no batch)";
  // The device allocations are 256-byte aligned: only the leading dimensions decide.
  if (table_[rung].needs_aligned_rows && (in_.lda % 4 != 0 || in_.ldb % 4 != 0))
    return "16-byte loads need leading dimensions that are multiples of 4";
  return std::nullopt;
}

void SgemmCase::launch(std::size_t rung, const Arrays& arrays, Workspace, cudaStream_t stream) const {
  const std::size_t first = in_.beta != 0.f ? 1 : 0;
  sgemm_device::GemmArgs g = sgemm_device::gemm_args(in_.shape.m, in_.shape.n, in_.shape.k, in_.alpha, arrays.input<float>(first), lda_,
                                                     arrays.input<float>(first + 1), ldb_, in_.beta, arrays.output<float>(0), in_.ldc);
  g.a_transposed = form_.a_transposed, g.b_transposed = form_.b_transposed;
  g.batch = static_cast<int>(batch());
  g.stride_a = a_all_.size() / batch(), g.stride_b = b_all_.size() / batch(), g.stride_c = c_all_.size() / batch();
  table_[rung].run(g, stream);
}

CheckResult SgemmCase::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  const std::span<const float> c = as<float>(outputs[0]);
  const std::size_t stride = c_all_.size() / batch();
  return check_members(batch(), [&](std::size_t i) { return check_sgemm(c.subspan(i * stride, stride), member(i), refs_[i], table_[rung].math); });
}

namespace {

std::vector<SgemmShape> parse_shapes(const std::string& text) {
  return parse_list("sgemm", "shapes", text, parse_sgemm_shape,
                    "a shape like 5000x3000x700 (M x N x K) or 4097 (a cube); M, N from 1 and K from 0, each below 2^31 - 1024");
}

std::vector<SgemmForm> parse_forms(const std::string& text) {
  return parse_list("sgemm", "forms", text, parse_sgemm_form, "a form: NN, NT, TN or TT (A then B: N as stored, T stored transposed)");
}

class SgemmProblem final : public Problem {
 public:
  std::string_view name() const override { return "sgemm"; }
  std::string_view summary() const override {
    return "C = alpha A B + beta C, float32 row-major, any M, N, K";
  }
  std::string_view semantics() const override {
    return "each checked element within (gamma(K+2) + e_prod) * (|alpha| |A||B| + |beta| |C|) of the double reference";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(sgemm_rungs()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-s,--shapes", shapes_, "MxNxK list, or one side for a cube (4097, 5000x3000x700, 64x64x2^20)")
        ->capture_default_str();
    cmd.add_option("--alpha", alpha_, "C = alpha A B + beta C")->capture_default_str();
    cmd.add_option("--beta", beta_, "C = alpha A B + beta C (0: C is not read)")->capture_default_str();
    cmd.add_option("--exponents", exponents_,
                   "values of A and B scaled by 2^e, e uniform in [-E, E] (a wide exponent range; 0: uniform in [-1, 1))")
        ->check(CLI::Range(0, 60))
        ->capture_default_str();
    cmd.add_option("--pad", pads_, "elements of padding after every row of A, B and C, a list (1: unaligned rows)")
        ->check(size_list_validator())
        ->capture_default_str();
    cmd.add_option("--batch", batch_, "products of a strided batch, each its own inputs (the rungs that take batches: the library and cuBLAS)")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    cmd.add_option("--forms", forms_,
                   "how A and B are stored, a list: NN (as they are), NT (B stored n x k: x w^T), TN (A stored k x m), TT")
        ->capture_default_str();
  }
  void validate() const override {
    parse_shapes(shapes_);
    parse_forms(forms_);
    for (std::size_t pad : size_list(pads_))
      if (pad > 1024) throw UsageError(fmt::format("sgemm: a padding of {} elements is more than 1024", pad));
  }
  int default_reps() const override { return 10; }

  std::size_t case_count() const override {
    return size_list(pads_).size() * parse_shapes(shapes_).size() * parse_forms(forms_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (std::size_t pad : size_list(pads_))
      for (const SgemmShape& shape : parse_shapes(shapes_))
        for (const SgemmForm form : parse_forms(forms_)) {
          std::vector<SgemmInput> more;
          for (int i = 1; i < batch_; ++i) more.push_back(make_sgemm_input(shape, pad, alpha_, beta_, hash64(seed, 1000 + i), exponents_));
          SgemmCase c(make_sgemm_input(shape, pad, alpha_, beta_, seed, exponents_), seed, sgemm_rungs(), form, std::move(more));
          run(c);
        }
  }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    if (size_list(pads_) != std::vector<std::size_t>{0} || beta_ != 0.0f)
      throw UsageError("sgemm --gpus: packed matrices and beta 0 (--pad 0 --beta 0): C is gathered on every rank");
    if (parse_forms(forms_) != std::vector<SgemmForm>{SgemmForm{}} || batch_ != 1)
      throw UsageError("sgemm --gpus: one product, operands as stored (--forms NN --batch 1)");
    for (const SgemmShape& shape : parse_shapes(shapes_))
      run([=, alpha = alpha_](std::size_t scale) {
        return make_sgemm_multi({shape.m * scale, shape.n, shape.k}, alpha, seed);  // rows of A and C
      });
  }

  // 64x64x5000: too few tiles, so the library splits K. Padding 3 makes the leading dimensions of
  // 17x33x65 and 129x65x257 multiples of 4 (16-byte copies) while n and k are not: each row's
  // last vector is partial, and A and B end at their last element (make_sgemm_input). 300x520x203
  // holds whole 128x256 tiles with a ragged k: the staged rung's loop without tests. (The forms'
  // copies go under the tools in tests/test_sgemm_gpu.cpp's small_ tests: with them here racecheck
  // ran past 5 minutes.)
  std::vector<std::string> sanitize_args() const override {
    return {"-s", "1,17x33x65,129x65x257,64x64x5000,300x520x203", "--pad", "0,1,3"};
  }

  std::vector<Showcase> showcase() const override {
    std::vector<Showcase> runs{
        {"sgemm_square", "sgemm: the ladder on cubes", {"bench", "sgemm", "--shapes", "1024,4096,8192", "--no-cpu"}},
        {"sgemm_awkward", "sgemm: shapes that are no multiple of any tile, tall, wide and deep",
         {"bench", "sgemm", "--shapes", "4097,5000x3000x700,64x64x2^20,2^16x64x64,1x4096x4096,4096x1x4096,1000,3000x5000x7",
          "--no-cpu"}},
        {"sgemm_library", "sgemm: the library against cuBLAS on the awkward shapes",
         {"bench", "sgemm", "--shapes", "4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7",
          "--variants", "library,vendor", "--no-cpu", "--reps", "10"}},
        {"sgemm_forms", "sgemm: operands stored transposed (NT: x wT, TN, TT) against cuBLAS's same call, every precision",
         {"bench", "sgemm", "--shapes", "4096,8192,4097", "--forms", "NN,NT,TN,TT", "--variants",
          "library,library_fp32_tensor,library_tf32,cublas_tf32,vendor", "--no-cpu", "--reps", "10"}},
        {"sgemm_batched", "sgemm: a strided batch of 64 products against cublasSgemmStridedBatched",
         {"bench", "sgemm", "--shapes", "512,256,1000x1000x64", "--batch", "64", "--forms", "NN,NT", "--variants",
          "library,library_fp32_tensor,library_tf32,cublas_tf32,vendor", "--reps", "20"}},
        {"sgemm_beta", "sgemm: alpha, beta and unaligned rows",
         {"bench", "sgemm", "--shapes", "1000x999x1001", "--alpha", "0.5", "--beta", "-2", "--pad", "0,1"}},
        {"profile_sgemm", "sgemm: every rung under Nsight Compute, 2048³", {"profile", "sgemm", "-s", "2048"}, true,
         ShowcasePart::profiles},
        {"profile_sgemm_4096", "sgemm: the pipelined and fragments rungs, cuBLAS's kernel and 3xTF32 at 4096³",
         {"profile", "sgemm", "-s", "4096", "--variants", "pipelined,fragments,vendor,tc_3xtf32"}, true, ShowcasePart::profiles},
        {"peers_sgemm", "sgemm: what users call instead (torch.mm, TF32 off and on), the same shapes", {"src/sgemm/peers.py"}, true,
         ShowcasePart::peers},
        {"multi_sgemm_shapes", "sgemm: awkward shapes, resident",
         {"bench", "sgemm", "-s", "4097,5000x3000x700,64x64x2^20", "--placement", "resident"}, true, ShowcasePart::multi_more},
        {"multi_sgemm_weak", "sgemm: weak scaling, 16384 rows of A a GPU",
         {"bench", "sgemm", "-s", "16384", "--placement", "resident", "--weak", "--reps", "5"}, true, ShowcasePart::multi_weak},
    };
    for (auto& s : over_gpus("sgemm", "sgemm: 4096³ and 16384³", {"bench", "sgemm", "-s", "4096,16384", "--reps", "5"})) runs.push_back(s);
    return runs;
  }

 private:
  std::string shapes_ = "1024,4097,5000x3000x700,64x64x2^20,2^16x64x64,1x4096x4096";
  std::string pads_ = "0";
  std::string forms_ = "NN";
  int batch_ = 1;
  float alpha_ = 1.f, beta_ = 0.f;
  int exponents_ = 0;
};

}  // namespace

std::unique_ptr<Problem> make_sgemm_problem() { return std::make_unique<SgemmProblem>(); }

}  // namespace gpulab
