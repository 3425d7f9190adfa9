// What a long run tells the person waiting for it. On a terminal: one status line rewritten in
// place (which problem, case and rung, and about how long is left); anywhere else (a pipe, a log, a
// test's string stream): the plain lines gpulab always wrote, one a case and one a rung.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace gpulab {

class Progress {
 public:
  Progress(std::ostream& os, bool live);
  ~Progress();  // clears the status line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// How many cases the whole run has (the time left is estimated from those done).
  void plan(std::size_t total_cases);
  void problem(const std::string& name, int index, int count);  // the suite's i-th of count problems
  void case_start(const std::string& description);
  void reference();                                             // the CPU reference is computed
  void rung(const std::string& id, const std::string& name);    // a rung is checked and timed
  void case_done();
  /// A line of its own ("measuring ceilings…"), above the status line.
  void message(const std::string& line);

  bool live() const { return live_; }

 private:
  void draw(const std::string& doing);
  std::string status(const std::string& doing) const;

  std::ostream& os_;
  bool live_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t total_cases_ = 0, cases_done_ = 0;
  std::string problem_, case_;
  int problem_index_ = 0, problem_count_ = 0;
  bool drawn_ = false;
};

/// Whether standard error is a terminal (where a status line can be rewritten).
bool stderr_is_terminal();

}  // namespace gpulab
