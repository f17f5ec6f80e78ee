// A transport library (jdwpTransport.h) behind the Transport interface.
//
// Timeouts as stock passes them: timeout= for accept and attach, none for the
// handshake (the library's own).
//
// Threading model: the library's calls block, so each runs on the thread that
// needs it, as stock runs them. Open(), Accept() and Attach() on the caller's
// thread; Run() on the agent's I/O thread: ReadPacket in a loop, and in server
// mode, once a debugger leaves, StartListening + Accept again. Send() writes on
// the caller's thread, one packet at a time (write_mu_), so a packet is out
// when Send returns and Flush has nothing to wait for. CloseConnection() and
// Shutdown() call Close / StopListening from any thread; the library must make
// a blocked ReadPacket / Accept return then (stock relies on the same).
//
// One connection at a time, whatever Config::max_sessions says: jdwpTransport's
// environment holds a single connection (Accept, ReadPacket and WritePacket
// name none), so sessions=N serves N debuggers over dt_socket only.
#include "transport/library_transport.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <jni.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "jdwp/byte_order.h"
#include "jdwp/packet.h"

namespace jdwpx::transport {
namespace {

// jdwpTransport.h's interface, as its C declaration lays it out. Declared here
// because JDK 17's header does not compile as C++ (the C++ wrapper of
// SetTransportConfiguration in its _jdwpTransportEnv is malformed); the ABI is
// the C one, unchanged since version 1.1 (JDK 9).
enum : jint { JDWPTRANSPORT_VERSION_1_0 = 0x00010000, JDWPTRANSPORT_VERSION_1_1 = 0x00010001 };
enum jdwpTransportError : int {
  JDWPTRANSPORT_ERROR_NONE = 0,
  JDWPTRANSPORT_ERROR_ILLEGAL_ARGUMENT = 103,
  JDWPTRANSPORT_ERROR_OUT_OF_MEMORY = 110,
  JDWPTRANSPORT_ERROR_INTERNAL = 113,
  JDWPTRANSPORT_ERROR_ILLEGAL_STATE = 201,
  JDWPTRANSPORT_ERROR_IO_ERROR = 202,
  JDWPTRANSPORT_ERROR_TIMEOUT = 203,
  JDWPTRANSPORT_ERROR_MSG_NOT_AVAILABLE = 204,
};
constexpr jbyte JDWPTRANSPORT_FLAGS_REPLY = static_cast<jbyte>(0x80);
struct jdwpCmdPacket {
  jint len;
  jint id;
  jbyte flags;
  jbyte cmdSet;
  jbyte cmd;
  jbyte* data;
};
struct jdwpReplyPacket {
  jint len;
  jint id;
  jbyte flags;
  jshort errorCode;
  jbyte* data;
};
struct jdwpPacket {
  union {
    jdwpCmdPacket cmd;
    jdwpReplyPacket reply;
  } type;
};
struct jdwpTransportCallback {
  void* (*alloc)(jint numBytes);
  void (*free)(void* buffer);
};
struct jdwpTransportConfiguration {
  const char* allowed_peers;
};
struct jdwpTransportNativeInterface;
// The C header's jdwpTransportEnv: a pointer to the function table.
using jdwpTransportEnv = const jdwpTransportNativeInterface*;
struct jdwpTransportNativeInterface {
  void* reserved1;
  jdwpTransportError(JNICALL* GetCapabilities)(jdwpTransportEnv* env, void* capabilities);
  jdwpTransportError(JNICALL* Attach)(jdwpTransportEnv* env, const char* address, jlong attach_timeout,
                                      jlong handshake_timeout);
  jdwpTransportError(JNICALL* StartListening)(jdwpTransportEnv* env, const char* address, char** actual_address);
  jdwpTransportError(JNICALL* StopListening)(jdwpTransportEnv* env);
  jdwpTransportError(JNICALL* Accept)(jdwpTransportEnv* env, jlong accept_timeout, jlong handshake_timeout);
  jboolean(JNICALL* IsOpen)(jdwpTransportEnv* env);
  jdwpTransportError(JNICALL* Close)(jdwpTransportEnv* env);
  jdwpTransportError(JNICALL* ReadPacket)(jdwpTransportEnv* env, jdwpPacket* pkt);
  jdwpTransportError(JNICALL* WritePacket)(jdwpTransportEnv* env, const jdwpPacket* pkt);
  jdwpTransportError(JNICALL* GetLastError)(jdwpTransportEnv* env, char** error);
  jdwpTransportError(JNICALL* SetTransportConfiguration)(jdwpTransportEnv* env, jdwpTransportConfiguration* config);
};
using jdwpTransport_OnLoad_t = jint(JNICALL*)(JavaVM* jvm, jdwpTransportCallback* callback, jint version,
                                              jdwpTransportEnv** env);
static_assert(sizeof(jdwpPacket) == 24 && offsetof(jdwpReplyPacket, errorCode) == 10);

// One library call: (*env)->Name(env, args...), as C callers write it.
#define JDWPX_CALL(env, Name, ...) ((*(env))->Name((env)__VA_OPT__(, ) __VA_ARGS__))

void* Allocate(jint size) { return std::malloc(size > 0 ? static_cast<size_t>(size) : 1); }
void Free(void* buffer) { std::free(buffer); }
jdwpTransportCallback g_callback = {Allocate, Free};

TransportError Plain(std::string message, bool load_failed = false) {
  TransportError error;
  error.message = std::move(message);
  error.plain = true;
  error.load_failed = load_failed;
  return error;
}

// The library's last error, as stock's printLastError shows it.
TransportError LastErrorOf(jdwpTransportEnv* env, jdwpTransportError rc) {
  char* message = nullptr;
  TransportError error{static_cast<int>(rc), "UNKNOWN", {}};
  if (JDWPX_CALL(env, GetLastError, &message) == JDWPTRANSPORT_ERROR_NONE && message != nullptr) {
    error.message = message;
  }
  if (message != nullptr) g_callback.free(message);
  return error;
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Where lib<name>.so was looked for and what was found.
struct LibrarySearch {
  void* handle = nullptr;
  std::string file;                // lib<name>.so
  std::vector<std::string> dirs;   // library_path's directories, in order
  std::string failure;             // dlerror() of a file that exists but did not load
};

// Stock: lib<name>.so in the first directory of sun.boot.library.path that has
// it, else dlopen of the bare name (LD_LIBRARY_PATH, the cache, /usr/lib...).
LibrarySearch LoadLibrary(const std::string& library_path, const std::string& name) {
  LibrarySearch search;
  search.file = "lib" + name + ".so";
  size_t start = 0;
  while (start <= library_path.size() && !library_path.empty()) {
    size_t colon = library_path.find(':', start);
    std::string dir = library_path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      search.dirs.push_back(dir);
      const std::string path = dir + "/" + search.file;
      if (IsFile(path)) {
        search.handle = dlopen(path.c_str(), RTLD_LAZY);
        if (search.handle != nullptr) return search;
        const char* why = dlerror();
        if (search.failure.empty() && why != nullptr) search.failure = why;
      }
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  search.handle = dlopen(search.file.c_str(), RTLD_LAZY);
  if (search.handle == nullptr && search.failure.empty()) {
    // "cannot open shared object file" says nothing new; any other reason does
    // (a found file of the wrong class, a dependency missing).
    const char* why = dlerror();
    if (why != nullptr && std::strstr(why, "No such file or directory") == nullptr) search.failure = why;
  }
  return search;
}

// The file a handle was loaded from ("/usr/lib/x86_64-linux-gnu/libdt_x.so" for a
// bare name the system's search found).
std::string LoadedFile(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr && *map->l_name) {
    return map->l_name;
  }
  return fallback;
}

class LibraryTransport final : public Transport {
 public:
  LibraryTransport(const Config& config, Listener* listener, jdwpTransportEnv* env)
      : config_(config), listener_(listener), env_(env), log_(spdlog::get("jdwpx.transport")) {}

  tl::expected<void, TransportError> StartListening();

  uint16_t port() const override {
    std::lock_guard lock(address_mu_);
    // A numeric address ends in its port (dt_shmem's names do not: 0 then).
    size_t colon = address_.rfind(':');
    const char* digits = address_.c_str() + (colon == std::string::npos ? 0 : colon + 1);
    char* end = nullptr;
    unsigned long port = std::strtoul(digits, &end, 10);
    return (*digits != '\0' && *end == '\0' && port <= 65535) ? static_cast<uint16_t>(port) : 0;
  }
  std::string address() const override {
    std::lock_guard lock(address_mu_);
    return address_;
  }
  tl::expected<void, TransportError> Attach() override;
  tl::expected<void, TransportError> Accept() override;
  void Run() override;
  void Send(uint64_t session, std::vector<uint8_t> packet) override;
  bool Flush(std::chrono::milliseconds) override { return true; }
  void CloseConnection(uint64_t session) override;
  void Shutdown() override;

 private:
  TransportError LastError(jdwpTransportError rc) { return LastErrorOf(env_, rc); }
  void Connected() {
    uint64_t session;
    {
      std::lock_guard lock(write_mu_);
      session = ++session_;
      connected_ = true;
    }
    if (log_) log_->debug("debugger attached through {}", config_.name);
    // The library accepts and handshakes in one call: the handshake's time is not known.
    listener_->OnAttached(config_.name, session, std::chrono::nanoseconds::zero());
  }
  // Reads packets until the connection ends -> the reason.
  std::string ReadLoop();

  const Config config_;
  Listener* const listener_;
  jdwpTransportEnv* const env_;
  const std::shared_ptr<spdlog::logger> log_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  std::mutex write_mu_;
  uint64_t session_ = 0;  // the connection's number (write_mu_): the last one made
  uint64_t CurrentSession() {
    std::lock_guard lock(write_mu_);
    return session_;
  }
  mutable std::mutex address_mu_;
  std::string address_;
};

tl::expected<void, TransportError> LibraryTransport::StartListening() {
  char* actual = nullptr;
  const char* address = config_.address.empty() ? nullptr : config_.address.c_str();
  jdwpTransportError rc = JDWPX_CALL(env_, StartListening, address, &actual);
  if (rc != JDWPTRANSPORT_ERROR_NONE) return tl::unexpected(LastError(rc));
  std::lock_guard lock(address_mu_);
  address_ = actual != nullptr ? actual : "";
  if (actual != nullptr) g_callback.free(actual);
  return {};
}

tl::expected<void, TransportError> LibraryTransport::Accept() {
  if (!config_.server) return tl::unexpected(TransportError{kErrorIllegalState, "Accept() needs server mode", {}});
  if (connected_) return {};
  jdwpTransportError rc = JDWPX_CALL(env_, Accept, config_.timeout_ms, 0);
  if (rc != JDWPTRANSPORT_ERROR_NONE) {
    TransportError error = LastError(rc);
    (void)JDWPX_CALL(env_, StopListening);
    return tl::unexpected(error);
  }
  // As stock: no second debugger while one is attached; listening starts again at its end.
  (void)JDWPX_CALL(env_, StopListening);
  Connected();
  return {};
}

tl::expected<void, TransportError> LibraryTransport::Attach() {
  if (config_.server) return tl::unexpected(TransportError{kErrorIllegalState, "Attach() needs client mode", {}});
  if (connected_) return {};
  jdwpTransportError rc = JDWPX_CALL(env_, Attach, config_.address.c_str(), config_.timeout_ms, 0);
  if (rc != JDWPTRANSPORT_ERROR_NONE) return tl::unexpected(LastError(rc));
  Connected();
  return {};
}

std::string LibraryTransport::ReadLoop() {
  while (!stopping_) {
    jdwpPacket packet{};
    jdwpTransportError rc = JDWPX_CALL(env_, ReadPacket, &packet);
    // A closed transport reads as length 0 (stock's EOF).
    if (rc != JDWPTRANSPORT_ERROR_NONE) return JDWPX_CALL(env_, IsOpen) ? LastError(rc).message : "connection closed";
    const jint length = packet.type.cmd.len;
    if (length == 0) return "debugger closed the connection";
    if (length < static_cast<jint>(jdwp::kHeaderSize)) {
      if (packet.type.cmd.data != nullptr) g_callback.free(packet.type.cmd.data);
      return "invalid length " + std::to_string(length);
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(length));
    jdwp::PutBigEndian(bytes.data(), static_cast<uint32_t>(length));
    jdwp::PutBigEndian(bytes.data() + 4, static_cast<uint32_t>(packet.type.cmd.id));
    bytes[8] = static_cast<uint8_t>(packet.type.cmd.flags);
    jbyte* data = packet.type.cmd.data;
    if (packet.type.cmd.flags & JDWPTRANSPORT_FLAGS_REPLY) {
      data = packet.type.reply.data;
      auto code = static_cast<uint16_t>(packet.type.reply.errorCode);
      bytes[9] = static_cast<uint8_t>(code >> 8);
      bytes[10] = static_cast<uint8_t>(code);
    } else {
      bytes[9] = static_cast<uint8_t>(packet.type.cmd.cmdSet);
      bytes[10] = static_cast<uint8_t>(packet.type.cmd.cmd);
    }
    if (data != nullptr) {
      std::memcpy(bytes.data() + jdwp::kHeaderSize, data, bytes.size() - jdwp::kHeaderSize);
      g_callback.free(data);
    }
    listener_->OnPacket(CurrentSession(), std::move(bytes));
  }
  return "transport shut down";
}

void LibraryTransport::Run() {
  try {
    while (!stopping_) {
      if (!connected_) {
        if (!config_.server) return;
        if (auto accepted = Accept(); !accepted) {
          if (!stopping_) listener_->OnAcceptFailed(accepted.error());
          return;
        }
      }
      std::string reason = ReadLoop();
      {
        std::lock_guard lock(write_mu_);
        connected_ = false;
        (void)JDWPX_CALL(env_, Close);
      }
      // Listening again before OnDetached, which announces the (new) address.
      if (config_.server && !stopping_) {
        if (auto listening = StartListening(); !listening) {
          listener_->OnWarning("ERROR: transport error " + std::to_string(listening.error().code) + ": " +
                               listening.error().message);
          stopping_ = true;
        }
      }
      if (log_) log_->debug("debugger detached: {}", reason);
      listener_->OnDetached(CurrentSession(), reason);
      if (!config_.server) return;
    }
  } catch (const std::exception& e) {
    if (log_) log_->error("transport library loop failed: {}", e.what());
  }
}

void LibraryTransport::Send(uint64_t session, std::vector<uint8_t> bytes) {
  if (!connected_ || bytes.size() < jdwp::kHeaderSize) return;
  jdwpPacket packet{};
  packet.type.cmd.len = static_cast<jint>(jdwp::GetBigEndian32(bytes.data()));
  packet.type.cmd.id = static_cast<jint>(jdwp::GetBigEndian32(bytes.data() + 4));
  packet.type.cmd.flags = static_cast<jbyte>(bytes[8]);
  jbyte* data = bytes.size() > jdwp::kHeaderSize ? reinterpret_cast<jbyte*>(bytes.data() + jdwp::kHeaderSize) : nullptr;
  if (bytes[8] & JDWPTRANSPORT_FLAGS_REPLY) {
    packet.type.reply.errorCode = static_cast<jshort>((bytes[9] << 8) | bytes[10]);
    packet.type.reply.data = data;
  } else {
    packet.type.cmd.cmdSet = static_cast<jbyte>(bytes[9]);
    packet.type.cmd.cmd = static_cast<jbyte>(bytes[10]);
    packet.type.cmd.data = data;
  }
  std::lock_guard lock(write_mu_);
  if (!connected_ || session != session_) return;
  jdwpTransportError rc = JDWPX_CALL(env_, WritePacket, &packet);
  if (rc != JDWPTRANSPORT_ERROR_NONE) {
    if (log_ && JDWPX_CALL(env_, IsOpen)) log_->warn("transport error {}: {}", static_cast<int>(rc), LastError(rc).message);
    return;
  }
  listener_->OnWritten(bytes, bytes.size());
}

void LibraryTransport::CloseConnection(uint64_t session) {
  // Every Send so far has written its packet; Close ends ReadPacket in Run().
  std::lock_guard lock(write_mu_);
  if (connected_ && session == session_) (void)JDWPX_CALL(env_, Close);
}

void LibraryTransport::Shutdown() {
  if (stopping_.exchange(true)) return;
  (void)JDWPX_CALL(env_, StopListening);
  std::lock_guard lock(write_mu_);
  (void)JDWPX_CALL(env_, Close);
}

}  // namespace

tl::expected<std::unique_ptr<Transport>, TransportError> OpenLibraryTransport(const Config& config,
                                                                              Listener* listener) {
  void* handle = LoadLibrary(config.library_path, config.name).handle;
  if (handle == nullptr) return tl::unexpected(Plain("transport library not found: " + config.name, true));
  auto on_load = reinterpret_cast<jdwpTransport_OnLoad_t>(dlsym(handle, "jdwpTransport_OnLoad"));
  if (on_load == nullptr) return tl::unexpected(Plain("transport library missing onLoad entry: " + config.name, true));
  jdwpTransportEnv* env = nullptr;
  jint version = JDWPTRANSPORT_VERSION_1_1;
  jint rc = on_load(static_cast<JavaVM*>(config.java_vm), &g_callback, version, &env);
  if (rc == JNI_EVERSION) {
    version = JDWPTRANSPORT_VERSION_1_0;
    rc = on_load(static_cast<JavaVM*>(config.java_vm), &g_callback, version, &env);
  }
  switch (rc) {
    case JNI_OK:
      break;
    case JNI_ENOMEM:
      return tl::unexpected(Plain("insufficient memory to complete initialization"));
    case JNI_EVERSION:
      return tl::unexpected(Plain("transport doesn't recognize all supported versions: { 1_1, 1_0 }"));
    case JNI_EEXIST:
      return tl::unexpected(Plain("transport doesn't support multiple environments"));
    default:
      return tl::unexpected(Plain("unrecognized error " + std::to_string(rc) + " from transport"));
  }
  if (env == nullptr) return tl::unexpected(Plain("unrecognized error 0 from transport"));
  auto transport = std::make_unique<LibraryTransport>(config, listener, env);
  if (config.server) {
    if (version == JDWPTRANSPORT_VERSION_1_0) {
      if (!config.allow.empty()) {
        return tl::unexpected(Plain("Allow parameter is specified but transport doesn't support it"));
      }
    } else {
      jdwpTransportConfiguration configuration{};
      configuration.allowed_peers = config.allow.empty() ? nullptr : config.allow.c_str();
      jdwpTransportError configured = JDWPX_CALL(env, SetTransportConfiguration, &configuration);
      if (configured != JDWPTRANSPORT_ERROR_NONE) return tl::unexpected(LastErrorOf(env, configured));
    }
    if (auto listening = transport->StartListening(); !listening) return tl::unexpected(listening.error());
  }
  return std::unique_ptr<Transport>(std::move(transport));
}

std::optional<LibraryProblem> CheckLibrary(const std::string& name, const std::string& library_path) {
  const LibrarySearch search = LoadLibrary(library_path, name);
  if (search.handle == nullptr) {
    std::string where = search.file + " not found: looked in ";
    for (const std::string& dir : search.dirs) where += dir + ", ";
    if (!search.dirs.empty()) where.replace(where.size() - 2, 2, " (sun.boot.library.path), then ");
    const char* ld_library_path = std::getenv("LD_LIBRARY_PATH");
    where += "the system's library path (";
    where += ld_library_path != nullptr && *ld_library_path ? std::string("LD_LIBRARY_PATH=") + ld_library_path
                                                            : std::string("no LD_LIBRARY_PATH");
    where += ", /etc/ld.so.cache, /lib, /usr/lib)";
    if (!search.failure.empty()) where += "; " + search.failure;
    return LibraryProblem{Plain("transport library not found: " + name, true), where};
  }
  // Kept loaded: Open() at the VM's start finds the same library.
  if (dlsym(search.handle, "jdwpTransport_OnLoad") == nullptr) {
    return LibraryProblem{Plain("transport library missing onLoad entry: " + name, true),
                          LoadedFile(search.handle, search.file) + " has no function jdwpTransport_OnLoad: not a JDWP "
                                                                  "transport library"};
  }
  return std::nullopt;
}

}  // namespace jdwpx::transport

#undef JDWPX_CALL
