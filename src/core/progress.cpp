#include "core/progress.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace gpulab {
namespace {

std::size_t terminal_width() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 100;
}

std::string minutes(double seconds) {
  const auto s = static_cast<long>(std::lround(seconds));
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

/// Cuts a string to `width` code points (UTF-8), so the status line never wraps.
std::string fit(const std::string& s, std::size_t width) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (++points > width) return s.substr(0, i);
  }
  return s;
}

}  // namespace

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::ostream& os, bool live) : os_(os), live_(live) {}

Progress::~Progress() {
  if (live_ && drawn_) os_ << "\r\x1b[2K" << std::flush;
}

void Progress::plan(std::size_t total_cases) { total_cases_ = total_cases; }

void Progress::problem(const std::string& name, int index, int count) {
  problem_ = name;
  problem_index_ = index;
  problem_count_ = count;
}

void Progress::case_start(const std::string& description) {
  case_ = description;
  if (live_) draw("");
}

void Progress::reference() {
  if (live_) draw("CPU reference");
  else os_ << case_ << ": CPU reference…\n" << std::flush;
}

void Progress::rung(const std::string& id, const std::string& name) {
  if (live_) draw(id + " " + name);
  else os_ << "  " << id << " " << name << "\n" << std::flush;
}

void Progress::case_done() { ++cases_done_; }

void Progress::message(const std::string& line) {
  if (live_ && drawn_) os_ << "\r\x1b[2K";
  drawn_ = false;
  os_ << line << "\n" << std::flush;
}

std::string Progress::status(const std::string& doing) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string s;
  if (problem_count_ > 1) s += fmt::format("[{}/{} {}] ", problem_index_ + 1, problem_count_, problem_);
  else if (!problem_.empty()) s += "[" + problem_ + "] ";
  if (total_cases_ > 0) s += fmt::format("case {}/{} ", std::min(cases_done_ + 1, total_cases_), total_cases_);
  s += case_;
  if (!doing.empty()) s += " · " + doing;
  s += " · " + minutes(elapsed);
  // Cases differ in cost; the average so far is the estimate, hence "about".
  if (total_cases_ > 0 && cases_done_ > 0 && cases_done_ < total_cases_)
    s += fmt::format(", about {} left",
                     minutes(elapsed / static_cast<double>(cases_done_) * static_cast<double>(total_cases_ - cases_done_)));
  return s;
}

void Progress::draw(const std::string& doing) {
  os_ << "\r\x1b[2K" << fit(status(doing), terminal_width() - 1) << std::flush;
  drawn_ = true;
}

}  // namespace gpulab
