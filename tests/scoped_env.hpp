// An environment variable set for a scope, and given back its value from before (or unset) when the
// scope ends however it ends: a failed assertion in between must not change it for the tests after,
// nor drop a value the run was started with.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace gpulab::test {

struct ScopedEnv {
  const char* name;
  std::optional<std::string> before;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* old = std::getenv(n)) before = old;
    ::setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (before) ::setenv(name, before->c_str(), 1);
    else ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace gpulab::test
