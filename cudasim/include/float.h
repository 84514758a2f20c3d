// cudasim's <float.h> for NVRTC: the same as its <cfloat>.
#pragma once
#include <cfloat>
