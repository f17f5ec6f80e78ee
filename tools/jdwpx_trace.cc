// jdwpx-trace: reads the protocol traces the agent writes with trace=<path>.
//
//   jdwpx-trace summary FILE...          per command, event kind, session; suspension; drops
//   jdwpx-trace show FILE [--follow]     one line per record (--follow: wait for more)
//   jdwpx-trace export --chrome FILE...  Chrome trace-event JSON on stdout
//
// A file that cannot be read gets one line on stderr and exit status 1; a
// truncated or partly corrupt one is used up to its last whole record, then
// reported the same way.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "trace/analysis.h"
#include "trace/chrome_export.h"
#include "trace/reader.h"

namespace {

using jdwpx::trace::Record;
using jdwpx::trace::Reader;
using jdwpx::trace::TraceFile;

constexpr const char* kUsage =
    "usage: jdwpx-trace summary FILE...\n"
    "       jdwpx-trace show FILE [--follow]\n"
    "       jdwpx-trace export --chrome FILE...\n";

int Usage() {
  std::fputs(kUsage, stderr);
  return 2;
}

void Problem(const std::string& line) { std::fprintf(stderr, "jdwpx-trace: %s\n", line.c_str()); }

// Loads every file; false (after one line each) when any cannot be used whole.
bool LoadAll(const std::vector<std::string>& paths, std::vector<TraceFile>& files) {
  bool whole = true;
  for (const std::string& path : paths) {
    auto file = jdwpx::trace::Load(path);
    if (!file) {
      Problem(file.error());
      whole = false;
      continue;
    }
    if (!file->problem.empty()) {
      Problem(file->problem);
      whole = false;
    }
    files.push_back(std::move(*file));
  }
  return whole;
}

int Summary(const std::vector<std::string>& paths) {
  std::vector<TraceFile> files;
  bool whole = LoadAll(paths, files);
  if (!files.empty()) std::fputs(jdwpx::trace::Summarize(std::move(files)).c_str(), stdout);
  return whole ? 0 : 1;
}

int Export(const std::vector<std::string>& paths) {
  std::vector<TraceFile> files;
  bool whole = LoadAll(paths, files);
  if (!whole) return 1;  // half a timeline written to a file would pass for a whole one
  std::fputs(jdwpx::trace::ChromeJson(std::move(files)).c_str(), stdout);
  return 0;
}

int Show(const std::string& path, bool follow) {
  auto reader = Reader::Open(path);
  // --follow waits for a trace that is not there yet (the JVM is starting).
  while (!reader && follow && access(path.c_str(), F_OK) != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reader = Reader::Open(path);
  }
  if (!reader) {
    Problem(reader.error());
    return 1;
  }
  uint64_t start = 0;
  Record record;
  while (true) {
    Reader::Status status = reader->Next(record);
    if (status == Reader::Status::kRecord) {
      if (record.header && start == 0) start = record.header->start_mono_ns;
      std::printf("%s\n", jdwpx::trace::Line(record, start).c_str());
      continue;
    }
    if (status == Reader::Status::kError) {
      std::fflush(stdout);
      Problem(reader->error() + "; " + std::to_string(reader->records()) + " whole records read before it");
      return 1;
    }
    if (follow) {
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      reader->Refill();
      continue;
    }
    if (reader->records() == 0) {
      Problem(path + (status == Reader::Status::kEnd ? ": empty file: no trace records"
                                                       : ": truncated: not even its header is whole"));
      return 1;
    }
    if (status == Reader::Status::kIncomplete) {
      std::fflush(stdout);
      Problem(path + ": truncated: the record at byte " + std::to_string(reader->offset()) + " is incomplete; " +
              std::to_string(reader->records()) + " whole records read before it");
      return 1;
    }
    return 0;
  }
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return Usage();
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "summary") {
    if (args.empty()) return Usage();
    return Summary(args);
  }
  if (command == "show") {
    bool follow = false;
    std::vector<std::string> paths;
    for (const std::string& a : args) {
      if (a == "--follow" || a == "-f") {
        follow = true;
      } else {
        paths.push_back(a);
      }
    }
    if (paths.size() != 1) return Usage();
    return Show(paths.front(), follow);
  }
  if (command == "export") {
    if (args.empty() || args.front() != "--chrome") return Usage();
    args.erase(args.begin());
    if (args.empty()) return Usage();
    return Export(args);
  }
  return Usage();
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    Problem(std::string("internal error: ") + e.what());
    return 1;
  } catch (...) {
    Problem("internal error");
    return 1;
  }
}
