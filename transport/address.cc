#include "transport/address.h"

#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace jdwpx::transport {
namespace {

TransportError InvalidPort() { return {kErrorIllegalArgument, "invalid port number specified", {}}; }

TransportError AllowError(std::string_view shown, const char* message) {
  return {kErrorIllegalArgument, message, "Error in allow option: '" + std::string(shown) + "'"};
}

// Numeric addresses only, through getaddrinfo so that the accepted forms
// (including inet_aton's short "10.1.2") are exactly stock's. A scope is
// accepted and ignored, as stock does (glibc itself refuses an interface name
// on a non-link-local address such as "::1%lo").
std::optional<AllowRule> ParseNumericAddress(const std::string& text) {
  auto scoped = SplitScope(text);
  if (!scoped) return std::nullopt;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* found = nullptr;
  if (scoped->host.empty() || getaddrinfo(scoped->host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  if (scoped->scope_id != 0 && found->ai_family != AF_INET6) {
    freeaddrinfo(found);
    return std::nullopt;
  }
  std::optional<AllowRule> rule;
  if (found->ai_family == AF_INET) {
    std::array<uint8_t, 4> v4;
    std::memcpy(v4.data(), &reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr, 4);
    rule = AllowRule{MapIpv4(v4), 128};
  } else if (found->ai_family == AF_INET6) {
    AllowRule v6;
    std::memcpy(v6.address.data(), &reinterpret_cast<const sockaddr_in6*>(found->ai_addr)->sin6_addr, 16);
    rule = v6;
  }
  freeaddrinfo(found);
  return rule;
}

bool IsIpv4Mapped(const std::array<uint8_t, 16>& a) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(a.data(), kPrefix, 12) == 0;
}

}  // namespace

std::array<uint8_t, 16> MapIpv4(const std::array<uint8_t, 4>& v4) {
  std::array<uint8_t, 16> mapped{};
  mapped[10] = 0xff;
  mapped[11] = 0xff;
  std::memcpy(mapped.data() + 12, v4.data(), 4);
  return mapped;
}

std::optional<uint16_t> ParsePort(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < text.size() && text[i] == '+') ++i;
  if (i == text.size()) return std::nullopt;
  uint32_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + static_cast<uint32_t>(text[i] - '0');
    if (value > 65535) return std::nullopt;
  }
  return static_cast<uint16_t>(value);
}

TransportError Ipv4WithScope() { return {kErrorIllegalArgument, "IPv4 address cannot contain scope", {}}; }

tl::expected<ScopedHost, TransportError> SplitScope(std::string_view host) {
  // Brackets only around something (stock: longer than 2 characters).
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  ScopedHost split;
  size_t percent = host.find('%');
  split.host = std::string(host.substr(0, percent));
  if (percent == std::string_view::npos) return split;
  // glibc's getaddrinfo takes interface names only on link-local addresses, so
  // the scope is resolved here, as stock does, for every address.
  const std::string scope(host.substr(percent + 1));
  unsigned long id = if_nametoindex(scope.c_str());
  if (id == 0) {
    char* end = nullptr;
    errno = 0;
    id = std::strtoul(scope.c_str(), &end, 10);
    if (*end != '\0') return tl::unexpected(TransportError{kErrorIllegalArgument, "failed to parse scope", {}});
  }
  if (id > 0xFFFFFFFFul) return tl::unexpected(TransportError{kErrorIllegalArgument, "scope is out of range", {}});
  split.scope_id = static_cast<uint32_t>(id);
  return split;
}

tl::expected<ParsedAddress, TransportError> ParseAddress(std::string_view address) {
  ParsedAddress parsed;
  if (address.empty()) return parsed;
  std::string_view host;
  std::string_view port = address;
  if (size_t colon = address.rfind(':'); colon != std::string_view::npos) {
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  auto port_number = ParsePort(port);
  if (!port_number) return tl::unexpected(InvalidPort());
  parsed.port = *port_number;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) {
    parsed.host_kind = ParsedAddress::Host::kLoopback;
  } else if (host == "*") {
    parsed.host_kind = ParsedAddress::Host::kAny;
  } else {
    auto scoped = SplitScope(host);
    if (!scoped) return tl::unexpected(scoped.error());
    parsed.host_kind = ParsedAddress::Host::kNamed;
    parsed.host = std::move(scoped->host);
    parsed.scope_id = scoped->scope_id;
  }
  return parsed;
}

tl::expected<AllowList, TransportError> AllowList::Parse(std::string_view allow) {
  AllowList list;
  if (allow.empty() || allow == "*") return list;
  list.allow_everyone_ = false;
  size_t start = 0;
  while (true) {
    size_t plus = allow.find('+', start);
    std::string_view entry = allow.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start);
    if (entry == "*") return tl::unexpected(AllowError(allow, "allow option '*' cannot be expanded"));
    std::string_view address = entry;
    std::optional<std::string_view> mask;
    if (size_t slash = entry.find('/'); slash != std::string_view::npos) {
      address = entry.substr(0, slash);
      mask = entry.substr(slash + 1);
    }
    auto rule = ParseNumericAddress(std::string(address));
    if (!rule) return tl::unexpected(AllowError(address, "invalid IP address in allow option"));
    if (mask) {
      bool ipv4 = IsIpv4Mapped(rule->address);
      int bits = 0;
      bool valid = !mask->empty() && mask->size() <= 3;
      for (char c : *mask) {
        if (c < '0' || c > '9') valid = false;
        else bits = bits * 10 + (c - '0');
      }
      if (!valid || bits > (ipv4 ? 32 : 128)) {
        return tl::unexpected(AllowError(*mask, "invalid netmask in allow option"));
      }
      rule->prefix_bits = ipv4 ? 96 + bits : bits;
    }
    list.rules_.push_back(*rule);
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return list;
}

bool AllowList::Allows(const std::array<uint8_t, 16>& peer) const {
  if (allow_everyone_) return true;
  for (const AllowRule& rule : rules_) {
    int full_bytes = rule.prefix_bits / 8;
    int rest_bits = rule.prefix_bits % 8;
    if (std::memcmp(peer.data(), rule.address.data(), static_cast<size_t>(full_bytes)) != 0) continue;
    if (rest_bits != 0) {
      auto mask = static_cast<uint8_t>(0xff << (8 - rest_bits));
      if ((peer[full_bytes] & mask) != (rule.address[full_bytes] & mask)) continue;
    }
    return true;
  }
  return false;
}

}  // namespace jdwpx::transport
