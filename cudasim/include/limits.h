// cudasim's <limits.h> for NVRTC: the same as its <climits>.
#pragma once
#include <climits>
