#include "transport/address.h"

#include <net/if.h>

#include <gtest/gtest.h>

namespace jdwpx::transport {
namespace {

TEST(ParseAddress, BarePortIsLoopback) {
  auto parsed = ParseAddress("5005");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->host_kind, ParsedAddress::Host::kLoopback);
  EXPECT_EQ(parsed->port, 5005);
}

TEST(ParseAddress, EmptyIsEphemeralLoopback) {
  auto parsed = ParseAddress("");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->host_kind, ParsedAddress::Host::kLoopback);
  EXPECT_EQ(parsed->port, 0);
}

TEST(ParseAddress, Forms) {
  struct Case {
    const char* address;
    ParsedAddress::Host kind;
    const char* host;
    uint16_t port;
  };
  const Case cases[] = {
      {":5006", ParsedAddress::Host::kLoopback, "", 5006},
      {"*:5007", ParsedAddress::Host::kAny, "", 5007},
      {"[*]:0", ParsedAddress::Host::kAny, "", 0},
      {"localhost:5008", ParsedAddress::Host::kNamed, "localhost", 5008},
      {"[::1]:5009", ParsedAddress::Host::kNamed, "::1", 5009},
      {"::1:5010", ParsedAddress::Host::kNamed, "::1", 5010},
      {"127.0.0.1:0", ParsedAddress::Host::kNamed, "127.0.0.1", 0},
      {" 0", ParsedAddress::Host::kLoopback, "", 0},
      {"+5", ParsedAddress::Host::kLoopback, "", 5},
      {"00000", ParsedAddress::Host::kLoopback, "", 0},
      {"65535", ParsedAddress::Host::kLoopback, "", 65535},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.address);
    auto parsed = ParseAddress(c.address);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->host_kind, c.kind);
    EXPECT_EQ(parsed->host, c.host);
    EXPECT_EQ(parsed->port, c.port);
  }
}

TEST(ParseAddress, BadPortsAreStocks103) {
  for (const char* address : {"99999", "65536", "-1", "abc", "65535x", "0x10", "localhost:", "[::1]", "*", "*:", "[::1]:"}) {
    SCOPED_TRACE(address);
    auto parsed = ParseAddress(address);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, 103);
    EXPECT_EQ(parsed.error().message, "invalid port number specified");
  }
}

TEST(ParseAddress, Ipv6ScopeByNameOrIndex) {
  // glibc's getaddrinfo takes a scope name only on link-local addresses; stock
  // resolves it itself for any address, and so do we.
  const uint32_t lo = if_nametoindex("lo");
  if (lo == 0) GTEST_SKIP() << "no interface named lo";
  struct Case {
    const char* address;
    const char* host;
    uint32_t scope;
    uint16_t port;
  };
  const Case cases[] = {
      {"0:0:0:0:0:0:0:1%lo:5005", "0:0:0:0:0:0:0:1", lo, 5005},
      {"[0:0:0:0:0:0:0:1%lo]:5005", "0:0:0:0:0:0:0:1", lo, 5005},
      {"::1%lo:0", "::1", lo, 0},
      {"[::1%lo]:0", "::1", lo, 0},
      {"[fe80::1%1]:7", "fe80::1", 1, 7},
      {"[::1%0]:7", "::1", 0, 7},  // scope 0 is no scope
      {"[::1%]:7", "::1", 0, 7},   // stock: an empty scope parses as 0
      {"[::1]:7", "::1", 0, 7},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.address);
    auto parsed = ParseAddress(c.address);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->host_kind, ParsedAddress::Host::kNamed);
    EXPECT_EQ(parsed->host, c.host);
    EXPECT_EQ(parsed->scope_id, c.scope);
    EXPECT_EQ(parsed->port, c.port);
  }
}

TEST(ParseAddress, Ipv6ScopeErrorsAreStocks103) {
  struct Case {
    const char* address;
    const char* message;
  };
  const Case cases[] = {
      {"::1%nosuchif0:5005", "failed to parse scope"},
      {"[::1%1x]:5005", "failed to parse scope"},
      {"[::1%99999999999]:5005", "scope is out of range"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.address);
    auto parsed = ParseAddress(c.address);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, 103);
    EXPECT_EQ(parsed.error().message, c.message);
  }
  // The port is checked first, as stock does.
  auto bad_port = ParseAddress("::1%nosuchif0:x");
  ASSERT_FALSE(bad_port);
  EXPECT_EQ(bad_port.error().message, "invalid port number specified");
}

std::array<uint8_t, 16> V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return MapIpv4({a, b, c, d}); }
std::array<uint8_t, 16> V6Loopback() {
  std::array<uint8_t, 16> a{};
  a[15] = 1;
  return a;
}

TEST(AllowList, EmptyAndStarAllowEveryone) {
  for (const char* allow : {"", "*"}) {
    auto list = AllowList::Parse(allow);
    ASSERT_TRUE(list);
    EXPECT_TRUE(list->allows_everyone());
    EXPECT_TRUE(list->Allows(V4(8, 8, 8, 8)));
  }
}

TEST(AllowList, AddressesAndPrefixes) {
  auto list = AllowList::Parse("127.0.0.1+10.0.0.0/8+::1+fe80::/64+192.168.1.128/25");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->rules().size(), 5u);
  EXPECT_TRUE(list->Allows(V4(127, 0, 0, 1)));
  EXPECT_FALSE(list->Allows(V4(127, 0, 0, 2)));
  EXPECT_TRUE(list->Allows(V4(10, 200, 3, 4)));
  EXPECT_FALSE(list->Allows(V4(11, 0, 0, 1)));
  EXPECT_TRUE(list->Allows(V4(192, 168, 1, 200)));
  EXPECT_FALSE(list->Allows(V4(192, 168, 1, 100)));
  EXPECT_TRUE(list->Allows(V6Loopback()));
  std::array<uint8_t, 16> link_local{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_TRUE(list->Allows(link_local));
  link_local[7] = 1;
  EXPECT_FALSE(list->Allows(link_local));
}

TEST(AllowList, Ipv6ScopeIsParsedAndIgnored) {
  if (if_nametoindex("lo") == 0) GTEST_SKIP() << "no interface named lo";
  auto list = AllowList::Parse("::1%lo+fe80::/64%1");
  ASSERT_FALSE(list);  // a scope on the prefix length is no number
  list = AllowList::Parse("::1%lo+fe80::%1/64");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->Allows(V6Loopback()));
  for (const char* bad : {"::1%nosuchif0", "127.0.0.1%lo"}) {
    SCOPED_TRACE(bad);
    auto refused = AllowList::Parse(bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().message, "invalid IP address in allow option");
    EXPECT_EQ(refused.error().preceding_line, std::string("Error in allow option: '") + bad + "'");
  }
}

TEST(AllowList, ShortInetAtonFormIsAccepted) {
  // Stock accepts what getaddrinfo accepts: "10.1.2" is 10.1.0.2.
  auto list = AllowList::Parse("10.1.2");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->Allows(V4(10, 1, 0, 2)));
}

TEST(AllowList, ZeroPrefixMatchesAllOfItsFamily) {
  auto list = AllowList::Parse("1.2.3.4/0");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->Allows(V4(200, 1, 1, 1)));
  EXPECT_FALSE(list->Allows(V6Loopback()));
}

TEST(AllowList, StockErrors) {
  struct Case {
    const char* allow;
    const char* message;
    const char* preceding;
  };
  const Case cases[] = {
      {"10.1.2.3/33", "invalid netmask in allow option", "Error in allow option: '33'"},
      {"::1/129", "invalid netmask in allow option", "Error in allow option: '129'"},
      {"10.1.2.3/x", "invalid netmask in allow option", "Error in allow option: 'x'"},
      {"1.2.3.4/", "invalid netmask in allow option", "Error in allow option: ''"},
      {"1.2.3.4/-1", "invalid netmask in allow option", "Error in allow option: '-1'"},
      {"1.2.3.4//8", "invalid netmask in allow option", "Error in allow option: '/8'"},
      {"bogus", "invalid IP address in allow option", "Error in allow option: 'bogus'"},
      {"bogus/8", "invalid IP address in allow option", "Error in allow option: 'bogus'"},
      {"10.1.2.3+", "invalid IP address in allow option", "Error in allow option: ''"},
      {"++", "invalid IP address in allow option", "Error in allow option: ''"},
      {"*+1.2.3.4", "allow option '*' cannot be expanded", "Error in allow option: '*+1.2.3.4'"},
      {"*+*", "allow option '*' cannot be expanded", "Error in allow option: '*+*'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.allow);
    auto list = AllowList::Parse(c.allow);
    ASSERT_FALSE(list);
    EXPECT_EQ(list.error().code, 103);
    EXPECT_EQ(list.error().message, c.message);
    EXPECT_EQ(list.error().preceding_line, c.preceding);
  }
}

}  // namespace
}  // namespace jdwpx::transport
