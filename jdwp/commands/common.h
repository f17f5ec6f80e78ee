// What every layout header needs: the codec (JDWP_FIELDS), IDs, constants, CommandId.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "jdwp/codec.h"
#include "jdwp/constants.h"
#include "jdwp/packet.h"
#include "jdwp/types.h"
