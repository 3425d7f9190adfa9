#include "core/process.hpp"

#include <gpulab/error.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpulab {
namespace {

/// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe(fd) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() { close_both(); }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  void close_both() { close_end(0), close_end(1); }
};

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, bool merge_stderr) {
  if (argv.empty()) throw Error("run_process: no program");
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, merge_stderr ? out.fd[1] : err.fd[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, out.fd[0]);
  posix_spawn_file_actions_addclose(&actions, err.fd[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("cannot run '" + argv[0] + "': " + std::strerror(rc));
  out.close_end(1);
  err.close_end(1);

  // Both streams at once: a child filling one pipe while we wait on the other would never finish.
  ProcessResult result;
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_streams = 2;
  char buf[1 << 16];
  while (open_streams > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open_streams;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // posix_spawnp reports a missing program through the child on some C libraries: exit code 127.
  if (result.exit_code == 127 && result.out.empty() && result.err.empty())
    throw Error("cannot run '" + argv[0] + "': not found");
  return result;
}

std::string executable_path() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string executable_dir() {
  const std::string exe = executable_path();
  return exe.empty() ? exe : std::filesystem::path(exe).parent_path().string();
}

std::string find_tool(const std::string& name, const std::string& explicit_path, const char* env_var) {
  auto runnable = [](const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; };
  if (!explicit_path.empty()) return runnable(explicit_path) ? explicit_path : "";
  if (const char* env = std::getenv(env_var); env && *env) return runnable(env) ? env : "";
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (std::size_t start = 0; start <= dirs.size();) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const std::string dir = dirs.substr(start, end - start);
      if (!dir.empty() && runnable(dir + "/" + name)) return dir + "/" + name;
      start = end + 1;
    }
  }
  const std::string cuda = "/usr/local/cuda/bin/" + name;
  return runnable(cuda) ? cuda : "";
}

}  // namespace gpulab
