// jdwpx-probe: sets a logpoint or a snapshot on one JVM or many (jdwpx agents,
// through the Probe command set) and prints what they send; clears them at the end.
//   jdwpx-probe TARGET... log LOCATION TEMPLATE [--if EXPR] [--max N] [--for SECONDS] ...
//   jdwpx-probe TARGET... snapshot LOCATION [--if EXPR] [--max N] [--depth D] [--frames F] ...
//   jdwpx-probe --help | --version      on stdout, exit status 0
// The run itself is tools/probe/run.h; this file is its command line.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli.h"
#include "tools/probe/run.h"
#include "tools/probe/target.h"

namespace {

namespace probe = jdwpx::tools::probe;
namespace Probe = jdwpx::jdwp::Probe;

constexpr const char* kTool = "jdwpx-probe";
constexpr const char* kUsage =
    "usage: jdwpx-probe TARGET... log LOCATION TEMPLATE [--if EXPR] [--max N] [--for SECONDS]\n"
    "                   [--format json|text] [--budget PERCENT] [--rate LINES_PER_S]\n"
    "       jdwpx-probe TARGET... snapshot LOCATION [--if EXPR] [--max N] [--for SECONDS]\n"
    "                   [--depth D] [--frames F] [--format json|text] [--budget PERCENT]\n"
    "       jdwpx-probe --help | --version\n"
    "\n"
    "Sets a probe on every target at once (jdwpx agents only) and prints what it sends;\n"
    "clears it on every target at the end (--max on every target, --for, Ctrl-C).\n"
    "TARGET, any number of:\n"
    "  --connect HOST:PORT | unix:PATH   a JVM's JDWP address\n"
    "  --exec 'COMMAND ...'              a command (run by /bin/sh) whose stdin/stdout is the\n"
    "                                    JDWP stream, e.g. 'kubectl exec -i pod -- jdwpx-bridge\n"
    "                                    connect unix:/tmp/jdwp.sock'\n"
    "  --targets FILE                    one target a line: HOST:PORT, unix:PATH, exec COMMAND\n"
    "  --kube SELECTOR [--namespace NS] [--container C] [--kube-socket ADDRESS]\n"
    "        [--kube-bridge PATH]        every pod of kubectl get pods -l SELECTOR, through\n"
    "                                    kubectl exec -i POD -- PATH connect ADDRESS\n"
    "                                    (defaults /jdwpx/jdwpx-bridge, unix:/tmp/jdwp.sock)\n"
    "LOCATION: pkg.Class:line, pkg.Outer$Inner:line, File.java:line or pkg.Class.method\n"
    "TEMPLATE: the message, with {expression} holes\n"
    "  --if EXPR          only hits where EXPR (a Java expression) holds\n"
    "  --max N            end a target after N lines from it (snapshot: 1)\n"
    "  --for SECONDS      end the run after this long\n"
    "  --format F         json: one object a line (the default when stdout is no terminal);\n"
    "                     text: for people (the default on a terminal)\n"
    "  --budget PERCENT   the CPU budget for probes in each JVM, percent of a core (1)\n"
    "  --rate N           output lines a second per probe (100)\n"
    "  --depth D          snapshot: object depth (3);  --frames F: frames (20)\n"
    "Exit status: 0; 1 when a target failed (each named on stderr); 2 for a wrong command line.\n";

int Main(int argc, char** argv) {
  if (argc < 2) return jdwpx::tools::UsageError(kTool, "", kUsage);
  CLI::App app{"probes on one JVM or many", kTool};
  jdwpx::tools::AddStandardFlags(app);
  app.require_subcommand(1);

  std::vector<std::string> connects, execs, target_files;
  probe::KubeOptions kube;
  CLI::Option* connect_option = app.add_option("--connect", connects, "HOST:PORT or unix:PATH")->allow_extra_args(false);
  CLI::Option* exec_option = app.add_option("--exec", execs, "a command whose stdin/stdout is the JDWP stream")->allow_extra_args(false);
  CLI::Option* file_option = app.add_option("--targets", target_files, "a file of targets, one a line")->allow_extra_args(false);
  CLI::Option* kube_option = app.add_option("--kube", kube.selector, "a pod label selector");
  app.add_option("--namespace", kube.namespace_name, "the pods' namespace")->needs(kube_option);
  app.add_option("--container", kube.container, "the JVM's container")->needs(kube_option);
  app.add_option("--kube-socket", kube.socket, "the JVM's address in the pod")->needs(kube_option);
  app.add_option("--kube-bridge", kube.bridge, "jdwpx-bridge's path in the pod")->needs(kube_option);

  Probe::Set::Request request;
  std::string format_name;
  double budget_percent = 0;
  int64_t max = 0;
  double for_seconds = 0;
  const auto add_common = [&](CLI::App* sub) {
    sub->fallthrough();
    sub->add_option("--if", request.condition, "a condition");
    sub->add_option("--max", max, "lines per target")->check(CLI::PositiveNumber);
    sub->add_option("--for", for_seconds, "seconds")->check(CLI::PositiveNumber);
    sub->add_option("--format", format_name, "json or text")->check(CLI::IsMember({"json", "text"}));
    sub->add_option("--budget", budget_percent, "percent of one core")->check(CLI::Range(0.0001, 6400.0));
  };
  CLI::App* log = app.add_subcommand("log", "a logpoint");
  log->add_option("LOCATION", request.location, "where")->required();
  log->add_option("TEMPLATE", request.message_template, "the message")->required();
  log->add_option("--rate", request.rate, "lines a second")->check(CLI::PositiveNumber);
  add_common(log);
  CLI::App* snapshot = app.add_subcommand("snapshot", "a snapshot of the stack");
  snapshot->add_option("LOCATION", request.location, "where")->required();
  snapshot->add_option("--depth", request.max_depth, "object depth")->check(CLI::PositiveNumber);
  snapshot->add_option("--frames", request.max_frames, "frames")->check(CLI::PositiveNumber);
  add_common(snapshot);

  if (auto status = jdwpx::tools::Parse(app, argc, argv, kUsage)) return *status;

  probe::RunOptions options;
  // Targets in the order given, whatever their kinds.
  size_t next_connect = 0, next_exec = 0, next_file = 0;
  for (const CLI::Option* option : app.parse_order()) {
    if (option == connect_option) {
      auto target = probe::ConnectTarget(connects.at(next_connect++));
      if (!target) return jdwpx::tools::UsageError(kTool, target.error(), kUsage);
      options.targets.push_back(std::move(*target));
    } else if (option == exec_option) {
      options.targets.push_back(probe::ExecTarget(execs.at(next_exec++)));
    } else if (option == file_option) {
      auto targets = probe::ReadTargetsFile(target_files.at(next_file++));
      if (!targets) return jdwpx::tools::UsageError(kTool, targets.error(), kUsage);
      options.targets.insert(options.targets.end(), targets->begin(), targets->end());
    } else if (option == kube_option) {
      auto targets = probe::KubeTargets(kube);
      if (!targets) {
        std::fprintf(stderr, "%s: %s\n", kTool, targets.error().c_str());
        return probe::kExitFailed;
      }
      options.targets.insert(options.targets.end(), targets->begin(), targets->end());
    }
  }
  if (options.targets.empty()) {
    return jdwpx::tools::UsageError(kTool, "no target: give --connect, --exec, --targets or --kube", kUsage);
  }

  request.kind = log->parsed() ? Probe::Kind::kLog : Probe::Kind::kSnapshot;
  // A snapshot is of the first hit unless --max says more.
  if (request.kind == Probe::Kind::kSnapshot && max == 0) max = 1;
  request.max_hits = static_cast<int32_t>(std::min<int64_t>(max, INT32_MAX));
  request.budget_ppm = static_cast<int32_t>(std::lround(budget_percent * 10000));
  options.probe = request;
  options.max_lines = max;
  options.for_seconds = for_seconds;
  options.format = format_name.empty() ? (isatty(STDOUT_FILENO) ? probe::Format::kText : probe::Format::kJson)
                   : format_name == "text" ? probe::Format::kText
                                           : probe::Format::kJson;
  return probe::Run(options);
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
