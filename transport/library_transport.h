// transport=<name> other than dt_socket: lib<name>.so driven through the JDK's
// transport library interface (jdwpTransport.h). Internal to transport/;
// Transport::Open chooses it.
#pragma once

#include <memory>

#include <tl/expected.hpp>

#include "transport/transport.h"

namespace jdwpx::transport {

// Loads lib<config.name>.so as stock does (config.library_path first, then the
// system's search), asks jdwpTransport_OnLoad for version 1.1 then 1.0, and
// starts listening (server) — with stock's failure texts.
tl::expected<std::unique_ptr<Transport>, TransportError> OpenLibraryTransport(const Config& config,
                                                                              Listener* listener);

}  // namespace jdwpx::transport
