// `jdwpx-trace export --chrome`: a trace as Chrome's trace-event JSON
// ({"traceEvents": [...]}), the format ui.perfetto.dev and chrome://tracing
// open. Each run (pid) of the traces is a process, "debuggee (pid N)", with:
//
//  - a track per Java thread, named after the thread (its ThreadName record;
//    "thread 0x1f" for a trace without one), and a "JDWP commands" track
//    (tid 0) for commands that name no thread;
//  - commands as slices ("X", cat "command") from their arrival to their
//    reply's last byte, on the track of the thread they name (ThreadReference,
//    StackFrame) or on "JDWP commands";
//  - events as instants ("i", cat "event") on their thread's track, with the
//    request, the composite's suspend policy by name (SUSPEND_NONE,
//    SUSPEND_EVENT_THREAD, SUSPEND_ALL) and the composite;
//  - a thread's suspensions as slices ("X", cat "suspension", "suspended") on
//    its track, from its own event (policy EVENT_THREAD or ALL) or a
//    ThreadReference.Suspend to the resume that brings the debugger's count of
//    it back to 0 (ThreadReference.Resume, VirtualMachine.Resume, the session's
//    end), counted as JDWP counts them;
//  - the whole VM's suspensions (Suspension records) as async spans
//    ("b"/"e", cat "suspension", "VM suspended", id 1: one track);
//  - sessions as async spans ("b"/"e", cat "session", id 1), refused
//    debuggers, agent errors and dropped records as instants.
//
// A span still open when the trace ends is closed at its last record, with
// "open_at_end": true in its args. Times ("ts", "dur") are microseconds since
// the first record of all the files.
#pragma once

#include <string>
#include <vector>

#include "trace/analysis.h"

namespace jdwpx::trace {

std::string ChromeJson(std::vector<TraceFile> files);

// A suspend policy as the export names it: "SUSPEND_EVENT_THREAD", or
// "SUSPEND_POLICY_7" for a number the spec does not define.
std::string SuspendPolicyName(uint32_t policy);

}  // namespace jdwpx::trace
