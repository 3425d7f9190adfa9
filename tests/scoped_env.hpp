// An environment variable set for a scope, and unset when the scope ends however it ends (a
// failed assertion in between must not leave it set for the tests after).
#pragma once

#include <cstdlib>

namespace gpulab::test {

struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~ScopedEnv() { ::unsetenv(name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace gpulab::test
