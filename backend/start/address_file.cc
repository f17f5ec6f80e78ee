#include "backend/start/address_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "trace/writer.h"

namespace jdwpx::backend {
namespace {

// Leaked on purpose: read by the atexit handler, after static destructors may have run.
std::mutex& Mutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
std::vector<std::string>& Written() {
  static auto* paths = new std::vector<std::string>;
  return *paths;
}

void RemoveAtExit() {
  std::lock_guard lock(Mutex());
  for (const std::string& path : Written()) unlink(path.c_str());
}

}  // namespace

tl::expected<std::string, std::string> WriteAddressFile(std::string_view pattern, std::string_view address) {
  const std::string path = trace::ExpandPath(pattern, static_cast<uint32_t>(getpid()));
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl::unexpected(temporary + ": " + std::strerror(errno));
  const std::string text = std::string(address) + "\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_errno = errno;
  if (close(fd) != 0 || !written) {
    unlink(temporary.c_str());
    return tl::unexpected(temporary + ": " + std::strerror(written ? errno : write_errno));
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    unlink(temporary.c_str());
    return tl::unexpected(path + ": " + std::strerror(rename_errno));
  }
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(RemoveAtExit); });
  std::lock_guard lock(Mutex());
  Written().push_back(path);
  return path;
}

}  // namespace jdwpx::backend
