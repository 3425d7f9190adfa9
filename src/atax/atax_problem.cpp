#include "atax/atax_problem.hpp"

#include "atax/atax_tools.hpp"
#include "core/cli_options.hpp"
#include "core/sizes.hpp"
#include "multi/multi_bench.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>

namespace gpulab {

AtaxCase::AtaxCase(AtaxInput input, std::span<const AtaxRung> table) : in_(std::move(input)), table_(table) {}

std::vector<std::pair<std::string, std::string>> AtaxCase::params() const {
  return {{"cols", std::to_string(in_.shape.cols)}, {"rows", std::to_string(in_.shape.rows)}};
}

Work AtaxCase::work() const {
  // A read once, x read, y written.
  const AtaxShape s = in_.shape;
  return {4.0 * (static_cast<double>(s.elements()) + 2.0 * s.cols), 0.0, CeilingKind::read, s.elements() * sizeof(float)};
}

std::vector<InputArray> AtaxCase::inputs() const {
  return {{in_.a.data(), in_.a.size() * sizeof(float)}, {in_.x.data(), in_.x.size() * sizeof(float)}};
}

std::vector<OutputArray> AtaxCase::outputs() const { return {{std::size_t{in_.shape.cols} * sizeof(float), 0xFF}}; }  // a NaN

void AtaxCase::compute_reference() { ref_ = atax_reference(in_); }
void AtaxCase::run_baseline() { baseline_ = atax_openmp(in_); }
CheckResult AtaxCase::check_baseline() const { return check_atax_any_order(baseline_, ref_, in_.shape); }

std::size_t AtaxCase::workspace_bytes(std::size_t rung) const {
  return table_[rung].workspace_bytes(in_.shape.rows, in_.shape.cols);
}

void AtaxCase::launch(std::size_t rung, const Arrays& arrays, Workspace ws, cudaStream_t stream) const {
  table_[rung].run(arrays.input<float>(0), arrays.input<float>(1), in_.shape.rows, in_.shape.cols, arrays.output<float>(0),
                   ws.data, ws.bytes, stream);
}

CheckResult AtaxCase::check(std::size_t, std::span<const std::span<const std::byte>> outputs) const {
  return check_atax_any_order(as<float>(outputs[0]), ref_, in_.shape);
}

std::optional<AtaxShape> parse_atax_shape(std::string_view s) {
  const auto x = s.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view part) -> std::optional<std::uint32_t> {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 1 || v > 0x7FFFFFFFu) return std::nullopt;
    return static_cast<std::uint32_t>(v);
  };
  const auto cols = number(s.substr(0, x)), rows = number(s.substr(x + 1));
  if (!cols || !rows) return std::nullopt;
  return AtaxShape{*cols, *rows};
}

CheckResult check_atax_any_order(std::span<const float> y, const AtaxReference& ref, AtaxShape shape) {
  return check_atax(y, ref, std::size_t{shape.cols} + 1, std::size_t{shape.rows} + 1).result;
}

namespace {

std::vector<AtaxShape> parse_shapes(const std::string& text) {
  return parse_list("atax", "shapes", text, parse_atax_shape, "a shape like 8960x17920 (columns x rows, each 1 to 2^31-1)");
}

class AtaxProblem final : public Problem {
 public:
  std::string_view name() const override { return "atax"; }
  std::string_view summary() const override { return "y = A^T (A x), A rows x cols float32 row-major"; }
  std::string_view semantics() const override {
    return "each y_j within gamma(rows+1)*sum|a_ij*t_i| + gamma(cols+1)*sum|a_ij|*s_i of the double reference";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(atax_rungs()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-s,--shapes", shapes_, "COLSxROWS list (the seed's naming: 512x768 = 512 columns, 768 rows)")
        ->capture_default_str();
  }
  void validate() const override { parse_shapes(shapes_); }
  std::size_t case_count() const override { return parse_shapes(shapes_).size(); }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    for (const AtaxShape& s : parse_shapes(shapes_)) {
      AtaxCase c(make_atax_input(s, seed));
      run(c);
    }
  }

  std::vector<Command> add_commands(CLI::App& app) override {
    auto* atax = app.add_subcommand("atax", "y = A^T(A x) on the atax lab's binary files: gen, run, check");
    atax->require_subcommand(1, 1);
    auto* gen = atax->add_subcommand("gen", "write a file of random values in [-1, 1) (streamed: any size)");
    gen->add_option("COLS", gen_cols_, "columns (the width; entries of x and y)")->required();
    gen->add_option("ROWS", gen_rows_, "rows (the height)")->required();
    gen->add_option("-o,--output", gen_out_, "file to write (default: atax-COLSxROWS.bin)");
    gen->add_option("--seed", gen_seed_, "seed of the random values")->capture_default_str();
    auto* run = atax->add_subcommand("run", "load a file, compute y on the GPU, print each launch and its time, write the result");
    run->add_option("FILE", run_input_, "the input file")->required();
    run->add_option("-o,--output", run_output_, "result file (default: FILE with -out.bin)");
    run->add_option("--variant", run_variant_, "rung number or name, library or vendor (see `gpulab list`)")->capture_default_str();
    run->add_option("--reps", run_reps_, "timed repetitions (median reported)")->check(CLI::Range(1, 10000))->capture_default_str();
    auto* check = atax->add_subcommand("check", "recompute y serially and compare with a result file");
    check->add_option("FILE", check_input_, "the input file (matrix and vector)")->required();
    check->add_option("OUT", check_result_, "the result file to check")->required();
    return {
        {gen, false, [this](const CommandContext& ctx) {
           try {
             validate_atax_shape(gen_cols_, gen_rows_);
           } catch (const Error& e) {
             throw UsageError(e.what());
           }
           const AtaxShape shape{static_cast<std::uint32_t>(gen_cols_), static_cast<std::uint32_t>(gen_rows_)};
           return atax_gen(shape, gen_out_.empty() ? fmt::format("atax-{}x{}.bin", gen_cols_, gen_rows_) : gen_out_, gen_seed_,
                           ctx.out);
         }},
        {run, true, [this](const CommandContext& ctx) {
           const std::size_t rung = find_rung(ladder(), run_variant_, "atax");
           return atax_run(run_input_, run_output_, rung, run_reps_, *ctx.device, ctx.out);
         }},
        {check, false, [this](const CommandContext& ctx) { return atax_check(check_input_, check_result_, ctx.out); }},
    };
  }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    for (const AtaxShape& s : parse_shapes(shapes_))
      run([=](std::size_t scale) {  // rows of A
        const std::uint64_t rows = std::uint64_t{s.rows} * scale;
        if (rows > UINT32_MAX) throw UsageError(fmt::format("atax --gpus: {} rows of A in all; at most 2^32 - 1", rows));
        return make_atax_multi({s.cols, static_cast<std::uint32_t>(rows)}, seed);
      });
  }

  // 16385 columns: the fused rungs' two-pass fallback.
  std::vector<std::string> sanitize_args() const override { return {"-s", "1x1,33x17,1001x1000,4100x9,16385x5"}; }  // 4100: rung 6's blocks

  std::vector<Showcase> showcase() const override {
    std::vector<Showcase> runs;
    const char* shapes[][2] = {{"512", "768"}, {"1664", "1792"}, {"1024", "1024"}, {"8960", "17920"}, {"12288", "1024"}, {"1024", "12288"}};
    for (const auto& s : shapes) {
      const std::string tag = fmt::format("{}x{}", s[0], s[1]);
      runs.push_back({"gen " + tag, "seed 004's run " + tag + " through gen / run / check",
                      {"atax", "gen", s[0], s[1], "-o", "{tmp}/a.bin"}, false});
      runs.push_back({"run " + tag, "", {"atax", "run", "{tmp}/a.bin", "-o", "{tmp}/y.bin"}, false});
      runs.push_back({"check " + tag, "", {"atax", "check", "{tmp}/a.bin", "{tmp}/y.bin"}, false});
    }
    runs.push_back({"run 512x768 seed_tiled", "the seed's own kernels, as its program ran them",
                    {"atax", "gen", "512", "768", "-o", "{tmp}/a.bin"}, false});
    runs.push_back({"run seed_tiled", "", {"atax", "run", "{tmp}/a.bin", "--variant", "seed_tiled", "-o", "{tmp}/y1.bin"}, false});
    runs.push_back({"check seed_tiled", "", {"atax", "check", "{tmp}/a.bin", "{tmp}/y1.bin"}, false});
    runs.push_back({"atax", "the atax ladder on the seed's shapes", {"bench", "atax"}});
    runs.push_back({"profile_atax", "atax: every rung under Nsight Compute, 4096 x 4096", {"profile", "atax", "-s", "4096x4096"}, true,
                    ShowcasePart::profiles});
    for (auto& s : over_gpus("atax", "atax: 1024² and 45000² (8 GB)", {"bench", "atax", "-s", "1024x1024,45000x45000", "--reps", "10"}))
      runs.push_back(s);
    runs.push_back({"multi_atax_weak", "atax: weak scaling, 45000² a GPU",
                    {"bench", "atax", "-s", "45000x45000", "--placement", "resident", "--weak", "--reps", "10"}, true,
                    ShowcasePart::multi_weak});
    return runs;
  }

 private:
  std::string shapes_ = "512x768,1664x1792,1024x1024,8960x17920,12288x1024,1024x12288";
  std::int64_t gen_cols_ = 0, gen_rows_ = 0;
  std::string gen_out_;
  std::uint64_t gen_seed_ = 1;
  std::string run_input_, run_output_, run_variant_ = "library";
  int run_reps_ = 20;
  std::string check_input_, check_result_;
};

}  // namespace

std::unique_ptr<Problem> make_atax_problem() { return std::make_unique<AtaxProblem>(); }

}  // namespace gpulab
