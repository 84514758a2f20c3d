// cudasim's <stdint.h> for NVRTC: the same as its <cstdint>.
#pragma once
#include <cstdint>
