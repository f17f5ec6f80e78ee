// The file side of address=unix:<path> (ours): checking the path, removing a
// stale socket file, the 0600 mode, the peer's uid (SO_PEERCRED), and removing
// the file when the transport stops listening or the process exits. Asio-free.
#pragma once

#include <sys/types.h>

#include <string>

#include <tl/expected.hpp>

#include "transport/transport.h"

namespace jdwpx::transport {

// Not empty and short enough for sockaddr_un (107 bytes); else 103.
tl::expected<void, TransportError> ValidateUnixSocketPath(const std::string& path);

// Before bind: the directory must exist and be writable (202, "bind failed:
// ..." like a taken port); a socket file nobody listens on is removed (true),
// one somebody listens on is "Address already in use", any other file is
// refused, never removed.
tl::expected<bool, TransportError> PrepareUnixSocketPath(const std::string& path);

// The connected peer's credentials: "uid 1000 pid 4242" when it may attach
// (the process's effective uid, or root with `allow_root`), else the refusal
// ("uid 1001 (pid 4242); only uid 1000 may attach to unix:/p").
tl::expected<std::string, std::string> CheckUnixPeer(int fd, bool allow_root);

// The socket file while this process owns it. Removed by Remove(), by the
// destructor, and at process exit (atexit), but only while it is still the
// file we bound (same inode): a later listener's file is left alone.
class UnixSocketFile {
 public:
  UnixSocketFile() = default;
  ~UnixSocketFile() { Remove(); }
  UnixSocketFile(const UnixSocketFile&) = delete;
  UnixSocketFile& operator=(const UnixSocketFile&) = delete;

  void Own(const std::string& path);
  tl::expected<void, TransportError> RestrictMode() const;
  void Remove();

 private:
  std::string path_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

}  // namespace jdwpx::transport
