// JDWP's byte order (big-endian) at a raw position in a buffer: for code that
// fills or reads a packet in place (headers, streamed parts, array elements)
// rather than through codec.h's Writer and Reader.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace jdwpx::jdwp {

namespace detail {
template <size_t N> struct UnsignedOfSize;
template <> struct UnsignedOfSize<1> { using type = uint8_t; };
template <> struct UnsignedOfSize<2> { using type = uint16_t; };
template <> struct UnsignedOfSize<4> { using type = uint32_t; };
template <> struct UnsignedOfSize<8> { using type = uint64_t; };
}  // namespace detail

// `value`'s bytes, most significant first, at `out` (floating point by its bits).
template <class T>
inline void PutBigEndian(uint8_t* out, T value) {
  using U = typename detail::UnsignedOfSize<sizeof(T)>::type;
  const auto bits = std::bit_cast<U>(value);
  for (size_t i = 0; i < sizeof(U); ++i) out[i] = static_cast<uint8_t>(bits >> (8 * (sizeof(U) - 1 - i)));
}

inline uint32_t GetBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace jdwpx::jdwp
