// cudasim's <stdio.h> for NVRTC: the same as its <cstdio>.
#pragma once
#include <cstdio>
