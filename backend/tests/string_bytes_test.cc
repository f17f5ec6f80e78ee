// A string's UTF-16 units as the wire's bytes (string_bytes.h), standard and
// modified UTF-8: exact bytes for each kind of unit, and the same bytes
// whatever the slices the units come in and the parts the bytes go out in.
#include "backend/values/string_bytes.h"

#include <gtest/gtest.h>

#include "vmcore/mutf8.h"

#include <string>
#include <vector>

namespace jdwpx::backend {
namespace {

using Bytes = std::vector<uint8_t>;

// The wire's bytes of `text`, one unit at a time, written out plainly (the
// oracle; stock's rules as in string_bytes.h).
Bytes Reference(const std::u16string& text, bool modified) {
  Bytes out;
  auto three = [&](uint32_t u) {
    out.insert(out.end(), {static_cast<uint8_t>(0xE0 | (u >> 12)), static_cast<uint8_t>(0x80 | ((u >> 6) & 0x3F)),
                           static_cast<uint8_t>(0x80 | (u & 0x3F))});
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const uint32_t u = text[i];
    if (u == 0 && modified) {
      out.insert(out.end(), {0xC0, 0x80});
    } else if (u < 0x80) {
      out.push_back(static_cast<uint8_t>(u));
    } else if (u < 0x800) {
      out.insert(out.end(), {static_cast<uint8_t>(0xC0 | (u >> 6)), static_cast<uint8_t>(0x80 | (u & 0x3F))});
    } else if (!modified && u >= 0xD800 && u <= 0xDBFF && i + 1 < text.size() && text[i + 1] >= 0xDC00 &&
               text[i + 1] <= 0xDFFF) {
      const uint32_t cp = 0x10000 + ((u - 0xD800) << 10) + (text[i + 1] - 0xDC00u);
      out.insert(out.end(), {static_cast<uint8_t>(0xF0 | (cp >> 18)), static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F)),
                             static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F)), static_cast<uint8_t>(0x80 | (cp & 0x3F))});
      ++i;
    } else {
      three(u);
    }
  }
  return out;
}

// The encoder fed `text` in slices of `slice` units.
Bytes EncodeInSlices(const std::u16string& text, bool modified, size_t slice) {
  WireUtf8Encoder encoder(modified);
  WireUtf8Encoder counter(modified);
  Bytes out(WireUtf8Encoder::MaxBytes(text.size()));
  size_t size = 0;
  size_t counted = 0;
  for (size_t at = 0; at < text.size(); at += slice) {
    const size_t n = std::min(slice, text.size() - at);
    const auto* units = reinterpret_cast<const uint16_t*>(text.data() + at);
    size += encoder.Encode(units, n, out.data() + size);
    counted += counter.Count(units, n);
  }
  size += encoder.Finish(out.data() + size);
  counted += counter.FinishCount();
  EXPECT_EQ(counted, size) << "Count agrees with Encode, slices of " << slice;
  out.resize(size);
  return out;
}

// NUL, 1-, 2- and 3-byte characters, pairs, and unpaired surrogates of both
// kinds, in the middle and at the ends.
const std::u16string kMixed = u"a\0b\u00e9\u20ac\U0001F600x\xD800y\xDC00z\U0001F600\u07FF\u0800\u007F\xDBFF\xDFFF"
                              u"\xDC00\xD800\xD800\U0010FFFF\xD83D";

TEST(WireUtf8, EachKindOfUnitStandard) {
  auto enc = [](const std::u16string& s) { return EncodeInSlices(s, false, s.size() + 1); };
  EXPECT_EQ(enc(u"a"), (Bytes{0x61}));
  EXPECT_EQ(enc(std::u16string(1, u'\0')), (Bytes{0x00}));
  EXPECT_EQ(enc(u"\u00e9"), (Bytes{0xC3, 0xA9}));
  EXPECT_EQ(enc(u"\u20ac"), (Bytes{0xE2, 0x82, 0xAC}));
  EXPECT_EQ(enc(u"\U0001F600"), (Bytes{0xF0, 0x9F, 0x98, 0x80}));
  EXPECT_EQ(enc(u"\xD800y"), (Bytes{0xED, 0xA0, 0x80, 'y'}));
  EXPECT_EQ(enc(u"\xDC00"), (Bytes{0xED, 0xB0, 0x80}));
  EXPECT_EQ(enc(u"end\xD800"), (Bytes{'e', 'n', 'd', 0xED, 0xA0, 0x80}));
  EXPECT_EQ(enc(u""), Bytes{});
}

TEST(WireUtf8, EachKindOfUnitModified) {
  auto enc = [](const std::u16string& s) { return EncodeInSlices(s, true, s.size() + 1); };
  EXPECT_EQ(enc(u"a"), (Bytes{0x61}));
  EXPECT_EQ(enc(std::u16string(1, u'\0')), (Bytes{0xC0, 0x80}));
  EXPECT_EQ(enc(u"\u00e9"), (Bytes{0xC3, 0xA9}));
  EXPECT_EQ(enc(u"\u20ac"), (Bytes{0xE2, 0x82, 0xAC}));
  EXPECT_EQ(enc(u"\U0001F600"), (Bytes{0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}));
  EXPECT_EQ(enc(u"\xD800y"), (Bytes{0xED, 0xA0, 0x80, 'y'}));
  EXPECT_EQ(enc(u"end\xD800"), (Bytes{'e', 'n', 'd', 0xED, 0xA0, 0x80}));
}

TEST(WireUtf8, AnySlicingGivesTheSameBytes) {
  for (bool modified : {false, true}) {
    const Bytes want = Reference(kMixed, modified);
    for (size_t slice = 1; slice <= kMixed.size(); ++slice) {
      EXPECT_EQ(EncodeInSlices(kMixed, modified, slice), want) << "modified=" << modified << " slice=" << slice;
    }
  }
}

// What the agent sent before it streamed strings, with mutf8=y: the standard
// bytes converted to modified UTF-8 (vmcore::Utf8ToModifiedUtf8).
TEST(WireUtf8, ModifiedIsTheStandardBytesConverted) {
  for (size_t slice : {size_t{1}, size_t{2}, size_t{3}, kMixed.size()}) {
    const Bytes standard = EncodeInSlices(kMixed, false, slice);
    const std::string converted =
        vmcore::Utf8ToModifiedUtf8(std::string_view(reinterpret_cast<const char*>(standard.data()), standard.size()));
    EXPECT_EQ(EncodeInSlices(kMixed, true, slice), Bytes(converted.begin(), converted.end())) << slice;
  }
}

// A string of `length` units read through a ReadUnits, counting the reads;
// `fail_from`: reads from that unit on fail.
struct FakeString {
  std::u16string text;
  size_t fail_from = SIZE_MAX;
  size_t reads = 0;
  ReadUnits Reader() {
    return [this](size_t from, size_t n, uint16_t* out) {
      ++reads;
      EXPECT_LE(n, StringBytes::kSliceUnits);
      EXPECT_LE(from + n, text.size());
      if (from + n > fail_from) return false;
      std::copy_n(reinterpret_cast<const uint16_t*>(text.data()) + from, n, out);
      return true;
    };
  }
};

// Over three slices: pairs split across both slice boundaries (standard
// UTF-8 keeps the high unit for the next slice), a lone high at a boundary,
// NUL and multi-byte characters throughout.
std::u16string ThreeSlices() {
  const size_t k = StringBytes::kSliceUnits;
  std::u16string s;
  for (size_t i = 0; s.size() < 2 * k + 1000; ++i) s += kMixed[i % kMixed.size()];
  s[k - 1] = 0xD83D;
  s[k] = 0xDE00;
  s[2 * k - 1] = 0xD800;
  s[2 * k] = u'q';
  s.back() = 0xDBFF;  // unpaired at the very end
  return s;
}

TEST(StringBytes, MeasureThenEncodeAllIsTheReference) {
  for (bool modified : {false, true}) {
    FakeString fake{ThreeSlices()};
    StringBytes bytes(fake.Reader(), fake.text.size(), modified);
    ASSERT_TRUE(bytes.Measure());
    const Bytes want = Reference(fake.text, modified);
    EXPECT_EQ(bytes.size(), want.size());
    Bytes got(bytes.size());
    ASSERT_TRUE(bytes.EncodeAll(got.data()));
    EXPECT_EQ(got, want) << "modified=" << modified;
    EXPECT_TRUE(bytes.done());
    EXPECT_EQ(fake.reads, 6u) << "two passes of three slices";
  }
}

// Part by part, with rooms that cut multi-byte sequences (1, 2, 5 bytes...)
// and rooms of a whole reply part: the bytes are EncodeAll's.
TEST(StringBytes, PartsOfAnySizeAreTheWholeBytes) {
  for (bool modified : {false, true}) {
    for (size_t room : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{7}, size_t{4097}, size_t{24580},
                        size_t{256} << 10}) {
      FakeString fake{ThreeSlices()};
      StringBytes bytes(fake.Reader(), fake.text.size(), modified);
      ASSERT_TRUE(bytes.Measure());
      Bytes got = {0xAA};  // what the part held before stays
      while (!bytes.done()) {
        const size_t before = got.size();
        ASSERT_TRUE(bytes.Next(room, got));
        ASSERT_GT(got.size(), before) << "progress while bytes are left";
        ASSERT_LE(got.size() - before, room);
        if (!bytes.done()) {
          ASSERT_EQ(got.size() - before, room) << "parts are filled";
        }
      }
      ASSERT_EQ(got.front(), 0xAA);
      got.erase(got.begin());
      EXPECT_EQ(got, Reference(fake.text, modified)) << "modified=" << modified << " room=" << room;
    }
  }
}

TEST(StringBytes, EmptyString) {
  FakeString fake{u""};
  StringBytes bytes(fake.Reader(), 0, false);
  ASSERT_TRUE(bytes.Measure());
  EXPECT_EQ(bytes.size(), 0u);
  uint8_t none = 0;
  EXPECT_TRUE(bytes.EncodeAll(&none));
  EXPECT_TRUE(bytes.done());
  EXPECT_EQ(fake.reads, 0u);
}

TEST(StringBytes, AFailedReadIsReported) {
  FakeString fake{ThreeSlices()};
  fake.fail_from = 1;
  StringBytes measured(fake.Reader(), fake.text.size(), false);
  EXPECT_FALSE(measured.Measure());
  // Failing in the second pass only: after the bytes made so far.
  fake.fail_from = SIZE_MAX;
  StringBytes bytes(fake.Reader(), fake.text.size(), false);
  ASSERT_TRUE(bytes.Measure());
  fake.fail_from = StringBytes::kSliceUnits + 1;
  Bytes got;
  EXPECT_TRUE(bytes.Next(1000, got));
  EXPECT_EQ(got.size(), 1000u);
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) failed = !bytes.Next(1000, got);
  EXPECT_TRUE(failed);
}

// A string whose characters change between the passes (reflection, Unsafe)
// no longer has the size announced: an error, never more bytes than that.
TEST(StringBytes, AStringThatChangedIsAnError) {
  for (char16_t wider : {u'\u20ac', u'a'}) {
    FakeString fake{ThreeSlices()};
    StringBytes bytes(fake.Reader(), fake.text.size(), false);
    ASSERT_TRUE(bytes.Measure());
    const size_t size = bytes.size();
    for (auto& u : fake.text) u = wider;  // 3 bytes a unit now, or 1
    Bytes got;
    bool failed = false;
    while (!failed && !bytes.done()) failed = !bytes.Next(size_t{256} << 10, got);
    EXPECT_TRUE(failed);
    EXPECT_LE(got.size(), size);
    Bytes whole(size);
    StringBytes again(fake.Reader(), fake.text.size(), false);
    ASSERT_TRUE(again.Measure());
    for (auto& u : fake.text) u = wider == u'a' ? u'\u20ac' : u'a';
    EXPECT_FALSE(again.EncodeAll(whole.data()));
  }
}

}  // namespace
}  // namespace jdwpx::backend
