// The translation unit that includes llm.c's kernel headers, as train_gpt2.cu includes them
// (llmc/cuda_utils.cuh, llmc/layernorm.cuh): the kernel itself lives in the header. llm.c's
// kernel is C++; it is declared extern "C" in the header so that a harness finds it by name.
#include "llmc/cuda_utils.cuh"
#include "llmc/layernorm.cuh"
