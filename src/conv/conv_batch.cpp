#include "conv/conv_batch.hpp"

#include "conv/conv_cpu.hpp"
#include "conv/image.hpp"
#include "core/exit_codes.hpp"
#include "core/memory.hpp"
#include "core/timing.hpp"
#include "lib/arith.hpp"
#include "lib/launch_limits.hpp"

#include <gpulab/device_buffer.hpp>
#include <gpulab/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace gpulab {

std::optional<HostMemory> parse_host_memory(std::string_view word) {
  for (HostMemory m : {HostMemory::pageable, HostMemory::pinned, HostMemory::registered, HostMemory::managed})
    if (word == host_memory_name(m)) return m;
  return std::nullopt;
}

std::string_view host_memory_name(HostMemory m) {
  switch (m) {
    case HostMemory::pageable: return "pageable";
    case HostMemory::pinned: return "pinned";
    case HostMemory::registered: return "registered";
    case HostMemory::managed: return "managed";
  }
  return "?";
}

namespace {

constexpr std::size_t kPage = 4096;

/// The batch's images laid out one after another in one host allocation (each on its own page).
struct Layout {
  std::vector<std::size_t> offset;  // of image i
  std::size_t bytes = 0;            // in all
};

Layout layout_of(const std::vector<RgbImage>& images) {
  Layout l;
  for (const RgbImage& im : images) {
    l.offset.push_back(l.bytes);
    l.bytes += align_up(im.bytes.size(), kPage);
  }
  return l;
}

/// One allocation of host bytes of the kind asked for (and, for registered memory, its pinning).
class HostArena {
 public:
  HostArena(HostMemory kind, std::size_t bytes) {
    switch (kind) {
      case HostMemory::pageable:
      case HostMemory::registered:
        pageable_.reset(static_cast<std::uint8_t*>(::operator new(bytes, std::align_val_t{kPage})));
        data_ = pageable_.get();
        if (kind == HostMemory::registered) registration_ = HostRegistration(data_, bytes);
        break;
      case HostMemory::pinned:
        pinned_ = PinnedBuffer<std::uint8_t>(bytes);
        data_ = pinned_.data();
        break;
      case HostMemory::managed:
        managed_ = ManagedBuffer<std::uint8_t>(bytes);
        data_ = managed_.data();
        break;
    }
  }
  std::uint8_t* data() const { return data_; }

 private:
  struct AlignedDelete {
    void operator()(std::uint8_t* p) const { ::operator delete(p, std::align_val_t{kPage}); }
  };
  std::unique_ptr<std::uint8_t, AlignedDelete> pageable_;
  PinnedBuffer<std::uint8_t> pinned_;
  ManagedBuffer<std::uint8_t> managed_;
  HostRegistration registration_;  // declared after the memory it pins: unpinned before it is freed
  std::uint8_t* data_ = nullptr;
};

/// A stream's device images: the input and the result, rows from cudaMallocPitch (the seed's
/// §4 layout: every row on the device's preferred alignment).
struct Slot {
  PitchedDeviceBuffer in, out;
};

struct Stage {
  double ms = 0.0, noise = 0.0;
};

/// What a memory kind's run measured.
struct BatchRow {
  HostMemory memory;
  Stage in, kernel, out, both, serial, streams;  // both: every copy in on one stream, every copy out on another
  std::string failure;  // not run, or a result differed: why
};

/// The pipeline of one memory kind over the batch: how each stage is issued on a stream.
class Pipeline {
 public:
  Pipeline(HostMemory kind, const std::vector<RgbImage>& images, const BatchOptions& o, std::vector<Slot>& slots)
      : kind_(kind), images_(images), options_(o), slots_(slots), layout_(layout_of(images)), in_(kind, layout_.bytes),
        out_(kind, layout_.bytes) {
    for (std::size_t i = 0; i < images.size(); ++i) std::memcpy(in_.data() + layout_.offset[i], images[i].bytes.data(), images[i].bytes.size());
    GPULAB_CUDA_CHECK(cudaGetDevice(&device_));
  }

  /// Image i's copy to the device (managed: its pages and its result's prefetched there; the
  /// result's old contents discarded, not moved).
  void copy_in(std::size_t i, cudaStream_t s) const {
    const RgbImage& im = images_[i];
    if (kind_ == HostMemory::managed) {
      const cudaMemLocation gpu{cudaMemLocationTypeDevice, device_};
      GPULAB_CUDA_CHECK(cudaMemPrefetchAsync(in_.data() + layout_.offset[i], im.bytes.size(), gpu, 0, s));
      void* result = out_.data() + layout_.offset[i];
      std::size_t bytes = im.bytes.size(), location_index = 0;
      cudaMemLocation where = gpu;
      GPULAB_CUDA_CHECK(cudaMemDiscardAndPrefetchBatchAsync(&result, &bytes, 1, &where, &location_index, 1, 0, s));
      return;
    }
    const Slot& slot = slots_[i % slots_.size()];
    GPULAB_CUDA_CHECK(cudaMemcpy2DAsync(slot.in.data(), slot.in.pitch(), in_.data() + layout_.offset[i], im.pitch, 3 * im.width,
                                        im.height, cudaMemcpyHostToDevice, s));
  }

  void filter(std::size_t i, cudaStream_t s) const {
    const RgbImage& im = images_[i];
    if (kind_ == HostMemory::managed) {
      conv3x3(in_.data() + layout_.offset[i], im.pitch, out_.data() + layout_.offset[i], im.pitch, im.width, im.height,
              options_.filter, options_.border, s);
      return;
    }
    const Slot& slot = slots_[i % slots_.size()];
    conv3x3(slot.in.data(), slot.in.pitch(), slot.out.data(), slot.out.pitch(), im.width, im.height, options_.filter,
            options_.border, s);
  }

  void copy_out(std::size_t i, cudaStream_t s) const {
    const RgbImage& im = images_[i];
    if (kind_ == HostMemory::managed) {
      GPULAB_CUDA_CHECK(cudaMemPrefetchAsync(out_.data() + layout_.offset[i], im.bytes.size(),
                                             cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, s));
      return;
    }
    const Slot& slot = slots_[i % slots_.size()];
    GPULAB_CUDA_CHECK(cudaMemcpy2DAsync(out_.data() + layout_.offset[i], im.pitch, slot.out.data(), slot.out.pitch(), 3 * im.width,
                                        im.height, cudaMemcpyDeviceToHost, s));
  }

  /// Managed memory: every page of the inputs and results where a stage expects to find it before
  /// it is timed (on the host for a copy in, on the device for the kernels alone). No-op otherwise.
  void place_pages(bool on_device, cudaStream_t s) const {
    if (kind_ != HostMemory::managed) return;
    const cudaMemLocation where = on_device ? cudaMemLocation{cudaMemLocationTypeDevice, device_} : cudaMemLocation{cudaMemLocationTypeHost, 0};
    for (const std::uint8_t* base : {in_.data(), out_.data()}) GPULAB_CUDA_CHECK(cudaMemPrefetchAsync(base, layout_.bytes, where, 0, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  const std::uint8_t* result(std::size_t i) const { return out_.data() + layout_.offset[i]; }

 private:
  HostMemory kind_;
  const std::vector<RgbImage>& images_;
  const BatchOptions& options_;
  std::vector<Slot>& slots_;
  Layout layout_;
  HostArena in_, out_;
  int device_ = 0;
};

/// The median over `reps` runs of `issue` (which enqueues work) until the device is idle, on the
/// host clock: with pageable memory the host itself is part of the pipeline. `prepare` (untimed)
/// puts the pages where the stage expects them.
Stage time_stage(int reps, const std::function<void()>& prepare, const std::function<void()>& issue) {
  const TimingStats t = time_host(
      [&] {
        issue();
        GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
      },
      reps, false, prepare);
  return {t.median_ms, t.noise};
}

BatchRow run_memory_kind(HostMemory kind, const std::vector<RgbImage>& images, const BatchOptions& o, std::vector<Slot>& slots,
                         const std::vector<Stream>& streams, cudaStream_t second, const std::vector<const RgbImage*>& want,
                         std::vector<std::uint8_t>* keep_results_of, const Layout& layout) {
  BatchRow row{kind, {}, {}, {}, {}, {}, {}, {}};
  const Pipeline p(kind, images, o, slots);
  const std::size_t n = images.size();
  const cudaStream_t first = streams[0].get();
  const auto on_host = [&] { p.place_pages(false, first); };
  const auto on_device = [&] { p.place_pages(true, first); };
  row.in = time_stage(o.reps, on_host, [&] {
    for (std::size_t i = 0; i < n; ++i) p.copy_in(i, first);
  });
  row.kernel = time_stage(o.reps, on_device, [&] {
    for (std::size_t i = 0; i < n; ++i) p.filter(i, first);
  });
  row.out = time_stage(o.reps, on_device, [&] {
    for (std::size_t i = 0; i < n; ++i) p.copy_out(i, first);
  });
  // The copies alone, both directions at once (in on one stream, out on another): what the link
  // allows the pipeline at best when the copies are its slowest stages.
  row.both = time_stage(o.reps, on_host, [&] {
    for (std::size_t i = 0; i < n; ++i) p.copy_in(i, first), p.copy_out(i, second);
  });
  row.serial = time_stage(o.reps, on_host, [&] {
    for (std::size_t i = 0; i < n; ++i) p.copy_in(i, first), p.filter(i, first), p.copy_out(i, first);
  });
  // Image i on stream i mod S, in its stream's slot: a slot is reused only after its stream has
  // copied the previous image's result out.
  row.streams = time_stage(o.reps, on_host, [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const cudaStream_t s = streams[i % streams.size()].get();
      p.copy_in(i, s), p.filter(i, s), p.copy_out(i, s);
    }
  });
  if (o.check)
    for (std::size_t i = 0; i < n && row.failure.empty(); ++i) {
      const CheckResult r = check_image({p.result(i), images[i].bytes.size()}, images[i].pitch, *want[i], 0);
      if (!r.ok) row.failure = fmt::format("image {} ({}): {}", i + 1, o.files[i], r.detail);
    }
  if (keep_results_of != nullptr)
    for (std::size_t i = 0; i < n; ++i) std::memcpy(keep_results_of->data() + layout.offset[i], p.result(i), images[i].bytes.size());
  return row;
}

/// The names of the results: the inputs' stems, a stem met again numbered after its position.
std::vector<std::filesystem::path> result_paths(const BatchOptions& o) {
  std::vector<std::filesystem::path> paths;
  std::set<std::string> used;
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    std::string stem = std::filesystem::path(o.files[i]).stem().string();
    if (!used.insert(stem).second) stem += fmt::format("-{}", i + 1);
    paths.push_back(std::filesystem::path(o.out_dir) / (stem + "." + o.format));
  }
  return paths;
}

}  // namespace

int conv_batch(const BatchOptions& o, std::ostream& out) {
  if (o.files.empty()) throw Error("conv batch: no input files");
  if (o.streams < 1) throw Error("conv batch: --streams must be at least 1");
  if (o.memories.empty()) throw Error("conv batch: no memory kind");
  std::filesystem::create_directories(o.out_dir);

  // Load every file (decoding is not part of the pipeline: timed apart).
  std::vector<RgbImage> images;
  std::size_t image_bytes = 0, widest = 0, tallest = 0;
  const double load_ms = time_host([&] {
    for (const std::string& f : o.files) {
      images.push_back(load_image(f));
      image_bytes += images.back().bytes.size();
      if (image_bytes > host_memory_allowance() / 5)
        throw Error(fmt::format("conv batch: the images need {:.2f} GiB of host memory five times over (inputs, results, "
                                "references and two arenas); more than this machine allows",
                                static_cast<double>(image_bytes) / (1u << 30)));
      widest = std::max(widest, images.back().width);
      tallest = std::max(tallest, images.back().height);
    }
  }, 1, false).median_ms;
  const Layout layout = layout_of(images);

  // The CPU reference of each distinct file, once.
  std::map<std::string, RgbImage> references;
  std::vector<const RgbImage*> want(images.size(), nullptr);
  if (o.check)
    for (std::size_t i = 0; i < images.size(); ++i) {
      auto [it, fresh] = references.try_emplace(o.files[i]);
      if (fresh) {
        it->second = make_image(images[i].width, images[i].height);
        conv_cpu(images[i], it->second, o.filter, o.border, true);
      }
      want[i] = &it->second;
    }

  int device = 0;
  cudaDeviceProp prop{};
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  GPULAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  out << fmt::format("{} images, {:.1f} MB in all (largest {}x{}), loaded in {:.0f} ms; filter {}, border {}\n", images.size(),
                     static_cast<double>(image_bytes) / 1e6, widest, tallest, load_ms, filter_text(o.filter), border_name(o.border));
  out << fmt::format("{}: {} copy engine{} ({}), {} streams, a stage's time the median of {} runs\n", prop.name,
                     prop.asyncEngineCount, prop.asyncEngineCount == 1 ? "" : "s",
                     prop.asyncEngineCount >= 2 ? "copies in and out can overlap each other and the kernels"
                     : prop.asyncEngineCount == 1 ? "one copy at a time beside the kernels"
                                                  : "no copy overlaps a kernel",
                     o.streams, o.reps);

  const std::size_t slot_bytes = 2 * static_cast<std::size_t>(o.streams) * (align_up(3 * widest, 512) * tallest);
  std::vector<Slot> slots;
  std::vector<Stream> streams(static_cast<std::size_t>(o.streams));
  const Stream second;  // the copies out of the both-ways stage
  std::vector<std::uint8_t> first_results(layout.bytes);
  bool kept = false;
  std::vector<BatchRow> rows;
  for (HostMemory kind : o.memories) {
    try {
      if (kind == HostMemory::managed) {
        if (current_device_attribute(cudaDevAttrConcurrentManagedAccess) == 0)
          throw Error("this device cannot prefetch managed memory (no concurrent managed access)");
        slots.clear();  // the kernels read and write the managed images in place
        // Never more managed memory than the GPU has free: every page may be on the device at once.
        require_device_bytes(2 * layout.bytes, "managed memory for the images and their results");
      } else if (slots.empty()) {
        require_device_bytes(slot_bytes, fmt::format("{} streams' device images", o.streams));
        for (int s = 0; s < o.streams; ++s) slots.push_back({{3 * widest, tallest}, {3 * widest, tallest}});
      }
      rows.push_back(run_memory_kind(kind, images, o, slots, streams, second.get(), want, kept ? nullptr : &first_results, layout));
      kept = true;
    } catch (const Error& e) {
      rows.push_back({kind, {}, {}, {}, {}, {}, {}, fmt::format("not run: {}", e.what())});
    }
  }

  out << fmt::format(
      "\n| memory | in ms | kernel ms | out ms | in+out at once ms | serial ms | {} streams ms | images/s | streams / max stage | "
      "streams / in+out at once | overlap |\n",
      o.streams);
  out << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  bool ok = true;
  for (const BatchRow& r : rows) {
    if (r.streams.ms == 0.0) {
      out << fmt::format("| {} | {} |||||||||\n", host_memory_name(r.memory), r.failure);
      ok = false;
      continue;
    }
    const double bound = std::max({r.in.ms, r.kernel.ms, r.out.ms});
    const double overlap = r.serial.ms > bound ? (r.serial.ms - r.streams.ms) / (r.serial.ms - bound) : 0.0;
    out << fmt::format("| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.1f} | {:.2f} | {:.2f} | {:.2f} |\n",
                       host_memory_name(r.memory), r.in.ms, r.kernel.ms, r.out.ms, r.both.ms, r.serial.ms, r.streams.ms,
                       1e3 * static_cast<double>(images.size()) / r.streams.ms, r.streams.ms / bound, r.streams.ms / r.both.ms, overlap);
  }
  out << fmt::format("\ncopies: GB/s in, out per memory kind — ");
  for (const BatchRow& r : rows)
    if (r.in.ms > 0.0)
      out << fmt::format("{} {:.1f}, {:.1f}; ", host_memory_name(r.memory), static_cast<double>(image_bytes) / r.in.ms / 1e6,
                         static_cast<double>(image_bytes) / r.out.ms / 1e6);
  out << "\noverlap = (serial - streams) / (serial - max(in, kernel, out)): 1 when the slowest stage hides the others; "
         "in+out at once: every copy in and out on two streams, no kernel (the link's two directions shared)\n";
  for (const BatchRow& r : rows)
    if (!r.failure.empty() && r.streams.ms > 0.0) {
      out << fmt::format("FAILED ({}): {}\n", host_memory_name(r.memory), r.failure);
      ok = false;
    }
  if (o.check && ok) out << "every result of every memory kind checked: the CPU's bytes\n";

  if (kept) {
    const auto paths = result_paths(o);
    for (std::size_t i = 0; i < images.size(); ++i) {
      RgbImage result = make_image(images[i].width, images[i].height);
      std::memcpy(result.bytes.data(), first_results.data() + layout.offset[i], result.bytes.size());
      save_image(paths[i].string(), result);
    }
    out << fmt::format("wrote {} results to {}\n", images.size(), o.out_dir);
  }
  return ok ? kExitOk : kExitFailure;
}

}  // namespace gpulab
