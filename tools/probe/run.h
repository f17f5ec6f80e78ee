// A probe run over every target at once: connect, handshake, Probe.Set, print
// what the probes send, and at the end (--max reached on every target, --for
// elapsed, SIGINT or SIGTERM, a probe refused anywhere) clear every target's
// probes: Probe.List (for the summary), Probe.Clear(0), VirtualMachine.Dispose.
//
// Threading: one thread per target only to connect them all at once (a TCP
// connect may wait 10 s); then one poll loop on the calling thread owns every
// target's descriptor and writes every output line whole, so lines never interleave.
// SIGINT/SIGTERM reach the loop through a pipe; a second one stops waiting for
// the targets' answers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "jdwp/commands/probe.h"
#include "tools/probe/output.h"
#include "tools/probe/target.h"

namespace jdwpx::tools::probe {

struct RunOptions {
  std::vector<TargetSpec> targets;
  jdwp::Probe::Set::Request probe;
  // Lines (Log or Snapshot) per target after which that target is done; 0: no limit.
  int64_t max_lines = 0;
  // The run's length; 0: until interrupted or done.
  double for_seconds = 0;
  Format format = Format::kJson;
  // How long a target may take to connect's handshake and answer Probe.Set, and
  // to answer the end's commands.
  int answer_timeout_ms = 30000;
  FILE* out = stdout;
  FILE* err = stderr;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;

// 0 when every target ran and ended cleanly; 1 when any failed (each named on `err`).
int Run(const RunOptions& options);

}  // namespace jdwpx::tools::probe
