#include "backend/values/string_bytes.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace jdwpx::backend {
namespace {

bool IsHigh(uint16_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool IsLow(uint16_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

struct Writer {
  uint8_t* at;
  template <class... B>
  void Put(B... bytes) { ((*at++ = static_cast<uint8_t>(bytes)), ...); }
  // `n` units that are one byte each.
  void Ascii(const uint16_t* units, size_t n) {
    for (size_t k = 0; k < n; ++k) at[k] = static_cast<uint8_t>(units[k]);
    at += n;
  }
};

struct Counter {
  size_t size = 0;
  template <class... B>
  void Put(B...) { size += sizeof...(B); }
  void Ascii(const uint16_t*, size_t n) { size += n; }
};

// How many units from `units` on are one byte each (below 0x80, and not NUL
// in modified UTF-8): most of most strings, checked four at a time.
size_t AsciiRun(const uint16_t* units, size_t n, bool modified) {
  constexpr uint64_t kAbove7F = 0xFF80FF80FF80FF80ull;
  constexpr uint64_t kOnes = 0x0001000100010001ull;
  constexpr uint64_t kSigns = 0x8000800080008000ull;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint64_t w;
    std::memcpy(&w, units + i, sizeof w);
    if (w & kAbove7F) break;
    if (modified && ((w - kOnes) & ~w & kSigns)) break;  // a 0 unit among the four
  }
  while (i < n && units[i] < 0x80 && !(modified && units[i] == 0)) ++i;
  return i;
}

template <class Out>
void Three(Out& out, uint16_t u) {
  out.Put(0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F));
}

}  // namespace

template <class Out>
void WireUtf8Encoder::Run(const uint16_t* units, size_t n, Out& out) {
  size_t i = 0;
  if (pending_high_ && n > 0) {
    const uint16_t high = std::exchange(pending_high_, 0);
    if (IsLow(units[0])) {
      const uint32_t cp = 0x10000 + ((static_cast<uint32_t>(high) - 0xD800) << 10) + (units[0] - 0xDC00u);
      out.Put(0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F));
      i = 1;
    } else {
      Three(out, high);
    }
  }
  for (; i < n; ++i) {
    if (const size_t run = AsciiRun(units + i, n - i, modified_); run > 0) {
      out.Ascii(units + i, run);
      i += run;
      if (i == n) break;
    }
    const uint16_t u = units[i];
    if (u < 0x80) {
      if (u == 0 && modified_) {
        out.Put(0xC0, 0x80);
      } else {
        out.Put(u);
      }
    } else if (u < 0x800) {
      out.Put(0xC0 | (u >> 6), 0x80 | (u & 0x3F));
    } else if (!modified_ && IsHigh(u)) {
      if (i + 1 == n) {
        pending_high_ = u;  // its pair, if any, starts the next slice
      } else if (IsLow(units[i + 1])) {
        const uint32_t cp = 0x10000 + ((static_cast<uint32_t>(u) - 0xD800) << 10) + (units[i + 1] - 0xDC00u);
        out.Put(0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F));
        ++i;
      } else {
        Three(out, u);
      }
    } else {
      Three(out, u);
    }
  }
}

size_t WireUtf8Encoder::Encode(const uint16_t* units, size_t n, uint8_t* out) {
  Writer w{out};
  Run(units, n, w);
  return static_cast<size_t>(w.at - out);
}

size_t WireUtf8Encoder::Count(const uint16_t* units, size_t n) {
  Counter c;
  Run(units, n, c);
  return c.size;
}

size_t WireUtf8Encoder::Finish(uint8_t* out) {
  if (!pending_high_) return 0;
  Writer w{out};
  Three(w, std::exchange(pending_high_, 0));
  return 3;
}

size_t WireUtf8Encoder::FinishCount() { return std::exchange(pending_high_, 0) ? 3 : 0; }

StringBytes::StringBytes(ReadUnits read, size_t length, bool modified)
    : read_(std::move(read)), length_(length), modified_(modified), slice_(std::min(kSliceUnits, length)),
      encoder_(modified) {}

bool StringBytes::Measure() {
  WireUtf8Encoder counter(modified_);
  size_t size = 0;
  for (size_t done = 0; done < length_;) {
    const size_t n = std::min(kSliceUnits, length_ - done);
    if (!read_(done, n, slice_.data())) return false;
    size += counter.Count(slice_.data(), n);
    done += n;
  }
  size_ = size + counter.FinishCount();
  return true;
}

size_t StringBytes::Produce(uint8_t* out, size_t room) {
  size_t written = 0;
  for (;;) {
    // Bytes of the last slice that did not fit in the previous part go first.
    const size_t take = std::min(carry_.size() - carry_at_, room - written);
    std::memcpy(out + written, carry_.data() + carry_at_, take);
    written += take;
    carry_at_ += take;
    if (carry_at_ < carry_.size()) return written;  // the part is full
    carry_.clear();
    carry_at_ = 0;
    if (encoded_ || (written == room && room > 0)) return written;
    // The next slice, straight into `out` when its bytes surely fit, else
    // through the carry.
    size_t n = 0;
    if (units_done_ < length_) {
      n = std::min(kSliceUnits, length_ - units_done_);
      if (!read_(units_done_, n, slice_.data())) return kFailed;
    }
    const bool direct = room - written >= WireUtf8Encoder::MaxBytes(n);
    if (!direct) carry_.resize(WireUtf8Encoder::MaxBytes(n));
    uint8_t* to = direct ? out + written : carry_.data();
    size_t made = encoder_.Encode(slice_.data(), n, to);
    units_done_ += n;
    if (units_done_ == length_) {
      made += encoder_.Finish(to + made);
      encoded_ = true;
    }
    bytes_done_ += made;
    // Strings do not change; a string changed under us (reflection, Unsafe)
    // would no longer fit the size announced.
    if (bytes_done_ > size_ || (encoded_ && bytes_done_ != size_)) return kFailed;
    if (direct) {
      written += made;
    } else {
      carry_.resize(made);
    }
  }
}

bool StringBytes::EncodeAll(uint8_t* out) {
  const size_t written = Produce(out, size_);
  return written == size_ && done();
}

bool StringBytes::Next(size_t room, std::vector<uint8_t>& out) {
  const size_t at = out.size();
  room = std::min(room, size_ - (bytes_done_ - (carry_.size() - carry_at_)));
  out.resize(at + room);
  const size_t written = Produce(out.data() + at, room);
  if (written == kFailed) {
    out.resize(at);
    return false;
  }
  out.resize(at + written);
  return true;
}

}  // namespace jdwpx::backend
