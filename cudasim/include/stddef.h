// cudasim's <stddef.h> for NVRTC: the same as its <cstddef>.
#pragma once
#include <cstddef>
