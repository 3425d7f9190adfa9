#include "conv/conv_problem.hpp"

#include "conv/conv_batch.hpp"
#include "conv/conv_math.hpp"
#include "conv/filter.hpp"
#include "conv/npp_filter.hpp"
#include "core/cli_options.hpp"
#include "core/exit_codes.hpp"
#include "core/launches.hpp"
#include "core/sizes.hpp"
#include "lib/arith.hpp"
#include "multi/multi_bench.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <ostream>

namespace gpulab {

namespace {

/// `image` with its rows `pitch` bytes apart (0: packed), padding 0.
RgbImage with_pitch(const RgbImage& image, std::size_t pitch) {
  if (pitch == 0 || pitch == image.pitch) return image;
  RgbImage out = make_image(image.width, image.height, pitch);
  for (std::size_t y = 0; y < image.height; ++y) std::memcpy(out.row(y), image.row(y), 3 * image.width);
  return out;
}

constexpr std::uint8_t kPoison = 0xFF;

}  // namespace

ConvCase::ConvCase(RgbImage image, Filter3x3 filter, Border border, std::size_t pitch, std::span<const ConvRung> table)
    : table_(table), in_(with_pitch(image, pitch)), filter_(filter), border_(border) {
  for (int i = 0; i < 9; ++i) weights_reversed_[i] = filter_.k[8 - i];
}

std::vector<std::pair<std::string, std::string>> ConvCase::params() const {
  std::vector<std::pair<std::string, std::string>> p{{"size", fmt::format("{}x{}", in_.width, in_.height)},
                                                     {"filter", filter_text(filter_)},
                                                     {"border", std::string(border_name(border_))}};
  if (in_.pitch != 3 * in_.width) p.emplace_back("pitch", std::to_string(in_.pitch));
  return p;
}

Work ConvCase::work() const {
  // Each pixel's 3 bytes read once and written once.
  const double pixels = static_cast<double>(in_.width) * static_cast<double>(in_.height);
  return {6.0 * pixels, 0.0, CeilingKind::copy, 2 * in_.bytes.size()};
}

std::vector<InputArray> ConvCase::inputs() const {
  return {{in_.bytes.data(), in_.bytes.size(), 0}, {weights_reversed_, sizeof(weights_reversed_), 0}};
}
std::vector<OutputArray> ConvCase::outputs() const { return {{in_.bytes.size(), kPoison}}; }

void ConvCase::compute_reference() {
  ref_ = make_image(in_.width, in_.height, in_.pitch);
  conv_cpu(in_, ref_, filter_, border_, false);
}
void ConvCase::run_baseline() {
  baseline_ = make_image(in_.width, in_.height, in_.pitch);
  conv_cpu(in_, baseline_, filter_, border_, true);
}
CheckResult ConvCase::check_baseline() const { return check_image(baseline_.bytes, baseline_.pitch, ref_, 0); }

std::optional<std::string> ConvCase::unsupported(std::size_t rung) const {
  const auto refuses = table_[rung].refuses;
  if (refuses == nullptr) return std::nullopt;
  return refuses(conv_device::conv_args(nullptr, in_.pitch, nullptr, in_.pitch, static_cast<int>(in_.width),
                                        static_cast<int>(in_.height), filter_, border_));
}

void ConvCase::launch(std::size_t rung, const Arrays& arrays, Workspace, cudaStream_t stream) const {
  conv_device::ConvArgs a = conv_device::conv_args(arrays.input<std::uint8_t>(0), in_.pitch, arrays.output<std::uint8_t>(0),
                                                   in_.pitch, static_cast<int>(in_.width), static_cast<int>(in_.height),
                                                   filter_, border_);
  a.weights_reversed = arrays.input<std::int32_t>(1);
  table_[rung].run(a, stream);
}

CheckResult ConvCase::check(std::size_t rung, std::span<const std::span<const std::byte>> outputs) const {
  const auto* p = reinterpret_cast<const std::uint8_t*>(outputs[0].data());
  if (table_[rung].role == Role::vendor) {
    // NPP truncates s / divisor toward zero (not documented; measured): checked, byte for byte,
    // against that rule.
    if (!ref_toward_zero_) {
      ref_toward_zero_ = make_image(in_.width, in_.height, in_.pitch);
      conv_cpu(in_, *ref_toward_zero_, filter_, border_, true, Rounding::toward_zero);
    }
    return check_image({p, outputs[0].size()}, in_.pitch, *ref_toward_zero_, kPoison);
  }
  return check_image({p, outputs[0].size()}, in_.pitch, ref_, kPoison);
}

RgbImage ConvCase::output_image(std::span<const std::byte> bytes) const {
  RgbImage out = make_image(in_.width, in_.height, in_.pitch);
  std::memcpy(out.bytes.data(), bytes.data(), std::min(bytes.size(), out.bytes.size()));
  return out;
}

namespace {

struct Size2 {
  std::size_t width, height;
};

std::vector<Size2> parse_sizes(const std::string& text) {
  auto size = [](const std::string& item) -> std::optional<Size2> {
    const auto wh = parse_size_pair(item);
    if (!wh || wh->first < 1 || wh->second < 1 || wh->first > (1u << 20) || wh->second > (1u << 20)) return std::nullopt;
    return Size2{wh->first, wh->second};
  };
  return parse_list("conv", "sizes", text, size, "an image size like 7680x4320 (WIDTHxHEIGHT, sides 1 to 2^20)");
}

std::vector<Border> parse_borders(const std::string& text) {
  if (text == "all") return {Border::replicate, Border::zero, Border::mirror};
  std::vector<Border> borders;
  for (const auto& w : split_commas(text)) {
    const auto b = parse_border(w);
    if (!b) throw UsageError(fmt::format("conv: '{}' is not a border rule (replicate, zero, mirror or all)", w));
    borders.push_back(*b);
  }
  return borders;
}

Filter3x3 usage_filter(const std::string& text) {
  try {
    return parse_filter(text);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

Border usage_border(const std::string& text) {
  const auto b = parse_border(text);
  if (!b) throw UsageError(fmt::format("conv: '{}' is not a border rule (replicate, zero, mirror)", text));
  return *b;
}

/// Rows aligned to 128 bytes (the seed's layout) or packed.
std::size_t layout_pitch(const std::string& layout, std::size_t width) {
  return layout == "aligned" ? align_up(3 * width, 128) : 0;
}

class ConvProblem final : public Problem {
 public:
  std::string_view name() const override { return "conv"; }
  std::string_view summary() const override {
    return "a 3x3 integer filter over an RGB image, 8 bits a channel";
  }
  std::string_view semantics() const override {
    return "every byte equal to the CPU's: s = sum k*p in int32, s/divisor rounded half away from zero, clamped to 0..255";
  }
  std::vector<RungInfo> ladder() const override { return ladder_info(conv_rungs()); }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("-s,--sizes", sizes_, "WIDTHxHEIGHT list of generated images")->capture_default_str();
    cmd.add_option("--kernel", filter_, fmt::format("a name ({}) or nine integers with an optional /divisor", named_filter_list()))
        ->capture_default_str();
    cmd.add_option("--border", borders_, "replicate, zero, mirror (a list) or all")->capture_default_str();
    cmd.add_option("--layout", layouts_, "packed (rows 3*width bytes apart) or aligned (rows on 128 bytes), a list")
        ->check(word_list_validator("layouts", "packed, aligned",
                                    [](const std::string& w) { return w == "packed" || w == "aligned"; }, "LAYOUTS"))
        ->capture_default_str();
    cmd.add_option("--gather", gathers_,
                   "with --gpus: all (every rank ends with the whole image) and/or none (each its own rows), a list")
        ->check(word_list_validator("gathers", "all, none", [](const std::string& w) { return w == "all" || w == "none"; },
                                    "GATHERS"))
        ->capture_default_str();
  }
  void validate() const override {
    parse_sizes(sizes_);
    usage_filter(filter_);
    parse_borders(borders_);
  }
  std::size_t case_count() const override {
    return split_commas(layouts_).size() * parse_sizes(sizes_).size() * parse_borders(borders_).size();
  }
  void for_each_case(std::uint64_t seed, const std::function<void(BenchCase&)>& run) const override {
    const Filter3x3 filter = usage_filter(filter_);
    for (const std::string& layout : split_commas(layouts_))
      for (const Size2& s : parse_sizes(sizes_))
        for (Border b : parse_borders(borders_)) {
          ConvCase c(generate_image(s.width, s.height, seed), filter, b, layout_pitch(layout, s.width));
          run(c);
        }
  }

  bool has_multi_gpu() const override { return true; }
  void for_each_multi_case(std::uint64_t seed, const std::function<void(const MultiCaseMaker&)>& run) const override {
    if (split_commas(layouts_) != std::vector<std::string>{"packed"})
      throw UsageError("conv --gpus: packed images (--layout packed): the multi-GPU forms take and give packed rows");
    const Filter3x3 filter = usage_filter(filter_);
    for (const std::string& gather : split_commas(gathers_))
      for (const Size2& s : parse_sizes(sizes_))
        for (Border b : parse_borders(borders_)) {
          const multi::Gather g = gather == "all" ? multi::Gather::all : multi::Gather::none;
          run([=](std::size_t scale) { return make_conv_multi(s.width, s.height * scale, filter, b, seed, g); });  // rows
        }
  }

  std::vector<Command> add_commands(CLI::App& app) override {
    auto* conv = app.add_subcommand("conv", "3x3 filters on image files: gen, run, check, batch");
    conv->require_subcommand(1, 1);
    auto* gen = conv->add_subcommand("gen", "write a test image (PNG, or PPM by extension)");
    gen->add_option("WIDTH", gen_w_, "width in pixels")->required()->check(CLI::Range(1, 1 << 20));
    gen->add_option("HEIGHT", gen_h_, "height in pixels")->required()->check(CLI::Range(1, 1 << 20));
    gen->add_option("-o,--output", gen_out_, "file to write")->required();
    gen->add_option("--seed", gen_seed_, "seed of the noise")->capture_default_str();
    auto* run = conv->add_subcommand("run", "filter an image on the GPU, print each launch and its time, write the result");
    run->add_option("IN", run_in_, "the image (PNG, JPEG, BMP, PPM)")->required();
    run->add_option("-o,--output", run_out_, "the result (PNG, or PPM by extension)")->required();
    run->add_option("--kernel", run_filter_, "a name or nine integers with an optional /divisor")->capture_default_str();
    run->add_option("--border", run_border_, "replicate, zero or mirror")->capture_default_str();
    run->add_option("--variant", run_variant_, "rung number or name, or library")->capture_default_str();
    run->add_option("--reps", run_reps_, "timed repetitions (median reported)")->check(CLI::Range(1, 10000))->capture_default_str();
    auto* check = conv->add_subcommand("check", "recompute on the CPU and compare with a result, byte for byte");
    check->add_option("IN", check_in_, "the input image")->required();
    check->add_option("OUT", check_out_, "the result to check")->required();
    check->add_option("--kernel", check_filter_, "the filter the result was made with")->capture_default_str();
    check->add_option("--border", check_border_, "the border rule it was made with")->capture_default_str();
    auto* batch = conv->add_subcommand("batch", "copy in, filter, copy out over many images, overlapped across streams (seed 001 §5)");
    batch->add_option("FILES", batch_.files, "the images (a file may repeat)")->required()->expected(1, -1);
    batch->add_option("-o,--output", batch_.out_dir, "directory for the results")->required();
    batch->add_option("--streams", batch_.streams, "streams the images are spread over")->check(CLI::Range(1, 64))->capture_default_str();
    batch->add_option("--memory", batch_memories_, "host memory: pageable, pinned, registered, managed (a list) or all")
        ->check(word_list_validator("memory kinds", "pageable, pinned, registered, managed",
                                    [](const std::string& w) { return w == "all" || parse_host_memory(w).has_value(); }, "KINDS"))
        ->capture_default_str();
    batch->add_option("--kernel", batch_filter_, "a name or nine integers with an optional /divisor")->capture_default_str();
    batch->add_option("--border", batch_border_, "replicate, zero or mirror")->capture_default_str();
    batch->add_option("--reps", batch_.reps, "runs of each stage (median reported)")->check(CLI::Range(1, 100))->capture_default_str();
    batch->add_option("--format", batch_.format, "format of the results: png or ppm")
        ->check(CLI::IsMember({"png", "ppm"}))
        ->capture_default_str();
    batch->add_flag("!--no-check", batch_.check, "skip comparing every result with the CPU's");
    return {
        {gen, false, [this](const CommandContext& ctx) {
           save_image(gen_out_, generate_image(static_cast<std::size_t>(gen_w_), static_cast<std::size_t>(gen_h_), gen_seed_));
           ctx.out << fmt::format("Wrote {}: {}x{} RGB\n", gen_out_, gen_w_, gen_h_);
           return int{kExitOk};
         }},
        {run, true, [this](const CommandContext& ctx) {
           const Filter3x3 filter = usage_filter(run_filter_);
           const Border border = usage_border(run_border_);
           const std::size_t rung = find_rung(ladder(), run_variant_, "conv");
           const ConvCase c(load_image(run_in_), filter, border);
           ctx.out << fmt::format("Loaded {}: {}x{} RGB; filter {}, border {}\n", run_in_, c.image().width, c.image().height,
                                  filter_text(filter), border_name(border));
           require_case_fits(c, std::span(&rung, 1), ctx.device->l2_bytes);
           Stream stream;
           const DeviceArrays arrays(c, stream.get());
           print_launches(c, rung, conv_rungs()[rung], arrays, {}, run_reps_, ctx.device->l2_bytes, stream.get(), ctx.out);
           arrays.download(stream.get(), false);
           stream.synchronize();
           save_image(run_out_, c.output_image(arrays.host_outputs()[0]));
           ctx.out << "Wrote " << run_out_ << "\n";
           return int{kExitOk};
         }},
        {check, false, [this](const CommandContext& ctx) {
           const Filter3x3 filter = usage_filter(check_filter_);
           const Border border = usage_border(check_border_);
           const RgbImage in = load_image(check_in_), got = load_image(check_out_);
           if (got.width != in.width || got.height != in.height) {
             ctx.out << fmt::format("FAILED: {} is {}x{}, {} is {}x{}\n", check_out_, got.width, got.height, check_in_, in.width,
                                    in.height);
             return int{kExitFailure};
           }
           RgbImage want = make_image(in.width, in.height);
           conv_cpu(in, want, filter, border, true);
           const CheckResult r = check_image(got.bytes, got.pitch, want, 0);
           ctx.out << (r.ok ? fmt::format("OK: {}x{}, every byte as the CPU computes it (filter {}, border {})\n", in.width,
                                          in.height, filter_text(filter), border_name(border))
                            : "FAILED: " + r.detail + "\n");
           return int{r.ok ? kExitOk : kExitFailure};
         }},
        {batch, true, [this](const CommandContext& ctx) {
           BatchOptions o = batch_;
           o.filter = usage_filter(batch_filter_);
           o.border = usage_border(batch_border_);
           for (const std::string& w : split_commas(batch_memories_ == "all" ? "pageable,pinned,registered,managed" : batch_memories_))
             o.memories.push_back(*parse_host_memory(w));
           return conv_batch(o, ctx.out);
         }},
    };
  }

  std::vector<std::string> sanitize_args() const override {
    return {"-s", "1x1,5x3,67x35,1000x7", "--border", "replicate,zero,mirror", "--layout", "packed,aligned"};
  }

  std::vector<Showcase> showcase() const override {
    // §5's batch: 64 8K images (one file, 64 times) from each kind of host memory.
    std::vector<std::string> batch{"conv", "batch"};
    for (int i = 0; i < 64; ++i) batch.push_back("{tmp}/8k.ppm");
    for (const char* a : {"-o", "{tmp}/batch", "--streams", "8", "--memory", "all", "--format", "ppm"}) batch.push_back(a);
    std::vector<Showcase> runs{
        {"conv_sizes", "conv: 1080p to 16K and awkward sizes, each border rule (packed rows)",
         {"bench", "conv", "--sizes", "1920x1080,3840x2160,7680x4320,15360x8640,1x1,1x1000,4097x3,12345x6789", "--border", "all",
          "--no-cpu"}},
        {"conv_aligned", "conv: the awkward widths on rows aligned to 128 bytes (cudaMallocPitch's layout)",
         {"bench", "conv", "--sizes", "12345x6789,4097x3,1x1000", "--layout", "aligned", "--no-cpu"}},
        {"conv_unaligned", "conv: packed rows that start off 16-byte boundaries: the tile, the realigned lanes, the library and NPP",
         {"bench", "conv", "--sizes", "12345x6789,4097x4097,3841x2161,1921x1081,1001x333", "--variants",
          "shared_tile,realigned_lanes,library,vendor", "--no-cpu"}},
        {"conv_gaussian", "conv: gaussian/16 (a divisor to round by), 1080p to 16K",
         {"bench", "conv", "--sizes", "1920x1080,3840x2160,7680x4320,15360x8640", "--kernel", "gaussian", "--no-cpu"}},
        {"gen 4097x3", "conv's tools: gen, run, check", {"conv", "gen", "4097", "3", "-o", "{tmp}/a.png"}, false},
        {"run 4097x3", "", {"conv", "run", "{tmp}/a.png", "-o", "{tmp}/b.png", "--kernel", "edge"}, false},
        {"check 4097x3", "", {"conv", "check", "{tmp}/a.png", "{tmp}/b.png", "--kernel", "edge"}, false},
        {"gen 8K", "conv batch: 64 8K images, copy in, filter, copy out over 8 streams, each kind of host memory",
         {"conv", "gen", "7680", "4320", "-o", "{tmp}/8k.ppm"}, false},
        {"batch 64x8K", "", batch, false},
        {"profile_conv", "conv: every rung under Nsight Compute, 3840 x 2160", {"profile", "conv", "-s", "3840x2160"}, true,
         ShowcasePart::profiles},
        {"profile_conv_8k", "conv: the lanes, the one-channel window and rungs 1-2 at 8K",
         {"profile", "conv", "-s", "7680x4320", "--variants", "lanes,sliding_window,thread_per_pixel,constant_filter,vendor"}, true,
         ShowcasePart::profiles},
        {"peers_conv", "conv: a same-size copy (the size-matched ceiling) and PyTorch's pipeline", {"src/conv/peers.py"}, true,
         ShowcasePart::peers},
        {"multi_conv_sizes", "conv: 1080p to 16K, resident",
         {"bench", "conv", "-s", "1920x1080,3840x2160,15360x8640", "--placement", "resident"}, true, ShowcasePart::multi_more},
        {"multi_conv_weak", "conv: weak scaling, a 32K image a GPU, each rank keeping its rows",
         {"bench", "conv", "-s", "30720x17280", "--gather", "none", "--placement", "resident", "--weak", "--reps", "10"}, true,
         ShowcasePart::multi_weak},
    };
    for (auto& s : over_gpus("conv", "conv: 8K and 32K images, gathered or not",
                             {"bench", "conv", "-s", "7680x4320,30720x17280", "--gather", "none,all", "--reps", "10"}))
      runs.push_back(s);
    return runs;
  }

 private:
  std::string sizes_ = "1920x1080,3840x2160,7680x4320,4097x3,1x1";
  std::string filter_ = "sharpen";
  std::string borders_ = "replicate";
  std::string layouts_ = "packed";
  std::string gathers_ = "none,all";
  std::int64_t gen_w_ = 0, gen_h_ = 0;
  std::string gen_out_;
  std::uint64_t gen_seed_ = 1;
  std::string run_in_, run_out_, run_filter_ = "sharpen", run_border_ = "replicate", run_variant_ = "library";
  int run_reps_ = 20;
  std::string check_in_, check_out_, check_filter_ = "sharpen", check_border_ = "replicate";
  BatchOptions batch_;
  std::string batch_memories_ = "pinned", batch_filter_ = "sharpen", batch_border_ = "replicate";
};

}  // namespace

std::unique_ptr<Problem> make_conv_problem() { return std::make_unique<ConvProblem>(); }

}  // namespace gpulab
