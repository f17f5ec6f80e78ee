// The command line both tools share, parsed by CLI11: -h/--help prints the
// tool's usage on stdout and exits 0, --version its version and exits 0, and
// anything wrong prints one line and the usage on stderr and exits 2.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <jdwpx_version.h>

namespace jdwpx::tools {

inline constexpr int kExitUsage = 2;

// "jdwpx-trace (jdwpx) 0.1.0 (bd27f9f)"
inline std::string VersionLine(const std::string& tool) {
  return tool + " (jdwpx) " + kRelease + " (" + kBuild + ")";
}

// The usage on stderr after "<tool>: <problem>" (none for an empty problem): exit 2.
inline int UsageError(const std::string& tool, const std::string& problem, const char* usage) {
  if (!problem.empty()) std::fprintf(stderr, "%s: %s\n", tool.c_str(), problem.c_str());
  std::fputs(usage, stderr);
  return kExitUsage;
}

// Adds -h/--help and --version; call before adding subcommands (they copy the
// help flag). `usage` is the tool's own text, kept in step with its man page.
inline void AddStandardFlags(CLI::App& app) {
  app.set_help_flag("-h,--help", "print the usage and exit");
  app.set_version_flag("--version", VersionLine(app.get_name()), "print the version and exit");
}

// Parses argv (argc arguments) into what `app` declares. nullopt when the tool
// goes on; else the status to exit with, after --help, --version or an error.
inline std::optional<int> Parse(CLI::App& app, int argc, const char* const* argv, const char* usage) {
  // A first word that names no command: CLI11 would only say "A subcommand is required".
  if (argc >= 2 && argv[1][0] != '-') {
    const auto named = app.get_subcommands([&](const CLI::App* sub) { return sub->check_name(argv[1]); });
    if (named.empty()) return UsageError(app.get_name(), "unknown command '" + std::string(argv[1]) + "'", usage);
  }
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::fputs(usage, stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(usage, stdout);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    return UsageError(app.get_name(), e.what(), usage);
  }
}

}  // namespace jdwpx::tools
