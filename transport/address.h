// Parsing of the dt_socket options address= and allow=, with stock's rules and
// error texts. Internal to transport/ (asio-free so that tests can use it
// directly).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "transport/transport.h"

namespace jdwpx::transport {

// address= split as stock splits it: at the last ':'; "[v6]" loses its brackets.
struct ParsedAddress {
  enum class Host {
    kLoopback,  // no host part ("5005", ":5005", empty): loopback only
    kAny,       // "*": every interface, IPv4 and IPv6
    kNamed,     // anything else, resolved with getaddrinfo
  };
  Host host_kind = Host::kLoopback;
  std::string host;  // kNamed only, without brackets and without its "%scope"
  uint16_t port = 0;
  // IPv6 scope ("fe80::1%eth0", "::1%lo", "::1%1"): the interface index; 0 when
  // none. Applied to the resolved IPv6 address; an IPv4 address with a scope
  // fails as stock's "IPv4 address cannot contain scope".
  uint32_t scope_id = 0;
};

// Fails with 103 "invalid port number specified" like stock. An empty address
// is port 0 on loopback (server mode's default).
tl::expected<ParsedAddress, TransportError> ParseAddress(std::string_view address);

// stock's port syntax: optional leading blanks and '+', decimal, 0..65535.
std::optional<uint16_t> ParsePort(std::string_view text);

// A host as stock's dt_socket takes it apart before getaddrinfo: brackets
// dropped, then everything after the first '%' is the scope, an interface name
// (if_nametoindex) or else a decimal index. Errors are stock's 103 texts
// ("failed to parse scope", "scope is out of range").
struct ScopedHost {
  std::string host;
  uint32_t scope_id = 0;
};
tl::expected<ScopedHost, TransportError> SplitScope(std::string_view host);

// The error for a scope on an address that resolved to IPv4.
TransportError Ipv4WithScope();

// One allow= entry as an IPv6 prefix; IPv4 entries are stored IPv4-mapped
// (::ffff:a.b.c.d/96+n) so that IPv4 peers and mapped peers compare alike.
struct AllowRule {
  std::array<uint8_t, 16> address{};
  int prefix_bits = 128;
};

class AllowList {
 public:
  // "" and "*" allow everyone. Errors are stock's 103 texts, with stock's
  // "Error in allow option: '...'" line in preceding_line.
  static tl::expected<AllowList, TransportError> Parse(std::string_view allow);

  bool allows_everyone() const { return allow_everyone_; }
  // `peer` is the 16-byte IPv6 form (IPv4 peers IPv4-mapped).
  bool Allows(const std::array<uint8_t, 16>& peer) const;
  const std::vector<AllowRule>& rules() const { return rules_; }

 private:
  bool allow_everyone_ = true;
  std::vector<AllowRule> rules_;
};

// 16-byte IPv4-mapped form of an IPv4 address given in network byte order.
std::array<uint8_t, 16> MapIpv4(const std::array<uint8_t, 4>& v4);

}  // namespace jdwpx::transport
