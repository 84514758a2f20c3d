// cudasim's <assert.h> for NVRTC: the same as its <cassert>.
#pragma once
#include <cassert>
