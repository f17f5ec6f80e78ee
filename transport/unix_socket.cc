#include "transport/unix_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace jdwpx::transport {
namespace {

TransportError BindFailed(const std::string& text) { return {kErrorIo, "bind failed: " + text, {}}; }

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Files to remove at exit: the JVM's exit (System.exit, end of main, SIGTERM)
// runs atexit handlers; kill -9 leaves the file, which the next start removes.
// Leaked on purpose: the atexit handler may run after static destructors.
struct Owned {
  std::string path;
  dev_t device;
  ino_t inode;
};

std::mutex& OwnedMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
std::vector<Owned>& OwnedFiles() {
  static auto* files = new std::vector<Owned>;
  return *files;
}

void RemoveIfSame(const Owned& file) {
  struct stat st {};
  if (lstat(file.path.c_str(), &st) == 0 && st.st_dev == file.device && st.st_ino == file.inode) {
    unlink(file.path.c_str());
  }
}

void RemoveAllAtExit() {
  std::lock_guard lock(OwnedMutex());
  for (const Owned& file : OwnedFiles()) RemoveIfSame(file);
  OwnedFiles().clear();
}

}  // namespace

tl::expected<void, TransportError> ValidateUnixSocketPath(const std::string& path) {
  if (path.empty()) return tl::unexpected(TransportError{kErrorIllegalArgument, "unix socket path is missing", {}});
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return tl::unexpected(TransportError{
        kErrorIllegalArgument,
        fmt::format("unix socket path is too long ({} bytes, at most {})", path.size(), sizeof(sockaddr_un::sun_path) - 1),
        {}});
  }
  return {};
}

tl::expected<bool, TransportError> PrepareUnixSocketPath(const std::string& path) {
  if (auto valid = ValidateUnixSocketPath(path); !valid) return tl::unexpected(valid.error());
  const std::string directory = Directory(path);
  struct stat st {};
  if (stat(directory.c_str(), &st) != 0) {
    return tl::unexpected(BindFailed(fmt::format("{}: directory {}: {}", path, directory, std::strerror(errno))));
  }
  if (!S_ISDIR(st.st_mode)) return tl::unexpected(BindFailed(fmt::format("{}: {} is not a directory", path, directory)));
  if (access(directory.c_str(), W_OK | X_OK) != 0) {
    return tl::unexpected(
        BindFailed(fmt::format("{}: directory {} is not writable: {}", path, directory, std::strerror(errno))));
  }
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    return tl::unexpected(BindFailed(fmt::format("{}: {}", path, std::strerror(errno))));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return tl::unexpected(BindFailed(fmt::format("{} exists and is not a socket (not removed)", path)));
  }
  // A socket file: stale unless something still accepts on it.
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return tl::unexpected(BindFailed(std::string("socket: ") + std::strerror(errno)));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int connected = connect(probe, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  const int connect_errno = errno;
  close(probe);
  if (connected == 0) {
    return tl::unexpected(BindFailed(fmt::format("{}: Address already in use (a process listens on it)", path)));
  }
  if (connect_errno != ECONNREFUSED) {
    return tl::unexpected(BindFailed(fmt::format("{}: {}", path, std::strerror(connect_errno))));
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return tl::unexpected(BindFailed(fmt::format("{}: cannot remove the stale socket file: {}", path, std::strerror(errno))));
  }
  return true;
}

tl::expected<std::string, std::string> CheckUnixPeer(int fd, bool allow_root) {
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    return tl::unexpected(fmt::format("unknown peer (SO_PEERCRED: {})", std::strerror(errno)));
  }
  const uid_t own = geteuid();
  if (credentials.uid == own || (credentials.uid == 0 && allow_root)) {
    return fmt::format("uid {} pid {}", credentials.uid, credentials.pid);
  }
  return tl::unexpected(fmt::format("uid {} (pid {}); only uid {} may attach{}", credentials.uid, credentials.pid, own,
                                    credentials.uid == 0 ? " (root too with unixroot=y)" : ""));
}

void UnixSocketFile::Own(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;
  path_ = path;
  device_ = st.st_dev;
  inode_ = st.st_ino;
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(RemoveAllAtExit); });
  std::lock_guard lock(OwnedMutex());
  OwnedFiles().push_back({path_, device_, inode_});
}

tl::expected<void, TransportError> UnixSocketFile::RestrictMode() const {
  if (chmod(path_.c_str(), 0600) != 0) {
    return tl::unexpected(BindFailed(fmt::format("{}: chmod 0600: {}", path_, std::strerror(errno))));
  }
  return {};
}

void UnixSocketFile::Remove() {
  if (path_.empty()) return;
  const Owned mine{path_, device_, inode_};
  RemoveIfSame(mine);
  {
    std::lock_guard lock(OwnedMutex());
    auto& files = OwnedFiles();
    files.erase(std::remove_if(files.begin(), files.end(),
                               [&](const Owned& f) { return f.device == device_ && f.inode == inode_ && f.path == path_; }),
                files.end());
  }
  path_.clear();
}

}  // namespace jdwpx::transport
