#include "backend/session/launch_debugger.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <vector>

namespace jdwpx::backend {

bool LaunchDebugger(const std::string& command, const std::string& transport, const std::string& address) {
  const std::string line = command + " " + transport + " " + address;
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const long max_fd = sysconf(_SC_OPEN_MAX);
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls (the JVM is multithreaded).
  const pid_t pid = fork();
  if (pid == 0) {
    // __NR_ (the kernel's number), not SYS_: glibc 2.31, which the agent is built
    // against (cmake/glibc_floor.cmake), predates close_range and has no SYS_ name.
    if (syscall(__NR_close_range, 3U, ~0U, 0U) != 0) {
      for (long fd = 3; fd < max_fd && fd <= INT_MAX; ++fd) close(static_cast<int>(fd));
    }
    if (argv[0] != nullptr) execvp(argv[0], argv.data());
    _exit(errno);
  }
  return pid != -1;
}

}  // namespace jdwpx::backend
