// cudasim's <math.h> for NVRTC: the same as its <cmath>.
#pragma once
#include <cmath>
