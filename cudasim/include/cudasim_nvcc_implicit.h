// What nvcc's implicit cuda_runtime.h gives device code and NVRTC does not: <math.h> (INFINITY,
// NAN, HUGE_VALF, M_PI, std::sqrt, ...) and <limits.h> (INT_MAX, ...). cudasim.compile includes
// it first only where NVRTC stopped at one of those names, so other kernels compile as before.
#pragma once
#include <cmath>
#include <climits>
