// The kernel is in <wild/stencil.cuh>, found with -I tests/data/wild/include.
#include <wild/stencil.cuh>
