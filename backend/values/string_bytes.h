// A Java string's characters (UTF-16 code units) as the wire's bytes, made
// slice by slice: StringReference.Value of a 50 MB string is measured in one
// pass and then encoded in another, whole or part by part while it is sent,
// and never held as a whole UTF-16 or modified UTF-8 copy. No JNI here: the
// units come from a reader (JNI's GetStringRegion in the agent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace jdwpx::backend {

// UTF-16 -> the wire's UTF-8, as stock sends it:
//  - standard (default, mutf8=n): NUL as one 0 byte, a surrogate pair as one
//    4-byte sequence, an unpaired surrogate as the 3-byte sequence of its unit;
//  - modified (mutf8=y, the JVM's own form): NUL as C0 80, every surrogate as
//    the 3-byte sequence of its unit.
// Units may come in slices of any size (a pair split between two slices is
// still one 4-byte sequence): the encoder keeps a high surrogate until it sees
// the unit after it, or Finish().
class WireUtf8Encoder {
 public:
  explicit WireUtf8Encoder(bool modified) : modified_(modified) {}

  // The most bytes Encode(n units) + Finish() may write: 3 a unit, plus 3 for
  // a high surrogate kept from the slice before.
  static constexpr size_t MaxBytes(size_t units) { return 3 * units + 3; }

  // Writes the bytes of `n` units at `out`; returns how many.
  size_t Encode(const uint16_t* units, size_t n, uint8_t* out);
  // How many Encode would write (and the same change of state).
  size_t Count(const uint16_t* units, size_t n);
  // The bytes of a high surrogate left at the end (0 or 3), written at `out`.
  size_t Finish(uint8_t* out);
  size_t FinishCount();

 private:
  template <class Out>
  void Run(const uint16_t* units, size_t n, Out& out);
  bool modified_;
  uint16_t pending_high_ = 0;
};

// Reads units [from, from + n) of the string into `out`; false: the VM failed.
using ReadUnits = std::function<bool(size_t from, size_t n, uint16_t* out)>;

// A string of `length` units as the wire's bytes: Measure() first (one pass),
// then either EncodeAll or Next until done (the second pass).
class StringBytes {
 public:
  // Units read at a time: a 16 KiB buffer.
  static constexpr size_t kSliceUnits = 8192;

  StringBytes(ReadUnits read, size_t length, bool modified);

  // The encoded size in bytes (a pass over every unit). False: a read failed.
  [[nodiscard]] bool Measure();
  size_t size() const { return size_; }

  // All size() bytes at `out`. False: a read failed, or the string's bytes
  // were not size() (it changed since Measure).
  [[nodiscard]] bool EncodeAll(uint8_t* out);
  // Appends the next bytes to `out`: as many as fit in `room` (from 6 bytes of
  // room on, at least one while any are left). False as EncodeAll.
  [[nodiscard]] bool Next(size_t room, std::vector<uint8_t>& out);
  // Every byte handed out.
  bool done() const { return encoded_ && carry_at_ == carry_.size(); }

 private:
  static constexpr size_t kFailed = ~size_t{0};
  // Writes up to `room` bytes at `out`; how many, or kFailed.
  size_t Produce(uint8_t* out, size_t room);

  ReadUnits read_;
  size_t length_;
  bool modified_;
  size_t size_ = 0;
  std::vector<uint16_t> slice_;
  // The encoding pass.
  WireUtf8Encoder encoder_;
  size_t units_done_ = 0;
  size_t bytes_done_ = 0;  // encoded, into `out` or into carry_
  bool encoded_ = false;   // every unit encoded, Finish() done
  // The bytes of a slice that did not fit in the room left, handed out first
  // by the next call.
  std::vector<uint8_t> carry_;
  size_t carry_at_ = 0;
};

}  // namespace jdwpx::backend
