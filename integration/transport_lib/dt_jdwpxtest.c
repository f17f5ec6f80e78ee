/* A tiny JDWP transport library (jdwpTransport.h) for the transport=<name>
 * tests: TCP on 127.0.0.1 with the JDWP handshake, one connection at a time.
 * Both agents load it the same way (lib<name>.so), so the stock agent is the
 * oracle for how jdwpx drives it. C, as transport libraries are written (JDK
 * 17's jdwpTransport.h does not compile as C++).
 *
 *   address=<port> (0 or none: any free port); StartListening reports
 *   "localhost:<port>", so that a test can tell this library from dt_socket.
 *
 * Environment, read by jdwpTransport_OnLoad:
 *   JDWPX_TEST_TRANSPORT_LOG=<file>     appends one line per call worth asserting
 *                                       ("OnLoad 0x10001", "StartListening 0", "Accept 0", ...)
 *   JDWPX_TEST_TRANSPORT_VERSIONS=1.0   accept only version 1.0 (JNI_EVERSION for 1.1)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jdwpTransport.h>

static const char kHandshake[] = "JDWP-Handshake";
#define HANDSHAKE_LENGTH 14

static jdwpTransportCallback *g_callback;
static volatile int g_listen_fd = -1;
static volatile int g_fd = -1;
static pthread_mutex_t g_error_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_last_error[256];
static const char *g_log_path;

static void log_call(const char *format, const char *arg) {
  FILE *f;
  if (g_log_path == NULL || (f = fopen(g_log_path, "a")) == NULL) return;
  fprintf(f, format, arg);
  fputc('\n', f);
  fclose(f);
}

static jdwpTransportError fail(jdwpTransportError error, const char *message) {
  pthread_mutex_lock(&g_error_mu);
  snprintf(g_last_error, sizeof(g_last_error), "%s", message);
  pthread_mutex_unlock(&g_error_mu);
  return error;
}

static jdwpTransportError io_error(const char *what) {
  char message[200];
  snprintf(message, sizeof(message), "%s: %s", what, strerror(errno));
  return fail(JDWPTRANSPORT_ERROR_IO_ERROR, message);
}

static int send_all(int fd, const void *data, size_t size) {
  const char *p = data;
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

/* -> bytes read; fewer than `size` only at EOF; -1 on error. */
static ssize_t recv_all(int fd, void *data, size_t size) {
  char *p = data;
  size_t got = 0;
  while (got < size) {
    ssize_t n = recv(fd, p + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

static jdwpTransportError handshake(int fd) {
  char received[HANDSHAKE_LENGTH];
  if (!send_all(fd, kHandshake, HANDSHAKE_LENGTH)) return io_error("send failed during handshake");
  if (recv_all(fd, received, HANDSHAKE_LENGTH) != HANDSHAKE_LENGTH ||
      memcmp(received, kHandshake, HANDSHAKE_LENGTH) != 0) {
    return fail(JDWPTRANSPORT_ERROR_IO_ERROR, "handshake failed");
  }
  return JDWPTRANSPORT_ERROR_NONE;
}

static void connected(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  g_fd = fd;
}

static struct sockaddr_in loopback(const char *address) {
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons((uint16_t)(address ? atoi(address) : 0));
  return sa;
}

static jdwpTransportError JNICALL GetCapabilities(jdwpTransportEnv *env, JDWPTransportCapabilities *capabilities) {
  memset(capabilities, 0, sizeof(*capabilities));
  capabilities->can_timeout_accept = 1;
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL Attach(jdwpTransportEnv *env, const char *address, jlong attach_timeout,
                                         jlong handshake_timeout) {
  struct sockaddr_in sa = loopback(address);
  jdwpTransportError error;
  int fd;
  log_call("Attach %s", address ? address : "(null)");
  if (g_fd >= 0) return fail(JDWPTRANSPORT_ERROR_ILLEGAL_STATE, "already connected");
  fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return io_error("socket failed");
  if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    error = io_error("connect failed");
    close(fd);
    return error;
  }
  if ((error = handshake(fd)) != JDWPTRANSPORT_ERROR_NONE) {
    close(fd);
    return error;
  }
  connected(fd);
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL StartListening(jdwpTransportEnv *env, const char *address, char **actual_address) {
  struct sockaddr_in sa = loopback(address);
  socklen_t length = sizeof(sa);
  char actual[64];
  int one = 1;
  int fd;
  log_call("StartListening %s", address ? address : "(null)");
  if (g_listen_fd >= 0) return fail(JDWPTRANSPORT_ERROR_ILLEGAL_STATE, "already listening");
  fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return io_error("socket failed");
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &length) != 0) {
    jdwpTransportError error = io_error("bind failed");
    close(fd);
    return error;
  }
  g_listen_fd = fd;
  snprintf(actual, sizeof(actual), "localhost:%d", ntohs(sa.sin_port));
  *actual_address = g_callback->alloc((jint)strlen(actual) + 1);
  if (*actual_address == NULL) return fail(JDWPTRANSPORT_ERROR_OUT_OF_MEMORY, "out of memory");
  strcpy(*actual_address, actual);
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL StopListening(jdwpTransportEnv *env) {
  int fd = __atomic_exchange_n(&g_listen_fd, -1, __ATOMIC_SEQ_CST);
  log_call("StopListening%s", "");
  if (fd < 0) return fail(JDWPTRANSPORT_ERROR_ILLEGAL_STATE, "not listening");
  shutdown(fd, SHUT_RDWR); /* wakes an Accept blocked on it */
  close(fd);
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL Accept(jdwpTransportEnv *env, jlong accept_timeout, jlong handshake_timeout) {
  char timeout[32];
  int listen_fd = g_listen_fd;
  jdwpTransportError error;
  int fd;
  snprintf(timeout, sizeof(timeout), "%lld", (long long)accept_timeout);
  log_call("Accept %s", timeout);
  if (listen_fd < 0) return fail(JDWPTRANSPORT_ERROR_ILLEGAL_STATE, "not listening");
  if (accept_timeout > 0) {
    struct pollfd p = {listen_fd, POLLIN, 0};
    if (poll(&p, 1, (int)accept_timeout) == 0) {
      return fail(JDWPTRANSPORT_ERROR_TIMEOUT, "timed out waiting for connection");
    }
  }
  fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return io_error("accept failed");
  if ((error = handshake(fd)) != JDWPTRANSPORT_ERROR_NONE) {
    close(fd);
    return error;
  }
  connected(fd);
  return JDWPTRANSPORT_ERROR_NONE;
}

static jboolean JNICALL IsOpen(jdwpTransportEnv *env) { return g_fd >= 0 ? JNI_TRUE : JNI_FALSE; }

static jdwpTransportError JNICALL Close(jdwpTransportEnv *env) {
  int fd = __atomic_exchange_n(&g_fd, -1, __ATOMIC_SEQ_CST);
  if (fd < 0) return JDWPTRANSPORT_ERROR_NONE;
  log_call("Close%s", "");
  shutdown(fd, SHUT_RDWR); /* wakes a ReadPacket blocked on it */
  close(fd);
  return JDWPTRANSPORT_ERROR_NONE;
}

static uint32_t get32(const unsigned char *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void put32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static jdwpTransportError JNICALL ReadPacket(jdwpTransportEnv *env, jdwpPacket *packet) {
  unsigned char header[JDWP_HEADER_SIZE];
  int fd = g_fd;
  ssize_t n;
  uint32_t length;
  size_t data_length;
  jbyte *data;
  memset(packet, 0, sizeof(*packet));
  if (fd < 0) return JDWPTRANSPORT_ERROR_NONE; /* closed: length 0 is EOF */
  n = recv_all(fd, header, sizeof(header));
  if (n == 0 || (n < 0 && g_fd < 0)) return JDWPTRANSPORT_ERROR_NONE;
  if (n != (ssize_t)sizeof(header)) return io_error("recv error");
  length = get32(header);
  if (length < JDWP_HEADER_SIZE) return fail(JDWPTRANSPORT_ERROR_IO_ERROR, "invalid length");
  packet->type.cmd.len = (jint)length;
  packet->type.cmd.id = (jint)get32(header + 4);
  packet->type.cmd.flags = (jbyte)header[8];
  if (header[8] & JDWPTRANSPORT_FLAGS_REPLY) {
    packet->type.reply.errorCode = (jshort)((header[9] << 8) | header[10]);
  } else {
    packet->type.cmd.cmdSet = (jbyte)header[9];
    packet->type.cmd.cmd = (jbyte)header[10];
  }
  data_length = length - JDWP_HEADER_SIZE;
  if (data_length == 0) return JDWPTRANSPORT_ERROR_NONE;
  data = g_callback->alloc((jint)data_length);
  if (data == NULL) return fail(JDWPTRANSPORT_ERROR_OUT_OF_MEMORY, "out of memory");
  if (recv_all(fd, data, data_length) != (ssize_t)data_length) {
    g_callback->free(data);
    return io_error("recv error");
  }
  if (header[8] & JDWPTRANSPORT_FLAGS_REPLY) {
    packet->type.reply.data = data;
  } else {
    packet->type.cmd.data = data;
  }
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL WritePacket(jdwpTransportEnv *env, const jdwpPacket *packet) {
  unsigned char header[JDWP_HEADER_SIZE];
  const jbyte *data;
  jint length = packet->type.cmd.len;
  int fd = g_fd;
  if (fd < 0) return fail(JDWPTRANSPORT_ERROR_IO_ERROR, "not connected");
  if (length < JDWP_HEADER_SIZE) return fail(JDWPTRANSPORT_ERROR_ILLEGAL_ARGUMENT, "invalid length");
  put32(header, (uint32_t)length);
  put32(header + 4, (uint32_t)packet->type.cmd.id);
  header[8] = (unsigned char)packet->type.cmd.flags;
  if (header[8] & JDWPTRANSPORT_FLAGS_REPLY) {
    uint16_t code = (uint16_t)packet->type.reply.errorCode;
    header[9] = (unsigned char)(code >> 8);
    header[10] = (unsigned char)code;
    data = packet->type.reply.data;
  } else {
    header[9] = (unsigned char)packet->type.cmd.cmdSet;
    header[10] = (unsigned char)packet->type.cmd.cmd;
    data = packet->type.cmd.data;
  }
  if (!send_all(fd, header, sizeof(header)) ||
      (length > JDWP_HEADER_SIZE && !send_all(fd, data, (size_t)(length - JDWP_HEADER_SIZE)))) {
    return io_error("send error");
  }
  return JDWPTRANSPORT_ERROR_NONE;
}

static jdwpTransportError JNICALL GetLastError(jdwpTransportEnv *env, char **error) {
  jdwpTransportError result = JDWPTRANSPORT_ERROR_NONE;
  pthread_mutex_lock(&g_error_mu);
  if (g_last_error[0] == '\0') {
    result = JDWPTRANSPORT_ERROR_MSG_NOT_AVAILABLE;
  } else if ((*error = g_callback->alloc((jint)strlen(g_last_error) + 1)) == NULL) {
    result = JDWPTRANSPORT_ERROR_OUT_OF_MEMORY;
  } else {
    strcpy(*error, g_last_error);
  }
  pthread_mutex_unlock(&g_error_mu);
  return result;
}

static jdwpTransportError JNICALL SetTransportConfiguration(jdwpTransportEnv *env,
                                                            jdwpTransportConfiguration *config) {
  log_call("SetTransportConfiguration %s", config->allowed_peers ? config->allowed_peers : "(null)");
  return JDWPTRANSPORT_ERROR_NONE;
}

static struct jdwpTransportNativeInterface_ g_interface = {
    NULL, GetCapabilities, Attach, StartListening, StopListening, Accept, IsOpen, Close,
    ReadPacket, WritePacket, GetLastError, SetTransportConfiguration,
};
static jdwpTransportEnv g_env = &g_interface;

JNIEXPORT jint JNICALL jdwpTransport_OnLoad(JavaVM *jvm, jdwpTransportCallback *callback, jint version,
                                            jdwpTransportEnv **env) {
  const char *versions = getenv("JDWPX_TEST_TRANSPORT_VERSIONS");
  int only_1_0 = versions != NULL && strcmp(versions, "1.0") == 0;
  char line[32];
  g_log_path = getenv("JDWPX_TEST_TRANSPORT_LOG");
  snprintf(line, sizeof(line), "0x%x", (unsigned)version);
  log_call("OnLoad %s", line);
  if (version != JDWPTRANSPORT_VERSION_1_0 && (version != JDWPTRANSPORT_VERSION_1_1 || only_1_0)) {
    return JNI_EVERSION;
  }
  g_callback = callback;
  *env = &g_env;
  return JNI_OK;
}
