#include "lib/launchers.hpp"

#include "lib/launch_log.hpp"
#include "lib/per_device.hpp"

#include <gpulab/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gpulab::detail {
namespace {

thread_local bool on_a_launcher = false;

/// How long a launcher waiting for work, or a caller waiting for the launchers, spins before it
/// sleeps: long enough for the calls of a loop to find them awake, short enough not to hold a core
/// for a program that calls once.
constexpr auto kSpin = std::chrono::milliseconds(2);

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Spins until ready() (true) or for kSpin (false).
template <class Ready>
bool spin_until(Ready ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 0;; ++i) {
    if (ready()) return true;
    if (i % 256 == 0 && std::chrono::steady_clock::now() > end) return false;
    relax();
  }
}

/// One call's work and what is left of it. It outlives every call (the pool keeps it), so that a
/// launcher that wakes the caller after its last decrement never touches a gone object.
struct Job {
  const std::function<void(std::size_t)>* work = nullptr;
  std::vector<std::exception_ptr> failures;
  std::atomic<std::size_t> remaining{0};
  std::mutex mutex;
  std::condition_variable finished;
};

class Launcher {
 public:
  Launcher(int device, Job& job) : device_(device), job_(job), thread_([this] { loop(); }) {}
  ~Launcher() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  /// Hands item `index` of the pool's job to this launcher.
  void post(std::size_t index) {
    {
      const std::lock_guard lock(mutex_);  // a launcher about to sleep sees the post, or is woken
      index_ = index;
      posted_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_one();
  }

 private:
  void loop() {
    on_a_launcher = true;
    std::uint64_t seen = 0;
    for (;;) {
      if (!spin_until([&] { return posted_.load(std::memory_order_acquire) != seen; })) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || posted_.load(std::memory_order_acquire) != seen; });
        if (posted_.load(std::memory_order_acquire) == seen) return;  // stopped, nothing posted
      }
      seen = posted_.load(std::memory_order_acquire);
      const std::size_t index = index_;
      try {
        GPULAB_CUDA_CHECK(cudaSetDevice(device_));
        (*job_.work)(index);
      } catch (...) {
        job_.failures[index] = std::current_exception();
      }
      if (job_.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        const std::lock_guard lock(job_.mutex);
        job_.finished.notify_one();
      }
    }
  }

  int device_;
  Job& job_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> posted_{0};
  std::size_t index_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything it reads exists
};

/// The process's launchers, one per device used so far, and the job they share.
class Pool {
 public:
  void run(std::span<const int> devices, const std::function<void(std::size_t)>& work) {
    const std::lock_guard turn(turn_);  // callers of several threads take turns
    for (const int d : devices) {
      if (d < 0 || static_cast<std::size_t>(d) >= launchers_.size())
        throw Error("gpulab supports device indices below " + std::to_string(launchers_.size()));
      if (!launchers_[static_cast<std::size_t>(d)]) launchers_[static_cast<std::size_t>(d)] = std::make_unique<Launcher>(d, job_);
    }
    job_.work = &work;
    job_.failures.assign(devices.size(), nullptr);
    job_.remaining.store(devices.size(), std::memory_order_release);
    for (std::size_t i = 0; i < devices.size(); ++i) launchers_[static_cast<std::size_t>(devices[i])]->post(i);
    if (!spin_until([&] { return job_.remaining.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock lock(job_.mutex);
      job_.finished.wait(lock, [&] { return job_.remaining.load(std::memory_order_acquire) == 0; });
    }
    for (const std::exception_ptr& failure : job_.failures)
      if (failure) std::rethrow_exception(failure);
  }

 private:
  std::mutex turn_;
  Job job_;
  std::array<std::unique_ptr<Launcher>, PerDevice<int>::kMaxDevices> launchers_;  // destroyed before job_
};

bool all_different(std::span<const int> devices) {
  std::vector<int> sorted(devices.begin(), devices.end());
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

}  // namespace

void on_launchers(std::span<const int> devices, const std::function<void(std::size_t)>& work) {
  // In turn on this thread: one device (nothing to overlap), a device twice, a launcher's own call
  // (its launcher is busy), or launches this thread's LaunchLog must see.
  if (devices.size() < 2 || !all_different(devices) || on_a_launcher || launches_logged()) {
    const KeepCurrentDevice keep;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      GPULAB_CUDA_CHECK(cudaSetDevice(devices[i]));
      work(i);
    }
    return;
  }
  static Pool pool;
  pool.run(devices, work);
}

}  // namespace gpulab::detail
