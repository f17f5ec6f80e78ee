// Reading trace files: whole records, and one clear error for each kind of bad file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "trace/analysis.h"
#include "trace/reader.h"
#include "trace/wire.h"

namespace jdwpx::trace {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/trace_reader_" + std::to_string(::getpid()) + "_" + name;
}

std::string Write(const std::string& name, const std::string& bytes) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ValidTrace(int packets) {
  std::string out;
  Record h;
  h.time_ns = 1000;
  h.header = Header{std::string(kMagic), kFormatVersion, "t", "vm", "17", 7, "", 1, 1000, 0, false};
  AppendDelimited(out, h);
  for (int i = 0; i < packets; ++i) {
    Record r;
    r.time_ns = 2000 + i;
    r.packet = Packet{Packet::Direction::kIn, uint32_t(i + 1), false, 1, 1, 0, 11, 0, {}};
    AppendDelimited(out, r);
  }
  return out;
}

TEST(Reader, ReadsEveryWholeRecord) {
  auto file = Load(Write("valid", ValidTrace(3)));
  ASSERT_TRUE(file) << file.error();
  EXPECT_EQ(file->records.size(), 4u);
  EXPECT_TRUE(file->problem.empty());
  EXPECT_EQ(file->header.pid, 7u);
  EXPECT_EQ(file->records[3].packet->id, 3u);
}

TEST(Reader, TruncatedFileIsReadUpToItsLastWholeRecord) {
  std::string bytes = ValidTrace(3);
  auto file = Load(Write("truncated", bytes.substr(0, bytes.size() - 2)));
  ASSERT_TRUE(file) << file.error();
  EXPECT_EQ(file->records.size(), 3u);
  EXPECT_NE(file->problem.find("truncated: the record at byte"), std::string::npos) << file->problem;
}

TEST(Reader, EmptyFileIsAnError) {
  auto file = Load(Write("empty", ""));
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().find("empty file"), std::string::npos) << file.error();
}

TEST(Reader, ForeignFileIsAnError) {
  auto file = Load(Write("foreign", std::string(200, 'x') + "\n#!/bin/sh\necho not a trace\n"));
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().find("not a jdwpx trace"), std::string::npos) << file.error();
  auto short_file = Load(Write("short", "hello\n"));
  ASSERT_FALSE(short_file);
  EXPECT_NE(short_file.error().find("not a jdwpx trace"), std::string::npos) << short_file.error();
}

TEST(Reader, CorruptRecordIsAnErrorAfterTheGoodOnes) {
  std::string bytes = ValidTrace(2);
  bytes += std::string("\x03\x0b\x0b\x0b", 4);  // a record of group wire types
  bytes += ValidTrace(1).substr(0, 0);
  auto file = Load(Write("corrupt", bytes));
  ASSERT_TRUE(file) << file.error();
  EXPECT_EQ(file->records.size(), 3u);
  EXPECT_NE(file->problem.find("corrupt record at byte"), std::string::npos) << file->problem;
}

TEST(Reader, MissingFileIsAnError) {
  auto file = Load(TempPath("does-not-exist"));
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().find("cannot open"), std::string::npos);
}

TEST(Reader, FollowsAFileBeingWritten) {
  std::string bytes = ValidTrace(2);
  std::string path = Write("growing", bytes.substr(0, bytes.size() - 3));
  auto reader = Reader::Open(path);
  ASSERT_TRUE(reader);
  Record r;
  EXPECT_EQ(reader->Next(r), Reader::Status::kRecord);
  EXPECT_EQ(reader->Next(r), Reader::Status::kRecord);
  EXPECT_EQ(reader->Next(r), Reader::Status::kIncomplete);
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes.substr(bytes.size() - 3);
  reader->Refill();
  EXPECT_EQ(reader->Next(r), Reader::Status::kRecord);
  EXPECT_EQ(r.packet->id, 2u);
  EXPECT_EQ(reader->Next(r), Reader::Status::kEnd);
}

}  // namespace
}  // namespace jdwpx::trace
