#include "fuzz_micro_input.h"
