// Includes a header of its own that is not beside it: without -I DIR it cannot be found.
#include "stencil.cuh"
